"""Where measured results live, and how a run survives being stopped.

Each ``python -m chesslab results ...`` command writes data/results/NAME.json
(``result_path``); a long run appends every finished job to a checkpoint
(``checkpoint_path``, data/results/partial/) and a rerun plays only the jobs it lacks.
Every match in every results file is one record (``MatchResult.record``);
``matches.match.read_record`` reads the older spellings too. A record's score, interval,
Elo and summary are derived from its wins, draws and losses (``matches.match.stale_fields``
says which stored ones an older rule wrote); ``rerate_results_file`` (``python -m chesslab
results rerate-matches``) rewrites every stale record of a file, and ``record_match``
writes no stale record back. Every writer that updates a results file in place does it
under that file's lock (``base.files.updating_json``), so two results commands writing one
file at once (two terminals, two Dask jobs) both keep their rows.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import platform
from pathlib import Path

from chesslab.base.files import (RESULTS_DIR, file_lock, file_name, read_json, updating_json,
                                 write_json_atomic)
from chesslab.base.parallel import resumable_map
from chesslab.base.stockfish import engine_name
from chesslab.matches.match import is_match_record, read_record, rerated_record, stale_fields
from chesslab.matches.specs import parse_spec


def stamp() -> dict:
    """When and where a result was measured."""
    return {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
            "machine": platform.machine()}


def engine_stamp(specs) -> dict:
    """``{"stockfish": its own name}`` when one of ``specs`` is a Stockfish player (its
    strength and its UCI_Elo calibration change between versions, so a result records
    which one played); ``{}`` otherwise."""
    if any(parse_spec(spec).name == "stockfish" for spec in specs):
        return {"stockfish": engine_name()}
    return {}


def result_path(name: str) -> Path:
    """Where the results file ``name`` lives (data/results/NAME.json)."""
    return RESULTS_DIR / f"{name}.json"


def checkpoint_path(name: str) -> Path:
    """Where an unfinished run named ``name`` keeps its finished jobs."""
    return RESULTS_DIR / "partial" / f"{file_name(name)}.jsonl"


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
    the file holds is kept, also what another command writes meanwhile (the file's lock)."""
    path = Path(path or result_path("matches"))
    same = tuple(read_record(entry).get(k) for k in key)
    with updating_json(path, "results file", lambda: {"matches": []}, indent=1) as doc:
        doc["matches"] = [rerated_record(m) for m in doc["matches"]
                          if tuple(read_record(m).get(k) for k in key) != same]
        doc["matches"].append(rerated_record(entry))


def match_records(doc, where: str = ""):
    """Every match record in a results document: ``(where, record)``, where is a path
    such as ``/matches[3]`` (records may sit in lists or under names)."""
    if is_match_record(doc):
        yield where, doc
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from match_records(value, f"{where}/{key}")
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from match_records(value, f"{where}[{i}]")


def match_results_files(directory=None) -> list[Path]:
    """The results files of ``directory`` (default data/results) holding match records."""
    return [f for f in sorted(Path(directory or RESULTS_DIR).glob("*.json"))
            if any(match_records(read_json(f, "results file")))]


def _rerated(doc, changes: list, where: str = ""):
    if is_match_record(doc):
        stale = stale_fields(doc)
        if stale:
            changes.append((where, stale))
            return rerated_record(doc)
        return doc
    if isinstance(doc, dict):
        return {k: _rerated(v, changes, f"{where}/{k}") for k, v in doc.items()}
    if isinstance(doc, list):
        return [_rerated(v, changes, f"{where}[{i}]") for i, v in enumerate(doc)]
    return doc


def rerate_results_file(path, write: bool = True) -> list:
    """Recompute the stale derived fields of every match record in the results file
    ``path`` from its counts (``rerated_record``) and write the file back in its own
    layout; every other byte is kept. Returns ``[(where, stale fields)]``, empty when
    nothing was stale (then the file is not written). ``write=False`` only reports."""
    path = Path(path)
    with file_lock(path) if write else contextlib.nullcontext():
        doc = read_json(path, "results file")
        text = path.read_text(encoding="utf-8")
        indent = 1 if "\n" in text else None
        if json.dumps(doc, indent=indent) != text:
            raise ValueError(f"results file {path} is not in the layout chesslab writes "
                             f"(JSON with indent {indent}), so rewriting it would change more "
                             f"than its match records; rewrite it with the command that made it")
        changes = []
        new = _rerated(doc, changes)
        if changes and write:
            write_json_atomic(path, new, indent=indent)
    return changes


def finite(x):
    return x if x == x and abs(x) != float("inf") else None
