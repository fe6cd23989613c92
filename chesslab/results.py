"""Measured results behind the figures: each command writes data/results/NAME.json.

Timings and long matches cannot be recomputed every time a figure is drawn (and a
figure must come out byte-identical on every run), so they are measured here, once,
by a named command, and the figures read the files:

    python -m chesslab results depth-cost      # nodes and seconds vs depth per algorithm
    python -m chesslab results tournament      # round robin between evaluators
    python -m chesslab results match --a nnue@1s --b pst@1s --games 100 --workers 2
    python -m chesslab results recipe          # what each training-recipe step buys
"""
from __future__ import annotations

import datetime
import hashlib
import itertools
import json
import platform
import time
from pathlib import Path

import chess
from tqdm.auto import tqdm

from .arena import MatchResult, match, play_game
from .data import DEFAULT_GAMES, read_games
from .evaluation import load_evaluator
from .files import RESULTS_DIR, read_json, write_json_atomic
from .parallel import parallel_map
from .players import is_available, make_player, model_file
from .search import search
from .training import load, recipe_ablation, split

#: Positions for the depth-cost measurement: an opening, a middlegame, an endgame.
DEPTH_COST_POSITIONS = {
    "start": chess.STARTING_FEN,
    "Giuoco Piano 8...d5": "r1bqk2r/ppp2ppp/2n2n2/3p4/2BPP3/5N2/PP1N1PPP/R2QK2R w KQkq - 0 9",
    "rook endgame": "8/5pk1/6p1/8/3R4/6P1/r4PK1/8 w - - 0 1",
}
#: Players of the default tournament (learned ones join when their model files exist).
TOURNAMENT_PLAYERS = ("random", "material:2", "pst:2", "ann:2", "cnn:2", "conv:2",
                      "residual:2", "bayes:2", "mcts:100")


def _stamp() -> dict:
    return {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
            "machine": platform.machine()}


def measure_depth_cost(depths=(1, 2, 3, 4), algorithms=("minimax", "alphabeta", "full"),
                       positions=None, evaluator="material", progress=True) -> dict:
    """Nodes and seconds of each algorithm at each depth, summed over a few positions.

    The thesis warns that the depth limit drives decision time: minimax's cost grows
    like (moves per position) ** depth; alpha-beta's roughly like its square root.
    """
    positions = dict(positions or DEPTH_COST_POSITIONS)
    ev = load_evaluator(evaluator)
    rows = []
    jobs = list(itertools.product(algorithms, depths))
    for algorithm, depth in tqdm(jobs, desc="depth cost", disable=not progress):
        nodes, seconds, scores = 0, 0.0, []
        for fen in positions.values():
            start = time.perf_counter()
            result = search(chess.Board(fen), ev, depth=depth, algorithm=algorithm)
            seconds += time.perf_counter() - start
            nodes += result.nodes
            scores.append(result.score)
        rows.append({"algorithm": algorithm, "depth": depth, "nodes": nodes,
                     "seconds": round(seconds, 4), "scores": scores})
    return {"what": "search cost vs depth, summed over the positions", "evaluator": evaluator,
            "positions": positions, "rows": rows, **_stamp()}


def run_tournament(players=TOURNAMENT_PLAYERS, games: int = 4, seed: int = 0,
                   max_plies: int = 300, progress=True) -> dict:
    """A round robin: every pair plays ``games`` games (colours alternate)."""
    players = [p for p in players if is_available(p)]
    pairs = {}
    for a, b in itertools.combinations(players, 2):
        result = match(a, b, games=games, seed=seed, max_plies=max_plies, progress=progress)
        pairs[f"{a} vs {b}"] = {"wins": result.wins, "draws": result.draws,
                                "losses": result.losses}
    return {"what": f"round robin, {games} games per pair, colours alternating",
            "players": players, "games_per_pair": games, "seed": seed,
            "max_plies": max_plies, "pairs": pairs, **_stamp()}


def score_matrix(tournament: dict):
    """(players, matrix) where matrix[i][j] is player i's score against j (None on the diagonal)."""
    players = tournament["players"]
    index = {p: i for i, p in enumerate(players)}
    matrix = [[None] * len(players) for _ in players]
    for key, r in tournament["pairs"].items():
        a, b = key.split(" vs ")
        n = r["wins"] + r["draws"] + r["losses"]
        if not n:
            continue
        score = (r["wins"] + 0.5 * r["draws"]) / n
        matrix[index[a]][index[b]] = score
        matrix[index[b]][index[a]] = 1 - score
    return players, matrix


def _cli_depth_cost(args):
    data = measure_depth_cost(depths=tuple(range(1, args.max_depth + 1)),
                              evaluator=args.evaluator, progress=not args.quiet)
    path = write_json_atomic(RESULTS_DIR / "depth_cost.json", data, indent=1)
    for row in data["rows"]:
        print(f"{row['algorithm']:10s} depth {row['depth']}  {row['nodes']:9d} nodes  "
              f"{row['seconds']:8.3f} s")
    print(f"written to data/results/{path.name}")
    return 0


def _cli_tournament(args):
    data = run_tournament(args.players, games=args.games, seed=args.seed,
                          max_plies=args.max_plies, progress=not args.quiet)
    path = write_json_atomic(RESULTS_DIR / "tournament.json", data, indent=1)
    players, matrix = score_matrix(data)
    for p, row in zip(players, matrix):
        total = [s for s in row if s is not None]
        print(f"{p:12s} mean score {sum(total) / max(1, len(total)):.2f}")
    print(f"written to data/results/{path.name}")
    return 0


def register_cli(subparsers):
    p = subparsers.add_parser("results", help="measure the results the figures read")
    sub = p.add_subparsers(dest="which", metavar="WHICH", required=True)
    q = sub.add_parser("depth-cost", help="nodes and seconds vs depth (minimax, alpha-beta, full)")
    q.add_argument("--max-depth", type=int, default=4)
    q.add_argument("--evaluator", default="material")
    q.add_argument("--quiet", action="store_true")
    q.set_defaults(func=_cli_depth_cost)
    q = sub.add_parser("tournament", help="round robin between evaluators")
    q.add_argument("--players", nargs="+", default=list(TOURNAMENT_PLAYERS))
    q.add_argument("--games", type=int, default=4, help="games per pair (default 4)")
    q.add_argument("--max-plies", type=int, default=300,
                   help="adjudicate a draw after this many half-moves (default 300)")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--quiet", action="store_true")
    q.set_defaults(func=_cli_tournament)
    q = sub.add_parser("match", help="a long match from held-out openings, in parallel")
    q.add_argument("--a", required=True, help="player spec, e.g. nnue@1s")
    q.add_argument("--b", required=True, help="player spec, e.g. pst@1s")
    q.add_argument("--games", type=int, default=100, help="an even number (default 100)")
    q.add_argument("--workers", type=int, default=2, help="games played at once")
    q.add_argument("--max-plies", type=int, default=300,
                   help="adjudicate a draw after this many half-moves (default 300)")
    q.add_argument("--resign-cp", type=float, default=1000,
                   help="adjudicate a win once both engines' searches see one side this "
                        "far ahead for 4 half-moves (default 1000; 0 turns it off)")
    q.add_argument("--seed", type=int, default=0)
    q.set_defaults(func=_cli_match)
    q = sub.add_parser("recipe", help="train with each recipe step added in turn")
    q.add_argument("--nets", nargs="+", default=["ann", "nnue"])
    q.add_argument("--sample", type=int, default=2000,
                   help="test positions searched per network (default 2000)")
    q.set_defaults(func=_cli_recipe)


# ---------------------------------------------------------------- long matches, in parallel
MATCHES_PATH = RESULTS_DIR / "matches.json"


def held_out_openings(count: int, plies: int = 8, seed: int = 0,
                      balanced_cp: int = 80) -> list[str]:
    """The first ``plies`` moves (UCI) of games whose positions no network trained on
    (the test part of ``Dataset.split(seed=seed)``), kept only where Stockfish's label
    of the position after them is within ``balanced_cp`` of equal: the shipped games
    open with 3-6 random plies, which can leave one side clearly better."""
    test = split(load(), seed=seed)[2]
    at_ply = {int(g): int(cp) for g, ply, cp in zip(test.game_id, test.ply, test.cp)
              if g >= 0 and ply == plies}
    lines = []
    for game in read_games(DEFAULT_GAMES):
        cp = at_ply.get(int(game.headers.get("GameId", -1)))
        if cp is None or abs(cp) > balanced_cp:
            continue
        moves = list(game.mainline_moves())
        line = " ".join(m.uci() for m in moves[:plies])
        if len(moves) > plies + 20 and line not in lines:
            lines.append(line)
        if len(lines) == count:
            break
    if len(lines) < count:
        raise ValueError(f"only {len(lines)} balanced held-out openings of {plies} plies; "
                         f"ask for fewer games")
    return lines


def _play_pair(job) -> list:
    """Both games of one opening (a as White, then b as White): [(pgn text, a's points)]."""
    spec_a, spec_b, opening, seed, max_plies, resign_cp = job
    out = []
    with make_player(spec_a, seed=seed) as a, make_player(spec_b, seed=seed + 1) as b:
        for white, black in ((a, b), (b, a)):
            game = play_game(white, black, opening=opening, max_plies=max_plies,
                             resign_cp=resign_cp)
            points = {"1-0": 1.0, "0-1": 0.0}.get(game.headers["Result"], 0.5)
            out.append((str(game), points if white is a else 1.0 - points))
    return out


def _model_tag(spec: str) -> str | None:
    """SHA-256 prefix of the model file a player spec reads (None for hand-written ones)."""
    path = model_file(spec)
    if path is None or not path.exists():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def run_match(spec_a: str, spec_b: str, games: int = 100, workers: int = 2, seed: int = 0,
              max_plies: int = 300, resign_cp: float | None = 1000, progress=True,
              checkpoint=None) -> dict:
    """``games`` games a vs b from held-out openings, each opening with both colours,
    ``workers`` games at a time (same results for any number of workers).

    Each finished pair of games is appended to ``checkpoint`` (a JSON-lines file) and a
    rerun with the same file plays only the pairs it lacks, so a match stopped after
    an hour loses at most one pair per worker."""
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2 (each opening is played with "
                         f"both colours), got {games}")
    openings = held_out_openings(games // 2)
    jobs = [(spec_a, spec_b, line, seed + 2 * i, max_plies, resign_cp)
            for i, line in enumerate(openings)]
    done = _read_checkpoint(checkpoint, jobs)
    todo = [i for i in range(len(jobs)) if i not in done]
    if done and progress:
        print(f"resuming from {checkpoint}: {len(done)} of {len(jobs)} pairs already played")

    def save(k, pair):
        done[todo[k]] = pair
        if checkpoint is not None:
            with open(checkpoint, "a") as f:
                f.write(json.dumps({"job": list(jobs[todo[k]]), "pair": pair}) + "\n")

    start = time.perf_counter()
    parallel_map(_play_pair, [jobs[i] for i in todo], workers, on_result=save)
    seconds = time.perf_counter() - start
    pairs = [done[i] for i in range(len(jobs))]
    result = MatchResult(spec_a, spec_b)
    endings = {}
    for pair in pairs:
        for text, points in pair:
            result.add(points)
            ending = text.split('[Termination "', 1)[1].split('"', 1)[0]
            endings[ending] = endings.get(ending, 0) + 1
    low, high = result.score_interval()
    return {"a": spec_a, "b": spec_b, "a_model": _model_tag(spec_a),
            "b_model": _model_tag(spec_b), "games": result.n, "wins": result.wins,
            "draws": result.draws, "losses": result.losses, "score": result.score,
            "interval95": [low, high], "elo": _finite(result.elo),
            "elo_error": _finite(result.elo_error), "endings": endings,
            "openings": f"first 8 plies of {len(openings)} test-split games (Stockfish "
                        f"within 80 cp of equal after them), each with both colours",
            "max_plies": max_plies, "resign_cp": resign_cp, "seed": seed,
            "workers": workers, "seconds": round(seconds, 1), "summary": result.summary(),
            "pgn": [text for pair in pairs for text, _ in pair], **_stamp()}


def _read_checkpoint(path, jobs) -> dict:
    """{job index: pair} of the pairs a stopped run of the same match already played."""
    if path is None or not Path(path).exists():
        return {}
    index = {tuple(job): i for i, job in enumerate(jobs)}
    lines = Path(path).read_text().splitlines()
    done = {}
    for n, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            i = index[tuple(row["job"])]
            done[i] = [(text, float(points)) for text, points in row["pair"]]
        except (ValueError, KeyError, TypeError) as e:
            if n == len(lines) and isinstance(e, ValueError):
                break        # the last line of a run killed mid-write
            raise ValueError(f"{path}, line {n}: not a pair of this match ({e}); delete the "
                             f"file to start the match again") from None
    return done


def _finite(x):
    return x if x == x and abs(x) != float("inf") else None


def record_match(entry: dict, path=MATCHES_PATH) -> None:
    """Add ``entry`` to the results file, replacing one of the same players, models,
    games and seed (a rerun, not a second result)."""
    doc = read_json(path, "results file") if path.exists() else {"matches": []}
    key = ("a", "b", "a_model", "b_model", "games", "seed")
    doc["matches"] = [m for m in doc["matches"]
                      if tuple(m.get(k) for k in key) != tuple(entry[k] for k in key)]
    doc["matches"].append(entry)
    write_json_atomic(path, doc, indent=1)


def _cli_recipe(args):
    data = recipe_ablation(args.nets, sample=args.sample)
    path = write_json_atomic(RESULTS_DIR / "recipe.json", {**data, **_stamp()}, indent=1)
    print(f"written to data/results/{path.name}")
    return 0


def match_checkpoint(spec_a: str, spec_b: str, games: int, seed: int) -> Path:
    """Where an unfinished match keeps its played pairs (named by players, models, games
    and seed, so a retrained model never resumes an old match)."""
    tags = "_".join(t or "hand" for t in (_model_tag(spec_a), _model_tag(spec_b)))
    name = f"{spec_a}_vs_{spec_b}_{games}g_seed{seed}_{tags}".replace(":", "-").replace("/", "-")
    return RESULTS_DIR / "partial" / f"{name}.jsonl"


def _cli_match(args):
    checkpoint = match_checkpoint(args.a, args.b, args.games, args.seed)
    checkpoint.parent.mkdir(exist_ok=True)
    entry = run_match(args.a, args.b, args.games, args.workers, args.seed, args.max_plies,
                      None if args.resign_cp <= 0 else args.resign_cp, checkpoint=checkpoint)
    record_match(entry)
    checkpoint.unlink(missing_ok=True)
    print(entry["summary"])
    print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(entry["endings"].items())))
    print(f"{entry['seconds']:.0f} s; written to data/results/{MATCHES_PATH.name}")
    return 0
