"""Layers: small classes with ``forward``, ``backward`` and ``params`` / ``grads`` side by side.

Conventions (the same for every layer, so a student learns them once):

* arrays are batch-first and channels-first: ``(N, features)`` or ``(N, C, H, W)``;
* ``forward(x)`` remembers what ``backward`` needs, but only in training mode
  (``layer.train()``, the default); in eval mode (``layer.eval()``) nothing is kept,
  which is the fast inference path used by the evaluators;
* ``backward(grad_out)`` returns the gradient of the loss with respect to the input and
  OVERWRITES ``grads`` (no accumulation: one backward per forward);
* ``params`` and ``grads`` are dicts with the same keys; optimisers change ``params``
  in place.

Everything works in float32 (the default, fast) and float64 (for gradient checks):
call ``layer.astype(np.float64)``.

Here: the base class, the dense layer, activations, ``Flatten`` and ``Sequential``
(everything an ANN needs). Convolution and pooling are in ``conv``, batch norm and the
residual block in ``residual``, the NNUE's layers in ``nnue_layers``.
"""
from __future__ import annotations

import math

import numpy as np

DTYPE = np.float32


def make_rng(rng) -> np.random.Generator:
    """A seeded generator: pass one shared ``np.random.default_rng(seed)`` when building a net."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(0 if rng is None else rng)


def he_normal(shape, fan_in: int, rng=None, dtype=DTYPE) -> np.ndarray:
    """He init: variance 2/fan_in keeps ReLU activations from shrinking layer by layer."""
    return (make_rng(rng).standard_normal(shape) * math.sqrt(2.0 / fan_in)).astype(dtype)


def xavier_uniform(shape, fan_in: int, fan_out: int, rng=None, dtype=DTYPE) -> np.ndarray:
    """Xavier/Glorot init: keeps the variance of sigmoid/tanh layers near 1 both ways."""
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return make_rng(rng).uniform(-limit, limit, shape).astype(dtype)


class Layer:
    """Base class: no parameters, training mode on."""

    training = True

    def __init__(self):
        self.params: dict[str, np.ndarray] = {}
        self.grads: dict[str, np.ndarray] = {}

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        raise NotImplementedError

    def backward(self, grad_out, input_grad: bool = True):
        """Gradient w.r.t. the input; ``input_grad=False`` may skip it (first layer)."""
        raise NotImplementedError

    def train(self, mode: bool = True):
        self.training = mode
        return self

    def eval(self):
        return self.train(False)

    def astype(self, dtype):
        for key, value in self.params.items():
            self.params[key] = value.astype(dtype)
        self.grads = {}
        return self

    def leaves(self):
        """The layers that hold numbers (containers yield their children)."""
        yield self

    def config(self) -> dict:
        """Constructor arguments as JSON, so a model file can rebuild the layer."""
        return {"type": type(self).__name__}

    def _need_cache(self, name):
        if getattr(self, name, None) is None:
            raise RuntimeError(f"{type(self).__name__}.backward needs a forward pass in "
                               f"training mode first (call model.train() before training)")
        return getattr(self, name)

    def __repr__(self):
        args = ", ".join(str(v) for k, v in self.config().items() if k != "type")
        return f"{type(self).__name__}({args})"


class Dense(Layer):
    """Fully connected layer: ``y = x @ W + b`` with ``W`` of shape (n_in, n_out)."""

    def __init__(self, n_in: int, n_out: int, init: str = "he", rng=None, dtype=DTYPE):
        super().__init__()
        self.n_in, self.n_out, self.init = int(n_in), int(n_out), init
        if init == "he":
            w = he_normal((n_in, n_out), n_in, rng, dtype)
        elif init == "xavier":
            w = xavier_uniform((n_in, n_out), n_in, n_out, rng, dtype)
        else:
            raise ValueError(f"unknown init {init!r}; use 'he' (ReLU) or 'xavier' (sigmoid/tanh)")
        self.params = {"W": w, "b": np.zeros(n_out, dtype)}
        self._x = None

    def forward(self, x):
        self._x = x if self.training else None
        y = x @ self.params["W"]
        y += self.params["b"]
        return y

    def backward(self, grad_out, input_grad=True):
        x = self._need_cache("_x")
        self.grads = {"W": x.T @ grad_out, "b": grad_out.sum(axis=0)}
        return grad_out @ self.params["W"].T if input_grad else None

    def config(self):
        return {"type": "Dense", "n_in": self.n_in, "n_out": self.n_out, "init": self.init}

    def __repr__(self):
        return f"Dense({self.n_in} -> {self.n_out})"


# ----------------------------------------------------------------------------- activations

class ReLU(Layer):
    """max(0, x): the gradient passes where the input was positive."""

    def forward(self, x):
        y = np.maximum(x, 0)
        self._y = y if self.training else None
        return y

    def backward(self, grad_out, input_grad=True):
        return grad_out * (self._need_cache("_y") > 0)


class ClippedReLU(Layer):
    """min(max(x, 0), 1): the efficiently updatable network's activation.

    Bounded on both sides, so a network's hidden values stay small whatever the
    position (that is what lets real engines run them in 8- and 16-bit integers).
    """

    def forward(self, x):
        self._x = x if self.training else None
        return np.clip(x, 0, 1)

    def backward(self, grad_out, input_grad=True):
        x = self._need_cache("_x")
        return grad_out * ((x > 0) & (x < 1))


class Sigmoid(Layer):
    """1 / (1 + e^-x), written with tanh so large |x| never overflows."""

    def forward(self, x):
        y = x * 0.5
        np.tanh(y, out=y)
        y += 1
        y *= 0.5
        self._y = y if self.training else None
        return y

    def backward(self, grad_out, input_grad=True):
        y = self._need_cache("_y")
        return grad_out * y * (1 - y)


class Tanh(Layer):
    def forward(self, x):
        y = np.tanh(x)
        self._y = y if self.training else None
        return y

    def backward(self, grad_out, input_grad=True):
        y = self._need_cache("_y")
        return grad_out * (1 - y * y)


class Flatten(Layer):
    """(N, C, H, W) -> (N, C*H*W), the bridge from convolutions to dense layers."""

    def forward(self, x):
        self._shape = x.shape
        return x.reshape(x.shape[0], -1)

    def backward(self, grad_out, input_grad=True):
        return grad_out.reshape(self._shape)


# ----------------------------------------------------------------------------- containers

class Sequential(Layer):
    """Layers applied one after another; backward runs them in reverse."""

    def __init__(self, *layers):
        self.layers = list(layers[0] if len(layers) == 1 and isinstance(layers[0], list)
                           else layers)

    def add(self, layer):
        self.layers.append(layer)
        return self

    def forward(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def backward(self, grad_out, input_grad=True):
        last = len(self.layers) - 1
        for i in range(last, -1, -1):
            grad_out = self.layers[i].backward(grad_out, input_grad or i > 0)
        return grad_out

    def train(self, mode=True):
        self.training = mode
        for layer in self.layers:
            layer.train(mode)
        return self

    def astype(self, dtype):
        for layer in self.layers:
            layer.astype(dtype)
        return self

    def leaves(self):
        for layer in self.layers:
            yield from layer.leaves()

    def _named(self, attr):
        return {f"{i}.{key}": value for i, layer in enumerate(self.leaves())
                for key, value in getattr(layer, attr).items()}

    @property
    def params(self):
        """Every parameter, keyed ``"<leaf index>.<name>"`` (the arrays themselves)."""
        return self._named("params")

    @property
    def grads(self):
        return self._named("grads")

    def parameters(self):
        """(name, param, grad) for every parameter: what an optimiser updates."""
        for i, layer in enumerate(self.leaves()):
            for key, value in layer.params.items():
                yield f"{i}.{key}", value, layer.grads.get(key)

    def config(self):
        return {"type": type(self).__name__, "layers": [layer.config() for layer in self.layers]}

    def __repr__(self):
        inner = ",\n  ".join(repr(layer) for layer in self.layers)
        return f"{type(self).__name__}(\n  {inner})"
