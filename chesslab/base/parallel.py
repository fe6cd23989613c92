"""The one pool of workers: games, self-play and Stockfish labels run through ``parallel_map``.

Every job (a game, a chunk of positions to label) is independent and carries its own
seed, so the results, returned in job order, are the same for any number of workers.

``workers`` is a count (1: this process, no pool; N: N fresh processes) or any
``concurrent.futures.Executor``: a ``ThreadPoolExecutor``, a ``ProcessPoolExecutor`` of
your own, or a distributed one such as Dask's ``Client.get_executor()``, so a teacher
with a lab of machines can spread a long run over them. The function and the jobs must
then be picklable (module-level functions, plain data), as for processes.

``resumable_map`` is ``parallel_map`` for runs of hours: it appends each finished job to
a checkpoint file, and a rerun after a stop plays only the jobs that file lacks.

numpy's BLAS runs on one thread in chesslab (``one_blas_thread``, called when the
package is imported): our matrices are small, and two busy processes on two cores
beat four threads fighting over them.
"""
from __future__ import annotations

import contextlib
import copy
import ctypes
import glob
import json
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from pathlib import Path

__all__ = ["parallel_map", "resumable_map", "executor_for", "one_blas_thread", "BLAS_VARIABLES"]

#: The environment variables that set the BLAS thread count (read when numpy loads):
#: OpenBLAS (numpy's wheels), OpenMP and MKL builds, Apple's Accelerate (numpy's wheels
#: for recent macOS).
BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                  "VECLIB_MAXIMUM_THREADS")


def one_blas_thread() -> None:
    """Run numpy's BLAS on one thread unless the user chose a thread count.

    Our matrices are small: on a 2-core laptop a second BLAS thread mostly fights the
    Jupyter kernel and the AI's search for the CPU (measured: a small forward pass of
    the conv net got many times slower on two threads than on one while the machine was
    busy; ``bench/nn_speed.py`` times both).
    The environment variables work only before numpy is loaded (and are inherited by
    worker processes and notebook kernels); in a notebook numpy is usually loaded first
    (by matplotlib), so the bundled OpenBLAS is also told directly.
    """
    if any(var in os.environ for var in BLAS_VARIABLES):
        return
    for var in BLAS_VARIABLES:
        os.environ[var] = "1"
    try:
        import numpy     # here, not at the top: numpy must load after the variables are set
        for path in bundled_openblas(os.path.dirname(numpy.__file__)):
            lib = ctypes.CDLL(path)
            for name in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                         "openblas_set_num_threads"):
                setter = getattr(lib, name, None)
                if setter is not None:
                    setter(1)
                    break
    except Exception:   # best effort: another BLAS build, or no bundled library
        pass


def bundled_openblas(numpy_dir) -> list:
    """The OpenBLAS libraries numpy's wheel carries: in numpy.libs beside the package on
    Linux and Windows, in numpy/.dylibs on macOS."""
    return sorted(path for folder in (os.path.join(numpy_dir, os.pardir, "numpy.libs"),
                                      os.path.join(numpy_dir, ".dylibs"))
                  for path in glob.glob(os.path.join(folder, "*openblas*")))


@contextlib.contextmanager
def _one_thread_in_children():
    """While a pool starts: its processes run BLAS on one thread, whatever this one does."""
    saved = {k: os.environ.get(k) for k in BLAS_VARIABLES}
    os.environ.update({k: "1" for k in BLAS_VARIABLES})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def parallel_map(function, jobs, workers: int | Executor = 1, on_result=None,
                 chunksize: int = 1, ordered: bool = True) -> list:
    """``[function(job) for job in jobs]``, in this process, in ``workers`` processes, or
    on an executor you pass as ``workers``.

    ``on_result(index, result)`` is called as each result arrives, in job order, so a
    long run can save its finished work as it goes. ``chunksize`` jobs go to a process
    at a time (many small jobs, such as positions to label, travel cheaper in chunks).
    ``ordered=False`` calls ``on_result`` as each job finishes instead (jobs of very
    different lengths, each worth saving at once: a finished job never waits for a
    slower one started before it); the list returned is in job order either way.
    """
    jobs = list(jobs)
    on_result = on_result or (lambda index, result: None)
    if not ordered and (isinstance(workers, Executor) or
                        (isinstance(workers, int) and workers > 1 and len(jobs) > 1)):
        return _as_finished(function, jobs, workers, on_result)
    if isinstance(workers, Executor):
        results = _in_order(workers, function, jobs)
    elif isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a number of processes (1 or more) or a "
                         f"concurrent.futures.Executor, got {workers!r}")
    elif workers == 1 or len(jobs) <= 1:
        results = map(function, jobs)
    else:
        results = _in_processes(function, jobs, workers, chunksize)
    out = []
    for i, result in enumerate(results):
        out.append(result)
        on_result(i, result)
    return out


def _in_order(executor: Executor, function, jobs):
    """Submit every job, then yield the results in job order (any Executor has submit).

    Each job is a copy, as a process would get: a thread pool would otherwise share the
    objects in the jobs, and a network's work buffers are not safe to share between
    threads (two games on one net would change each other's numbers)."""
    futures = [executor.submit(function, copy.deepcopy(job)) for job in jobs]
    try:
        for future in futures:
            yield future.result()
    finally:
        for future in futures:          # an error (or Ctrl-C): drop the jobs not started
            future.cancel()


def _as_finished(function, jobs, workers, on_result) -> list:
    """``parallel_map`` with ``on_result`` called in the order the jobs finish (``workers``
    an Executor or a count above 1: ``parallel_map`` checked it)."""
    with contextlib.ExitStack() as stack:
        executor = (workers if isinstance(workers, Executor)
                    else stack.enter_context(_process_pool(workers, len(jobs))))
        futures = {executor.submit(function, copy.deepcopy(job)): i
                   for i, job in enumerate(jobs)}
        out = [None] * len(jobs)
        try:
            for future in as_completed(futures):
                out[futures[future]] = future.result()
                on_result(futures[future], out[futures[future]])
        finally:
            for future in futures:          # an error (or Ctrl-C): drop the jobs not started
                future.cancel()
    return out


#: The most processes one pool may have: Windows waits on at most 61 (ProcessPoolExecutor
#: refuses more there); the results do not depend on the count.
MAX_PROCESSES = 61 if sys.platform == "win32" else None


@contextlib.contextmanager
def _process_pool(workers: int, jobs: int):
    """A pool of at most ``workers`` fresh processes (spawned, the same on Linux, macOS and
    Windows), each on one BLAS thread and stopping with the run that started it."""
    context = multiprocessing.get_context("spawn")
    count = min(workers, jobs, MAX_PROCESSES or workers)
    with _one_thread_in_children(), \
            ProcessPoolExecutor(count, mp_context=context,
                                initializer=_exit_with_parent,
                                initargs=(os.getpid(),)) as pool:
        yield pool


def _in_processes(function, jobs, workers, chunksize):
    """Yield the results in job order from a pool of fresh processes (closed at the end)."""
    with _process_pool(workers, len(jobs)) as pool:
        yield from pool.map(function, jobs, chunksize=chunksize)


#: How often (seconds) a worker process checks that the run that started it is alive.
PARENT_CHECK_SECONDS = 1.0


def _exit_with_parent(parent_pid: int) -> None:
    """Stop this worker when the run that started it is gone.

    A run killed by ``kill PID`` or the Task Manager (not Ctrl-C, which reaches the whole
    process group) cannot close its pool, and its workers would go on with the jobs they
    hold, for hours in a labelling run, using the cores the next run needs. A watch
    thread waits on the parent multiprocessing gave the worker (its process handle on
    Windows, a pipe on POSIX: either is signalled when the parent ends) and then ends the
    process; a worker started otherwise watches ``getppid`` change (re-parenting, POSIX).
    """
    parent = multiprocessing.parent_process()

    def watch():
        if parent is not None:
            parent.join()
        else:
            while os.getppid() == parent_pid:
                time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def resumable_map(function, jobs, checkpoint=None, workers=1, progress=True, *,
                  key=None, strict: bool = True, on_result=None) -> list:
    """``[function(job) for job in jobs]`` (``workers`` at a time), that survives being
    stopped: each result is appended to ``checkpoint`` (JSON lines: the job and its
    result) as it arrives, and a rerun with the same file runs only the jobs it lacks.

    Jobs and results must be JSON data; results come back as JSON gives them (lists,
    not tuples) whether they were computed now or read from the checkpoint. ``key(job)``
    is what identifies a job in the file (default: the whole job; a tournament's jobs
    carry the players' source files, which the file need not repeat). ``strict=False``
    lets the file hold other jobs too (the earlier rounds of a Swiss event, where each
    round is a call of its own). ``on_result(index, result)`` is called for each job run
    now (not those read back).
    """
    jobs = list(jobs)
    key = key or (lambda job: job)
    keys = [json.dumps(key(job), sort_keys=True) for job in jobs]
    done = _read_checkpoint(checkpoint, keys, strict)
    todo = [i for i in range(len(jobs)) if i not in done]
    if done and progress:
        print(f"resuming from {Path(checkpoint).name}: {len(done)} of {len(jobs)} jobs "
              f"already done")

    def save(k, result):
        result = json.loads(json.dumps(result))
        done[todo[k]] = result
        if checkpoint is not None:
            Path(checkpoint).parent.mkdir(parents=True, exist_ok=True)
            with open(checkpoint, "a", encoding="utf-8", newline="\n") as f:
                f.write(json.dumps({"job": key(jobs[todo[k]]), "result": result}) + "\n")
        if on_result is not None:
            on_result(todo[k], result)

    parallel_map(function, [jobs[i] for i in todo], workers, on_result=save)
    return [done[i] for i in range(len(jobs))]


def _read_checkpoint(path, keys, strict: bool = True) -> dict:
    """{job index: result} of the jobs a stopped run of the same jobs already did."""
    if path is None or not Path(path).exists():
        return {}
    index = {key: i for i, key in enumerate(keys)}
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    done = {}
    for n, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            job = json.dumps(row["job"], sort_keys=True)
            if job in index:
                done[index[job]] = row["result"]
            elif strict:
                raise KeyError(job[:80])
        except (ValueError, KeyError, TypeError) as e:
            if n == len(lines) and isinstance(e, ValueError):
                break        # the last line of a run killed mid-write
            raise ValueError(f"{path}, line {n}: not a job of this run ({e}); delete the "
                             f"file to start again") from None
    return done


@contextlib.contextmanager
def executor_for(workers: int | None = None, scheduler: str | None = None):
    """``with executor_for(workers, scheduler) as pool:`` what ``parallel_map`` takes as
    ``workers``: the count itself (default 1), or, with ``scheduler`` (a Dask address such
    as ``tcp://HOST:8786``), an executor over that cluster's workers, closed at the end.

    Dask is imported only here: chesslab works without it. Every machine of the cluster
    needs the same chesslab installed (the jobs name its functions).
    """
    if scheduler is None:
        yield 1 if workers is None else workers
        return
    if workers is not None:
        raise ValueError("give either a number of local workers or a Dask scheduler "
                         "address, not both")
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("a Dask scheduler needs Dask distributed on this machine: "
                         "python -m pip install -r requirements-teacher.txt") from None
    try:
        client = Client(scheduler, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler} ({exc}); start "
                         f"it with `dask scheduler` on that machine and one `dask worker "
                         f"{scheduler} --nthreads 1` per machine, or check the address "
                         f"(tcp://HOST:8786)") from None
    try:
        try:
            client.wait_for_workers(1, timeout=30)
        except (OSError, TimeoutError):
            raise ValueError(f"the Dask scheduler at {scheduler} has no workers: start "
                             f"one per machine with `dask worker {scheduler} --nthreads "
                             f"1`") from None
        yield client.get_executor()
    finally:
        client.close()
