"""How well does Naive Bayes predict a game's result? Accuracy and log-loss against
simple baselines, the independence assumption tested, forward feature selection
(``python -m chesslab results bayes``)."""
from __future__ import annotations

import math

import numpy as np

from chesslab.evaluators.bayes import CLASSES
from chesslab.evaluators.features import FEATURE_NAMES
from chesslab.training.naive_bayes import GameSample, train, train_test_rows

__all__ = ["label_accuracy", "log_loss", "material_rule", "compare",
           "independence_experiments", "feature_selection", "measure"]


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
    forward selection judged on validation games carved out of the training games (its
    split, games and positions, returned last)."""
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
    split = {"fit_games": len(np.unique(game_ids[fit_rows])), "fit_positions": len(fit_rows),
             "validation_games": len(np.unique(game_ids[val_rows])),
             "validation_positions": len(val_rows)}
    return drop_one, names, row, split


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
    drop_one, selected, selected_row, selection_split = feature_selection(
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
            "forward_selected": selected, "forward_selection_split": selection_split,
            "feature_names": list(FEATURE_NAMES),
            "correlation": np.round(np.nan_to_num(np.corrcoef(X_train, rowvar=False)),
                                    4).tolist()}
