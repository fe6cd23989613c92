"""The backpropagation picture shows true gradients (finite differences agree)."""
import matplotlib
import numpy as np

matplotlib.use("Agg")
from chesslab.figures import backprop_graph_figure, backprop_values  # noqa: E402


def _loss(x, w, b, t):
    return (1 / (1 + np.exp(-(np.dot(x, w) + b))) - t) ** 2


def test_every_gradient_in_the_picture_matches_finite_differences():
    x, w, b, t, h = np.array([1.0, -2.0]), np.array([0.5, 0.25]), 0.1, 1.0, 1e-6
    nodes = backprop_values(x, w, b, t)
    assert np.isclose(nodes["L"][0], _loss(x, w, b, t))
    for i in range(2):
        step = np.eye(2)[i] * h
        assert np.isclose(nodes[f"w{i + 1}"][1],
                          (_loss(x, w + step, b, t) - _loss(x, w - step, b, t)) / (2 * h))
        assert np.isclose(nodes[f"x{i + 1}"][1],
                          (_loss(x + step, w, b, t) - _loss(x - step, w, b, t)) / (2 * h))
    assert np.isclose(nodes["b"][1], (_loss(x, w, b + h, t) - _loss(x, w, b - h, t)) / (2 * h))


def test_the_figure_draws_every_node():
    fig = backprop_graph_figure()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("grad ") for t in texts) == 10
