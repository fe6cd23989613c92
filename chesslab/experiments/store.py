"""Where measured results live, and how a run survives being stopped.

Each ``python -m chesslab results ...`` command writes data/results/NAME.json
(``result_path``); a long run appends every finished job to a checkpoint
(``checkpoint_path``, data/results/partial/) and a rerun plays only the jobs it lacks.
Every match in every results file is one record (``MatchResult.record``);
``matches.match.read_record`` reads the older spellings too. A record's score, interval,
Elo and summary are derived from its wins, draws and losses: ``stale_fields`` says which
stored ones disagree with the current rule (Wilson's interval), ``rerated_record`` gives
them again, and ``rerate_results_file`` (``python -m chesslab results rerate-matches``)
rewrites every stale record of a file; ``record_match`` writes no stale record back.
"""
from __future__ import annotations

import datetime
import json
import platform
from pathlib import Path

from chesslab.base.files import RESULTS_DIR, read_json, write_json_atomic
from chesslab.base.parallel import resumable_map
from chesslab.matches.match import MatchResult, read_record
from chesslab.matches.rating import INTERVAL_KEY


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
    doc["matches"] = [rerated_record(m) for m in doc["matches"]
                      if tuple(read_record(m).get(k) for k in key) != same]
    doc["matches"].append(rerated_record(entry))
    write_json_atomic(path, doc, indent=1)


#: The fields of a match record computed from its wins, draws and losses
#: (``MatchResult.record``).
DERIVED_FIELDS = ("score", INTERVAL_KEY, "elo", "elo_error", "summary")
#: Older names of the score's interval: ``ci95`` held a normal interval (score +- 1.96
#: standard errors), not Wilson's; a rerated record has ``interval95`` in its place.
LEGACY_INTERVALS = ("ci95", "score_95")
#: How far a stored number may sit from the recomputed one and still agree: the rounding
#: ``MatchResult.record`` applies (older records kept every digit).
_TOLERANCE = {"score": 5e-5, INTERVAL_KEY: 5e-5, "elo": 0.05, "elo_error": 0.05}


def is_match_record(obj) -> bool:
    """Whether ``obj`` is a stored match: whole wins, draws and losses and at least one
    field derived from them (a table of counts alone, such as a tournament's pairs, is
    not)."""
    return (isinstance(obj, dict)
            and all(type(obj.get(k)) is int for k in ("wins", "draws", "losses"))
            and any(k in obj for k in DERIVED_FIELDS + LEGACY_INTERVALS))


def _counted(record: dict) -> MatchResult:
    wins, draws, losses = (record[k] for k in ("wins", "draws", "losses"))
    games = record.get("games")
    if type(games) is int and games != wins + draws + losses:
        raise ValueError(f"match record {_names(record)!r} has games={games} but "
                         f"+{wins} ={draws} -{losses}: its counts disagree, so nothing can be "
                         f"derived from them; replay the match or correct its counts")
    named = read_record(record)
    return MatchResult(str(named.get("a", "a")), str(named.get("b", "b")), wins, draws, losses)


def _names(record: dict) -> str:
    """The players as the stored summary names them (the text before the counts; some
    files name the setting there too), else "a vs b"."""
    counts = f": +{record['wins']} ={record['draws']} -{record['losses']}  "
    summary = record.get("summary")
    if isinstance(summary, str) and counts in summary:
        return summary.split(counts, 1)[0]
    named = read_record({k: v for k, v in record.items() if k not in LEGACY_INTERVALS})
    return f"{named.get('a', 'a')} vs {named.get('b', 'b')}"


def _derived(record: dict) -> dict:
    """The derived fields of ``record`` by the current rule, its summary naming the
    players as the stored one does."""
    result = _counted(record)
    current = {k: v for k, v in result.record().items() if k in DERIVED_FIELDS}
    own = f"{result.player_a} vs {result.player_b}"
    current["summary"] = _names(record) + current["summary"][len(own):]
    return current


def _agrees(key: str, stored, current) -> bool:
    if key not in _TOLERANCE or stored is None or current is None:
        return stored == current
    if key == INTERVAL_KEY:
        return (isinstance(stored, (list, tuple)) and len(stored) == 2
                and all(_agrees("score", s, c) for s, c in zip(stored, current)))
    return (isinstance(stored, (int, float)) and not isinstance(stored, bool)
            and abs(stored - current) <= _TOLERANCE[key] + 1e-9)


def stale_fields(record: dict) -> list[str]:
    """The stored fields of a match record that its counts no longer give by the current
    rule (beyond the rounding ``MatchResult.record`` applies): a normal interval stored as
    Wilson's, a summary in an older format, any legacy interval field (``ci95``)."""
    current = _derived(record)
    return ([k for k in DERIVED_FIELDS
             if k in record and not _agrees(k, record[k], current[k])]
            + [k for k in LEGACY_INTERVALS if k in record])


def rerated_record(record: dict) -> dict:
    """``record`` with each stale field (``stale_fields``) recomputed from its counts, in its
    place; a legacy interval becomes ``interval95``. Every other field, and a record
    with nothing stale, is returned unchanged."""
    if not is_match_record(record):
        return record
    stale = stale_fields(record)
    if not stale:
        return record
    current, out = _derived(record), {}
    for key, value in record.items():
        if key in LEGACY_INTERVALS:
            if INTERVAL_KEY not in record and INTERVAL_KEY not in out:
                out[INTERVAL_KEY] = current[INTERVAL_KEY]
        else:
            out[key] = current[key] if key in stale else value
    return out


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
    doc = read_json(path, "results file")
    text = path.read_text(encoding="utf-8")
    indent = 1 if "\n" in text else None
    if json.dumps(doc, indent=indent) != text:
        raise ValueError(f"results file {path} is not in the layout chesslab writes (JSON "
                         f"with indent {indent}), so rewriting it would change more than its "
                         f"match records; rewrite it with the command that made it")
    changes = []
    new = _rerated(doc, changes)
    if changes and write:
        write_json_atomic(path, new, indent=indent)
    return changes


def finite(x):
    return x if x == x and abs(x) != float("inf") else None
