"""experiments.naive_bayes: the measures of the comparison and the comparison itself."""
import math

import numpy as np
import pytest

from chesslab.evaluators.bayes import CLASSES
from chesslab.evaluators.features import FEATURE_NAMES
from chesslab.experiments import naive_bayes


def test_accuracy_log_loss_and_the_material_rule():
    assert naive_bayes.label_accuracy(["1-0", "0-1"], ["1-0", "1-0"]) == 0.5
    proba = np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]])
    assert naive_bayes.log_loss(["1-0", "0-1"], proba) == pytest.approx(
        -(math.log(0.5) + math.log(0.8)) / 2)
    assert naive_bayes.material_rule([300, 0, -250], 200).tolist() == ["1-0", "1/2-1/2", "0-1"]


def test_compare_beats_the_majority_on_separable_data():
    rng = np.random.default_rng(2)
    y = np.array(CLASSES * 60)
    X = rng.normal(0, 1, (180, len(FEATURE_NAMES)))
    X[:, 0] += np.select([y == "1-0", y == "0-1"], [500, -500], 0)
    rows = {r["model"].split(" (")[0]: r for r in naive_bayes.compare(X[:120], y[:120],
                                                                  X[120:], y[120:])}
    assert rows["Naive Bayes, all features"]["accuracy"] > 0.9
    assert rows["majority class"]["accuracy"] < 0.5
    assert rows["Naive Bayes, material only"]["log_loss"] < rows["majority class"]["log_loss"]
