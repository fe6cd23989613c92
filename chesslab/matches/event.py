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
students' Elo on a fixed scale (a ladder player that lost or won every game there has a
bound, not a rating: it is not held but rated from the event's games, its stored bound
named beside, ``ladder_anchors``). ``rate_ladder`` is the course's one ladder: the event's
and every player's (``results ladder``) hold the same Stockfish anchors with the same
prior (``rating.PRIOR``). Those anchors play at a fraction of a second a move, so their
``UCI_Elo`` is nominal there (``NOMINAL``).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import chess
from tqdm.auto import tqdm

from chesslab.base.files import RESULTS_DIR, check_writable, file_lock, read_json, write_json_atomic
from chesslab.base.parallel import parallel_map, resumable_map
from chesslab.board.game import play_game
from chesslab.board.rules import adjudicate_material, check_max_plies, points
from chesslab.matches import formats
from chesslab.matches.isolation import IsolatedPlayer, PlayerFault, probe_submission
from chesslab.matches.clock import clock_text, seat_on_clock
from chesslab.matches.players import is_available, make_player
from chesslab.matches.rating import (INTERVAL_KEY, PRIOR, format_elo, is_bound, point_rating,
                                     results_of_pairs, standings)
from chesslab.matches.specs import format_spec, parse_spec

__all__ = ["LADDER", "ANCHOR_PATH", "ANCHOR_ELOS", "NOMINAL", "anchor_specs", "run_tournament",
           "play_tournament_game", "rate_ladder", "rerate_ladder", "find_players",
           "format_standings", "format_faults", "ladder_anchors"]

#: The course's players every submission meets in a gauntlet, weakest first.
LADDER = ("random", "material:1", "pst:1", "pst:2", "nnue:2", "nnue:3")
#: The ladder's measured ratings (``python -m chesslab results event-ladder``).
ANCHOR_PATH = RESULTS_DIR / "ladder_anchor.json"
#: Stockfish's strength limits that fix every ladder's scale (its lowest, and two above).
ANCHOR_ELOS = (1350, 1600, 1900)
#: Why an anchor's rating is nominal at the ladders' fraction of a second a move.
NOMINAL = ("nominal: Stockfish calibrates UCI_Elo at 60 s a game + 0.6 s a move (its UCI_Elo "
           "documentation: 60s+0.6s)")
#: The clock Stockfish calibrates ``UCI_Elo`` at: a ladder on it holds real anchors.
CALIBRATION_TC = "60+0.6"


def anchor_specs(seconds: float | None = None, elos=ANCHOR_ELOS) -> dict:
    """``{Stockfish spec: its UCI_Elo}``: the anchors at ``seconds`` a move (None: the
    spec without a time, Stockfish's default ``specs.STOCKFISH_SECONDS``)."""
    return {format_spec("stockfish", elo, seconds): float(elo) for elo in elos}


def find_players(folder) -> list[dict]:
    """The tournament's players: the submissions in ``folder`` (``*.py`` not starting
    with ``_``) as text, by file name; read, never imported."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no folder {folder}: give the folder that holds the "
                                f"students' .py files")
    # by the name's text: Windows orders paths without case, and the pairings follow this order
    files = sorted((p for p in folder.glob("*.py") if not p.name.startswith("_")), key=lambda p: p.name)
    if not files:
        raise FileNotFoundError(f"no submissions in {folder}: each student's player is "
                                f"one .py file there (copy players/_template.py)")
    out = []
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        out.append({"file": path.name, "name": path.stem, "source": source,
                    "sha": hashlib.sha256(source.encode()).hexdigest()[:12]})
    return out


def ladder_anchors(ladder, path=ANCHOR_PATH) -> tuple[dict, dict, str]:
    """``({spec: elo}, {spec: elo95}, what the scale is)``: the stored ratings when they
    cover the whole ladder, each held at its rating; a ladder player rated there by a
    bound (a zero or full score, ``rating.is_bound``) is not held: it is rated from the
    event's games, its stored bound named beside. Else no anchors (ratings relative,
    mean 0) and the reason."""
    path = Path(path)
    if not path.exists():
        return {}, {}, (f"relative (mean 0): no stored ladder ratings ({path.name}; make "
                        f"it with `python -m chesslab results event-ladder`)")
    data = read_json(path, "ladder ratings")
    stored = data["ratings"]
    missing = [spec for spec in ladder if spec not in stored]
    if missing:
        return {}, {}, f"relative (mean 0): {', '.join(missing)} not in {path.name}; {PRIOR}"
    rows = {r["player"]: r for r in data.get("standings", ())}
    bounds = {s: rows[s]["elo95"] for s in ladder if s in rows and is_bound(rows[s])}
    if len(bounds) == len(ladder):
        return {}, {}, (f"relative (mean 0): every ladder player scored zero or full in "
                        f"{path.name}, so none has a rating to hold; {PRIOR}")
    # a file written before the anchors were stored names them only as Stockfish players
    held = data.get("anchors") or {s: e for s, e in stored.items()
                                   if parse_spec(s).name == "stockfish"}
    unheld = (f"; not held: {', '.join(f'{s} ({format_elo(rows[s])} there)' for s in bounds)}"
              f" (a zero or full score: a bound, not a rating), so rated from its games "
              f"here" if bounds else "")
    return ({spec: stored[spec] for spec in ladder if spec not in bounds}, bounds,
            f"anchored on the ladder's stored ratings ({path.name}; "
            f"{', '.join(f'{s} = {e:g}' for s, e in held.items())}, {NOMINAL}){unheld}; "
            f"{PRIOR}")


# ------------------------------------------------------------------ one game, a job
def play_tournament_game(job: dict) -> dict:
    """Play one game of the event (a worker's job; plain data in and out).

    ``job["white"]``/``["black"]``: ``{"name", "spec"}`` for a ladder player or
    ``{"name", "file", "source"}`` for a submission. A ``PlayerFault`` ends the game:
    the faulty side loses and the fault is in the record.
    """
    colors = {"white": chess.WHITE, "black": chess.BLACK}
    players, moves = {}, []
    tc = job.get("time_control")             # a ladder on a clock (course players only)
    try:
        for side, color in colors.items():
            who = job[side]
            seed = job["seed"] + (color == chess.BLACK)
            players[side] = (make_player(who["spec"], seed=seed) if "spec" in who else
                             IsolatedPlayer(who["name"], who["source"], job["move_time"],
                                            job["grace"], seed=seed, filename=who["file"]))
        (white, black), clock = seat_on_clock((players["white"], players["black"]), tc)
        fault = None
        try:
            game = play_game(white, black, opening=job["opening"] or None,
                             max_plies=job["max_plies"], adjudicate=adjudicate_material,
                             clock=clock,
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
                                "max_plies", "time_control") if k in job} | {
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
    submissions = find_players(folder)
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
    anchors, bounds, scale = ladder_anchors(ladder, anchors_path)
    record = {
        "what": f"class tournament, {format}", "format": format, "games_per_pairing": games,
        "rounds": rounds if format == "swiss" else 1, "seed": seed, **settings,
        "ladder": ladder, "elo_scale": scale, "elo_anchored": bool(anchors),
        "standings": _standings(records, names + ladder, ladder, anchors, bounds),
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


def _standings(records, field, ladder, anchors, bounds=None) -> list[dict]:
    """The games' standings (``rating.standings``), faults counted from the records; the
    ladder's Elo is the stored one when anchored (a stored bound kept beside, not held)."""
    results = [(r["white"], r["black"], points(r["result"], chess.WHITE)) for r in records]
    faults = {}
    for r in records:
        if r["fault"]:
            faults[r["fault"]["player"]] = faults.get(r["fault"]["player"], 0) + 1
    return standings(field, results, anchors, ladder, faults, bounds=bounds)


# ------------------------------------------------------------------ the ladder's ratings
def rate_ladder(ladder=LADDER, games: int = 10, workers=1, seed: int = 0,
                max_plies: int = 120, path=ANCHOR_PATH, progress: bool = True,
                command: str | None = None, anchors=None, extra=None,
                time_control: str | None = None) -> dict:
    """The course's one ladder: measure the ratings of ``ladder``, a round robin with the
    ``anchors`` (``{spec: elo}``, default ``anchor_specs()``: Stockfish at ``ANCHOR_ELOS``,
    each held at its ``UCI_Elo``); rated by ``rate_pairs`` and written to ``path``
    (resumable beside it). Anchors do not play each other: their ratings are fixed.
    ``time_control`` (``"60+0.6"``): every game on that clock (``clock.seat_on_clock``), no
    spec with its own time per move."""
    anchors = dict(anchors or anchor_specs())
    specs = [*ladder, *[a for a in anchors if a not in ladder]]
    time_control = clock_text(time_control, specs)
    for spec in specs:
        if not is_available(spec):
            raise ValueError(f"{spec} cannot play on this machine (a model file or "
                             f"Stockfish is missing)")
    check_writable(path, "ladder ratings file")
    settings = {"move_time": 0.0, "grace": 0.0, "max_plies": max_plies}
    if time_control is not None:
        settings["time_control"] = time_control
    jobs = [{**g, **settings, "white": {"name": g["white"], "spec": g["white"]},
             "black": {"name": g["black"], "spec": g["black"]}}
            for pair in formats.round_robin_pairings(specs, fixed=anchors)
            for g in formats.games_of(pair, games, 1, seed)]
    checkpoint = Path(f"{path}.games.jsonl")
    records = _play(jobs, workers, checkpoint, progress, "ladder")
    pairs, endings = {}, {}
    for r in records:                   # per pair, from the first-named player's side
        endings[r["termination"]] = endings.get(r["termination"], 0) + 1
        a, b = sorted((r["white"], r["black"]), key=specs.index)
        got = points(r["result"], chess.WHITE if r["white"] == a else chess.BLACK)
        wdl = pairs.setdefault(f"{a} vs {b}", [0, 0, 0])
        wdl[0 if got == 1 else 1 if got == 0.5 else 2] += 1
    data = {"games_per_pair": games, "max_plies": max_plies, "seed": seed, **(extra or {}),
            **({"time_control": time_control} if time_control else {}),
            "endings": dict(sorted(endings.items())), "command": command}
    data = rate_pairs(specs, pairs, anchors, data)
    write_json_atomic(path, data, indent=1)
    checkpoint.unlink(missing_ok=True)
    return data


def rate_pairs(specs, pairs: dict, anchors: dict, data: dict) -> dict:
    """``data`` with the ladder's ratings and standings from its per-pair results
    (``{"a vs b": [wins, draws, losses]}``), what they are, and the prior they used.
    "ratings" keeps one number per player, None for a zero or full score
    (``rating.point_rating``): its standings row has its bound."""
    rows = standings(specs, results_of_pairs(pairs), anchors, ladder=specs)
    held = ", ".join(f"{a} at {e:g}" for a, e in anchors.items())
    tc = data.get("time_control")
    scale = NOMINAL if tc != CALIBRATION_TC else "the clock Stockfish calibrates UCI_Elo at"
    return {"what": f"Elo from a round robin of {data['games_per_pair']} games a pair"
                    f"{f' on a {tc} clock' if tc else ''}, {held} ({scale}); {PRIOR}",
            "ratings": {r["player"]: point_rating(r) for r in rows}, "standings": rows,
            "pairs": pairs, "anchors": anchors, "prior": PRIOR,
            **{k: v for k, v in data.items() if k not in ("what", "ratings", "standings",
                                                          "pairs", "anchors", "prior")}}


def rerate_ladder(path=ANCHOR_PATH,
                  command: str = "python -m chesslab results event-ladder") -> dict:
    """Rate a stored ladder again from the per-pair results it keeps (no game is played)
    and write it back: how ratings are fitted and printed may change, its games do not.
    A file without them names ``command``, which plays the ladder again."""
    with file_lock(path):                      # another command may update it meanwhile
        data = read_json(path, "ladder ratings")
        if "pairs" not in data or "anchors" not in data:
            raise ValueError(f"{path} keeps no per-pair results or anchors to rate again; "
                             f"play the ladder again with `{command}`")
        specs = [r["player"] for r in data["standings"]]
        order = {name: k for k, name in enumerate(
            name for key in data["pairs"] for name in key.split(" vs "))}
        specs = sorted(specs, key=lambda name: order.get(name, len(order)))
        data = rate_pairs(specs, data["pairs"], data["anchors"], data)
        write_json_atomic(path, data, indent=1)
    return data


# ------------------------------------------------------------------ text for the teacher
def format_standings(record: dict) -> str:
    """The standings as a text table (withdrawn players at the end, with the reason)."""
    lines = [f"{'#':>2}  {'player':28s} {'points':>7s} {'score':>5s}  {'95% interval':12s} "
             f"{'Elo':>7s} {'faults':>6s}"]
    signed = not record.get("elo_anchored")
    for k, r in enumerate(record["standings"], 1):
        low, high = r[INTERVAL_KEY]
        interval = "-" if low is None else f"{low:.2f}-{high:.2f}"
        score = "-" if r["score"] is None else f"{r['score']:.2f}"
        name = r["player"] + (" (ladder)" if r["kind"] == "ladder" else "")
        lines.append(f"{k:>2}  {name:28.28s} {r['points']:>4g}/{r['games']:<2d} {score:>5s}  "
                     f"{interval:12s} {format_elo(r, signed):>7s} {r['faults']:>6d}")
    for w in record["withdrawn"]:
        lines.append(f" -  {w['player']:28.28s} withdrawn: {w['reason']}")
    for r in record["standings"]:
        if r.get("stored_elo95"):
            stored = format_elo({"elo95": r["stored_elo95"]})
            lines.append(f"{r['player']}: Elo {format_elo(r, signed)} from its {r['games']} "
                         f"game{'' if r['games'] == 1 else 's'} here; {stored} on the "
                         f"stored ladder (a bound there, so not held)")
    lines.append(f"Elo {record['elo_scale']}; a zero or full score gets a one-sided 95% "
                 f"bound (< or >), not a rating")
    return "\n".join(lines)


def format_faults(record: dict) -> str:
    """Every fault: who, in which game, at which ply, what happened (and the FEN)."""
    if not record["faults"]:
        return "no faults"
    return "\n".join(f"{f['player']}: {f['what']} ({f['detail']}) at ply {f['ply']} of "
                     f"{f['game']}; FEN {f['fen']}" for f in record["faults"])
