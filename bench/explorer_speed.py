"""Tree explorer speed: recording a search, building the widget, answering a step.

    flock /tmp/chesslab-cpu.lock python bench/explorer_speed.py [--depth 4] [--evaluator pst]

For each middlegame position: the plain search's time, the recorded search's time (same
nodes: the recording is the search), the explorer's build time, and the time the widget
takes to answer Step, Back, Step over, Run to end and a node click at steps spread over
the whole search (mean and worst). Then MCTS: one recorded simulation with the shipped
network, and the MCTS explorer's Step. Prints numbers only; nothing is asserted.
"""
from __future__ import annotations

import argparse
import statistics
import time

import chess

from chesslab.evaluators.registry import load_evaluator
from chesslab.search import search
from chesslab.search.recording import record_search
from chesslab.widgets.explorer import SearchExplorer
from chesslab.widgets.mcts_explorer import explore_mcts

POSITIONS = {
    "italian": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "qgd": "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
    "sicilian": "r1bqkb1r/pp2pppp/2np1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 2 6",
}


def timed(func, *args, **kwargs):
    start = time.perf_counter()
    value = func(*args, **kwargs)
    return value, time.perf_counter() - start


def step_times(explorer: SearchExplorer, probes: int) -> dict:
    """Milliseconds per action, each tried at ``probes`` steps spread over the search."""
    total = len(explorer.record.steps)
    actions = {"step": explorer.step, "back": explorer.back, "step over": explorer.step_over,
               "run to end": explorer.run_to_end,
               "click a node": lambda: explorer.select(explorer.record.nodes[explorer.current].parent or 0)}
    times = {name: [] for name in actions}
    for k in range(probes):
        position = 1 + k * (total - 2) // max(probes - 1, 1)
        for name, action in actions.items():
            explorer.goto(position)
            _, seconds = timed(action)
            times[name].append(1000 * seconds)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--evaluator", default="pst")
    parser.add_argument("--algorithm", default="alphabeta")
    parser.add_argument("--probes", type=int, default=60)
    parser.add_argument("--simulations", type=int, default=200)
    args = parser.parse_args(argv)
    evaluator = load_evaluator(args.evaluator)
    print(f"{args.algorithm} depth {args.depth}, evaluator {args.evaluator}")
    print(f"{'position':10} {'nodes':>7} {'search s':>9} {'record s':>9} {'widget s':>9}  "
          "action ms: mean / worst")
    for name, fen in POSITIONS.items():
        board = chess.Board(fen)
        result, plain = timed(search, board, evaluator, depth=args.depth,
                              algorithm=args.algorithm)
        record, recording = timed(record_search, board, evaluator, depth=args.depth,
                                  algorithm=args.algorithm)
        assert len(record.nodes) == result.nodes
        explorer, build = timed(SearchExplorer, record)
        times = step_times(explorer, args.probes)
        actions = ", ".join(f"{k} {statistics.mean(v):.1f} / {max(v):.1f}" for k, v in times.items())
        print(f"{name:10} {result.nodes:7d} {plain:9.2f} {recording:9.2f} {build:9.2f}  {actions}")

    shown, build = timed(explore_mcts, POSITIONS["italian"], simulations=args.simulations)
    steps = []
    for _ in range(args.simulations):
        _, seconds = timed(shown.step)
        steps.append(1000 * seconds)
    recorder = shown.recorder
    recorder.start(recorder.board)
    _, run = timed(recorder.run, args.simulations)
    print(f"MCTS (shipped network): explorer built in {build:.2f} s; a recorded simulation "
          f"{1000 * run / args.simulations:.1f} ms; the explorer's Step {statistics.mean(steps):.1f} ms "
          f"mean / {max(steps):.1f} worst over {args.simulations} simulations")


if __name__ == "__main__":
    main()
