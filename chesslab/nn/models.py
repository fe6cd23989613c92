"""Networks: the thesis's ANN (built from a topology) and CNN (built layer by layer),
the tutorial's conv and residual nets, the NNUE; and any layer rebuilt from its config."""
from __future__ import annotations

import numpy as np

from chesslab.nn.conv import Conv2D, MaxPool2D
from chesslab.nn.layers import (DTYPE, ClippedReLU, Dense, Flatten, Layer, ReLU, Sequential, Sigmoid, Tanh,
                     make_rng)
from chesslab.nn.losses import mse
from chesslab.nn.nnue_layers import FeatureTransformer, NNUEHead
from chesslab.nn.residual import BatchNorm, Residual

_ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh}


def _activation(name):
    if name is None:
        return None
    if name not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}; use one of {sorted(_ACTIVATIONS)} or None")
    return _ACTIVATIONS[name]()


LAYER_TYPES = {cls.__name__: cls for cls in
               (Dense, Conv2D, MaxPool2D, ReLU, ClippedReLU, Sigmoid, Tanh, Flatten,
                BatchNorm, Residual, FeatureTransformer, NNUEHead, Sequential)}


def layer_from_config(cfg: dict, rng=None) -> Layer:
    """Rebuild a layer (random weights) from ``layer.config()``."""
    cfg = dict(cfg)
    kind = cfg.pop("type", None)
    if kind not in LAYER_TYPES:
        raise ValueError(f"unknown layer type {kind!r}; known: {', '.join(LAYER_TYPES)}")
    if kind == "Sequential":
        return Sequential([layer_from_config(c, rng) for c in cfg["layers"]])
    if kind in ("Dense", "Conv2D", "Residual", "FeatureTransformer", "NNUEHead"):
        cfg["rng"] = rng
    return LAYER_TYPES[kind](**cfg)


class Network(Sequential):
    """A Sequential with a name, an input shape and a learning-rate note.

    ``forward(x)`` takes a batch ``(N, *input_shape)``; ``predict(x)`` also takes a
    single example and always runs in inference mode.
    """

    def __init__(self, layers=(), input_shape=(64,), name="network", learning_rate=None):
        super().__init__(list(layers))
        self.input_shape = tuple(int(d) for d in input_shape)
        self.name = name
        self.learning_rate = learning_rate

    @property
    def dtype(self):
        for _, param, _ in self.parameters():
            return param.dtype
        return np.dtype(DTYPE)

    def forward(self, x):
        x = np.asarray(x, dtype=self.dtype)
        if x.shape[1:] != self.input_shape:
            raise ValueError(f"{self.name} expects a batch of shape (N, "
                             f"{', '.join(map(str, self.input_shape))}), got {x.shape}")
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def predict(self, x):
        """Outputs for a batch or one example, in inference mode (mode restored after)."""
        x = np.asarray(x, dtype=self.dtype)
        single = x.shape == self.input_shape
        was_training = self.training
        if was_training:
            self.eval()
        try:
            out = self.forward(x[None] if single else x)
        finally:
            if was_training:
                self.train()
        return out[0] if single else out

    def shapes(self):
        """[(layer, output shape without the batch dimension)] for one dummy example."""
        x = np.zeros((1,) + self.input_shape, self.dtype)
        was_training = self.training
        self.eval()
        rows = []
        for layer in self.layers:
            x = layer.forward(x)
            rows.append((layer, x.shape[1:]))
        self.train(was_training)
        return rows

    def summary(self) -> str:
        """The table a student reads: every layer, the shape it outputs, its parameters."""
        lines = [f"{self.name}: input {self.input_shape}"]
        total = 0
        for i, (layer, shape) in enumerate(self.shapes(), 1):
            count = sum(p.size for leaf in layer.leaves() for p in leaf.params.values())
            total += count
            lines.append(f"  {i:2d} {repr(layer):34s} -> {str(shape):12s} {count:7d} params")
        lines.append(f"  total parameters: {total}")
        return "\n".join(lines)

    def architecture(self) -> dict:
        return {"class": type(self).__name__, "name": self.name,
                "input_shape": list(self.input_shape), "learning_rate": self.learning_rate,
                "layers": [layer.config() for layer in self.layers]}

    @classmethod
    def from_architecture(cls, arch: dict, rng=None):
        """Rebuild a network (random weights) from ``architecture()``."""
        klass = {"Network": Network, "ANN": ANN, "CNN": CNN}.get(arch.get("class"))
        if klass is None:
            raise ValueError(f"unknown network class {arch.get('class')!r}")
        rng = make_rng(rng)
        net = Network.__new__(klass)
        Network.__init__(net, [layer_from_config(c, rng) for c in arch["layers"]],
                         arch["input_shape"], arch.get("name", "network"),
                         arch.get("learning_rate"))
        if klass is CNN:
            net.closed, net.rng = True, rng
        return net

    def __repr__(self):
        return self.summary()


class ANN(Network):
    """The thesis's artificial neural network: dense layers only, given by a topology."""

    @classmethod
    def from_topology(cls, topology, activation="sigmoid", output_activation=None, seed=0,
                      name="ANN", learning_rate=0.001):
        """``[64, 64, 64, 1]``: 64 inputs, two hidden layers of 64, one output.

        The thesis's two rules: the list has at least 2 numbers (an input and an output
        layer), and every number is greater than 0.
        """
        topology = list(topology)
        if len(topology) < 2:
            raise ValueError(f"topology rule 1 broken: the list needs at least 2 numbers "
                             f"(input size and output size), got {topology}")
        for i, n in enumerate(topology):
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
                raise ValueError(f"topology rule 2 broken: every number must be an integer "
                                 f"greater than 0, got {n!r} at position {i} of {topology}")
        rng = np.random.default_rng(seed)
        init = "he" if activation == "relu" else "xavier"
        layers = []
        for i, (n_in, n_out) in enumerate(zip(topology[:-1], topology[1:])):
            last = i == len(topology) - 2
            layers.append(Dense(n_in, n_out, init=init, rng=rng))
            act = _activation(output_activation if last else activation)
            if act is not None:
                layers.append(act)
        return cls(layers, input_shape=(topology[0],), name=name, learning_rate=learning_rate)

    @property
    def topology(self):
        dense = [layer for layer in self.layers if isinstance(layer, Dense)]
        return [dense[0].n_in] + [layer.n_out for layer in dense]


class CNN(Network):
    """The thesis's CNN: ``add`` layers one by one, then close with ``add_output_layer``."""

    def __init__(self, input_shape=(1, 8, 8), name="CNN", seed=0, learning_rate=0.001):
        super().__init__([], input_shape, name, learning_rate)
        self.rng = np.random.default_rng(seed)
        self.closed = False

    def add(self, layer):
        if self.closed:
            raise RuntimeError("the output layer is already added; the network is complete")
        self.layers.append(layer)
        self.shapes()      # fails now, with the layer's own message, if the shapes clash
        return self

    def add_output_layer(self, n_outputs: int = 1, activation=None):
        """Flatten what the convolutions found and map it to the outputs (fully connected)."""
        if self.closed:
            raise RuntimeError("add_output_layer was already called")
        shape = self.shapes()[-1][1] if self.layers else self.input_shape
        if len(shape) > 1:
            self.layers.append(Flatten())
        self.layers.append(Dense(int(np.prod(shape)), n_outputs, rng=self.rng))
        act = _activation(activation)
        if act is not None:
            self.layers.append(act)
        self.closed = True
        return self

    def forward(self, x):
        if not self.closed:
            raise RuntimeError("call add_output_layer(...) to finish the CNN before using it")
        return super().forward(x)


def thesis_ann(seed: int = 0) -> ANN:
    """64-64-64-1, the thesis's layer sizes and learning rate (0.001); the sigmoid hidden
    layers are chesslab's choice (the thesis names no activation for its ANN)."""
    return ANN.from_topology([64, 64, 64, 1], seed=seed, name="thesis ANN")


def thesis_cnn(seed: int = 0, in_channels: int = 1) -> CNN:
    """Conv 13@3x3, pool 3, ReLU, conv 10@3x3, pool 2, ReLU, fully connected output.

    Input: the thesis's 64 numbers as one 8x8 plane, ``(1, 8, 8)`` (or ``in_channels``
    planes, e.g. 14). Padding 1 keeps the convolutions at the board's size; pooling keeps
    partial edge windows (see ``MaxPool2D``), so the shapes go 8x8 -> 3x3 -> 2x2 -> 40
    numbers -> 1.
    """
    name = "thesis CNN" if in_channels == 1 else f"thesis CNN on {in_channels} planes"
    cnn = CNN((in_channels, 8, 8), name=name, seed=seed)
    cnn.add(Conv2D(in_channels, 13, 3, padding=1, rng=cnn.rng))
    cnn.add(MaxPool2D(3))
    cnn.add(ReLU())
    cnn.add(Conv2D(13, 10, 3, padding=1, rng=cnn.rng))
    cnn.add(MaxPool2D(2))
    cnn.add(ReLU())
    return cnn.add_output_layer(1)


def conv_net(conv_size: int = 32, conv_depth: int = 4, seed: int = 0, in_channels: int = 14):
    """The tutorial's net: conv_depth 3x3 'same' convolutions with ReLU, dense 64, sigmoid."""
    cnn = CNN((in_channels, 8, 8), name=f"conv net {conv_size}x{conv_depth}", seed=seed,
              learning_rate=5e-4)
    channels = in_channels
    for _ in range(conv_depth):
        cnn.add(Conv2D(channels, conv_size, 3, padding=1, rng=cnn.rng))
        cnn.add(ReLU())
        channels = conv_size
    cnn.add(Flatten())
    cnn.add(Dense(conv_size * 64, 64, rng=cnn.rng))
    cnn.add(ReLU())
    return cnn.add_output_layer(1, activation="sigmoid")


def residual_net(conv_size: int = 32, conv_depth: int = 4, seed: int = 0, in_channels: int = 14):
    """The tutorial's residual model: one conv, conv_depth residual blocks, sigmoid output."""
    cnn = CNN((in_channels, 8, 8), name=f"residual net {conv_size}x{conv_depth}", seed=seed,
              learning_rate=5e-4)
    cnn.add(Conv2D(in_channels, conv_size, 3, padding=1, rng=cnn.rng))
    for _ in range(conv_depth):
        cnn.add(Residual(conv_size, rng=cnn.rng))
    return cnn.add_output_layer(1, activation="sigmoid")


def nnue_net(hidden: int = 128, head: int = 32, seed: int = 0, n_features: int = 768):
    """An efficiently updatable network (NNUE): 2 x 768 -> 2 x hidden -> head -> 1.

    The feature transformer turns each side's piece-square features into an
    accumulator; both accumulators (side to move first) pass a clipped ReLU, a small
    dense layer and a clipped ReLU again, then one linear output: the score for the
    side to move, in units of 400 centipawns (a logit of the expected score). Each
    accumulator has one more number, a learned piece-square total (PSQT) added
    straight to the output (``NNUEHead``).
    """
    rng = make_rng(seed)
    layers = [FeatureTransformer(n_features, hidden + 1, rng=rng), NNUEHead(hidden, head, rng=rng)]
    return Network(layers, input_shape=(2, n_features), name=f"NNUE 768-{hidden}x2-{head}-1 + PSQT",
                   learning_rate=0.001)


def linear_pst_net(seed: int = 0, n_features: int = 768):
    """768 -> 1: one number per (piece, square) from the side to move's view.

    A linear model of the piece-square features is exactly a set of 12 piece-square
    tables (Texel tuning learns them from game data): the bridge from the hand-written
    ``pst`` evaluator to the network.
    """
    rng = make_rng(seed)
    layer = Dense(n_features, 1, rng=rng)
    layer.params["W"][:] = 0.0         # start from "every square is worth nothing"
    return Network([layer], input_shape=(n_features,), name="learned piece-square tables",
                   learning_rate=0.01)


def train_step(model, optimizer, x, y, loss=None):
    """One step: forward, loss, backward (no gradient for the input), optimiser step."""
    pred = model.forward(x)
    value, grad = (loss or mse)(pred, y)
    model.backward(grad, input_grad=False)
    optimizer.step(model)
    return value


