"""Notebook 02's design exercise: the student chooses the input, the layers and the
training settings of a network that learns material, and the checker trains it and
measures it against a bar. There is no single right answer, so the verdict says how far
the design is from the bar, and whether its training itself had converged."""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from chesslab import nn
from chesslab.board.encoding import planes14_batch, thesis_vectors
from chesslab.course.checking import CheckResult


#: The inputs a design may choose: what the network is shown of a position.
DESIGN_INPUTS = ("thesis", "planes14", "pieces")


#: The material task's bar (validation mean squared error, in (pawns / 10)^2) and budget
#: (the smallest batch keeps the graded cell's training of four seeds well inside a
#: cell's time limit for the largest network allowed).
MATERIAL_BAR, MAX_EPOCHS, MAX_PARAMETERS, MIN_BATCH = 0.02, 30, 100_000, 16


def design_inputs(boards, inputs: str) -> np.ndarray:
    """The network's input: the thesis's 64 codes, the 14 planes, or the 12 piece planes."""
    if inputs == "thesis":
        return thesis_vectors(boards).astype(np.float32)
    planes = planes14_batch(boards)
    if inputs == "pieces":
        planes = planes[:, :12]
    return planes.reshape(len(boards), -1).astype(np.float32)


def positions_digest(boards) -> str:
    """The first 12 hex digits of the SHA-256 of the boards' FENs, one a line: the notebook
    prints the same digest of its validation positions, so a reader sees that the checker
    measures a design on exactly those positions (equal sizes alone would not show it)."""
    return hashlib.sha256("\n".join(board.fen() for board in boards).encode()).hexdigest()[:12]


def train_design(design: dict, x_train, y_train, x_val, y_val, seed: int = 0):
    """Train the design's network (Adam, mean squared error, the notebook's loop) and
    return its (training, validation) errors after the last epoch (no picking the best
    epoch): a training error above the bar means the training had not converged, one
    under it with a validation error above it means the network learned the positions
    rather than material."""
    net = nn.ANN.from_topology(design["topology"], activation=design.get("activation", "sigmoid"),
                               seed=seed)
    optimizer, order = nn.Adam(lr=design.get("lr", 0.001)), np.random.default_rng(seed)
    batch = int(design.get("batch", 32))
    for _ in range(int(design.get("epochs", 10))):
        net.train()
        idx = order.permutation(len(x_train))
        for i in range(0, len(idx), batch):
            nn.train_step(net, optimizer, x_train[idx[i:i + batch]], y_train[idx[i:i + batch]])
    net.train(False)
    return float(nn.mse(net.predict(x_train), y_train)[0]), float(nn.mse(net.predict(x_val), y_val)[0])


@dataclass
class DesignResult(CheckResult):
    """A design's verdict: the measured errors against the bar, and what they mean."""
    errors: tuple = ()
    bar: float = MATERIAL_BAR
    training_errors: tuple = ()
    sizes: tuple = ()                        # (training positions, validation positions)
    digest: str = ""                         # positions_digest of the validation positions

    def __str__(self):
        if not self.attempted or self.first_failure:
            return super().__str__()
        worst = max(self.errors)
        said = ", ".join(f"{e:.4f}" for e in self.errors)
        trained = ", ".join(f"{e:.4f}" for e in self.training_errors)
        sizes = (f"; {self.sizes[0]:,} training and {self.sizes[1]:,} validation positions"
                 if self.sizes else "")
        if self.digest:
            sizes += f", validation FEN digest {self.digest}"
        measured = (f"{self.name}: validation error {said} over {self.cases} seeds "
                    f"(training error {trained}{sizes})")
        if self.ok:
            return f"{measured}, under the bar of {self.bar}: passed"
        if max(self.training_errors) > self.bar:
            return (f"{measured}; the bar is {self.bar}, the worst seed is "
                    f"{worst / self.bar:.1f} times it: undertrained (training error "
                    f"{max(self.training_errors):.4f} above the bar): the network has not "
                    f"learned even its training positions by the last epoch")
        return (f"{measured}; the bar is {self.bar}, the worst seed is {worst / self.bar:.1f} "
                f"times it: overfitted (training error under the bar, validation error "
                f"above it): it learned the training positions, not material")


def _design_problem(design):
    """What breaks the rules of the exercise, or None."""
    if not isinstance(design, dict):
        return "return a dict (inputs, topology, activation, lr, epochs, batch)"
    if design.get("inputs") not in DESIGN_INPUTS:
        return f"inputs must be one of {DESIGN_INPUTS}, got {design.get('inputs')!r}"
    if int(design.get("epochs", 10)) > MAX_EPOCHS:
        return f"at most {MAX_EPOCHS} epochs, got {design.get('epochs')}"
    if int(design.get("batch", 32)) < MIN_BATCH:
        return f"a batch of at least {MIN_BATCH} positions, got {design.get('batch')}"
    return None


def check_material_design(make_design, boards, targets, seeds=(0, 1), bar: float = MATERIAL_BAR,
                          show=True) -> DesignResult:
    """``make_design() -> dict``: the input (one of ``DESIGN_INPUTS``), the topology, the
    activation, the learning rate, the epochs (at most ``MAX_EPOCHS``) and the batch size
    (at least ``MIN_BATCH``) of a network that learns material. The checker trains it on 80% of ``boards``
    (``targets`` = material / 1000) once per seed, split by notebook 02's seeded shuffle
    (the line prints the validation positions' ``positions_digest``, which the notebook
    prints too), and passes it when every seed's
    validation error after the last epoch is at most ``bar``; the line shows the training
    error too, so an undertrained design reads as undertrained, not as a bad idea."""
    def verdict(passed, problem=None, errors=(), attempted=True, training=(), sizes=(), digest=""):
        result = DesignResult("my_material_design", len(seeds), passed, problem, attempted,
                              tuple(errors), bar, tuple(training), tuple(sizes), digest)
        if show:
            print(result)
        return result
    try:
        design = make_design()
    except NotImplementedError as exc:
        return verdict(0, f" ({exc})", attempted=False)
    except Exception as exc:                # noqa: BLE001  (the student's code)
        return verdict(0, f"raised {type(exc).__name__}: {exc}")
    problem = _design_problem(design)
    if problem is None:
        x = design_inputs(boards, design["inputs"])
        topology = list(design.get("topology", ()))
        try:
            if not topology or topology[0] != x.shape[1] or topology[-1] != 1:
                raise ValueError(f"the topology must start with {x.shape[1]} (the size of "
                                 f"{design['inputs']!r}) and end with 1, got {topology}")
            net = nn.ANN.from_topology(topology, activation=design.get("activation", "sigmoid"))
            if (size := sum(p.size for p in net.params.values())) > MAX_PARAMETERS:
                raise ValueError(f"{size:,} parameters, the budget is {MAX_PARAMETERS:,}")
        except ValueError as exc:
            problem = str(exc)
    if problem:
        return verdict(0, problem)
    y = np.asarray(targets, dtype=np.float32).reshape(-1, 1)
    order = np.random.default_rng(1).permutation(len(x))
    split = int(0.8 * len(x))
    train, val = order[:split], order[split:]
    measured = [train_design(design, x[train], y[train], x[val], y[val], seed) for seed in seeds]
    training, errors = ([e if math.isfinite(e) else math.inf for e in column]
                        for column in zip(*measured))
    return verdict(sum(e <= bar for e in errors), None, errors, training=training,
                   sizes=(len(train), len(val)), digest=positions_digest([boards[i] for i in val]))
