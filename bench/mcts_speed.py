"""MCTS speed: simulations per second with batched vs unbatched leaf evaluation, and
with leaf values read where the captures settle.

    flock /tmp/chesslab-cpu.lock python bench/mcts_speed.py [--simulations 300] [--model PATH]

Same network, same positions, same number of simulations; only ``batch_size`` (leaves
per network call) changes. Prints simulations/s per batch size, the ratio to batch
size 1 measured in this run, and the time of one move at 300 simulations; then the best
batch size again with ``settle=True`` (a capture search per leaf) and its ratio to the
same batch size without, measured in this run: how many fewer simulations a settled
search gets in the same time (on these mostly quiet positions; where many captures
hang, the capture searches cost more).
"""
from __future__ import annotations

import argparse
import time

import chess

from chesslab.search.mcts import DEFAULT_MODEL, MCTS
from chesslab.evaluators.policy_value import PolicyValueNet, load_policy_value

POSITIONS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/2r5 b - - 0 40",
]


def run(net, batch_size: int, simulations: int, repeats: int, settle: bool = False) -> float:
    sims, seconds = 0, 0.0
    for _ in range(repeats):
        for fen in POSITIONS:
            mcts = MCTS(net, simulations, batch_size=batch_size, settle=settle)
            start = time.perf_counter()
            mcts.search(chess.Board(fen))
            seconds += time.perf_counter() - start
            sims += simulations
    return sims / seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--model", default=None, help="network (default: the shipped one)")
    parser.add_argument("--batch-sizes", default="1,4,8,16")
    args = parser.parse_args(argv)
    path = args.model or DEFAULT_MODEL
    try:
        net = load_policy_value(path)
        print(f"network: {net}")
    except FileNotFoundError:
        net = PolicyValueNet(32, 2).eval()
        print(f"no network file; an untrained {net}")
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    run(net, 8, 50, 1)                                    # warm-up
    rates = {b: run(net, b, args.simulations, args.repeats) for b in sizes}
    base = rates[sizes[0]]
    print(f"{args.simulations} simulations x {len(POSITIONS)} positions x {args.repeats}")
    print("batch size | simulations/s | vs batch size " + str(sizes[0]))
    for b, rate in rates.items():
        print(f"{b:10d} | {rate:13.0f} | {rate / base:5.2f}x")
    best = max(rates, key=rates.get)
    print(f"one move at 300 simulations (batch size {best}): {300 / rates[best]:.2f} s")
    settled = run(net, best, args.simulations, args.repeats, settle=True)
    print(f"settled leaf values (batch size {best}): {settled:.0f} simulations/s, "
          f"{settled / rates[best]:.2f}x the plain search's")


if __name__ == "__main__":
    main()
