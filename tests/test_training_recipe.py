"""recipe: quiet leaves, mirrored and flipped copies, the side to move's view."""
import random

import chess
import numpy as np
import pytest

from chesslab.training import recipe
from chesslab.datasets.positions import random_board
from chesslab.board.scores import material_balance
from chesslab.evaluators.neural import NetworkEvaluator
from chesslab.nn import ANN
from material_data import tiny  # noqa: F401  (a fixture)


def test_quiet_leaf_plays_out_a_winning_capture_and_only_that():
    hanging = chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")     # Rxd5 wins the queen
    leaf = recipe.quiet_leaf(hanging)
    assert leaf.board_fen() == "4k3/8/8/3R4/8/8/8/4K3" and leaf.turn == chess.BLACK
    defended = chess.Board("4k3/4p3/3p4/8/8/8/3Q4/4K3 w - - 0 1")   # Qxd6 exd6 loses
    assert recipe.quiet_leaf(defended).fen() == defended.fen()
    in_check = chess.Board("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1")
    assert recipe.quiet_leaf(in_check) is None
    assert hanging.fen() == "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"    # never changed


def test_training_positions_mirror_and_quiet(tiny):
    boards, cp = recipe.training_positions(tiny)
    assert len(boards) == len(tiny) and np.array_equal(cp, tiny.cp)
    boards2, cp2 = recipe.training_positions(tiny, mirror=True)
    n = len(tiny)
    assert len(boards2) == 2 * n and np.array_equal(cp2[n:], -cp2[:n])
    assert boards2[n].fen() == boards2[0].mirror().fen()
    quiet, qcp = recipe.training_positions(tiny, quiet=True)
    assert 0 < len(quiet) <= n and not any(b.is_check() for b in quiet)
    # material labels: a quiet leaf where a capture was played changed the balance
    changed = sum(material_balance(b) != c for b, c in zip(quiet, qcp))
    assert changed > 0


def test_side_to_move_view_mirrors_black_and_negates_its_score():
    white = chess.Board("4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
    black = chess.Board("4k3/8/8/8/8/8/3QK3/8 b - - 0 1")
    boards, cp = recipe.network_view([white, black], [900, 900], "side_to_move")
    assert boards[0] is white and boards[1].turn == chess.WHITE
    assert boards[1].fen() == black.mirror().fen() and cp.tolist() == [900, -900]
    # an evaluator with that perspective scores a mirrored position as the negation
    ev = NetworkEvaluator(ANN.from_topology([896, 8, 1], seed=1), "planes14_flat",
                          perspective="side_to_move")
    rng = random.Random(5)
    for _ in range(5):
        board = random_board(rng, max_plies=40)
        if board is not None:
            assert ev.evaluate(board.mirror()) == pytest.approx(-ev.evaluate(board), abs=1e-3)
