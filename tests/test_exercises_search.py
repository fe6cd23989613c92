"""The checkers of notebooks 07-12 (chesslab.course.exercises): a right answer
passes, a typical mistake is caught, an untouched stub is "not attempted"."""
import math
import re

import chess
import numpy as np
import pytest

from chesslab.course.exercises.alphabeta import check_mvv_lva, mvv_lva_rule_boards
from chesslab.course.exercises.alphazero import check_gate, check_value_targets
from chesslab.course.exercises.bayes import check_nb_features, check_standardise
from chesslab.course.exercises.matches import check_beats_material, check_elo_difference
from chesslab.course.exercises.mcts import check_alphazero_loss, check_mcts_backup
from chesslab.matches.rating import wilson_interval

VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 2000}


def stub(*_args, **_kwargs):
    raise NotImplementedError("your code here")


def _not_attempted(checker, *args, **kwargs):
    result = checker(stub, *args, show=False, **kwargs)
    assert not result.attempted and not result.ok
    assert "not attempted yet" in str(result)


def _mvv_lva(board, attacker_first=False):
    def key(move):
        victim = VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
        attacker = VALUES[board.piece_type_at(move.from_square)]
        extra = VALUES[move.promotion] if move.promotion else 0
        return -(10 * attacker - victim) if attacker_first else 10 * victim - attacker + extra
    return sorted(board.generate_legal_captures(), key=lambda m: -key(m))


def test_mvv_lva_checker():
    assert check_mvv_lva(_mvv_lva, show=False).ok
    planted = check_mvv_lva(lambda b: _mvv_lva(b, attacker_first=True), show=False)
    assert not planted.ok and "instead of" in planted.first_failure
    _not_attempted(check_mvv_lva)


def _mvv_lva_breaking(rule):
    """``_mvv_lva`` with one rule of the exercise broken."""
    def mine(board):
        def key(move):
            victim = board.piece_type_at(move.to_square)
            if rule != "en passant":
                victim = victim or chess.PAWN
            attacker = VALUES[board.piece_type_at(move.from_square)]
            if rule == "king" and board.piece_type_at(move.from_square) == chess.KING:
                attacker = 0
            extra = VALUES[move.promotion] if move.promotion and rule != "promotion" else 0
            return 10 * VALUES[victim] - attacker + extra
        captures = list(board.generate_legal_captures())
        if rule == "ties":
            captures.reverse()
        return sorted(captures, key=lambda m: -key(m))
    return mine


@pytest.mark.parametrize("seed", [0, 120])             # the visible and the hidden cases
def test_every_rule_of_mvv_lva_is_tried_in_visible_and_hidden_cases(seed):
    """A version that crashes on en passant, ignores the promotion, treats the king as
    worth nothing or breaks ties its own way gets no point, with a line naming the case."""
    crash = check_mvv_lva(_mvv_lva_breaking("en passant"), seed=seed, show=False)
    assert not crash.ok and crash.first_failure.startswith("raised KeyError: None (called "
                                                           "with board '")
    for rule in ("promotion", "king", "ties"):
        assert not check_mvv_lva(_mvv_lva_breaking(rule), seed=seed, show=False).ok, rule
    boards = mvv_lva_rule_boards(seed)
    assert any(b.has_legal_en_passant() for b in boards)
    assert any(m.promotion for b in boards for m in b.generate_legal_captures())


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
    _not_attempted(check_elo_difference)


def _standardise(X_train, X_test, own_test_stats=False):
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    if own_test_stats:
        t_mean, t_std = X_test.mean(axis=0), X_test.std(axis=0)
        return (X_train - mean) / std, (X_test - t_mean) / np.where(t_std > 0, t_std, 1.0)
    return (X_train - mean) / std, (X_test - mean) / std


def test_standardise_checker():
    assert check_standardise(_standardise, show=False).ok
    leak = check_standardise(lambda a, b: _standardise(a, b, True), show=False)
    assert not leak.ok
    def divides_by_zero(a, b):
        return (a - a.mean(0)) / a.std(0), (b - a.mean(0)) / a.std(0)
    assert not check_standardise(divides_by_zero, show=False).ok
    _not_attempted(check_standardise)


def _backup(path, value, flip=True):
    for node, a in reversed(path):
        if flip:
            value = -value
        node.N[a] += 1
        node.W[a] += value


def test_mcts_backup_checker():
    assert check_mcts_backup(_backup, show=False).ok
    no_flip = check_mcts_backup(lambda p, v: _backup(p, v, flip=False), show=False)
    assert not no_flip.ok and "W" in no_flip.first_failure

    def flips_after_adding(path, value):
        for node, a in reversed(path):
            node.N[a] += 1
            node.W[a] += value
            value = -value
    assert not check_mcts_backup(flips_after_adding, show=False).ok
    _not_attempted(check_mcts_backup)


def _loss(logits, v, pi, z, mask, weights, c, sum_policy=False):
    value = np.mean((z - v) ** 2)
    masked = np.where(mask, logits, -np.inf)
    shifted = masked - masked.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    per_row = -np.sum(np.where(mask, pi * log_p, 0.0), axis=1)
    policy = per_row.sum() if sum_policy else per_row.mean()
    l2 = c * sum(float(np.sum(w * w)) for w in weights)
    return value, policy, l2


def test_alphazero_loss_checker():
    assert check_alphazero_loss(_loss, cases=6, show=False).ok
    summed = check_alphazero_loss(lambda *a: _loss(*a, sum_policy=True), cases=6,
                                            show=False)
    assert not summed.ok and "policy" in summed.first_failure

    def half_l2(*args):
        value, policy, l2 = _loss(*args)
        return value, policy, l2 / 2
    assert not check_alphazero_loss(half_l2, cases=6, show=False).ok
    _not_attempted(check_alphazero_loss, cases=2)


def _targets(result, turns, whites_view=False):
    white = {"1-0": 1.0, "0-1": -1.0, "1/2-1/2": 0.0}[result]
    return [white if whites_view or t == "w" else -white for t in turns]


def test_value_targets_checker():
    assert check_value_targets(_targets, show=False).ok
    planted = check_value_targets(lambda r, t: _targets(r, t, True), show=False)
    assert not planted.ok and "Black to move" in planted.first_failure
    _not_attempted(check_value_targets)


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
    _not_attempted(check_gate)


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
    assert str(good).startswith(f"beats material:2: {said}: "), good
    assert ("cannot show it" in str(good)) == (said == "plays")
    assert not check_beats_material(lambda b: 0, games=2, show=False).ok
    _not_attempted(check_beats_material, games=2)


@pytest.fixture(scope="module")
def nb_data():
    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(["1-0", "1/2-1/2", "0-1"], size=n)
    signal = np.select([y == "1-0", y == "0-1"], [1.0, -1.0], 0.0)
    X = rng.normal(size=(n, 13))
    X[:, 0] += 2 * signal             # material predicts the result
    X[:, 1] += 2 * signal             # a second, independent predictor
    X[:, 2] = X[:, 0] + 0.01 * rng.normal(size=n)   # a copy of material
    return X[:400], y[:400], X[400:], y[400:]


def test_nb_features_checker_measures_against_the_bar(nb_data):
    X_train, y_train, X_test, y_test = nb_data
    good = check_nb_features(lambda X: X[:, [0, 1]], *nb_data, show=False)
    assert good.ok and "log-loss" in str(good)
    copies = check_nb_features(lambda X: X[:, [0, 2]], *nb_data, show=False)
    assert not copies.ok and "above it" in copies.first_failure
    _not_attempted(check_nb_features, *nb_data)
    broken = check_nb_features(lambda X: X[:, 20], *nb_data, show=False)
    assert not broken.ok
    assert broken.first_failure.startswith("raised IndexError")
    assert "(called with array of shape (" in broken.first_failure


def test_a_design_that_raises_names_the_position():
    def fails_in_the_endgame(board):
        if len(board.piece_map()) < 32:
            raise ValueError("not ready")
        return 0
    result = check_beats_material(fails_in_the_endgame, games=1, show=False)
    assert not result.ok
    assert "raised ValueError: not ready (called with board '" in str(result)
