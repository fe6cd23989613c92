"""course.exercises.matches: the checkers of notebook 08: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import math
import re

import chess
import pytest

from chesslab.matches import rating
from chesslab.course.exercises.matches import (check_beats_material, check_elo_difference,
                                               check_wilson_interval)
from tests.checker_helpers import not_attempted, twin


wilson_interval = twin(rating.wilson_interval)


def test_wilson_interval_checker_and_the_interval():
    low, high = rating.wilson_interval(0, 4)
    assert low == 0 and high == pytest.approx(1.96 ** 2 / (4 + 1.96 ** 2))
    assert rating.wilson_interval(3, 10) == pytest.approx(
        tuple(1 - b for b in rating.wilson_interval(7, 10)[::-1]))
    assert check_wilson_interval(wilson_interval, show=False).ok

    def normal_approximation(points, games, z=1.96):
        p = points / games
        half = z * math.sqrt(p * (1 - p) / games)
        return max(0, p - half), min(1, p + half)
    bad = check_wilson_interval(normal_approximation, show=False)
    assert not bad.ok and "(0.0 of 4)" in bad.first_failure


VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 2000}


def _elo(score):
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def test_elo_difference_checker():
    assert check_elo_difference(_elo, show=False).ok
    natural_log = check_elo_difference(
        lambda s: _elo(s) if s in (0, 1) else -400 * math.log(1 / s - 1), show=False)
    assert not natural_log.ok
    no_infinity = check_elo_difference(
        lambda s: None if s in (0, 1) else _elo(s), show=False)
    assert not no_infinity.ok and "no finite Elo" in no_infinity.first_failure
    not_attempted(check_elo_difference)


def _centralised(board):
    score = 0
    for square, piece in board.piece_map().items():
        value = VALUES[piece.piece_type] if piece.piece_type != chess.KING else 0
        file, rank = chess.square_file(square), chess.square_rank(square)
        centre = 14 - 2 * (abs(2 * file - 7) + abs(2 * rank - 7)) // 2
        bonus = centre * 3 if piece.piece_type in (chess.KNIGHT, chess.BISHOP) else 0
        score += (value + bonus) if piece.color == chess.WHITE else -(value + bonus)
    return score


def test_beats_material_checker_plays_and_measures():
    good = check_beats_material(_centralised, games=4, show=False)
    assert good.ok, good
    # above the bar, but "passes the bar" only once the 95% interval clears it
    points = float(re.search(r"(\S+) of 4 points", str(good)).group(1))
    said = "passes the bar" if wilson_interval(points, 4)[0] > 0.5 else "plays"
    assert str(good).startswith(f"scores more than half against material:2: {said}: "), good
    assert ("cannot show it" in str(good)) == (said == "plays")
    assert not check_beats_material(lambda b: 0, games=2, show=False).ok
    not_attempted(check_beats_material, games=2)


def test_a_design_that_raises_names_the_position():
    def fails_in_the_endgame(board):
        if len(board.piece_map()) < 32:
            raise ValueError("not ready")
        return 0
    result = check_beats_material(fails_in_the_endgame, games=1, show=False)
    assert not result.ok
    assert "raised ValueError: not ready (called with board '" in str(result)


def test_a_design_that_calls_one_of_chesslabs_evaluators_scores_0():
    """The evaluation must be the student's own: calling chesslab's ``pst`` gets 0 with
    the "uses the reference" line; afterwards the evaluator works again."""
    from chesslab.evaluators.registry import load_evaluator
    pst = load_evaluator("pst")
    result = check_beats_material(lambda board: pst.evaluate(board), games=2, show=False)
    assert result.attempted and not result.ok and result.passed == 0
    assert ("does not pass yet: uses the reference: your function called chesslab's "
            "PSTEvaluator.evaluate") in str(result), result
    assert pst.evaluate(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800


def test_every_registered_evaluator_is_switched_off_while_the_design_runs():
    """Each evaluator class of the registry (a new one too) has its ``evaluate``, and its
    own ``evaluate_batch``, refused inside the student's function (called unbound here,
    so no model is loaded: a method left on would fail on ``None`` instead)."""
    from chesslab.evaluators.base import Evaluator
    from chesslab.evaluators.registry import EVALUATORS
    classes = {info.evaluator for info in EVALUATORS.values()
               if isinstance(info.evaluator, type) and issubclass(info.evaluator, Evaluator)}
    assert len(classes) >= 6
    for cls in classes:
        methods = ["evaluate"] + (["evaluate_batch"] if cls.evaluate_batch is not
                                  Evaluator.evaluate_batch else [])
        for method in methods:
            def calls_it(board, method=method, cls=cls):
                return getattr(cls, method)(None, [board] if method == "evaluate_batch"
                                            else board)
            result = check_beats_material(calls_it, games=1, show=False)
            refused = getattr(cls, method).__qualname__
            assert f"uses the reference: your function called chesslab's {refused}," in \
                str(result), (cls, method, result)
