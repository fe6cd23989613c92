"""Where measured results live, and how a run survives being stopped.

Each ``python -m chesslab results ...`` command writes data/results/NAME.json
(``result_path``); a long run appends every finished job to a checkpoint
(``checkpoint_path``, data/results/partial/) and a rerun plays only the jobs it lacks.
Every match in every results file is one record (``MatchResult.record``);
``matches.match.read_record`` reads the older spellings too.
"""
from __future__ import annotations

import datetime
import platform
from pathlib import Path

from chesslab.base.files import RESULTS_DIR, read_json, write_json_atomic
from chesslab.base.parallel import resumable_map
from chesslab.matches.match import read_record


def stamp() -> dict:
    """When and where a result was measured."""
    return {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
            "machine": platform.machine()}


def result_path(name: str) -> Path:
    """Where the results file ``name`` lives (data/results/NAME.json)."""
    return RESULTS_DIR / f"{name}.json"


def checkpoint_path(name: str) -> Path:
    """Where an unfinished run named ``name`` keeps its finished jobs."""
    return RESULTS_DIR / "partial" / f"{name}.jsonl"


def run_checkpointed(name: str, function, jobs, workers=1, progress=True) -> list:
    """``resumable_map`` with the checkpoint ``checkpoint_path(name)``, deleted once
    every job is done."""
    checkpoint = checkpoint_path(name)
    results = resumable_map(function, jobs, checkpoint, workers, progress)
    checkpoint.unlink(missing_ok=True)
    return results


#: What makes two entries of matches.json the same match (a rerun replaces it): the
#: players, their models, games, seed and the time control (a match on a clock never
#: replaces one at a time per move; older entries have none).
MATCH_KEY = ("a", "b", "a_model", "b_model", "games", "seed", "time_control")


def record_match(entry: dict, path=None, key=MATCH_KEY) -> None:
    """Add ``entry`` to the "matches" of a results file (default matches.json), replacing
    one with the same values at ``key`` (a rerun, not a second result); whatever else
    the file holds is kept."""
    path = Path(path or result_path("matches"))
    doc = read_json(path, "results file") if path.exists() else {"matches": []}
    same = tuple(read_record(entry).get(k) for k in key)
    doc["matches"] = [m for m in doc["matches"]
                      if tuple(read_record(m).get(k) for k in key) != same]
    doc["matches"].append(entry)
    write_json_atomic(path, doc, indent=1)


def finite(x):
    return x if x == x and abs(x) != float("inf") else None
