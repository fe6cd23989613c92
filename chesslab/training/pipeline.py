"""The thesis's training pipeline, step by step, for the evaluation networks.

The thesis trains its ANN and CNN the same way (section "Training system"):

1. **load** the training data;
2. **split** it into a part to train on and a part to test on;
3. **shuffle** the training part (only the training part: the others keep their order);
4. **train**: go through the training part in mini-batches, updating weights (the
   thesis's learning rate 0.001; Adam is chesslab's choice, the thesis names no
   optimiser);
5. **validate**: score every position of the validation part;
6. **calculate accuracy**;
7. **continue** from step 4 until the accuracy is acceptable;
8. **save** the model as JSON.

Added after the tutorial, which lowers the learning rate on a plateau and stops early
(Keras callbacks watching the training loss, keeping the last weights): here both watch
the validation loss, the learning rate is halved when it stops improving, training
stops after ``patience`` epochs without improvement, and the weights of the best epoch
are the ones kept.

Targets: Stockfish centipawns are squashed to ``tanh(cp / 400)`` (see
``chesslab.evaluators.neural.cp_to_target``) and predictions are mapped back to centipawns.

The recipe that makes a network beat the hand-written evaluation (notebook 05 shows
what each step buys), one ``TrainConfig`` switch each:

* ``perspective="side_to_move"``: score every position from the mover's side (Black's
  positions colour-mirrored), so the game positions, nearly all with White to move,
  teach Black too;
* ``target="wdl"``: learn in win-probability space, ``sigmoid(z)`` against
  ``sigmoid(cp / 400)``: a 300 cp error matters in an equal position, hardly at +900;
* ``quiet=True``: train on the position where a material quiescence search's best
  line ends (a capture sequence played out, positions in check dropped), because in a
  search the evaluation is only asked about positions where the captures are over;
* ``mirror=True``: add every training position colour-mirrored (same for the
  side-to-move perspective, which sees both the same);
* ``flip=True``: add every training position without castling rights mirrored left
  to right (files a <-> h): chess is symmetric that way once castling is gone;
* ``extra_plies=True``: also train on every ply of the training games, labelled at a
  lower depth (``python -m chesslab data extend``; the sampled game positions have
  White to move nearly always);
* ``leaves=True``: also train on the leaves of real searches from training positions,
  labelled by Stockfish (``python -m chesslab data leaves``, ``chesslab.training.leaves``): the
  positions a search asks the evaluation about, where its errors get exploited;
* more epochs with the learning rate halved on plateaus (``epochs``, ``lr_patience``);
* ``weight_decay`` (the nnue's ``training`` entry in the registry sets it): AdamW
  shrinks every weight a little each step. Without it the nnue's training loss fell
  far below its validation loss (it learned its training positions by heart); with it
  the validation loss was lower on the same data.

How a trained net is measured: ``chesslab.training.measure``; the recipe's data steps:
``chesslab.training.recipe``; what each step buys: ``chesslab.experiments.recipe.measure_recipe``.
"""
from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from chesslab.datasets.positions import DEFAULT_DATASET, Dataset, load_dataset
from chesslab.evaluators.registry import EVALUATORS
from chesslab.base.files import MODELS_DIR, read_json
from chesslab.training.measure import accuracy, evaluate_on, metrics
from chesslab.board.encoding import ENCODINGS
from chesslab.evaluators.neural import (NetworkEvaluator, encode_boards, loss_for, target_kind,
                                        target_to_cp, training_target)
from chesslab.nn import Adam, BatchNorm, save_model, train_step
from chesslab.training.recipe import RECIPE, base_depth, network_view, training_positions

#: The networks this pipeline trains: every trainable one of the registry
#: (``chesslab.evaluators.registry.EVALUATORS`` holds each one's builder and encoding).
NETS = tuple(name for name, entry in EVALUATORS.items() if entry.trainable)


def build_net(name: str, seed: int = 0):
    """A fresh (untrained) network and its encoding."""
    entry = EVALUATORS.get(name)
    if entry is None or not entry.trainable:
        raise ValueError(f"unknown network {name!r}; choose one of {', '.join(NETS)}")
    return entry.network(seed), entry.encoding


def count_parameters(model) -> int:
    return int(sum(p.size for _, p, _ in model.parameters()))


@dataclass
class TrainConfig:
    """Settings of one training run (stored in the model file)."""
    epochs: int = 20                 # at most this many passes over the training part
    batch_size: int = 256
    lr: float | None = None          # None: the net's own (the thesis: 0.001)
    patience: int = 4                # early stopping: epochs without a better val loss
    lr_patience: int = 2             # reduce-LR-on-plateau: epochs before halving
    lr_factor: float = 0.5
    min_delta: float = 1e-4          # smaller val-loss gains do not count as better
    target_accuracy: float | None = None   # the thesis's "acceptable": stop when reached
    max_train: int | None = None     # train on the first N (shuffled) positions only
    seed: int = 0
    # the recipe (see the module docstring); the defaults are the thesis's pipeline
    perspective: str = "white"       # or "side_to_move"
    target: str = "tanh"             # or "wdl"
    quiet: bool = False              # train on quiescence leaves
    mirror: bool = False             # add colour-mirrored copies of the training part
    flip: bool = False               # add a <-> h mirrored copies (no castling rights)
    extra_plies: bool = False        # also the lower-depth labels of every game ply
    leaves: bool = False             # also the labelled leaves of searches (data leaves)
    wdl_scale: float = 400.0         # target="wdl": sigmoid(cp / wdl_scale)
    weight_decay: float = 0.0        # AdamW's decoupled weight decay (0: plain Adam)

    def __post_init__(self):
        """Refuse settings that cannot train (0 epochs would save an untrained net)."""
        for key in ("epochs", "batch_size", "patience", "lr_patience", "max_train"):
            value = getattr(self, key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ValueError(f"{key} must be a whole number of at least 1, got {value!r}")
        if self.lr is not None and not self.lr >= 0:      # 0 freezes the weights (tests)
            raise ValueError(f"the learning rate cannot be negative, got {self.lr!r}")
        if not self.weight_decay >= 0:
            raise ValueError(f"the weight decay cannot be negative, got {self.weight_decay!r}"
                             f"; 0 turns it off")


@dataclass
class History:
    """One row per epoch: what the loss/accuracy curves are drawn from."""
    epoch: list = field(default_factory=list)
    train_loss: list = field(default_factory=list)
    val_loss: list = field(default_factory=list)
    val_accuracy: list = field(default_factory=list)
    val_mae_cp: list = field(default_factory=list)
    lr: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    best_epoch: int = 0
    stop_reason: str = ""

    def append(self, **row):
        for key, value in row.items():
            getattr(self, key).append(value)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "History":
        return cls(**d)


# ---------------------------------------------------------------- the pipeline steps

def load(path=None) -> Dataset:
    """Step 1, load training data: ``path``, else the file named by the environment
    variable ``CHESSLAB_DATASET``, else the shipped ``data/positions.npz``."""
    return load_dataset(path or os.environ.get("CHESSLAB_DATASET") or DEFAULT_DATASET)


def split(dataset: Dataset, fractions=(0.8, 0.1, 0.1), seed: int = 0):
    """Step 2, split: (train, validation, test), by game (no game on two sides)."""
    return dataset.split(fractions, seed)


def shuffle(n: int, rng: np.random.Generator) -> np.ndarray:
    """Step 3, shuffle: a new order of the n TRAINING examples (called every epoch).

    Only the training part is shuffled: validation and test keep their order, so their
    predictions line up with their labels and runs can be compared row by row.
    """
    return rng.permutation(n)


def train_epoch(model, optimizer, x, y, order, batch_size: int = 256, bar=None,
                loss=None) -> float:
    """Step 4, train: one pass over the training part, in mini-batches, in ``order``.

    ``loss`` is a ``chesslab.nn`` loss (default MSE)."""
    model.train()
    total = 0.0
    for start in range(0, len(order), batch_size):
        idx = np.sort(order[start:start + batch_size])   # sorted: faster gather, same batch
        value = train_step(model, optimizer, x[idx], y[idx], loss)  # forward, loss, backward, step
        total += value * len(idx)
        if bar is not None:
            bar.update(len(idx))
            bar.set_postfix(loss=f"{value:.4f}", refresh=False)
    return total / len(order)


def validate(model, x, batch_size: int = 2048) -> np.ndarray:
    """Step 5, validate: the network's outputs for every example, in order (eval mode)."""
    model.eval()
    return np.concatenate([model.forward(x[i:i + batch_size])[:, 0]
                           for i in range(0, len(x), batch_size)])


def _state(model):
    """Copies of every number that defines the model (weights and batch-norm statistics)."""
    arrays = [p.copy() for _, p, _ in model.parameters()]
    for leaf in model.leaves():
        if isinstance(leaf, BatchNorm):
            arrays += [leaf.running_mean.copy(), leaf.running_var.copy()]
    return arrays


def _restore(model, arrays):
    arrays = iter(arrays)
    for _, p, _ in model.parameters():
        p[...] = next(arrays)
    for leaf in model.leaves():
        if isinstance(leaf, BatchNorm):
            leaf.running_mean, leaf.running_var = next(arrays), next(arrays)


def fit(model, train_xy, val_xy, config: TrainConfig = None, progress: bool = True,
        kind: str | None = None) -> History:
    """Steps 3-7: shuffle, train, validate, accuracy, continue until acceptable.

    ``train_xy`` and ``val_xy`` are ``(inputs, centipawns)``. Stops when the validation
    accuracy reaches ``config.target_accuracy`` (the thesis's "acceptable"), after
    ``config.patience`` epochs without a better validation loss (early stopping), or
    after ``config.epochs``; halves the learning rate after ``config.lr_patience`` epochs
    without improvement. The model ends with the weights of its best epoch.
    """
    config = config or TrainConfig()
    kind = kind or target_kind(model, config.target)
    loss = loss_for(kind, config.wdl_scale)
    (x, cp), (x_val, cp_val) = train_xy, val_xy
    y = training_target(cp, kind, config.wdl_scale).astype(np.float32).reshape(-1, 1)
    y_val = training_target(cp_val, kind, config.wdl_scale).astype(np.float32).reshape(-1, 1)
    rng = np.random.default_rng(config.seed)
    optimizer = Adam(config.lr if config.lr is not None else model.learning_rate or 0.001,
                     weight_decay=config.weight_decay)
    history = History()
    best, best_state, wait, plateau = np.inf, _state(model), 0, 0
    start = time.perf_counter()
    for epoch in range(1, config.epochs + 1):
        order = shuffle(len(x), rng)
        with tqdm(total=len(order), desc=f"epoch {epoch}/{config.epochs}", unit="pos",
                  disable=not progress, leave=False) as bar:
            train_loss = train_epoch(model, optimizer, x, y, order, config.batch_size, bar,
                                     loss)
        out = validate(model, x_val)
        val_loss = loss(out.reshape(-1, 1).astype(np.float32), y_val)[0]
        pred_cp = target_to_cp(out, kind)
        history.append(epoch=epoch, train_loss=train_loss, val_loss=val_loss,
                       val_accuracy=accuracy(pred_cp, cp_val),
                       val_mae_cp=metrics(pred_cp, cp_val)["mae_cp"], lr=optimizer.lr,
                       seconds=round(time.perf_counter() - start, 2))
        if progress:
            tqdm.write(f"epoch {epoch}: train loss {train_loss:.4f}, val loss {val_loss:.4f}, "
                       f"val accuracy {history.val_accuracy[-1]:.3f}, "
                       f"val MAE {history.val_mae_cp[-1]:.0f} cp")
        if val_loss < best - config.min_delta:
            best, best_state, wait, plateau = val_loss, _state(model), 0, 0
            history.best_epoch = epoch
        else:
            wait, plateau = wait + 1, plateau + 1
            if plateau >= config.lr_patience:        # reduce-LR-on-plateau
                optimizer.lr *= config.lr_factor
                plateau = 0
        if config.target_accuracy is not None and \
                history.val_accuracy[-1] >= config.target_accuracy:
            history.stop_reason = f"accuracy {history.val_accuracy[-1]:.3f} is acceptable " \
                                  f"(>= {config.target_accuracy})"
            break
        if wait >= config.patience:
            history.stop_reason = f"early stopping: no better val loss for {wait} epochs"
            break
    else:
        history.stop_reason = f"maximum of {config.epochs} epochs"
    _restore(model, best_state)
    model.eval()
    return history


def save(model, path, encoding: str, kind: str, **info) -> Path:
    """Step 8, save the model: chesslab.nn's JSON plus a ``"chesslab"`` entry naming
    the encoding and target scaling (so ``NetworkEvaluator.from_file`` rebuilds the
    evaluator from the file alone) and whatever ``info`` holds (history, metrics).

    What the loader would refuse is refused here, before anything is written (a file
    that cannot be loaded back is only found out later, far from the mistake): the
    evaluator ``NetworkEvaluator.from_file`` will build is built now, by the same rules.
    """
    training = getattr(model, "training", False)
    NetworkEvaluator(model, encoding, kind, perspective=info.get("perspective", "white"))
    model.train(training)                   # building it switched the model to eval mode
    path = Path(path)
    save_model(model, path, extra={"chesslab": {"encoding": encoding, "target": kind, **info}})
    return path


# ---------------------------------------------------------------- the whole pipeline

def encode_dataset(dataset: Dataset, encoding: str, chunk: int = 8192) -> np.ndarray:
    """Inputs of every position, as int8 (the values are small whole numbers; float32
    for 200,000 positions of 14 planes would take 700 MB)."""
    return encode_positions(dataset.boards(), encoding, chunk)


def encode_positions(boards, encoding: str, chunk: int = 8192) -> np.ndarray:
    """``encode_dataset`` for a list of boards."""
    shape = ENCODINGS[encoding].shape
    out = np.empty((len(boards),) + shape, dtype=np.int8)
    for i in range(0, len(boards), chunk):
        out[i:i + chunk] = encode_boards(boards[i:i + chunk], encoding)
    return out


def evaluator_for(name: str, model, encoding: str, kind: str, perspective: str):
    """The evaluator of a trained net, of the registry's class (NNUE and linear ones get
    their fast classes when trained for the target those read)."""
    return EVALUATORS[name].evaluator.from_model(model, name, encoding, kind, perspective)


@dataclass
class TrainResult:
    name: str
    model: object
    encoding: str
    kind: str
    history: History
    validation: dict
    test: dict
    seconds: float
    config: TrainConfig
    train_examples: int = 0      # what the epochs went through (after the recipe's steps)

    def summary(self) -> str:
        """One line: epochs, why training stopped, the validation and test metrics."""
        h, v, t = self.history, self.validation, self.test
        return (f"{self.name}: {len(h.epoch)} epochs in {self.seconds:.0f} s ({h.stop_reason}); "
                f"best epoch {h.best_epoch}; validation MAE {v['mae_cp']:.0f} cp, corr "
                f"{v['correlation']:.3f}, sign accuracy {v['sign_accuracy']:.3f}; test MAE "
                f"{t['mae_cp']:.0f} cp, corr {t['correlation']:.3f}, sign accuracy "
                f"{t['sign_accuracy']:.3f}")



def recipe_rows(train: Dataset, config: TrainConfig, dataset: Dataset) -> Dataset:
    """The training positions a recipe keeps: the extra plies only if it asks for them
    (``data extend`` adds shallower labels beside the main ones), search leaves only if it
    asks for them."""
    if not config.extra_plies:
        train = train.subset(np.flatnonzero((train.depth == base_depth(dataset))
                                            | (train.source == "leaf")))
    if not config.leaves:
        train = train.subset(np.flatnonzero(train.source != "leaf"))
    return train


def train_net(name: str, dataset: Dataset, config: TrainConfig = None,
              progress: bool = True, splits=None, cache: dict | None = None) -> TrainResult:
    """The whole pipeline for one network on ``dataset`` (steps 2-7; ``save`` is step 8).

    Pass ``splits=(train, validation, test)`` to reuse a split made once, and a dict as
    ``cache`` to encode the positions once for several nets with the same encoding.
    """
    config = config or TrainConfig()
    model, encoding = build_net(name, config.seed)
    kind = target_kind(model, config.target)
    only = EVALUATORS[name].perspective
    if only is not None and config.perspective != only:
        raise ValueError(f"the {name} network reads the {only.replace('_', ' ')}'s view only; "
                         f"train it with perspective={only!r}")
    train, val, test = splits or split(dataset)
    if len(train) == 0 or len(val) == 0:
        raise ValueError(f"too little data to train: the split by game leaves {len(train)} "
                         f"training and {len(val)} validation positions (the dataset has "
                         f"{len(dataset)}); use a dataset with more games")
    train = recipe_rows(train, config, dataset)
    if config.max_train and config.max_train < len(train):
        order = shuffle(len(train), np.random.default_rng(config.seed))
        train = train.subset(np.sort(order[:config.max_train]))
    cache = {} if cache is None else cache
    recipe = (config.max_train, config.seed, config.quiet, config.mirror, config.flip,
              config.extra_plies, config.leaves)
    key = (encoding, config.perspective) + recipe
    if key not in cache:
        positions = ("positions",) + recipe
        if positions not in cache:
            cache[positions] = training_positions(train, config.quiet, config.mirror,
                                                  config.flip)
        boards, cp = network_view(*cache[positions], config.perspective)
        # validation sees positions prepared like the training ones (quiet leaves when
        # quiet=True, no mirrored copies): early stopping then measures what is learned
        val_key = ("validation", config.quiet)
        if val_key not in cache:
            cache[val_key] = training_positions(val, config.quiet)
        val_boards, val_cp = network_view(*cache[val_key], config.perspective)
        cache[key] = ((encode_positions(boards, encoding), cp),
                      (encode_positions(val_boards, encoding), val_cp))
    train_xy, val_xy = cache[key]
    start = time.perf_counter()          # training time: the epochs, not the encoding
    history = fit(model, train_xy, val_xy, config, progress, kind)
    seconds = time.perf_counter() - start
    evaluator = evaluator_for(name, model, encoding, kind, config.perspective)
    return TrainResult(name, model, encoding, kind, history,
                       evaluate_on(evaluator, val), evaluate_on(evaluator, test),
                       seconds, config, len(train_xy[1]))


def save_result(result: TrainResult, path=None, data_info=None) -> Path:
    path = path or MODELS_DIR / f"{result.name}.json"
    return save(result.model, path, result.encoding, result.kind, evaluator=result.name,
                perspective=result.config.perspective,
                parameters=count_parameters(result.model),
                training={"config": asdict(result.config),
                          "seconds": round(result.seconds, 1), "data": data_info or {}},
                history=result.history.to_dict(),
                metrics={"validation": result.validation, "test": result.test})


def load_history(name: str, models_dir=MODELS_DIR) -> History:
    """The training history stored in a shipped model file."""
    doc = read_json(Path(models_dir) / f"{name}.json", "model file")
    try:
        return History.from_dict(doc["chesslab"]["history"])
    except (KeyError, TypeError):
        raise ValueError(f"model file {name}.json holds no training history; retrain it "
                         f"with `python -m chesslab train nets {name}`") from None


# ---------------------------------------------------------------- the shipped models

SHIPPED = {name: TrainConfig(**{**RECIPE, **EVALUATORS[name].training}) for name in NETS}
#: ``--full``: the bigger run for better models (hours of CPU).
FULL = {name: replace(SHIPPED[name], epochs=200, patience=10, lr_patience=4)
        for name in NETS}


def train_and_save(names, data=None, out=MODELS_DIR, full: bool = False,
                   progress: bool = True, **overrides):
    """Train each of ``names`` with its shipped settings (``full``: the long run), changed
    by ``overrides`` (TrainConfig fields), on the dataset file ``data`` (default: the
    shipped one), and save ``out/NAME.json``. Yields (TrainResult, path) as each is done."""
    dataset = load(data)
    splits = split(dataset)
    info = {"file": Path(data or os.environ.get("CHESSLAB_DATASET") or DEFAULT_DATASET).name,
            "positions": len(dataset), "train_positions": len(splits[0]),
            "validation_positions": len(splits[1]), "test_positions": len(splits[2]),
            "depth": dataset.metadata.get("depth")}
    cache = {}
    for name in names:
        config = replace((FULL if full else SHIPPED)[name], **overrides)
        result = train_net(name, dataset, config, progress, splits, cache)
        info = dict(info, train_positions=result.train_examples)
        yield result, save_result(result, Path(out) / f"{name}.json", info)
