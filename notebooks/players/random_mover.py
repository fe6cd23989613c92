"""The Naive Bayes chapter's baseline: any legal move, at random (seeded by the position,
so a game replays the same way)."""
import random

import chess

NAME = "random mover"


def choose_move(board: chess.Board) -> chess.Move:
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    return random.Random(board.fen()).choice(moves)
