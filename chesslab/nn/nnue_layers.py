"""The efficiently updatable network's layers: the feature transformer and the head.

``chesslab.evaluators.nnue`` turns them into an evaluator that updates the transformer's output
(the "accumulator") move by move instead of recomputing it.
"""
from __future__ import annotations

import numpy as np

from chesslab.nn.layers import DTYPE, ClippedReLU, Dense, Layer, Sequential, he_normal, make_rng


class FeatureTransformer(Layer):
    """The efficiently updatable network's first layer: ``y = x @ W + b`` for each side.

    Input ``(N, 2, n_features)``: one-hot piece-square features seen by the side to move
    (row 0) and by the opponent (row 1); both rows share ``W`` and ``b``. Output
    ``(N, 2 * n_out)``: the two "accumulators" side by side, the side to move's first.
    A move changes at most four features, so a search can update an accumulator by
    adding and subtracting a few rows of ``W`` instead of recomputing it
    (``chesslab.evaluators.nnue``); training uses the plain matrix product.
    """

    def __init__(self, n_features: int = 768, n_out: int = 128, rng=None, dtype=DTYPE):
        super().__init__()
        self.n_features, self.n_out = int(n_features), int(n_out)
        # About 30 features are active at once: scale as if fan_in were 32, so an
        # accumulator starts near unit size (inside the clipped ReLU's range).
        self.params = {"W": he_normal((n_features, n_out), 64, rng, dtype),
                       "b": np.zeros(n_out, dtype)}
        self._x = None

    def forward(self, x):
        n = x.shape[0]
        flat = x.reshape(2 * n, self.n_features)
        self._x = flat if self.training else None
        y = flat @ self.params["W"]
        y += self.params["b"]
        return y.reshape(n, 2 * self.n_out)

    def backward(self, grad_out, input_grad=True):
        flat = self._need_cache("_x")
        g = grad_out.reshape(flat.shape[0], self.n_out)     # one row per side
        self.grads = {"W": flat.T @ g, "b": g.sum(axis=0)}
        if not input_grad:
            return None
        return (g @ self.params["W"].T).reshape(-1, 2, self.n_features)

    def config(self):
        return {"type": "FeatureTransformer", "n_features": self.n_features,
                "n_out": self.n_out}

    def __repr__(self):
        return f"FeatureTransformer(2 x {self.n_features} -> 2 x {self.n_out})"


class NNUEHead(Sequential):
    """The rest of an NNUE after its feature transformer, with a linear PSQT path.

    Input ``(N, 2 * (hidden + 1))``: each side's accumulator of ``hidden`` numbers plus
    one more, its "piece-square total" (PSQT). The hidden numbers go through a clipped
    ReLU, a dense layer to ``head``, a clipped ReLU and a dense layer to one output; the
    PSQT difference (side to move's minus the opponent's, halved) is added to that
    output unclipped. Material and piece placement are mostly linear, and a clipped
    ReLU cannot carry "a rook and a knight up": this path can (Stockfish's NNUE has it).
    """

    def __init__(self, hidden: int, head: int = 32, rng=None, dtype=DTYPE):
        rng = make_rng(rng)
        self.hidden, self.head = int(hidden), int(head)
        self.layers = [ClippedReLU(), Dense(2 * hidden, head, rng=rng, dtype=dtype),
                       ClippedReLU(), Dense(head, 1, init="xavier", rng=rng, dtype=dtype)]

    def _split(self, x):
        per_side = x.reshape(x.shape[0], 2, self.hidden + 1)
        return (per_side[:, :, :self.hidden].reshape(x.shape[0], 2 * self.hidden),
                per_side[:, 0, self.hidden] - per_side[:, 1, self.hidden])

    def forward(self, x):
        hidden, psqt = self._split(x)
        for layer in self.layers:
            hidden = layer.forward(hidden)
        return hidden + 0.5 * psqt[:, None]

    def backward(self, grad_out, input_grad=True):
        g = grad_out
        for layer in reversed(self.layers):
            g = layer.backward(g)
        n = grad_out.shape[0]
        out = np.zeros((n, 2, self.hidden + 1), dtype=grad_out.dtype)
        out[:, :, :self.hidden] = g.reshape(n, 2, self.hidden)
        out[:, 0, self.hidden] = 0.5 * grad_out[:, 0]
        out[:, 1, self.hidden] = -0.5 * grad_out[:, 0]
        return out.reshape(n, 2 * (self.hidden + 1))

    def config(self):
        return {"type": "NNUEHead", "hidden": self.hidden, "head": self.head}

    def __repr__(self):
        return f"NNUEHead(2 x {self.hidden} -> {self.head} -> 1, + PSQT)"
