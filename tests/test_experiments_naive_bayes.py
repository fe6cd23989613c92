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


def test_forward_selection_keeps_the_informative_column_and_reports_its_split():
    rng = np.random.default_rng(3)
    games = np.repeat(np.arange(60), 4)
    outcome = np.array(CLASSES * 20)[games]             # one result per game
    X = rng.normal(0, 1, (len(games), len(FEATURE_NAMES)))
    X[:, 0] += np.select([outcome == "1-0", outcome == "0-1"], [3, -3], 0)
    drop_one, names, row, split = naive_bayes.feature_selection(
        X[:160], outcome[:160], games[:160], X[160:], outcome[160:], seed=0)
    assert names[0] == FEATURE_NAMES[0]
    assert len(drop_one) == len(FEATURE_NAMES) and "forward-selected" in row["model"]
    assert split["fit_games"] + split["validation_games"] == 40       # games 0-39, by game
    assert split["fit_positions"] + split["validation_positions"] == 160
    assert split["validation_positions"] == 4 * split["validation_games"]
