"""Optimisers: ``step(model)`` moves every parameter against its gradient, in place."""
from __future__ import annotations

import numpy as np


class Optimizer:
    def __init__(self, lr: float):
        self.lr = lr
        self.state: dict[str, list[np.ndarray]] = {}

    def step(self, model):
        for name, param, grad in model.parameters():
            if grad is None:
                raise RuntimeError(f"no gradient for {name}: call model.backward(grad) "
                                   f"after a training-mode forward, then step")
            state = self.state.get(name)
            if state is None or state[0].shape != param.shape:
                state = self.state[name] = self.new_state(param)
            self.update(param, grad, state)

    def new_state(self, param):
        return []

    def update(self, param, grad, state):
        raise NotImplementedError


class SGD(Optimizer):
    """Plain gradient descent; with momentum a velocity smooths the steps."""

    def __init__(self, lr: float = 0.01, momentum: float = 0.0):
        super().__init__(lr)
        self.momentum = momentum

    def new_state(self, param):
        return [np.zeros_like(param)]

    def update(self, param, grad, state):
        if self.momentum:
            velocity = state[0]
            velocity *= self.momentum
            velocity -= self.lr * grad
            param += velocity
        else:
            param -= self.lr * grad


class Adam(Optimizer):
    """Adam: per-parameter step sizes from running averages of g and g**2.

    ``weight_decay`` > 0 makes it AdamW: every weight matrix (not the biases) shrinks by
    ``lr * weight_decay`` of itself each step, apart from the gradient's adaptive step
    (an L2 term inside the gradient would be rescaled by Adam and decay rarely seen
    inputs, such as a piece on an unusual square, hardest).
    """

    def __init__(self, lr: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, weight_decay: float = 0.0):
        super().__init__(lr)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.weight_decay = weight_decay
        self.t = 0

    def step(self, model):
        self.t += 1
        if self.weight_decay:
            shrink = 1.0 - self.lr * self.weight_decay
            for name, param, _ in model.parameters():
                if name.endswith("W"):
                    param *= shrink
        super().step(model)

    def new_state(self, param):
        return [np.zeros_like(param), np.zeros_like(param), np.empty_like(param)]

    def update(self, param, grad, state):
        m, v, tmp = state
        b1, b2 = self.beta1, self.beta2
        m *= b1
        m += (1 - b1) * grad
        v *= b2
        np.multiply(grad, grad, out=tmp)
        tmp *= 1 - b2
        v += tmp
        # bias-corrected step: lr * m_hat / (sqrt(v_hat) + eps)
        step = self.lr * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        np.sqrt(v, out=tmp)
        tmp += self.eps * np.sqrt(1 - b2 ** self.t)
        np.divide(m, tmp, out=tmp)
        tmp *= step
        param -= tmp
