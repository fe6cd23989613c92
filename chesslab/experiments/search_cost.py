"""What each search algorithm costs as the depth grows (``results depth-cost``)."""
from __future__ import annotations

import itertools
import time

import chess
from tqdm.auto import tqdm

from chesslab.evaluators.registry import load_evaluator
from chesslab.experiments.store import stamp
from chesslab.search.searcher import ALGORITHMS, search


#: Positions for the depth-cost measurement: an opening, a middlegame, an endgame.
DEPTH_COST_POSITIONS = {
    "start": chess.STARTING_FEN,
    "Giuoco Piano 8...d5": "r1bqk2r/ppp2ppp/2n2n2/3p4/2BPP3/5N2/PP1N1PPP/R2QK2R w KQkq - 0 9",
    "rook endgame": "8/5pk1/6p1/8/3R4/6P1/r4PK1/8 w - - 0 1",
}


def measure_depth_cost(depths=(1, 2, 3, 4), algorithms=ALGORITHMS,
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
            "positions": positions, "rows": rows, **stamp()}
