"""measure: the metrics, and an evaluation measured the way a search uses it."""
import numpy as np
import pytest

from chesslab.training import measure
from material_data import tiny  # noqa: F401  (a fixture)


def test_metrics_on_hand_made_numbers():
    pred = [100, -200, 30, 2000]
    true = [150, -100, -80, 5000]          # clipped to +-1000: the last pair is exact
    m = measure.metrics(pred, true)
    assert m["mae_cp"] == pytest.approx((50 + 100 + 110 + 0) / 4)
    assert m["sign_accuracy"] == pytest.approx(3 / 4)   # 30 vs -80 names the wrong side
    expected = np.corrcoef([100, -200, 30, 1000], [150, -100, -80, 1000])[0, 1]
    assert m["correlation"] == pytest.approx(expected)
    assert m["positions"] == 4


def test_accuracy_ignores_balanced_positions():
    # |true| <= 50 does not count, whatever the prediction says
    assert measure.accuracy([-300, 10, 500], [40, -50, 60]) == 1.0
    assert np.isnan(measure.accuracy([1, 2], [0, 50]))
    m = measure.metrics(np.arange(10) * 3.0, np.arange(10) * 100.0)
    assert m["correlation"] == pytest.approx(1.0)


def test_metrics_reject_mismatched_arrays():
    with pytest.raises(ValueError, match="same length"):
        measure.metrics([1, 2, 3], [1, 2])


def test_search_metrics_split_by_side_to_move(tiny):
    out = measure.search_metrics("material", tiny, depth=1, sample=60)
    assert out["all"]["positions"] == 60
    assert out["white_to_move"]["positions"] + out["black_to_move"]["positions"] == 60
    assert 0 <= out["all"]["mae_cp"] < 300          # labels are material: search sees most
