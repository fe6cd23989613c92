"""Train the shipped Naive Bayes model and measure it against simple baselines.

    flock /tmp/chesslab-cpu.lock python bench/bayes_results.py

Reads the game records (the chapter's sample of every game, labelled by its result),
splits them by game (80% train, 20% test, seed 0), and writes

* data/models/bayes.json: the scaler + classifier fitted on the training games;
* data/results/bayes_comparison.json: accuracy and log-loss on the test games of the
  majority class, the material rule, NB on material alone, NB on all features, two
  experiments on the independence assumption (material counted three times; NB on
  decorrelated features), NB without each feature in turn, NB on features chosen by
  forward selection (on validation games inside the training games), NB early vs late
  in the game, the feature correlation matrix and class counts.

Notebook 09 reads both files.
"""
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from chesslab import bayes
from chesslab.data import DEFAULT_GAMES
from chesslab.features import FEATURE_NAMES
from chesslab.files import DATA_DIR, write_json_atomic

RESULTS = DATA_DIR / "results" / "bayes_comparison.json"


def nb_row(label, X_train, y_train, X_test, y_test):
    nb, scaler = bayes.train(X_train, y_train)
    Z = scaler.transform(X_test)
    return {"model": label, "accuracy": bayes.label_accuracy(y_test, nb.predict(Z)),
            "log_loss": bayes.log_loss(y_test, nb.predict_proba(Z))}


def independence_experiments(X_train, y_train, X_test, y_test):
    """Two ways to see what the independence assumption costs."""
    m = FEATURE_NAMES.index("material")
    triple = lambda X: np.column_stack([X, X[:, m], X[:, m]])  # noqa: E731
    rows = [nb_row("NB, all features + material twice more (perfectly correlated copies)",
                   triple(X_train), y_train, triple(X_test), y_test)]
    # Rotate the standardised features onto the training covariance's eigenvectors:
    # the new columns are uncorrelated (on the training rows), which is what NB assumes.
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1
    _, vectors = np.linalg.eigh(np.cov((X_train - mean) / std, rowvar=False))
    rotate = lambda X: ((X - mean) / std) @ vectors  # noqa: E731
    rows.append(nb_row("NB, all features decorrelated (PCA rotation, same information)",
                       rotate(X_train), y_train, rotate(X_test), y_test))
    return rows


def feature_selection(X_train, y_train, game_ids, X_test, y_test, seed):
    """Which features earn their place? Drop-one on the test games, and a greedy
    forward selection judged on validation games carved out of the training games."""
    everything = list(range(X_train.shape[1]))
    drop_one = []
    for j in everything:
        cols = [k for k in everything if k != j]
        row = nb_row(FEATURE_NAMES[j], X_train[:, cols], y_train, X_test[:, cols], y_test)
        drop_one.append({"feature": row.pop("model"), **row})
    fit_rows, val_rows = bayes.train_test_rows(game_ids, 0.25, seed + 1)
    chosen, best = [], math.inf
    while len(chosen) < len(everything):
        loss, j = min((nb_row("", X_train[fit_rows][:, chosen + [j]], y_train[fit_rows],
                              X_train[val_rows][:, chosen + [j]],
                              y_train[val_rows])["log_loss"], j)
                      for j in everything if j not in chosen)
        if loss >= best:
            break
        chosen, best = chosen + [j], loss
    names = [FEATURE_NAMES[j] for j in chosen]
    row = nb_row(f"NB, forward-selected features ({', '.join(names)})",
                 X_train[:, chosen], y_train, X_test[:, chosen], y_test)
    return drop_one, names, row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pgn", default=str(DEFAULT_GAMES), help="game records")
    parser.add_argument("--model", default=str(bayes.MODEL_PATH))
    parser.add_argument("--results", default=str(RESULTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--test-fraction", type=float, default=0.2)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    X, y, game_ids, plies = bayes.load_training_data(args.pgn)
    feature_seconds = time.perf_counter() - start
    train_rows, test_rows = bayes.train_test_rows(game_ids, args.test_fraction, args.seed)
    X_train, y_train, X_test, y_test = X[train_rows], y[train_rows], X[test_rows], y[test_rows]

    nb, scaler = bayes.train(X_train, y_train)
    counts = lambda labels: {c: int(np.sum(labels == c)) for c in bayes.CLASSES}  # noqa
    info = {"games": Path(args.pgn).name, "seed": args.seed,
            "train_games": int(len(np.unique(game_ids[train_rows]))),
            "test_games": int(len(np.unique(game_ids[test_rows]))),
            "train_positions": counts(y_train), "test_positions": counts(y_test),
            "command": "python bench/bayes_results.py"}
    bayes.save_bayes(args.model, nb, scaler, info=info)

    table = bayes.compare(X_train, y_train, X_test, y_test)
    table += independence_experiments(X_train, y_train, X_test, y_test)
    drop_one, selected, selected_row = feature_selection(
        X_train, y_train, game_ids[train_rows], X_test, y_test, args.seed)
    table.append(selected_row)
    length = np.zeros(game_ids.max() + 1, dtype=int)
    np.maximum.at(length, game_ids, plies)  # the last position is always sampled
    late = plies[test_rows] > 0.75 * length[game_ids[test_rows]]
    Z = scaler.transform(X_test)
    by_phase = {name: {"positions": int(mask.sum()),
                       "accuracy": bayes.label_accuracy(y_test[mask], nb.predict(Z[mask])),
                       "log_loss": bayes.log_loss(y_test[mask], nb.predict_proba(Z[mask]))}
                for name, mask in (("first 75% of the game", ~late),
                                   ("last 25% of the game", late))}
    results = {**info, "table": table, "nb_by_phase": by_phase, "drop_one": drop_one,
               "forward_selected": selected,
               "feature_names": list(FEATURE_NAMES),
               "correlation": np.round(np.nan_to_num(np.corrcoef(X_train, rowvar=False)),
                                       4).tolist()}
    write_json_atomic(args.results, results, indent=1)

    print(f"{len(X)} positions from {len(np.unique(game_ids))} games "
          f"(features in {feature_seconds:.1f} s); train {info['train_positions']}, "
          f"test {info['test_positions']}")
    print(f"{'model':76s} {'accuracy':>8s} {'log-loss':>8s}")
    for row in table:
        print(f"{row['model']:76s} {row['accuracy']:8.3f} {row['log_loss']:8.3f}")
    for row in drop_one:
        print(f"NB without {row['feature']:65s} {row['accuracy']:8.3f} {row['log_loss']:8.3f}")
    for name, row in by_phase.items():
        print(f"NB, all features, {name:58s} {row['accuracy']:8.3f} {row['log_loss']:8.3f}")
    print(f"wrote {args.model} and {args.results}")


if __name__ == "__main__":
    main()
