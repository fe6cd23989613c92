"""Time per evaluation inside the search: hand-written tables vs learned evaluators.

    python bench/eval_speed.py [--evaluators pst,linear,nnue,ann,residual] [--depth 3]

Each evaluator is wrapped in a timing proxy and the full search runs to ``--depth`` on
the 20 positions of bench/positions.epd. The proxy adds up the time spent in the
evaluator's own code: ``evaluate`` for ordinary evaluators; for an efficiently
updatable one (nnue, and pst with its running sum) also ``push`` / ``pop`` / ``reset``,
which keep its state in step with the board, so the number is everything the search
pays for its evaluations.
Printed: evaluations, microseconds per evaluation, that cost as a ratio to the first
evaluator's (pst), and the search's nodes per second, all measured in this one run.
"""
import argparse
import time
from pathlib import Path

import chess

from chesslab.evaluators.registry import load_evaluator
from chesslab.search.searcher import search

HERE = Path(__file__).resolve().parent


class Timed:
    """Forwards to an evaluator and adds up the seconds spent inside it."""

    def __init__(self, evaluator):
        self.inner = evaluator
        self.name = evaluator.name
        self.incremental = bool(getattr(evaluator, "incremental", False))
        self.seconds = 0.0
        self.evaluations = 0

    def _timed(self, method, *args):
        start = time.perf_counter()
        value = method(*args)
        self.seconds += time.perf_counter() - start
        return value

    def evaluate(self, board):
        self.evaluations += 1
        return self._timed(self.inner.evaluate, board)

    def evaluate_incremental(self, board):
        self.evaluations += 1
        return self._timed(self.inner.evaluate_incremental, board)

    def reset(self, board):
        self._timed(self.inner.reset, board)

    def push(self, board, move):
        self._timed(self.inner.push, board, move)

    def pop(self):
        self._timed(self.inner.pop)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluators", default="pst,linear,nnue,ann,residual")
    parser.add_argument("--depth", type=int, default=3)
    args = parser.parse_args(argv)
    boards = [chess.Board.from_epd(line)[0] for line in
              (HERE / "positions.epd").read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for name in args.evaluators.split(","):
        timed = Timed(load_evaluator(name))
        nodes, start = 0, time.perf_counter()
        for board in boards:
            nodes += search(board, timed, depth=args.depth).nodes
        wall = time.perf_counter() - start
        rows.append((name, timed.evaluations, 1e6 * timed.seconds / timed.evaluations,
                     nodes / wall))
    base = rows[0][2]
    print(f"full search to depth {args.depth} on {len(boards)} positions "
          f"(bench/positions.epd); one run, this machine")
    print(f"{'evaluator':10s} {'evaluations':>11s} {'us/eval':>8s} {'vs ' + rows[0][0]:>8s} "
          f"{'nodes/s':>8s}")
    for name, evals, us, nps in rows:
        print(f"{name:10s} {evals:11d} {us:8.1f} {us / base:8.2f} {nps:8.0f}")


if __name__ == "__main__":
    main()
