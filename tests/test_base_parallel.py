"""chesslab.base.parallel: one pool for every parallel job, any executor, one BLAS thread."""
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from chesslab.base import parallel
from chesslab.base.parallel import bundled_openblas, executor_for, parallel_map, resumable_map

#: Every variable a BLAS library reads its thread count from.
BLAS_NAMES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def square(x):
    return x * x


def blas_threads(_job):
    return [os.environ.get(name) for name in BLAS_NAMES]


def fails_on_three(x):
    if x == 3:
        raise ArithmeticError(f"job {x} failed")
    return x


@pytest.mark.parametrize("workers", [1, 2, "threads"])
def test_results_and_callbacks_come_in_job_order(workers):
    jobs = list(range(12))
    calls = []
    if workers == "threads":
        with ThreadPoolExecutor(3) as executor:
            out = parallel_map(square, jobs, executor, on_result=lambda i, r: calls.append((i, r)))
    else:
        out = parallel_map(square, jobs, workers, on_result=lambda i, r: calls.append((i, r)),
                           chunksize=4)
    assert out == [j * j for j in jobs]
    assert calls == list(enumerate(out))


def slow_first(x):
    time.sleep(1.0 if x == 0 else 0.0)
    return x * x


@pytest.mark.parametrize("workers", [2, "threads"])
def test_unordered_callbacks_come_as_jobs_finish_and_the_list_in_job_order(workers):
    calls = []
    save = lambda i, r: calls.append((i, r))     # noqa: E731
    if workers == "threads":
        with ThreadPoolExecutor(2) as executor:
            out = parallel_map(slow_first, range(6), executor, on_result=save, ordered=False)
    else:
        out = parallel_map(slow_first, range(6), workers, on_result=save, ordered=False)
    assert out == [j * j for j in range(6)]
    assert sorted(calls) == list(enumerate(out))
    assert calls[-1] == (0, 0)              # the slow first job did not hold the others back
    with pytest.raises(ValueError, match="workers must be"):
        parallel_map(square, range(3), 0, ordered=False)


def test_an_executor_really_runs_the_jobs_on_its_threads():
    names = set()

    def where(job):
        names.add(threading.current_thread().name)
        return job

    with ThreadPoolExecutor(2, thread_name_prefix="lab") as executor:
        assert parallel_map(where, range(8), executor) == list(range(8))
    assert names and all(name.startswith("lab") for name in names)


def test_a_failing_job_raises_and_the_rest_is_dropped():
    with ThreadPoolExecutor(1) as executor:
        with pytest.raises(ArithmeticError, match="job 3 failed"):
            parallel_map(fails_on_three, range(50), executor)
    with pytest.raises(ArithmeticError, match="job 3 failed"):
        parallel_map(fails_on_three, range(5), 1)


@pytest.mark.parametrize("workers", [0, -2, 1.5, True, "2", None])
def test_a_senseless_worker_count_is_a_clear_error(workers):
    with pytest.raises(ValueError, match="workers must be a number of processes .* or a "
                                         "concurrent.futures.Executor"):
        parallel_map(square, [1, 2], workers)


def test_worker_processes_get_one_blas_thread_and_ours_is_restored(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    seen = parallel_map(blas_threads, [0, 1], 2)
    assert seen == [["1", "1", "1"]] * 2                   # every BLAS, in every worker
    assert blas_threads(None) == ["4", "3", None]          # ours as they were, unset stays unset


@pytest.mark.parametrize("where, name", [
    ("numpy.libs", "libscipy_openblas64_-32a4b2a6.so"),           # Linux
    ("numpy.libs", "libscipy_openblas64_-fb1711452d4d8cee9f276fd1449ee5c7.dll"),  # Windows
    ("numpy/.dylibs", "libscipy_openblas64_.dylib")])              # macOS
def test_numpys_own_openblas_is_found_on_each_system(tmp_path, where, name):
    (tmp_path / "numpy").mkdir()
    (tmp_path / where).mkdir(exist_ok=True)
    (tmp_path / where / name).write_bytes(b"")
    (tmp_path / where / "libgfortran-040039e1.so.5.0.0").write_bytes(b"")
    found = bundled_openblas(str(tmp_path / "numpy"))
    assert [os.path.basename(path) for path in found] == [name]
    assert os.path.samefile(found[0], tmp_path / where / name)


def process_id(_job):
    return os.getpid()


def test_a_pool_never_has_more_processes_than_the_system_allows(monkeypatch):
    monkeypatch.setattr(parallel, "MAX_PROCESSES", 1)    # Windows: 61 (a pool refuses more)
    pids = parallel_map(process_id, range(3), workers=3)
    assert len(set(pids)) == 1 and os.getpid() not in pids


def test_resumable_map_runs_only_the_jobs_a_stopped_run_lacks(tmp_path):
    path = tmp_path / "run.jsonl"
    calls = []

    def square(job):
        calls.append(job)
        return {"job": job, "square": (job[0] ** 2, "tuple")}

    first = resumable_map(square, [[1], [2], [3]], path, progress=False)
    assert first[1] == {"job": [2], "square": [4, "tuple"]}      # JSON shapes, fresh or not
    path.write_text("\n".join(path.read_text(encoding="utf-8").splitlines()[:2]) + "\n")   # job 3 was lost
    calls.clear()
    again = resumable_map(square, [[1], [2], [3]], path, progress=False)
    assert calls == [[3]] and again == first


def test_resumable_map_keys_jobs_and_may_share_its_file_with_other_runs(tmp_path):
    path = tmp_path / "run.jsonl"
    jobs = [{"id": k, "payload": "x" * 1000} for k in range(3)]
    seen = []
    resumable_map(square_of_id, jobs, path, progress=False, key=lambda job: job["id"],
                  on_result=lambda i, result: seen.append((i, result)))
    assert seen == [(0, 0), (1, 1), (2, 4)]
    assert "payload" not in path.read_text(encoding="utf-8")                 # the key, not the whole job
    later = [{"id": k, "payload": ""} for k in (2, 3)]       # a later round, same file
    seen.clear()
    assert resumable_map(square_of_id, later, path, progress=False, strict=False,
                         key=lambda job: job["id"], on_result=lambda i, r: seen.append(i)) \
        == [4, 9]
    assert seen == [1]                                       # job 2 was read back
    with pytest.raises(ValueError, match="not a job of this run"):
        resumable_map(square_of_id, later[:1], path, progress=False,
                      key=lambda job: job["id"])


def square_of_id(job):
    return job["id"] ** 2


def test_executor_for_gives_a_count_without_a_scheduler_and_refuses_both():
    with executor_for() as workers:
        assert workers == 1
    with executor_for(3) as workers:
        assert workers == 3
    with pytest.raises(ValueError, match="not both"):
        with executor_for(2, "tcp://127.0.0.1:1"):
            pass


def _append_and_count(job):
    job.append(1)
    return len(job)


def test_an_executors_jobs_are_copies_as_in_a_process():
    shared = []                       # one object in every job: a thread pool must not share it
    with ThreadPoolExecutor(2) as executor:
        assert parallel_map(_append_and_count, [shared] * 4, executor) == [1, 1, 1, 1]
    assert shared == []


def sleep_after_noting_pid(folder):
    """A long job that leaves its process id where the test can find it."""
    Path(folder, str(os.getpid())).write_text("")
    time.sleep(120)


def _alive(pid: int) -> bool:
    """Running (a zombie no one has reaped yet has stopped: it counts as gone)."""
    try:
        os.kill(pid, 0)
        status = Path(f"/proc/{pid}/status")
        return not (status.exists() and "State:\tZ" in status.read_text(encoding="utf-8"))
    except (ProcessLookupError, FileNotFoundError):
        return False


@pytest.mark.skipif(os.name != "posix", reason="workers are re-parented on POSIX only")
def test_workers_stop_when_their_run_is_killed(tmp_path):
    """`kill PID` of a run (not Ctrl-C) must not leave its workers running its jobs."""
    script = ("import sys, tests.test_base_parallel as t\n"
              "from chesslab.base.parallel import parallel_map\n"
              "parallel_map(t.sleep_after_noting_pid, [sys.argv[1]] * 2, 2)\n")
    run = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)],
                           cwd=Path(__file__).parent.parent)
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.iterdir())) < 2:
            assert time.monotonic() < deadline and run.poll() is None, "workers never started"
            time.sleep(0.1)
        workers = [int(p.name) for p in tmp_path.iterdir()]
        assert all(_alive(pid) for pid in workers)
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers)
    finally:
        run.kill()
        for p in tmp_path.iterdir():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(p.name), signal.SIGKILL)
