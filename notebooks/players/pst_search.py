"""chesslab's full search at depth 2 with piece-square tables: it also knows where
pieces belong."""
import chess

from chesslab.evaluators.registry import load_evaluator
from chesslab.search.searcher import search

NAME = "pst search"
PST = load_evaluator("pst")


def choose_move(board: chess.Board) -> chess.Move:
    return search(board, PST, depth=2).move
