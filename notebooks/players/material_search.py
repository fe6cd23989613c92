"""chesslab's full search (notebook 07) at depth 1 with the material evaluation: it sees
captures through to the end (quiescence), nothing else."""
import chess

from chesslab.evaluators.registry import load_evaluator
from chesslab.search.searcher import search

NAME = "material search"
MATERIAL = load_evaluator("material")


def choose_move(board: chess.Board) -> chess.Move:
    return search(board, MATERIAL, depth=1).move
