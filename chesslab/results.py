"""Measured results behind the figures: each command writes data/results/NAME.json.

Timings and long matches cannot be recomputed every time a figure is drawn (and a
figure must come out byte-identical on every run), so they are measured here, once,
by a named command, and the figures read the files:

    python -m chesslab results depth-cost      # nodes and seconds vs depth per algorithm
    python -m chesslab results tournament      # round robin between evaluators
"""
from __future__ import annotations

import datetime
import itertools
import platform
import time

import chess

from .files import DATA_DIR, write_json_atomic

RESULTS_DIR = DATA_DIR / "results"

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
    from tqdm.auto import tqdm
    from .evaluation import load_evaluator
    from .search import search
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


def _available(spec: str) -> bool:
    """Can this player be made here (its model file exists)?"""
    from .players import make_player
    try:
        make_player(spec).close()
        return True
    except (FileNotFoundError, ImportError):
        return False


def run_tournament(players=TOURNAMENT_PLAYERS, games: int = 4, seed: int = 0,
                   max_plies: int = 300, progress=True) -> dict:
    """A round robin: every pair plays ``games`` games (colours alternate)."""
    from .arena import match
    players = [p for p in players if _available(p)]
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
