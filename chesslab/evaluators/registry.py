"""Every evaluator by name: the one registry, and ``load_evaluator``.

An evaluator scores a position in centipawns from White's point of view
(``evaluate(board)``, ``evaluate_batch(boards)``; a checkmate is +-inf, see
``chesslab.board.scores``). ``EVALUATORS`` lists each one once, with everything the rest of
chesslab needs to know about it:

* ``kind``: hand-written (material, pst), learned (a network trained on Stockfish's
  scores) or bayes (the Naive Bayes chapter's classifier);
* ``model``: its file in ``data/models`` (None: nothing to load) and the command that
  writes it;
* for a trainable network: the ``encoding`` it reads, the ``network`` builder, the only
  ``perspective`` it can read (if fixed) and the ``training`` settings of the shipped
  model (``chesslab.training.pipeline.SHIPPED``);
* ``in_table``: a row of the results table (``python -m chesslab results evaluators``).

Players (``pst:3``), the play widget's menus, the results and training commands and the
figures all read this table. ``load_evaluator`` reads a model file once and hands out a
fresh copy each time (evaluators keep per-search state); ``is_available`` tells whether a
model file exists without loading it. ``register_evaluator`` adds one of your own.

The evaluator classes live in ``chesslab.evaluators.handwritten``, ``chesslab.evaluators.neural``,
``chesslab.evaluators.nnue`` and ``chesslab.evaluators.bayes``; the common ones are importable from here too.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from chesslab.evaluators.bayes import BayesEvaluator
from chesslab.base.files import MODELS_DIR, load_cached
from chesslab.evaluators.base import Evaluator
from chesslab.evaluators.handwritten import MaterialEvaluator, PSTEvaluator
from chesslab.evaluators.neural import NetworkEvaluator
from chesslab.nn import (ANN, conv_net, linear_pst_net, nnue_net, residual_net, thesis_ann,
                         thesis_cnn)
from chesslab.evaluators.nnue import LinearPSTEvaluator, NNUEEvaluator

__all__ = ["EVALUATORS", "KINDS", "EvaluatorInfo", "load_evaluator", "register_evaluator",
           "available_evaluators", "is_available", "model_path"]

KINDS = ("hand-written", "learned", "bayes")


@dataclass(frozen=True)
class EvaluatorInfo:
    """One evaluator of the registry: what it is, where its model is, how it is made."""

    name: str
    kind: str                         # one of KINDS
    evaluator: Callable               # the class; with a model file: .from_file(path, name)
    title: str = ""                   # one line for menus and legends
    model: str | None = None          # file name in data/models (None: nothing to load)
    encoding: str | None = None       # the input a network reads (encoding.ENCODINGS)
    network: Callable | None = None   # network(seed) -> an untrained network to train
    perspective: str | None = None    # the only perspective it reads (None: either)
    training: dict = field(default_factory=dict)   # TrainConfig settings, shipped model
    in_table: bool = False            # a row of the results table
    made_by: str = ""                 # the command (or notebook) that writes the model

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {self.kind!r}")

    @property
    def trainable(self) -> bool:
        return self.network is not None


def _net(name, evaluator, title, encoding, network, training, perspective=None,
         made_by=None) -> EvaluatorInfo:
    """A trainable network of the results table, made by ``train nets NAME``."""
    return EvaluatorInfo(name, "learned", evaluator, title, f"{name}.json", encoding, network,
                         perspective, training, in_table=True,
                         made_by=made_by or f"`python -m chesslab train nets {name}`")


#: Every evaluator, hand-written first. Shipped networks: ann and cnn are the thesis's
#: layers reading the tutorial's 14 planes (clearly better than on the thesis's 64
#: numbers, see the results table); ann64 and cnn64 are the thesis's nets on its 64
#: numbers (its layer sizes; what it leaves open, such as the ANN's activation, is
#: chesslab's choice). The
#: conv net is the tutorial's (32 filters, depth 4), the residual net half as wide (16),
#: to fit the CPU budget. ``training``: changes to ``recipe.RECIPE``; conv and residual,
#: the slow nets, train on the depth-10 positions only (the extra plies would double
#: their time).
EVALUATORS = {e.name: e for e in (
    EvaluatorInfo("material", "hand-written", MaterialEvaluator,
                  "material, the Naive Bayes chapter's values (check +10)", in_table=True),
    EvaluatorInfo("pst", "hand-written", PSTEvaluator, "material and piece-square tables",
                  in_table=True),
    _net("nnue", NNUEEvaluator, "NNUE, 768 piece-square features per side",
         "piece_square", lambda seed: nnue_net(128, 32, seed),
         dict(epochs=80, patience=8, lr_patience=3, leaves=True, weight_decay=0.1),
         perspective="side_to_move"),
    _net("linear", LinearPSTEvaluator, "learned piece-square tables", "piece_square_mover",
         linear_pst_net, dict(epochs=40, patience=6, lr_patience=2),
         perspective="side_to_move"),
    _net("ann", NetworkEvaluator, "thesis ANN layers, 14 planes", "planes14_flat",
         lambda seed: ANN.from_topology([896, 64, 64, 1], seed=seed,
                                        name="thesis ANN on 14 planes"),
         dict(epochs=30, patience=6),
         made_by="notebook 05 (or `python -m chesslab train nets ann`)"),
    _net("cnn", NetworkEvaluator, "thesis CNN layers, 14 planes", "planes14",
         lambda seed: thesis_cnn(seed, in_channels=14), dict(epochs=12, patience=4),
         made_by="notebook 05 (or `python -m chesslab train nets cnn`)"),
    _net("conv", NetworkEvaluator, "the tutorial's conv net, 14 planes", "planes14",
         lambda seed: conv_net(32, 4, seed), dict(epochs=6, flip=False, extra_plies=False)),
    _net("residual", NetworkEvaluator, "residual net, 14 planes", "planes14",
         lambda seed: residual_net(16, 4, seed),
         dict(epochs=6, flip=False, extra_plies=False)),
    _net("ann64", NetworkEvaluator, "thesis ANN, 64 numbers", "thesis64", thesis_ann,
         dict(epochs=40, patience=6)),
    _net("cnn64", NetworkEvaluator, "thesis CNN, 64 numbers", "thesis64_board", thesis_cnn,
         dict(epochs=15, patience=5)),
    EvaluatorInfo("bayes", "bayes", BayesEvaluator, "Naive Bayes on hand-made features",
                  "bayes.json",
                  made_by="`python -m chesslab train bayes` (notebook 10 trains a small one)"),
)}


def register_evaluator(name: str, factory, kind: str = "hand-written", **info) -> None:
    """Make ``load_evaluator(name)`` call ``factory()`` (a class or a function); with
    ``model="FILE.json"`` it calls ``factory.from_file(path, name)`` instead."""
    EVALUATORS[name] = EvaluatorInfo(name, kind, factory, **info)


def available_evaluators() -> list:
    """Every name ``load_evaluator`` knows, in the registry's order."""
    return list(EVALUATORS)


def _entry(name) -> EvaluatorInfo:
    if not isinstance(name, str):
        raise TypeError(f"an evaluator is a name such as 'pst' or an Evaluator object, not "
                        f"{type(name).__name__} {name!r:.40}; choose one of "
                        f"{', '.join(EVALUATORS)}")
    if name not in EVALUATORS:
        raise ValueError(f"unknown evaluator {name!r}; choose one of {', '.join(EVALUATORS)}")
    return EVALUATORS[name]


def model_path(name: str) -> Path | None:
    """The model file of evaluator ``name`` (None if it reads none)."""
    entry = _entry(name)
    return MODELS_DIR / entry.model if entry.model else None


def is_available(name: str) -> bool:
    """Can ``load_evaluator(name)`` work here (its model file exists)? Loads nothing."""
    if name not in EVALUATORS:
        return False
    path = model_path(name)
    return path is None or path.exists()


def load_evaluator(name, model=None) -> Evaluator:
    """An evaluator by name ('material', 'pst', 'nnue', ...); an Evaluator is returned
    as it is. ``model``: another model file for a learned one (default: the shipped one).

    A model file is read once (until it changes); each call returns a fresh copy, so two
    players never share one evaluator's search state."""
    if isinstance(name, Evaluator):
        return name
    entry = _entry(name)
    if model is None and entry.model is None:
        return entry.evaluator()
    if entry.model is None:
        raise ValueError(f"the '{name}' evaluator reads no model file, so it cannot take "
                         f"model={model!r}")
    path = Path(model) if model is not None else model_path(name)
    if not path.exists():
        shown = path if model is not None else f"data/models/{entry.model}"
        raise FileNotFoundError(f"the '{name}' evaluator needs the model file {shown}, "
                                f"which does not exist yet; train it with {entry.made_by}")
    built = load_cached(path, lambda p: entry.evaluator.from_file(p, name), f"evaluator {name}")
    return copy.deepcopy(built)
