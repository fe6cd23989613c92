"""Search benchmarks: nodes and time per algorithm, tactics, move time.

    python bench/search_speed.py nodes [--depths 2 3 4] [--limit 20]
    python bench/search_speed.py suite bench/bratko_kopec.epd [--time 1]
    python bench/search_speed.py suite bench/mates.epd [--time 1]
    python bench/search_speed.py suite bench/wac.epd [--time 1] [--evaluator nnue]
    python bench/search_speed.py ablation bench/wac.epd [--time 1 | --nodes N]
    python bench/search_speed.py movetime [--player pst@1s] [--moves 30]

``nodes``: on the 20 positions of bench/positions.epd (material evaluation), nodes and
seconds of minimax, plain alpha-beta, alpha-beta + ordering + killers/history + TT +
iterative deepening ("ab+ord+tt"), and the full search (quiescence and check
extensions on top); checks that minimax and alpha-beta agree on every root score, and
prints the node ratios measured in this run. ``suite``: solved count at a fixed time (or node budget) per position ("bm" = best
move; "dm N" = mate in N: solved when the search reports that mate), and nodes per
second; ``--off pvs see`` turns switches of the full search off. ``ablation``: the suite
with each switch turned off in turn. bench/wac.epd is "Win at Chess" (Reinfeld's 300
combinations, the EPD file as distributed with open-source engines, e.g. the
daydreamer engine's tests/wac.epd), kept aside: chesslab was never tuned on it. ``movetime``: median seconds per move
of a player over positions from a seeded game.
"""
import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import chess

from chesslab.evaluators.registry import load_evaluator
from chesslab.matches.players import make_player
from chesslab.search.searcher import search

HERE = Path(__file__).resolve().parent


def read_epd(path):
    items = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            board, ops = chess.Board.from_epd(line)
            items.append((board, ops))
    return items


def bench_nodes(args):
    material = load_evaluator("material")
    setups = {
        "minimax": dict(algorithm="minimax"),
        "alphabeta": dict(algorithm="alphabeta"),
        "ab+ord+tt": dict(algorithm="alphabeta", ordering=True, killers=True, tt=True,
                          iterative=True),
        "full": dict(algorithm="full"),
    }
    positions = read_epd(HERE / "positions.epd")[:args.limit]
    print(f"{len(positions)} positions, material evaluation")
    print(f"{'depth':>5} {'search':>10} {'nodes':>10} {'seconds':>8} {'nodes/s':>8} "
          f"{'vs minimax':>10}")
    for depth in args.depths:
        totals, mismatches = {}, 0
        for board, ops in positions:
            scores = {}
            for name, kw in setups.items():
                if name == "minimax" and depth > args.minimax_max:
                    continue
                t0 = time.perf_counter()
                r = search(board, material, depth=depth, **kw)
                seconds = time.perf_counter() - t0
                n, s = totals.get(name, (0, 0.0))
                totals[name] = (n + r.nodes, s + seconds)
                scores[name] = r.score
            if "minimax" in scores and scores["minimax"] != scores["alphabeta"]:
                mismatches += 1
                print(f"  MISMATCH {ops.get('id')}: minimax {scores['minimax']} "
                      f"alphabeta {scores['alphabeta']}")
        base = totals.get("minimax", (None,))[0]
        for name, (n, s) in totals.items():
            ratio = f"{100 * n / base:9.2f}%" if base else f"{'-':>10}"
            print(f"{depth:>5} {name:>10} {n:>10} {s:8.2f} {n / s:8.0f} {ratio}")
        if base:
            print(f"      minimax vs alphabeta root scores: "
                  f"{len(positions) - mismatches}/{len(positions)} identical")
        sys.stdout.flush()


def _suite_options(args, extra=None):
    options = {name: False for name in (args.off or [])}
    options.update(extra or {})
    return options


def run_suite(items, evaluator, seconds=None, nodes=None, verbose=True, **options):
    """(solved, total nodes, total seconds) of the full search on EPD items."""
    solved, total_nodes, total_seconds = 0, 0, 0.0
    for board, ops in items:
        limit = dict(node_limit=nodes) if nodes else dict(time_limit=seconds)
        r = search(board, evaluator, **limit, **options)
        if "dm" in ops:
            ok = r.mate_in is not None and abs(r.mate_in) <= int(ops["dm"])
            want = f"mate in {ops['dm']}"
        else:
            ok = r.move in ops["bm"]
            want = " ".join(board.san(m) for m in ops["bm"])
        solved += ok
        total_nodes += r.nodes
        total_seconds += r.seconds
        if verbose:
            print(f"{ops.get('id', ''):>10} {'ok ' if ok else 'no '} played "
                  f"{board.san(r.move):7s} want {want:12s} depth {r.depth} nodes {r.nodes}")
            sys.stdout.flush()
    return solved, total_nodes, total_seconds


def _budget(args):
    return (f"{args.nodes} nodes" if args.nodes else f"{args.time:g} s") + " per position"


def bench_suite(args):
    items = read_epd(args.file)[:args.limit]
    evaluator = load_evaluator(args.evaluator)
    nodes = args.nodes or None
    solved, n, s = run_suite(items, evaluator, None if nodes else args.time, nodes,
                             **_suite_options(args))
    off = f", off: {' '.join(args.off)}" if args.off else ""
    print(f"solved {solved}/{len(items)} at {_budget(args)} ({args.evaluator}{off}); "
          f"{n} nodes in {s:.1f} s = {n / s:.0f} nodes/s")


def bench_ablation(args):
    """The suite with each switch of the full search turned off in turn. keep_tt and keep_history act between the moves
    of a game, and a time or node budget always deepens iteratively: not listed."""
    from chesslab.search.searcher import SWITCHES, Searcher

    items = read_epd(args.file)[:args.limit]
    evaluator = load_evaluator(args.evaluator)
    nodes = args.nodes or None
    default = Searcher(evaluator)
    switches = args.switches or [s for s in SWITCHES
                                 if s not in ("keep_history", "keep_tt", "iterative")]
    print(f"{len(items)} positions of {args.file}, {_budget(args)}, {args.evaluator}")
    print(f"{'search':>22} {'solved':>8} {'nodes/s':>8} {'seconds':>8}")
    for name in ["full"] + switches:
        on = name != "full" and getattr(default, name)
        options = {} if name == "full" else {name: not on}
        solved, n, s = run_suite(items, evaluator, None if nodes else args.time, nodes,
                                 verbose=False, **options)
        label = name if name == "full" else f"no {name}" if on else f"+ {name}"
        print(f"{label:>22} {solved:>4}/{len(items):<3} {n / s:8.0f} {s:8.1f}")
        sys.stdout.flush()


def bench_movetime(args):
    player = make_player(args.player, seed=0)
    board, rng, times = chess.Board(), random.Random(0), []
    while len(times) < args.moves and not board.is_game_over():
        t0 = time.perf_counter()
        move = player.choose_move(board)
        times.append(time.perf_counter() - t0)
        board.push(move)
        if not board.is_game_over():  # the opponent: random moves keep positions varied
            board.push(rng.choice(list(board.legal_moves)))
    print(f"{args.player}: median {statistics.median(times):.2f} s, max {max(times):.2f} s"
          f" over {len(times)} moves")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("nodes")
    p.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4])
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--minimax-max", type=int, default=4, help="deepest minimax run")
    p.set_defaults(func=bench_nodes)
    for name, func in (("suite", bench_suite), ("ablation", bench_ablation)):
        p = sub.add_parser(name)
        p.add_argument("file")
        p.add_argument("--time", type=float, default=1.0, help="seconds per position")
        p.add_argument("--nodes", type=int, default=0,
                       help="nodes per position instead of seconds (load-independent)")
        p.add_argument("--limit", type=int, default=None, help="first N positions")
        p.add_argument("--evaluator", default="pst")
        if name == "suite":
            p.add_argument("--off", nargs="*", help="switches of the full search to turn off")
        else:
            p.add_argument("--switches", nargs="*", help="switches to ablate (default: all)")
        p.set_defaults(func=func)
    p = sub.add_parser("movetime")
    p.add_argument("--player", default="pst@1s")
    p.add_argument("--moves", type=int, default=30)
    p.set_defaults(func=bench_movetime)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
