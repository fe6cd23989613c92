"""A trained network as an evaluator: how boards are encoded for it, how its output
becomes centipawns, and from whose point of view it scores.

``NetworkEvaluator`` wraps any ``chesslab.nn`` network with the encoding, target scaling
and perspective it was trained with; ``NetworkEvaluator.from_file`` rebuilds one from a
model file written by ``chesslab.training.pipeline`` (the file names all three). What a network
is trained against follows from the same scalings: ``target_kind``, ``training_target``
and ``loss_for``. The NNUE and the
learned piece-square tables (``chesslab.evaluators.nnue``) are network evaluators with a faster path
inside a search.
"""
from __future__ import annotations

import chess
import numpy as np

from chesslab.board.encoding import ENCODINGS
from chesslab.base.files import read_json
from chesslab.evaluators.base import Evaluator, need_board
from chesslab.nn import Sigmoid, model_from_doc, mse, sigmoid_mse

# A network answers in "target units", not centipawns. Four scalings:
# * "tanh": a linear output learns tanh(cp / 400) in (-1, 1) with MSE there;
# * "unit": a sigmoid output learns (1 + tanh(cp / 400)) / 2 in (0, 1) (the tutorial's
#   sigmoid output and range; the tutorial scales its scores linearly by the largest
#   one in its data instead of squashing them);
# * "logit": a linear output z is the logit of the expected score, cp = 400 z; it is
#   trained in win-probability space, sigmoid(z) against sigmoid(cp / 400) (the NNUE way);
# * "prob": a sigmoid output p is that expected score itself, cp = 400 logit(p).
# So a mate (10,000 cp) and a lost queen (-900 cp) are both big but finite numbers and a
# few mates do not dominate the loss. tanh/unit/prob are clipped before mapping back,
# so their scores stay within about +-2,000 cp (+-3,700 for prob).
TARGET_SCALE_CP = 400.0
TARGET_KINDS = ("tanh", "unit", "logit", "prob")
_TARGET_CLIP = 1 - 1e-4
#: Whose point of view a network scores from: White's always, or the side to move's
#: (the board is colour-mirrored for Black before encoding, the score negated after).
PERSPECTIVES = ("white", "side_to_move")


def _check_target_kind(kind):
    if kind not in TARGET_KINDS:
        raise ValueError(f"unknown target scaling {kind!r}; use one of {TARGET_KINDS}")


def expected_score(cp) -> np.ndarray:
    """Centipawns -> expected score in [0, 1] (sigmoid(cp / 400)): win-probability space."""
    return 0.5 * (1 + np.tanh(np.asarray(cp, dtype=np.float64) / (2 * TARGET_SCALE_CP)))


def cp_to_target(cp, kind: str = "tanh") -> np.ndarray:
    """Centipawns (the network's side) -> what a network is trained to output."""
    _check_target_kind(kind)
    cp = np.asarray(cp, dtype=np.float64)
    if kind == "logit":
        return cp / TARGET_SCALE_CP
    if kind == "prob":
        return expected_score(cp)
    y = np.tanh(cp / TARGET_SCALE_CP)
    return (y + 1) / 2 if kind == "unit" else y


def target_to_cp(y, kind: str = "tanh") -> np.ndarray:
    """A network's output -> centipawns; the inverse of ``cp_to_target``."""
    _check_target_kind(kind)
    y = np.asarray(y, dtype=np.float64)
    if kind == "logit":
        return TARGET_SCALE_CP * y
    if kind == "prob":
        p = np.clip(y, 1 - _TARGET_CLIP, _TARGET_CLIP)
        return TARGET_SCALE_CP * np.log(p / (1 - p))
    if kind == "unit":
        y = 2 * y - 1
    return TARGET_SCALE_CP * np.arctanh(np.clip(y, -_TARGET_CLIP, _TARGET_CLIP))


#: Training targets (``chesslab.training.pipeline.TrainConfig.target``): "tanh" (MSE on
#: tanh(cp/400)), "wdl" (win-probability space); ``target_kind`` picks the scaling.
TARGETS = ("tanh", "wdl")


def target_kind(model, target: str = "tanh") -> str:
    """How the output is read. ``target="tanh"``: 'unit' (0..1) for nets ending in a
    sigmoid, 'tanh' (-1..1) for a linear output. ``target="wdl"``: 'prob' (the expected
    score itself) after a sigmoid, 'logit' (its logit, cp / 400) for a linear output."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
    ends_in_sigmoid = isinstance(model.layers[-1], Sigmoid)
    if target == "wdl":
        return "prob" if ends_in_sigmoid else "logit"
    return "unit" if ends_in_sigmoid else "tanh"


def training_target(cp, kind: str, scale: float = TARGET_SCALE_CP) -> np.ndarray:
    """What the loss compares the output with: for 'logit' the expected score
    sigmoid(cp / scale) (the loss applies the sigmoid), else ``cp_to_target``."""
    if kind == "logit":
        return expected_score(np.asarray(cp, dtype=np.float64) * TARGET_SCALE_CP / scale)
    return cp_to_target(cp, kind)


def loss_for(kind: str, scale: float = TARGET_SCALE_CP):
    """sigmoid_mse for a logit output (win-probability space), else plain MSE.

    The output z always means cp = 400 z; ``scale`` is where the loss puts "winning":
    it compares sigmoid(cp / scale) with sigmoid(400 z / scale). A larger scale keeps
    caring about errors in positions that are already +500.
    """
    if kind != "logit":
        return mse
    if scale == TARGET_SCALE_CP:
        return sigmoid_mse
    k = TARGET_SCALE_CP / scale

    def scaled_sigmoid_mse(z, p):
        value, grad = sigmoid_mse(z * k, p)
        return value, grad * k
    return scaled_sigmoid_mse


def side_to_move_view(boards) -> list:
    """Each board as the side to move sees it: Black's positions colour-mirrored
    (``board.mirror()``: ranks flipped, colours swapped), so it is always White to move."""
    return [b if b.turn == chess.WHITE else b.mirror() for b in boards]


def turn_signs(boards) -> np.ndarray:
    """+1 where White is to move, -1 where Black is: side-to-move scores -> White's."""
    return np.array([1.0 if b.turn == chess.WHITE else -1.0 for b in boards])


def encode_boards(boards, encoding: str) -> np.ndarray:
    """A batch of boards as the network input named ``encoding`` (float32)."""
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; use one of {', '.join(ENCODINGS)}")
    if isinstance(boards, chess.Board):
        raise TypeError("encode_boards() takes a list of boards; for one board pass [board]")
    if isinstance(boards, (str, bytes)) or not hasattr(boards, "__iter__"):
        raise TypeError(f"encode_boards() takes a list of chess.Board, got "
                        f"{type(boards).__name__} {boards!r:.60}; pass e.g. [chess.Board()]")
    boards = list(boards)
    func, shape = ENCODINGS[encoding]
    if not boards:
        return np.zeros((0,) + shape, dtype=np.float32)
    return func(boards)


class NetworkEvaluator(Evaluator):
    """A trained network plus the encoding, target scaling and perspective it was
    trained with.

    ``evaluate_batch`` encodes all boards and runs ONE forward pass in eval mode, so a
    search that collects its leaves pays the numpy overhead once per batch. With
    ``perspective="side_to_move"`` the network scores every position as if White were
    to move (Black's are colour-mirrored first) and the score is negated back.
    """

    prefers_batches = True

    def __init__(self, model, encoding: str, target: str = "tanh", name: str = "network",
                 perspective: str = "white"):
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r}; use one of "
                             f"{', '.join(ENCODINGS)}")
        _check_target_kind(target)
        if perspective not in PERSPECTIVES:
            raise ValueError(f"unknown perspective {perspective!r}; use one of "
                             f"{', '.join(PERSPECTIVES)}")
        shape = ENCODINGS[encoding].shape
        if tuple(model.input_shape) != shape:
            raise ValueError(f"the network {model.name!r} takes inputs of shape "
                             f"{tuple(model.input_shape)}, but the encoding {encoding!r} "
                             f"gives {shape}; pick the encoding it was trained with")
        self.model, self.encoding, self.target, self.name = model.eval(), encoding, target, name
        self.perspective = perspective

    @classmethod
    def from_model(cls, model, name: str, encoding: str, target: str = "tanh",
                   perspective: str = "white") -> "NetworkEvaluator":
        """The evaluator of a trained ``model`` (subclasses that fix the encoding, target
        or perspective ignore those arguments)."""
        return cls(model, encoding, target, name, perspective)

    @classmethod
    def from_file(cls, path, name: str | None = None) -> "NetworkEvaluator":
        """Rebuild an evaluator from a model file written by ``chesslab.training.pipeline``.

        The file's ``"chesslab"`` entry says which encoding, target scaling and
        perspective to use (files from before perspectives existed are White's view).
        The file is read once.
        """
        doc = read_json(path, "model file")
        meta = doc.get("chesslab") if isinstance(doc, dict) else None
        if not isinstance(meta, dict) or "encoding" not in meta or "target" not in meta:
            raise ValueError(f"model file {path} has no 'chesslab' entry with 'encoding' and "
                             f"'target'; it was not saved by chesslab.training.pipeline.save (retrain "
                             f"it with `python -m chesslab train nets NAME`)")
        return cls.from_model(model_from_doc(doc, f"model file {path}"),
                              name or meta.get("evaluator", doc.get("name", "network")),
                              meta["encoding"], meta["target"], meta.get("perspective", "white"))

    def evaluate_batch(self, boards) -> np.ndarray:
        boards = list(boards)
        mover = self.perspective == "side_to_move"
        x = encode_boards(side_to_move_view(boards) if mover else boards, self.encoding)
        if len(x) == 0:
            return np.zeros(0)
        cp = target_to_cp(self.model.predict(x)[:, 0], self.target)
        return cp * turn_signs(boards) if mover else cp

    def evaluate(self, board: chess.Board) -> float:
        need_board(board, self.name)
        return float(self.evaluate_batch([board])[0])
