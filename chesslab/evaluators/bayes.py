"""Gaussian Naive Bayes from scratch, and the ``bayes`` evaluator built on it.

The Naive Bayes chapter turns a position into a few hand-made features
(:mod:`chesslab.evaluators.features`), standardises them, and asks a classifier "who wins from
here?" with three answers: White wins, draw, Black wins. Gaussian Naive Bayes answers
with Bayes' rule under one strong assumption: inside each class every feature is an
independent normal distribution, so

    log P(class | x) = log P(class) + sum_j log N(x_j; mean[class, j], var[class, j]) - log Z

and Z (the same for every class) is removed with a log-sum-exp, never leaving log space.

The evaluator turns the answer into a number a search can use:
``score = SCORE_SCALE * (P(White wins) - P(Black wins))``, a probability gap in units of
its own (not centipawns: +100 is not a pawn), so a sure White win is +1000,
a sure Black win -1000 and "either way" 0. Checkmate is +-infinity (as in
the chapter's material evaluation) and stalemate 0.

One JSON file (``data/models/bayes.json``, ``python -m chesslab train bayes``) holds the
classifier and the scaler. Its training data are in ``chesslab.training.naive_bayes``;
``chesslab.experiments.naive_bayes`` compares it with simple baselines
(``python -m chesslab results bayes``).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from chesslab.board.encoding import as_board
from chesslab.evaluators.features import FEATURE_NAMES, StandardScaler, features_batch
from chesslab.base.files import MODELS_DIR, read_json, write_json_atomic
from chesslab.evaluators.base import Evaluator
from chesslab.board.rules import outcome
from chesslab.board.scores import checkmate_score

#: Class labels, in the column order of every probability array: White wins, draw,
#: Black wins (PGN result strings).
CLASSES = ("1-0", "1/2-1/2", "0-1")
#: The score of "White surely wins" (its own units, not centipawns):
#: score = SCORE_SCALE * (P(1-0) - P(0-1)).
SCORE_SCALE = 1000.0
MODEL_PATH = MODELS_DIR / "bayes.json"
FORMAT = "chesslab-gaussian-nb"


def logsumexp(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """log(sum(exp(a))) without overflow: shift by the largest value first."""
    top = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(top, axis) + np.log(np.sum(np.exp(a - top), axis=axis))


class GaussianNB:
    """Per class: a prior, and a mean and a variance for every feature.

    ``var_smoothing`` adds ``var_smoothing * (largest feature variance)`` to every
    variance, so a feature that is constant inside one class (a castling flag that is
    always 0) does not give a zero variance and an infinite log-likelihood.
    """

    def __init__(self, var_smoothing: float = 1e-9):
        if not var_smoothing >= 0:
            raise ValueError(f"var_smoothing must be >= 0, got {var_smoothing}")
        self.var_smoothing = float(var_smoothing)
        self.classes_ = None

    def fit(self, X, y, classes=None) -> "GaussianNB":
        X = _as_rows(X)
        y = np.asarray(y)
        if y.shape != (len(X),):
            raise ValueError(f"y must have one label per row of X ({len(X)}), "
                             f"got shape {y.shape}")
        classes = list(np.unique(y) if classes is None else classes)
        unknown = set(y.tolist()) - set(classes)
        if unknown:
            raise ValueError(f"labels {sorted(map(str, unknown))} are not among the "
                             f"classes {classes}")
        widest = X.var(axis=0).max() if len(X) else 0.0
        self.epsilon_ = self.var_smoothing * (widest if widest > 0 else 1.0)
        rows = [X[y == c] for c in classes]
        empty = [str(c) for c, r in zip(classes, rows) if len(r) == 0]
        if empty:
            raise ValueError(f"no training rows for class {', '.join(empty)}; every class "
                             f"needs examples (use more games)")
        self.classes_ = classes
        self.class_count_ = np.array([len(r) for r in rows], dtype=float)
        self.class_prior_ = self.class_count_ / self.class_count_.sum()
        self.theta_ = np.stack([r.mean(axis=0) for r in rows])
        self.var_ = np.stack([r.var(axis=0) for r in rows]) + self.epsilon_
        if np.any(self.var_ <= 0):
            raise ValueError("a feature is constant inside a class and var_smoothing is 0; "
                             "use var_smoothing > 0")
        return self

    def joint_log_likelihood(self, X) -> np.ndarray:
        """(N, classes): log P(class) + log p(x | class), before normalising."""
        X = self._check(X)
        log_norm = -0.5 * np.log(2 * np.pi * self.var_).sum(axis=1)           # (C,)
        squares = ((X[:, None, :] - self.theta_[None]) ** 2 / self.var_[None]).sum(axis=2)
        return np.log(self.class_prior_) + log_norm - 0.5 * squares

    def predict_log_proba(self, X) -> np.ndarray:
        jll = self.joint_log_likelihood(X)
        return jll - logsumexp(jll, axis=1)[:, None]

    def predict_proba(self, X) -> np.ndarray:
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        return np.array(self.classes_)[np.argmax(self.joint_log_likelihood(X), axis=1)]

    def _check(self, X) -> np.ndarray:
        if self.classes_ is None:
            raise ValueError("this GaussianNB is not fitted yet; call fit(X, y) first")
        X = _as_rows(X)
        if X.shape[1] != self.theta_.shape[1]:
            raise ValueError(f"expected {self.theta_.shape[1]} feature columns, got "
                             f"{X.shape[1]}")
        return X

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        if self.classes_ is None:
            raise ValueError("cannot save an unfitted GaussianNB")
        return {"classes": [str(c) for c in self.classes_],
                "class_count": self.class_count_.tolist(),
                "class_prior": self.class_prior_.tolist(),
                "theta": self.theta_.tolist(), "var": self.var_.tolist(),
                "var_smoothing": self.var_smoothing, "epsilon": self.epsilon_}

    @classmethod
    def from_dict(cls, d) -> "GaussianNB":
        """Rebuild from ``to_dict``; every shape and value is checked."""
        need = ("classes", "class_count", "class_prior", "theta", "var", "var_smoothing",
                "epsilon")
        if not isinstance(d, dict):
            raise ValueError("the Naive Bayes model must be a JSON object")
        missing = [k for k in need if k not in d]
        if missing:
            raise ValueError(f"the Naive Bayes model lacks {', '.join(missing)}")
        classes = d["classes"]
        if (not isinstance(classes, list) or len(classes) < 2
                or len(set(map(str, classes))) != len(classes)):
            raise ValueError("'classes' must be a list of at least 2 distinct labels")
        try:
            arrays = {k: np.asarray(d[k], dtype=float)
                      for k in ("class_count", "class_prior", "theta", "var")}
            smoothing, epsilon = float(d["var_smoothing"]), float(d["epsilon"])
        except (TypeError, ValueError):
            raise ValueError("the model's numbers are not all numeric (class_count, "
                             "class_prior, theta, var, var_smoothing, epsilon)") from None
        n = len(classes)
        theta, var = arrays["theta"], arrays["var"]
        if arrays["class_prior"].shape != (n,) or arrays["class_count"].shape != (n,):
            raise ValueError(f"'class_prior' and 'class_count' need {n} values, one per "
                             f"class")
        if theta.ndim != 2 or theta.shape[0] != n or var.shape != theta.shape:
            raise ValueError(f"'theta' and 'var' must both be {n} x features tables, got "
                             f"shapes {theta.shape} and {var.shape}")
        if not all(np.all(np.isfinite(a)) for a in arrays.values()):
            raise ValueError("the model holds non-finite numbers")
        prior = arrays["class_prior"]
        if np.any(prior <= 0) or not math.isclose(prior.sum(), 1.0, abs_tol=1e-6):
            raise ValueError(f"'class_prior' must be positive and sum to 1, got "
                             f"{prior.tolist()}")
        if np.any(var <= 0):
            raise ValueError("every variance in 'var' must be positive")
        nb = cls(smoothing)
        nb.classes_ = list(classes)
        nb.class_count_, nb.class_prior_ = arrays["class_count"], prior
        nb.theta_, nb.var_, nb.epsilon_ = theta, var, epsilon
        return nb


def _as_rows(X) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D array (rows, features), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("the feature array holds NaN or infinite values")
    return X


# ---------------------------------------------------------------- model files

def save_bayes(path, nb: GaussianNB, scaler: StandardScaler,
               feature_names=FEATURE_NAMES, info: dict | None = None) -> Path:
    """Classifier + scaler (+ what they were trained on) in one JSON file, atomically."""
    model = nb.to_dict()
    if len(feature_names) != len(model["theta"][0]) or len(scaler.mean_) != len(
            feature_names):
        raise ValueError("the classifier, the scaler and feature_names disagree on the "
                         "number of features")
    return write_json_atomic(path, {"format": FORMAT, "version": 1,
                                    "feature_names": list(feature_names),
                                    "scaler": scaler.to_dict(), "model": model,
                                    "info": info or {}}, indent=1)


def load_bayes(path=MODEL_PATH):
    """(GaussianNB, StandardScaler, feature_names, info) from a model file."""
    data = read_json(path, "Naive Bayes model file")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a chesslab Naive Bayes model (its 'format' should "
                         f"be {FORMAT!r}); retrain it with "
                         f"`python -m chesslab train bayes`")
    try:
        for key in ("feature_names", "scaler", "model"):
            if key not in data:
                raise ValueError(f"it lacks {key!r}")
        nb = GaussianNB.from_dict(data["model"])
        scaler = StandardScaler.from_dict(data["scaler"])
        names = data["feature_names"]
        if not isinstance(names, list) or not (len(names) == nb.theta_.shape[1]
                                               == len(scaler.mean_)):
            raise ValueError("'feature_names', the scaler and the model disagree on the "
                             "number of features")
    except ValueError as exc:
        raise ValueError(f"malformed Naive Bayes model file {path}: {exc}") from None
    return nb, scaler, names, data.get("info", {})


# ---------------------------------------------------------------- the evaluator

class BayesEvaluator(Evaluator):
    """``SCORE_SCALE * (P(White wins) - P(Black wins))`` from the features of a board.

    ``evaluate_batch`` computes the features of all boards at once and runs one
    vectorised prediction, which is why the search hands it whole frontiers. Scores
    are remembered per position (pieces, side to move, castling rights, en passant
    square: everything the features depend on), since a search meets the same
    positions again and again.
    """

    name = "bayes"
    prefers_batches = True
    cache_size = 100_000

    def __init__(self, nb: GaussianNB, scaler: StandardScaler, score_scale=SCORE_SCALE):
        missing = [c for c in (CLASSES[0], CLASSES[2]) if c not in nb.classes_]
        if missing:
            raise ValueError(f"the classifier must know the classes {CLASSES[0]!r} and "
                             f"{CLASSES[2]!r}; it has {nb.classes_}")
        self.nb, self.scaler, self.score_scale = nb, scaler, float(score_scale)
        self._white = nb.classes_.index(CLASSES[0])
        self._black = nb.classes_.index(CLASSES[2])
        self._cache = {}

    @classmethod
    def from_file(cls, path=MODEL_PATH, name: str = "bayes") -> "BayesEvaluator":
        nb, scaler, names, _ = load_bayes(path)
        if tuple(names) != FEATURE_NAMES:
            raise ValueError(f"{path} was trained on features {names}, but chesslab now "
                             f"computes {list(FEATURE_NAMES)}; retrain the model with "
                             f"`python -m chesslab train bayes`")
        evaluator = cls(nb, scaler)
        evaluator.name = name
        return evaluator

    def score_proba(self, proba: np.ndarray) -> np.ndarray:
        return self.score_scale * (proba[:, self._white] - proba[:, self._black])

    def _compute(self, boards) -> np.ndarray:
        X = self.scaler.transform(features_batch(boards))
        scores = self.score_proba(self.nb.predict_proba(X))
        for i, board in enumerate(boards):
            if outcome(board, claim_draws=False) is not None:   # mate: +-inf, draws: 0
                scores[i] = checkmate_score(board) or 0.0
        return scores

    def evaluate_batch(self, boards) -> np.ndarray:
        boards = [as_board(b) for b in boards]
        keys = [b._transposition_key() for b in boards]
        scores = {k: self._cache[k] for k in keys if k in self._cache}
        todo = {k: b for k, b in zip(keys, boards) if k not in scores}
        if todo:
            new = dict(zip(todo, self._compute(list(todo.values())).tolist()))
            scores.update(new)
            if len(self._cache) + len(new) > self.cache_size:
                self._cache.clear()
            self._cache.update(new)
        return np.array([scores[k] for k in keys], dtype=float)

    def evaluate(self, board) -> float:
        return float(self.evaluate_batch([board])[0])
