"""evaluators.bayes: Gaussian Naive Bayes from scratch, its model file, and the ``bayes`` evaluator."""
import json
import math

import chess
import numpy as np
import pytest

from chesslab.evaluators import bayes
from chesslab.evaluators.bayes import CLASSES, BayesEvaluator, GaussianNB, load_bayes, save_bayes
from chesslab.evaluators.features import FEATURE_NAMES, features_batch
from chesslab.evaluators.registry import load_evaluator
from chesslab.training import naive_bayes

# A 2-feature toy set: class "a" = (0,0), (2,2); class "b" = (4,1), (6,3), (5,5).
TOY_X = np.array([[0, 0], [2, 2], [4, 1], [6, 3], [5, 5]], dtype=float)
TOY_Y = np.array(["a", "a", "b", "b", "b"])


def normal_pdf(x, mean, var):
    return math.exp(-(x - mean) ** 2 / (2 * var)) / math.sqrt(2 * math.pi * var)


def test_toy_set_matches_a_hand_computation():
    nb = GaussianNB(var_smoothing=0.0).fit(TOY_X, TOY_Y)
    # By hand: a has means (1, 1), variances (1, 1), prior 2/5;
    #          b has means (5, 3), variances (2/3, 8/3), prior 3/5.
    np.testing.assert_allclose(nb.theta_, [[1, 1], [5, 3]])
    np.testing.assert_allclose(nb.var_, [[1, 1], [2 / 3, 8 / 3]])
    np.testing.assert_allclose(nb.class_prior_, [0.4, 0.6])
    x = (3.0, 2.0)
    a = 0.4 * normal_pdf(x[0], 1, 1) * normal_pdf(x[1], 1, 1)
    b = 0.6 * normal_pdf(x[0], 5, 2 / 3) * normal_pdf(x[1], 3, 8 / 3)
    np.testing.assert_allclose(nb.predict_proba([x])[0], [a / (a + b), b / (a + b)])
    assert nb.predict([x, (0, 1), (6, 4)]).tolist() == ["a" if a > b else "b", "a", "b"]


def test_probabilities_sum_to_one_even_far_from_the_data():
    nb = GaussianNB().fit(TOY_X, TOY_Y)
    far = np.array([[1e3, -1e3], [40.0, 40.0], [1.0, 1.0]])
    proba = nb.predict_proba(far)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    np.testing.assert_allclose(np.exp(nb.predict_log_proba(far)), proba)


def test_logsumexp_does_not_overflow():
    a = np.array([[1000.0, 1000.0], [-1000.0, -1001.0]])
    np.testing.assert_allclose(bayes.logsumexp(a, axis=1),
                               [1000 + math.log(2), -1000 + math.log(1 + math.exp(-1))])


def test_variance_smoothing_keeps_constant_features_finite():
    X = np.array([[0.0, 1.0], [0.0, 3.0], [1.0, 5.0], [1.0, 9.0]])
    y = np.array(["x", "x", "y", "y"])  # feature 0 is constant inside each class
    nb = GaussianNB(var_smoothing=1e-3).fit(X, y)
    assert nb.epsilon_ == pytest.approx(1e-3 * X.var(axis=0).max())
    np.testing.assert_allclose(nb.var_[:, 0], nb.epsilon_)
    assert nb.predict([[0.0, 2.0], [1.0, 7.0]]).tolist() == ["x", "y"]
    with pytest.raises(ValueError, match="var_smoothing > 0"):
        GaussianNB(var_smoothing=0.0).fit(X, y)


def test_fit_errors():
    with pytest.raises(ValueError, match="no training rows for class c"):
        GaussianNB().fit(TOY_X, TOY_Y, classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="one label per row"):
        GaussianNB().fit(TOY_X, TOY_Y[:3])
    with pytest.raises(ValueError, match="not fitted"):
        GaussianNB().predict(TOY_X)
    with pytest.raises(ValueError, match="expected 2 feature columns"):
        GaussianNB().fit(TOY_X, TOY_Y).predict([[1.0, 2.0, 3.0]])


def synthetic_evaluator(seed=0):
    """A model that learned 'more material wins' from made-up feature rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(0, 1, (300, len(FEATURE_NAMES)))
    y = np.array(CLASSES * 100)
    X[:, 0] = np.select([y == "1-0", y == "0-1"], [600, -600], 0) + rng.normal(0, 200, 300)
    nb, scaler = naive_bayes.train(X, y)
    return BayesEvaluator(nb, scaler)


def test_save_load_round_trip(tmp_path):
    ev = synthetic_evaluator()
    path = save_bayes(tmp_path / "nb.json", ev.nb, ev.scaler, info={"games": 3})
    nb, scaler, names, info = load_bayes(path)
    assert names == list(FEATURE_NAMES) and info == {"games": 3}
    assert nb.classes_ == list(CLASSES)
    Z = ev.scaler.transform(np.random.default_rng(1).normal(0, 300, (5, len(FEATURE_NAMES))))
    np.testing.assert_array_equal(nb.predict_proba(Z), ev.nb.predict_proba(Z))
    np.testing.assert_array_equal(scaler.mean_, ev.scaler.mean_)
    again = BayesEvaluator.from_file(path)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert again.evaluate(board) == ev.evaluate(board)
    assert not list(tmp_path.glob(".*tmp"))  # the atomic write left no temp file


def _corrupt(tmp_path, edit):
    ev = synthetic_evaluator()
    path = save_bayes(tmp_path / "nb.json", ev.nb, ev.scaler)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(format="something-else"), "not a chesslab Naive Bayes model"),
    (lambda d: d.pop("scaler"), "lacks 'scaler'"),
    (lambda d: d["model"].pop("var"), "lacks var"),
    (lambda d: d["model"].update(var=[[1.0, 2.0]]), "'theta' and 'var'"),
    (lambda d: d["model"]["var"][0].__setitem__(0, -1.0), "must be positive"),
    (lambda d: d["model"].update(class_prior=[0.5, 0.5, 0.5]), "sum to 1"),
    (lambda d: d["model"].update(theta="oops"), "not all numeric"),
    (lambda d: d["scaler"].update(mean=[0.0]), "same length"),
    (lambda d: d.update(feature_names=["material"]), "disagree"),
])
def test_malformed_model_files_are_explained(tmp_path, edit, message):
    path = _corrupt(tmp_path, edit)
    with pytest.raises(ValueError, match=message):
        BayesEvaluator.from_file(path)


def test_truncated_and_missing_model_files(tmp_path):
    path = tmp_path / "nb.json"
    path.write_text('{"format": "chesslab-gaussian-nb", "model": {')
    with pytest.raises(ValueError, match="not valid JSON"):
        load_bayes(path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_bayes(tmp_path / "missing.json")


def test_renamed_features_ask_for_retraining(tmp_path):
    path = _corrupt(tmp_path, lambda d: d["feature_names"].__setitem__(0, "old_material"))
    with pytest.raises(ValueError, match="retrain"):
        BayesEvaluator.from_file(path)


UP_A_QUEEN = chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
DOWN_A_QUEEN = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1")


def test_evaluator_sign_scale_and_batch():
    ev = synthetic_evaluator()
    up, down = ev.evaluate(UP_A_QUEEN), ev.evaluate(DOWN_A_QUEEN)
    assert 0 < up <= bayes.SCORE_SCALE and -bayes.SCORE_SCALE <= down < 0
    boards = [UP_A_QUEEN, DOWN_A_QUEEN, chess.Board(),
              chess.Board("4k3/pp1p3p/3p4/3p4/8/2P5/P1P2PPP/4K3 b - - 0 1")]
    batch = ev.evaluate_batch(boards + boards[:2])  # repeats come from the cache
    assert batch.shape == (6,)
    fresh = synthetic_evaluator()  # an empty cache: every single board is computed
    np.testing.assert_allclose(batch[:4], [fresh.evaluate(b) for b in boards])
    np.testing.assert_array_equal(batch[4:], batch[:2])
    batch = batch[:4]
    tiny = synthetic_evaluator()
    tiny.cache_size = 3  # overflowing the cache must not lose scores being returned
    for order in (boards[:2], boards, boards[::-1] + boards[:1]):
        np.testing.assert_allclose(tiny.evaluate_batch(order),
                                   [batch[boards.index(b)] for b in order])
    proba = ev.nb.predict_proba(ev.scaler.transform(features_batch(boards)))
    np.testing.assert_allclose(batch, 1000 * (proba[:, 0] - proba[:, 2]))


def test_evaluator_knows_mate_and_stalemate():
    ev = synthetic_evaluator()
    white_mates = chess.Board("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert ev.evaluate(white_mates) == math.inf
    assert ev.evaluate(white_mates.mirror()) == -math.inf
    assert ev.evaluate(stalemate) == 0.0


def test_shipped_model_through_load_evaluator():
    if not bayes.MODEL_PATH.exists():
        pytest.skip("data/models/bayes.json is not trained yet (python -m chesslab train bayes)")
    ev = load_evaluator("bayes")
    assert isinstance(ev, BayesEvaluator)
    assert ev.evaluate(UP_A_QUEEN) > 0 > ev.evaluate(DOWN_A_QUEEN)
