"""A small dataset labelled by the material balance, shared by the training tests."""
import random

import pytest

from chesslab.datasets.positions import make_dataset, random_board
from chesslab.board.scores import material_balance


def _material_dataset(n=400, seed=3):
    """Random positions labelled by the material balance: a rule a net can learn,
    no Stockfish needed. Every 4 positions share a game id (to exercise the split)."""
    rng = random.Random(seed)
    rows = []
    while len(rows) < n:
        board = random_board(rng, max_plies=120)
        if board is None:
            continue
        rows.append(dict(fen=board.fen(), cp=material_balance(board), wdl=(0, 1000, 0),
                         source="random", game_id=len(rows) // 4, ply=board.ply(),
                         result="*", sampled_by_rule=False))
    return make_dataset(rows)


@pytest.fixture(scope="module")
def tiny():
    return _material_dataset()
