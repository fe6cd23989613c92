"""Gaussian Naive Bayes from scratch, and the ``bayes`` evaluator built on it.

The Naive Bayes chapter turns a position into a few hand-made features
(:mod:`chesslab.evaluators.features`), standardises them, and asks a classifier "who wins from
here?" with three answers: White wins, draw, Black wins. Gaussian Naive Bayes answers
with Bayes' rule under one strong assumption: inside each class every feature is an
independent normal distribution, so

    log P(class | x) = log P(class) + sum_j log N(x_j; mean[class, j], var[class, j]) - log Z

and Z (the same for every class) is removed with a log-sum-exp, never leaving log space.

The evaluator turns the answer into a number a search can use:
``score = SCORE_SCALE * (P(White wins) - P(Black wins))`` centipawns, so a sure White
win is +1000, a sure Black win -1000 and "either way" 0. Checkmate is +-infinity (as in
the chapter's material evaluation) and stalemate 0.

One JSON file (``data/models/bayes.json``, ``python -m chesslab train bayes``) holds the
classifier and the scaler; ``measure`` compares it with simple baselines
(``python -m chesslab results bayes``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chesslab.datasets.positions import split_by_game
from chesslab.board.encoding import as_board
from chesslab.evaluators.features import FEATURE_NAMES, StandardScaler, features_batch
from chesslab.base.files import MODELS_DIR, read_json, write_json_atomic
from chesslab.datasets.records import DEFAULT_GAMES, read_games, sample_plies
from chesslab.evaluators.base import Evaluator
from chesslab.board.scores import checkmate_score

#: Class labels, in the column order of every probability array: White wins, draw,
#: Black wins (PGN result strings).
CLASSES = ("1-0", "1/2-1/2", "0-1")
#: Centipawns for "White surely wins": score = SCORE_SCALE * (P(1-0) - P(0-1)).
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
            if not any(board.generate_legal_moves()):  # game over: mate or stalemate
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



# ---------------------------------------------------------------- training data

def sampled_positions(games):
    """The chapter's sample of every finished game, labelled by the game's result.

    Returns (boards, labels, game_ids, plies) where ``game_ids[i]`` is the index of the
    game in ``games``. Games without a result ("*") are skipped.
    """
    boards, labels, game_ids, plies = [], [], [], []
    for gid, game in enumerate(games):
        result = game.headers.get("Result", "*")
        if result not in CLASSES:
            continue
        moves = list(game.mainline_moves())
        keep = set(sample_plies(len(moves)))
        board = game.board()
        for ply, move in enumerate(moves, start=1):
            board.push(move)
            if ply in keep:
                boards.append(board.copy(stack=False))
                labels.append(result)
                game_ids.append(gid)
                plies.append(ply)
    return boards, np.array(labels), np.array(game_ids), np.array(plies)


def load_training_data(path=DEFAULT_GAMES, max_games: int | None = None):
    """Features, labels, game ids and plies of the chapter's sample of a PGN file."""
    games = read_games(path, limit=max_games)   # only the first max_games are parsed
    boards, labels, game_ids, plies = sampled_positions(games)
    return features_batch(boards), labels, game_ids, plies


def train(X, y, var_smoothing: float = 1e-9):
    """Fit a scaler on the training rows, then the classifier on the scaled rows."""
    scaler = StandardScaler().fit(X)
    return GaussianNB(var_smoothing).fit(scaler.transform(X), y, classes=CLASSES), scaler


def train_test_rows(game_ids, test_fraction: float = 0.2, seed: int = 0):
    """(train rows, test rows): whole games on one side (see data.split_by_game)."""
    return split_by_game(game_ids, (1 - test_fraction, test_fraction), seed)


# ---------------------------------------------------------------- measuring

def label_accuracy(y_true, y_pred) -> float:
    """The fraction of predicted labels equal to the true ones (not ``measure.accuracy``,
    which compares the signs of centipawn scores)."""
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def log_loss(y_true, proba, classes=CLASSES, eps: float = 1e-15) -> float:
    """Mean -log P(true class); probabilities clipped to [eps, 1] so a sure miss is finite."""
    index = np.array([list(classes).index(c) for c in np.asarray(y_true).tolist()])
    picked = np.asarray(proba)[np.arange(len(index)), index]
    return float(-np.mean(np.log(np.clip(picked, eps, 1.0))))


def material_rule(material, threshold: float = 200.0) -> np.ndarray:
    """The material-only rule: White wins if material >= threshold, Black wins if
    <= -threshold, else a draw."""
    material = np.asarray(material)
    return np.where(material >= threshold, CLASSES[0],
                    np.where(material <= -threshold, CLASSES[2], CLASSES[1]))


def _rule_proba(pred_train, y_train, pred_test):
    """Probabilities for a hard rule: class frequencies (train, add-one) per verdict."""
    table = {}
    for verdict in CLASSES:
        hits = y_train[pred_train == verdict]
        counts = np.array([np.sum(hits == c) for c in CLASSES], dtype=float) + 1
        table[verdict] = counts / counts.sum()
    return np.array([table[v] for v in pred_test.tolist()])


def compare(X_train, y_train, X_test, y_test, threshold: float = 200.0,
            var_smoothing: float = 1e-9) -> list[dict]:
    """Accuracy and log-loss on the test rows of: the majority class, the material
    rule, Naive Bayes on material alone, and Naive Bayes on every feature."""
    rows = []
    counts = np.array([np.sum(y_train == c) for c in CLASSES], dtype=float)
    prior = counts / counts.sum()
    majority = CLASSES[int(np.argmax(counts))]
    rows.append({"model": "majority class (" + majority + ")",
                 "accuracy": label_accuracy(y_test, np.full(len(y_test), majority)),
                 "log_loss": log_loss(y_test, np.tile(prior, (len(y_test), 1)))})
    m = FEATURE_NAMES.index("material")
    rule_train = material_rule(X_train[:, m], threshold)
    rule_test = material_rule(X_test[:, m], threshold)
    rows.append({"model": f"material rule (|material| >= {threshold:g})",
                 "accuracy": label_accuracy(y_test, rule_test),
                 "log_loss": log_loss(y_test, _rule_proba(rule_train, y_train, rule_test))})
    for label, cols in (("Naive Bayes, material only", [m]),
                        ("Naive Bayes, all features", list(range(X_train.shape[1])))):
        nb, scaler = train(X_train[:, cols], y_train, var_smoothing)
        Z = scaler.transform(X_test[:, cols])
        rows.append({"model": label, "accuracy": label_accuracy(y_test, nb.predict(Z)),
                     "log_loss": log_loss(y_test, nb.predict_proba(Z))})
    return rows


# ---------------------------------------------------------------- the shipped model, measured

@dataclass
class GameSample:
    """The chapter's sample of every game of a PGN file, split by game."""

    X: np.ndarray            # features, one row per sampled position
    y: np.ndarray            # the game's result for each row
    game_ids: np.ndarray
    plies: np.ndarray
    train: np.ndarray        # row indices of the training games
    test: np.ndarray         # row indices of the test games
    info: dict               # what the split holds (recorded with the model and results)


def game_sample(pgn=DEFAULT_GAMES, test_fraction: float = 0.2, seed: int = 0) -> GameSample:
    """Features of the chapter's sample of every game in ``pgn``, split by game."""
    X, y, game_ids, plies = load_training_data(pgn)
    train_rows, test_rows = train_test_rows(game_ids, test_fraction, seed)
    counts = lambda labels: {c: int(np.sum(labels == c)) for c in CLASSES}  # noqa: E731
    info = {"games": Path(pgn).name, "seed": seed,
            "train_games": int(len(np.unique(game_ids[train_rows]))),
            "test_games": int(len(np.unique(game_ids[test_rows]))),
            "train_positions": counts(y[train_rows]), "test_positions": counts(y[test_rows])}
    return GameSample(X, y, game_ids, plies, train_rows, test_rows, info)


def train_shipped(sample: GameSample, path=MODEL_PATH, **info) -> Path:
    """The model ``load_evaluator("bayes")`` reads: fitted on the sample's training
    games, saved with what it was trained on (and ``info``, e.g. the command)."""
    nb, scaler = train(sample.X[sample.train], sample.y[sample.train])
    return save_bayes(path, nb, scaler, info={**sample.info, **info})


def _nb_row(label, X_train, y_train, X_test, y_test):
    nb, scaler = train(X_train, y_train)
    Z = scaler.transform(X_test)
    return {"model": label, "accuracy": label_accuracy(y_test, nb.predict(Z)),
            "log_loss": log_loss(y_test, nb.predict_proba(Z))}


def independence_experiments(X_train, y_train, X_test, y_test):
    """Two ways to see what the independence assumption costs."""
    m = FEATURE_NAMES.index("material")
    triple = lambda X: np.column_stack([X, X[:, m], X[:, m]])  # noqa: E731
    rows = [_nb_row("NB, all features + material twice more (perfectly correlated copies)",
                    triple(X_train), y_train, triple(X_test), y_test)]
    # Rotate the standardised features onto the training covariance's eigenvectors:
    # the new columns are uncorrelated (on the training rows), which is what NB assumes.
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1
    _, vectors = np.linalg.eigh(np.cov((X_train - mean) / std, rowvar=False))
    rotate = lambda X: ((X - mean) / std) @ vectors  # noqa: E731
    rows.append(_nb_row("NB, all features decorrelated (PCA rotation, same information)",
                        rotate(X_train), y_train, rotate(X_test), y_test))
    return rows


def feature_selection(X_train, y_train, game_ids, X_test, y_test, seed):
    """Which features earn their place? Drop-one on the test games, and a greedy
    forward selection judged on validation games carved out of the training games."""
    everything = list(range(X_train.shape[1]))
    drop_one = []
    for j in everything:
        cols = [k for k in everything if k != j]
        row = _nb_row(FEATURE_NAMES[j], X_train[:, cols], y_train, X_test[:, cols], y_test)
        drop_one.append({"feature": row.pop("model"), **row})
    fit_rows, val_rows = train_test_rows(game_ids, 0.25, seed + 1)
    chosen, best = [], math.inf
    while len(chosen) < len(everything):
        loss, j = min((_nb_row("", X_train[fit_rows][:, chosen + [j]], y_train[fit_rows],
                               X_train[val_rows][:, chosen + [j]],
                               y_train[val_rows])["log_loss"], j)
                      for j in everything if j not in chosen)
        if loss >= best:
            break
        chosen, best = chosen + [j], loss
    names = [FEATURE_NAMES[j] for j in chosen]
    row = _nb_row(f"NB, forward-selected features ({', '.join(names)})",
                  X_train[:, chosen], y_train, X_test[:, chosen], y_test)
    return drop_one, names, row


def measure(sample: GameSample) -> dict:
    """Naive Bayes against simple baselines on the sample's test games (what
    data/results/bayes_comparison.json holds): the majority class, the material rule, NB
    on material alone and on all features, two experiments on the independence
    assumption, NB without each feature in turn, NB on forward-selected features, NB
    early vs late in the game, the feature correlation matrix and class counts."""
    X, y, game_ids, plies = sample.X, sample.y, sample.game_ids, sample.plies
    X_train, y_train = X[sample.train], y[sample.train]
    X_test, y_test = X[sample.test], y[sample.test]
    table = compare(X_train, y_train, X_test, y_test)
    table += independence_experiments(X_train, y_train, X_test, y_test)
    drop_one, selected, selected_row = feature_selection(
        X_train, y_train, game_ids[sample.train], X_test, y_test, sample.info["seed"])
    table.append(selected_row)
    length = np.zeros(game_ids.max() + 1, dtype=int)
    np.maximum.at(length, game_ids, plies)  # the last position is always sampled
    late = plies[sample.test] > 0.75 * length[game_ids[sample.test]]
    nb, scaler = train(X_train, y_train)
    Z = scaler.transform(X_test)
    by_phase = {name: {"positions": int(mask.sum()),
                       "accuracy": label_accuracy(y_test[mask], nb.predict(Z[mask])),
                       "log_loss": log_loss(y_test[mask], nb.predict_proba(Z[mask]))}
                for name, mask in (("first 75% of the game", ~late),
                                   ("last 25% of the game", late))}
    return {**sample.info, "table": table, "nb_by_phase": by_phase, "drop_one": drop_one,
            "forward_selected": selected, "feature_names": list(FEATURE_NAMES),
            "correlation": np.round(np.nan_to_num(np.corrcoef(X_train, rowvar=False)),
                                    4).tolist()}
