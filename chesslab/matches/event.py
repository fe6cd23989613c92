"""The class event: a folder of students' files against each other or the course's ladder.

``run_tournament(folder, format=..., games=..., move_time=...)`` is what
``python -m chesslab tournament`` and notebook 13 call. Each submission plays in its own
process (``isolation.IsolatedPlayer``): a fault (a late move, an exception, an illegal
answer, a process that dies) loses that game and is recorded; a file that does not load
is withdrawn with its reason; the event goes on. The teacher's process never imports a
submission: loading is checked in a child process too.

Each game is a job (``play_tournament_game``, plain data in and out) for
``parallel_map``: local processes or a Dask cluster, the same results either way, since
every game's seed comes from its pairing (``formats.games_of``). With ``out`` each
finished game is appended to ``OUT.games.jsonl`` (``resumable_map``), so a stopped event
rerun with the same ``out`` plays only the games it lacks.

The ladder's players are course code and play in the worker's process. They search to a
fixed depth, so their games do not depend on how busy a machine is; their ratings,
measured once by ``python -m chesslab results event-ladder`` (``rate_ladder``), put the
students' Elo on a fixed scale.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import chess
from tqdm.auto import tqdm

from chesslab.base.files import RESULTS_DIR, check_writable, read_json, write_json_atomic
from chesslab.base.parallel import parallel_map, resumable_map
from chesslab.board.game import play_game
from chesslab.board.rules import adjudicate_material, check_max_plies, points
from chesslab.matches import formats
from chesslab.matches.isolation import IsolatedPlayer, PlayerFault, probe_submission
from chesslab.matches.players import is_available, make_player
from chesslab.matches.rating import INTERVAL_KEY, bradley_terry, wilson_interval

__all__ = ["LADDER", "ANCHOR_PATH", "run_tournament", "play_tournament_game", "rate_ladder",
           "find_submissions", "format_standings", "format_faults", "ladder_anchors"]

#: The course's players every submission meets in a gauntlet, weakest first.
LADDER = ("random", "material:1", "pst:1", "pst:2", "nnue:2", "nnue:3")
#: The ladder's measured ratings (``python -m chesslab results event-ladder``).
ANCHOR_PATH = RESULTS_DIR / "ladder_anchor.json"
#: The player whose rating fixes the ladder's scale, and that rating (Stockfish's own).
ANCHOR_SPEC, ANCHOR_ELO = "stockfish:1350", 1350.0


def find_submissions(folder) -> list[dict]:
    """The submissions in ``folder`` (``*.py`` not starting with ``_``) as text, by file
    name; read, never imported."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no folder {folder}: give the folder that holds the "
                                f"students' .py files")
    files = sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    if not files:
        raise FileNotFoundError(f"no submissions in {folder}: each student's player is "
                                f"one .py file there (copy players/_template.py)")
    out = []
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        out.append({"file": path.name, "name": path.stem, "source": source,
                    "sha": hashlib.sha256(source.encode()).hexdigest()[:12]})
    return out


def ladder_anchors(ladder, path=ANCHOR_PATH) -> tuple[dict, str]:
    """``({spec: elo}, what the scale is)``: the stored ratings when they cover the whole
    ladder, else no anchors (ratings relative, mean 0) and the reason."""
    path = Path(path)
    if not path.exists():
        return {}, (f"relative (mean 0): no stored ladder ratings ({path.name}; make it "
                    f"with `python -m chesslab results event-ladder`)")
    stored = read_json(path, "ladder ratings")["ratings"]
    missing = [spec for spec in ladder if spec not in stored]
    if missing:
        return {}, f"relative (mean 0): {', '.join(missing)} not in {path.name}"
    return ({spec: stored[spec] for spec in ladder},
            f"anchored on the ladder's stored ratings ({path.name}; {ANCHOR_SPEC} = "
            f"{ANCHOR_ELO:g})")


# ------------------------------------------------------------------ one game, a job
def play_tournament_game(job: dict) -> dict:
    """Play one game of the event (a worker's job; plain data in and out).

    ``job["white"]``/``["black"]``: ``{"name", "spec"}`` for a ladder player or
    ``{"name", "file", "source"}`` for a submission. A ``PlayerFault`` ends the game:
    the faulty side loses and the fault is in the record.
    """
    colors = {"white": chess.WHITE, "black": chess.BLACK}
    players, moves = {}, []
    try:
        for side, color in colors.items():
            who = job[side]
            seed = job["seed"] + (color == chess.BLACK)
            players[side] = (make_player(who["spec"], seed=seed) if "spec" in who else
                             IsolatedPlayer(who["name"], who["source"], job["move_time"],
                                            job["grace"], seed=seed, filename=who["file"]))
        fault = None
        try:
            game = play_game(players["white"], players["black"],
                             opening=job["opening"] or None, max_plies=job["max_plies"],
                             adjudicate=adjudicate_material,
                             on_move=lambda board, move, player: moves.append(move.uci()))
            result, termination = game.headers["Result"], game.headers["Termination"]
        except PlayerFault as exc:
            loser = "white" if chess.Board(exc.fen).turn == chess.WHITE else "black"
            result = "0-1" if loser == "white" else "1-0"
            termination = f"forfeit: {exc.kind}"
            fault = {"player": job[loser]["name"], "game": game_name(job), "ply": exc.ply,
                     "fen": exc.fen, "what": exc.kind, "detail": exc.detail}
    finally:
        for player in players.values():
            player.close()
    return {"round": job["round"], "white": job["white"]["name"],
            "black": job["black"]["name"], "index": job["index"], "result": result,
            "termination": termination, "moves": " ".join([job["opening"], *moves]).strip(),
            "fault": fault}


def game_name(job) -> str:
    return (f"round {job['round']}, game {job['index'] + 1}: {job['white']['name']} vs "
            f"{job['black']['name']}")


def _job_key(job) -> dict:
    """What makes a game the same game on a rerun (the players' files unchanged too)."""
    return {k: job[k] for k in ("round", "index", "seed", "opening", "move_time", "grace",
                                "max_plies")} | {
        side: [job[side]["name"], job[side].get("sha", job[side].get("spec"))]
        for side in ("white", "black")}


def _play(jobs, workers, checkpoint, progress, desc):
    """The results of ``jobs`` (resumed from ``checkpoint``), with a progress bar."""
    bar = tqdm(total=len(jobs), desc=desc, disable=not progress)
    results = resumable_map(play_tournament_game, jobs, checkpoint, workers, progress=progress,
                            key=_job_key, strict=False, on_result=lambda i, r: bar.update())
    bar.update(len(jobs) - bar.n)
    bar.close()
    return results


# ------------------------------------------------------------------ the event
def run_tournament(folder, format: str = "gauntlet", games: int = 2, move_time: float = 1.0,
                   workers=1, out=None, seed: int = 0, ladder=LADDER, rounds: int | None = None,
                   max_plies: int = 120, grace: float | None = None,
                   anchors_path=ANCHOR_PATH, progress: bool = True,
                   command: str | None = None) -> dict:
    """Run the class event and return (and with ``out``, write) its standings record.

    ``format``: "gauntlet" (each submission vs each ``ladder`` player, ``games`` games),
    "round-robin" (every pair, ladder included; ladder pairs skipped) or "swiss"
    (``rounds`` rounds, default enough for a winner to emerge, ladder included).
    ``move_time`` seconds a move are announced; a move later than ``move_time + grace``
    (default: a quarter of a second or half the move time, whichever is more) forfeits the
    game. Games stopped at ``max_plies`` go to the side 3 pawns ahead, else are drawn.
    ``workers``: a count or an executor (``parallel.executor_for``).
    """
    if format not in formats.FORMATS:
        raise ValueError(f"unknown format {format!r}: choose one of "
                         f"{', '.join(formats.FORMATS)}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games (per pairing) must be at least 1, got {games!r}")
    if not move_time > 0:
        raise ValueError(f"the move time must be positive, got {move_time!r}")
    check_max_plies(max_plies)
    grace = max(0.25, move_time / 2) if grace is None else grace
    ladder = list(ladder)
    if format == "gauntlet" and not ladder:
        raise ValueError("a gauntlet needs a ladder of the course's players (e.g. --ladder "
                         "random material:1 pst:2), or choose --format swiss or round-robin")
    for spec in ladder:
        if not is_available(spec):
            raise ValueError(f"ladder player {spec} cannot play on this machine (its model "
                             f"file or Stockfish is missing); leave it out of --ladder")
    if out is not None:
        check_writable(out, "standings file")
    submissions = find_submissions(folder)
    entrants, withdrawn = _load(submissions, workers, ladder, progress)
    names = [e["name"] for e in entrants]
    settings = {"move_time": move_time, "grace": grace, "max_plies": max_plies}
    by_name = {e["name"]: e for e in entrants} | {s: {"name": s, "spec": s} for s in ladder}
    checkpoint = None if out is None else Path(f"{out}.games.jsonl")

    def jobs_of(pairings, round_):
        return [{**g, **settings, "white": by_name[g["white"]], "black": by_name[g["black"]]}
                for pair in pairings for g in formats.games_of(pair, games, round_, seed)]

    records = []
    if format == "gauntlet":
        records = _play(jobs_of(formats.gauntlet_pairings(names, ladder), 1), workers,
                        checkpoint, progress, "gauntlet")
    elif format == "round-robin":
        records = _play(jobs_of(formats.round_robin_pairings(names + ladder, ladder), 1),
                        workers, checkpoint, progress, "round robin")
    else:
        field = names + ladder
        rounds = rounds or max(3, (len(field) - 1).bit_length() + 1)
        met, byes = set(), {}
        for r in range(1, rounds + 1):
            scores = _points(records, field, byes)
            pairings, bye = formats.swiss_pairings(field, scores, met, byes, r)
            if bye is not None:
                byes[bye] = byes.get(bye, 0) + 1
            met |= {frozenset(p) for p in pairings}
            records += _play(jobs_of(pairings, r), workers, checkpoint, progress,
                             f"swiss round {r}/{rounds}")
    anchors, scale = ladder_anchors(ladder, anchors_path)
    record = {
        "what": f"class tournament, {format}", "format": format, "games_per_pairing": games,
        "rounds": rounds if format == "swiss" else 1, "seed": seed, **settings,
        "ladder": ladder, "elo_scale": scale, "elo_anchored": bool(anchors),
        "standings": _standings(records, names, ladder, anchors),
        "withdrawn": withdrawn,
        "faults": [r["fault"] for r in records if r["fault"]],
        "games": records, "command": command,
    }
    if out is not None:
        write_json_atomic(out, record, indent=1)
    return record


def _load(submissions, workers, ladder, progress):
    """(entrants, withdrawn): each file imported in a child process; its NAME (made
    unique: a file's name is added to a NAME taken twice or taken by the ladder)."""
    hellos = parallel_map(probe_submission, submissions, workers)
    entrants, withdrawn, taken = [], [], set(ladder)
    for entry, hello in zip(submissions, hellos):
        if "error" in hello:
            withdrawn.append({"player": entry["name"], "file": entry["file"],
                              "reason": f"did not load: {hello['error']}"})
            continue
        name = " ".join(str(hello.get("name") or entry["name"]).split())[:40] or entry["name"]
        if name in taken:
            name = f"{name} ({entry['file']})"
        taken.add(name)
        entrants.append({**entry, "name": name})
    if progress and withdrawn:
        for w in withdrawn:
            print(f"withdrawn: {w['file']} ({w['reason']})")
    return entrants, withdrawn


def _points(records, field, byes) -> dict:
    """Points so far (a bye is worth one), for Swiss pairings."""
    got = {name: float(byes.get(name, 0)) for name in field}
    for r in records:
        got[r["white"]] += points(r["result"], chess.WHITE)
        got[r["black"]] += points(r["result"], chess.BLACK)
    return got


def _standings(records, names, ladder, anchors) -> list[dict]:
    """One row per player, best first: points, games, score and its Wilson interval,
    Elo, faults; the ladder's rows say so (their Elo is the stored one when anchored)."""
    results = [(r["white"], r["black"], points(r["result"], chess.WHITE)) for r in records]
    field = names + ladder
    elo = bradley_terry(field, results, anchors=anchors)
    faults = {}
    for r in records:
        if r["fault"]:
            faults[r["fault"]["player"]] = faults.get(r["fault"]["player"], 0) + 1
    rows = []
    for name in field:
        got = sum(p if w == name else 1 - p for w, b, p in results if name in (w, b))
        played = sum(name in (w, b) for w, b, _ in results)
        low, high = wilson_interval(got, played) if played else (None, None)
        rows.append({"player": name, "kind": "ladder" if name in ladder else "submission",
                     "points": got, "games": played,
                     "score": got / played if played else None, INTERVAL_KEY: [low, high],
                     "elo": round(elo[name], 1), "faults": faults.get(name, 0)})
    return sorted(rows, key=lambda r: (-r["elo"], r["player"]))


# ------------------------------------------------------------------ the ladder's ratings
def rate_ladder(ladder=LADDER, games: int = 10, workers=1, seed: int = 0,
                max_plies: int = 120, path=ANCHOR_PATH, progress: bool = True,
                command: str | None = None, anchors=None, extra=None) -> dict:
    """Measure the ladder's ratings once: a round robin of the ladder and the ``anchors``
    (``{spec: elo}``; default ``ANCHOR_SPEC``, Stockfish whose limited strength is meant
    to be Elo 1350, held at ``ANCHOR_ELO``); written to ``path`` (resumable beside it).
    Anchors do not play each other: their ratings are fixed."""
    anchors = dict(anchors or {ANCHOR_SPEC: ANCHOR_ELO})
    specs = [*ladder, *[a for a in anchors if a not in ladder]]
    for spec in specs:
        if not is_available(spec):
            raise ValueError(f"{spec} cannot play on this machine (a model file or "
                             f"Stockfish is missing)")
    check_writable(path, "ladder ratings file")
    settings = {"move_time": 0.0, "grace": 0.0, "max_plies": max_plies}
    jobs = [{**g, **settings, "white": {"name": g["white"], "spec": g["white"]},
             "black": {"name": g["black"], "spec": g["black"]}}
            for pair in formats.round_robin_pairings(specs, fixed=anchors)
            for g in formats.games_of(pair, games, 1, seed)]
    checkpoint = Path(f"{path}.games.jsonl")
    records = _play(jobs, workers, checkpoint, progress, "ladder")
    rows = _standings(records, [], specs, anchors)
    pairs = {}
    for r in records:                   # per pair, from the first-named player's side
        a, b = sorted((r["white"], r["black"]), key=specs.index)
        got = points(r["result"], chess.WHITE if r["white"] == a else chess.BLACK)
        wdl = pairs.setdefault(f"{a} vs {b}", [0, 0, 0])
        wdl[0 if got == 1 else 1 if got == 0.5 else 2] += 1
    held = ", ".join(f"{a} at {e:g}" for a, e in anchors.items())
    data = {"what": f"Elo from a round robin of {games} games a pair, {held}",
            "ratings": {r["player"]: r["elo"] for r in rows}, "standings": rows,
            "pairs": pairs, "anchors": anchors, "games_per_pair": games, "max_plies": max_plies,
            "seed": seed, **(extra or {}), "command": command}
    write_json_atomic(path, data, indent=1)
    checkpoint.unlink(missing_ok=True)
    return data


# ------------------------------------------------------------------ text for the teacher
def format_standings(record: dict) -> str:
    """The standings as a text table (withdrawn players at the end, with the reason)."""
    lines = [f"{'#':>2}  {'player':28s} {'points':>7s} {'score':>5s}  {'95% interval':12s} "
             f"{'Elo':>6s} {'faults':>6s}"]
    elo = "6.0f" if record.get("elo_anchored") else "+6.0f"
    for k, r in enumerate(record["standings"], 1):
        low, high = r[INTERVAL_KEY]
        interval = "-" if low is None else f"{low:.2f}-{high:.2f}"
        score = "-" if r["score"] is None else f"{r['score']:.2f}"
        name = r["player"] + (" (ladder)" if r["kind"] == "ladder" else "")
        lines.append(f"{k:>2}  {name:28.28s} {r['points']:>4g}/{r['games']:<2d} {score:>5s}  "
                     f"{interval:12s} {r['elo']:>{elo}} {r['faults']:>6d}")
    for w in record["withdrawn"]:
        lines.append(f" -  {w['player']:28.28s} withdrawn: {w['reason']}")
    lines.append(f"Elo {record['elo_scale']}")
    return "\n".join(lines)


def format_faults(record: dict) -> str:
    """Every fault: who, in which game, at which ply, what happened (and the FEN)."""
    if not record["faults"]:
        return "no faults"
    return "\n".join(f"{f['player']}: {f['what']} ({f['detail']}) at ply {f['ply']} of "
                     f"{f['game']}; FEN {f['fen']}" for f in record["faults"])
