"""course.exercises.alphazero: the checkers of notebook 12: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import math

from chesslab.course.exercises.alphazero import check_gate, check_value_targets
from tests.checker_helpers import not_attempted


def _targets(result, turns, whites_view=False):
    white = {"1-0": 1.0, "0-1": -1.0, "1/2-1/2": 0.0}[result]
    return [white if whites_view or t == "w" else -white for t in turns]


def test_value_targets_checker():
    assert check_value_targets(_targets, show=False).ok
    planted = check_value_targets(lambda r, t: _targets(r, t, True), show=False)
    assert not planted.ok and "Black to move" in planted.first_failure
    not_attempted(check_value_targets)


def _gate(wins, draws, losses, at_least=False, z=1.96):
    games = wins + draws + losses
    p = (wins + draws / 2) / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(p * (1 - p) / games + z * z / (4 * games ** 2))
    accepted = p >= 0.55 if at_least else p > 0.55
    return accepted, max(0.0, centre - half), min(1.0, centre + half)


def test_gate_checker():
    assert check_gate(_gate, show=False).ok
    at_least = check_gate(lambda w, d, l: _gate(w, d, l, at_least=True), show=False)
    assert not at_least.ok and "accepted=True" in at_least.first_failure

    def draws_as_losses(w, d, l):
        return _gate(w, 0, l + d)
    assert not check_gate(draws_as_losses, show=False).ok
    not_attempted(check_gate)


def test_calling_chesslabs_own_function_scores_0():
    """The notebook tells the student so: each checker switches its reference off while
    the student's function runs, and a call into it fails every case with the "uses the
    reference" line; afterwards the reference works again."""
    from chesslab.matches import rating
    from chesslab.training import selfplay

    def gate_by_wilson(w, d, l):
        return (w + d / 2) / (w + d + l) > 0.55, *rating.wilson_interval(w + d / 2, w + d + l)
    result = check_gate(gate_by_wilson, show=False)
    assert result.attempted and result.passed == 0
    assert "uses the reference: your function called chesslab's wilson_interval" in str(result)
    assert rating.wilson_interval(60, 100)[0] > 0.5

    def targets_by_result_for(result, turns):
        return [selfplay.result_for(result, t == "w") for t in turns]
    result = check_value_targets(targets_by_result_for, show=False)
    assert result.attempted and result.passed == 0
    assert "uses the reference: your function called chesslab's result_for" in str(result)
    assert selfplay.result_for("1-0", True) == 1


def test_feedback_names_the_students_function_not_the_reference():
    """The printed line is labelled by the notebook's ``my_...`` function, not by where
    chesslab keeps the reference."""
    results = {"my_value_targets": check_value_targets(_targets, cases=3, show=False),
               "my_gate": check_gate(lambda w, d, l: _gate(w, d, l, True), cases=8,
                                     show=False)}
    for name, result in results.items():
        assert str(result).startswith(f"{name}: "), result
    assert not results["my_gate"].ok


def test_the_points_result_for_is_built_from_are_switched_off_too():
    """``rules.result_for`` is 2 * ``rules.points`` - 1: the points are the reference's
    work, so a target built from them fails with "uses the reference"."""
    import chess
    from chesslab.board import rules

    def by_points(result, turns):
        return [2 * rules.points(result, chess.WHITE if t == "w" else chess.BLACK) - 1
                for t in turns]
    result = check_value_targets(by_points, cases=12, show=False)
    assert result.passed == 0 and result.first_failure.startswith("uses the reference"), result
    assert rules.points("1-0") == 1.0                           # switched back on
