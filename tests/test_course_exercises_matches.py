"""course.exercises.matches: the checkers of notebook 08: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import math
import random
import re
from pathlib import Path

import chess
import nbformat
import pytest

from chesslab.matches import rating
from chesslab.course.exercises.matches import (check_beats_material, check_elo_difference,
                                               check_wilson_interval, decided)
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
    assert str(good).startswith(f"my_evaluation: {said}: "), good
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


def test_a_match_is_decided_only_when_no_result_of_the_games_left_changes_the_verdict():
    """``decided`` against every outcome of the games left (win, draw or loss each): it
    says "decided" exactly when all of them give the same pass or fail."""
    for games in (1, 2, 3, 8):
        for bar in (0.5, 0.6):
            for played in range(games + 1):
                for points in (j / 2 for j in range(2 * played + 1)):
                    left = games - played
                    verdicts = {points + j / 2 > bar * games for j in range(2 * left + 1)}
                    assert decided(points, played, games, bar) == (len(verdicts) == 1), (
                        games, bar, played, points)


NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "08_matches.ipynb"


def _graded_cell_and_reference():
    """Notebook 08's graded cell (its source) and its solution of ``my_evaluation``."""
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c
             for c in nbformat.read(NOTEBOOK, as_version=4).cells}
    space = {"chess": chess}
    exec(cells["my_evaluation"].source, space)
    return cells["test_my_evaluation"].source, space["my_evaluation"]


#: the graded match of notebook 08 (its hidden test); the next test checks they agree
GRADED = dict(games=8, seed=130, until_decided=True)


def test_the_graded_match_stops_early_passes_the_reference_and_fails_material():
    """At the graded settings, stopping once the verdict is settled: the notebook's
    reference passes before the 8th game; the mistakes the full match fails still fail
    (material counted the student's way, a random evaluation, chesslab's pst called)."""
    source, reference = _graded_cell_and_reference()
    assert "games=8, seed=130" in source and "until_decided=True" in source, source
    good = check_beats_material(reference, show=False, **GRADED)
    assert good.ok, good
    played = int(re.search(r"after (\d) of the 8 games: already more than 4 of 8", str(good))
                 .group(1))
    assert played < 8 and f"so the other {8 - played} were not played" in str(good), good

    def material(board):
        if board.is_checkmate():
            return -100_000 if board.turn == chess.WHITE else 100_000
        return sum(VALUES[p.piece_type] * (1 if p.color == chess.WHITE else -1)
                   for p in board.piece_map().values() if p.piece_type != chess.KING)
    same_as_material = check_beats_material(material, show=False, **GRADED)
    assert not same_as_material.ok and "even if it wins the other" in str(same_as_material), \
        same_as_material
    noise = random.Random(0)
    at_random = check_beats_material(lambda board: noise.uniform(-100, 100), show=False,
                                     **GRADED)
    assert not at_random.ok and at_random.attempted, at_random

    from chesslab.evaluators.registry import load_evaluator
    pst = load_evaluator("pst")
    calls_pst = check_beats_material(lambda board: pst.evaluate(board), show=False, **GRADED)
    assert calls_pst.passed == 0 and "uses the reference" in str(calls_pst), calls_pst


def test_a_match_played_to_the_end_says_no_game_was_left_out():
    """Without ``until_decided`` every game is played (the visible check and the 8-game
    estimate a student can run): a decided score does not cut it short."""
    assert decided(0, 2, 3, 0.5)            # two lost games would settle it
    lost = check_beats_material(lambda board: 0, games=3, seed=5, depth=1, show=False)
    assert not lost.ok and "of 3 points" in str(lost) and "not played" not in str(lost), lost
