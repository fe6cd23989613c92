"""Evaluators: a number for a position, in centipawns from White's point of view.

Every evaluator has a ``name``, ``evaluate(board) -> float`` and
``evaluate_batch(boards) -> np.ndarray``. Hand-written ones score one board at a time;
learned ones (neural nets, Naive Bayes) score a whole batch with one forward pass and say
so with ``prefers_batches = True``: scoring a dataset uses it. (The search can also collect
leaves into batches, ``search(..., batch=True)``; in a game tree that was measured slower,
so it is off by default.)

``load_evaluator(name)`` looks the name up in a small registry: ``material`` and ``pst``
are built in, the learned evaluators register themselves (``register_evaluator``) and
read their weights from ``data/models/NAME.json``.
"""
from __future__ import annotations

import importlib

import chess
import numpy as np

from chesslab.encoding import (piece_square_indices_batch, piece_square_onehot,
                               planes14_batch, thesis_vectors)
from chesslab.files import MODELS_DIR, read_json
from chesslab.nn import load_model
from chesslab.scores import checkmate_score

#: The Naive Bayes chapter's piece values (the king is never captured).
PIECE_VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300,
                chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 0}
#: The chapter's bonus for giving check ("a very strong move").
CHECK_BONUS = 10


class Evaluator:
    """Base class: subclasses define ``evaluate``; batches default to a loop."""

    name = "evaluator"
    prefers_batches = False

    def evaluate(self, board: chess.Board) -> float:
        raise NotImplementedError

    def evaluate_batch(self, boards) -> np.ndarray:
        return np.array([self.evaluate(b) for b in boards], dtype=float)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


def material_balance(board: chess.Board) -> int:
    """White's material minus Black's, with the chapter's values."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    total = 0
    for piece_type in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        mask = board.pieces_mask(piece_type, chess.WHITE) | board.pieces_mask(piece_type,
                                                                              chess.BLACK)
        total += PIECE_VALUES[piece_type] * (chess.popcount(mask & white)
                                             - chess.popcount(mask & black))
    return total


def _need_board(board, who: str) -> None:
    """One clear line instead of an AttributeError deep inside python-chess."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"{who}.evaluate() needs a chess.Board, got {type(board).__name__}")


class MaterialEvaluator(Evaluator):
    """The Naive Bayes chapter: material, checkmate = +-infinity, check = +10."""

    name = "material"

    def evaluate(self, board: chess.Board) -> float:
        _need_board(board, self.name)
        mate = checkmate_score(board)
        if mate is not None:
            return mate
        # The side NOT to move gives the check; White's point of view.
        bonus = 0 if not board.is_check() else \
            -CHECK_BONUS if board.turn == chess.WHITE else CHECK_BONUS
        return float(material_balance(board) + bonus)


# Piece-square tables: centipawns added to a piece's value on each square, written
# from White's side with row 0 = rank 8 (the board as printed). Black uses the mirror.
_PST_ROWS = {
    chess.PAWN: """
          0   0   0   0   0   0   0   0
         50  50  50  50  50  50  50  50
         10  10  20  30  30  20  10  10
          5   5  10  25  25  10   5   5
          0   0   0  20  20   0   0   0
          5  -5 -10   0   0 -10  -5   5
          5  10  10 -20 -20  10  10   5
          0   0   0   0   0   0   0   0""",
    chess.KNIGHT: """
        -50 -40 -30 -30 -30 -30 -40 -50
        -40 -20   0   0   0   0 -20 -40
        -30   0  10  15  15  10   0 -30
        -30   5  15  20  20  15   5 -30
        -30   0  15  20  20  15   0 -30
        -30   5  10  15  15  10   5 -30
        -40 -20   0   5   5   0 -20 -40
        -50 -40 -30 -30 -30 -30 -40 -50""",
    chess.BISHOP: """
        -20 -10 -10 -10 -10 -10 -10 -20
        -10   0   0   0   0   0   0 -10
        -10   0   5  10  10   5   0 -10
        -10   5   5  10  10   5   5 -10
        -10   0  10  10  10  10   0 -10
        -10  10  10  10  10  10  10 -10
        -10   5   0   0   0   0   5 -10
        -20 -10 -10 -10 -10 -10 -10 -20""",
    chess.ROOK: """
          0   0   0   0   0   0   0   0
          5  10  10  10  10  10  10   5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
          0   0   0   5   5   0   0   0""",
    chess.QUEEN: """
        -20 -10 -10  -5  -5 -10 -10 -20
        -10   0   0   0   0   0   0 -10
        -10   0   5   5   5   5   0 -10
         -5   0   5   5   5   5   0  -5
          0   0   5   5   5   5   0  -5
        -10   5   5   5   5   5   0 -10
        -10   0   5   0   0   0   0 -10
        -20 -10 -10  -5  -5 -10 -10 -20""",
    # Middlegame king: stay behind the pawns, castled.
    chess.KING: """
        -30 -40 -40 -50 -50 -40 -40 -30
        -30 -40 -40 -50 -50 -40 -40 -30
        -30 -40 -40 -50 -50 -40 -40 -30
        -30 -40 -40 -50 -50 -40 -40 -30
        -20 -30 -30 -40 -40 -30 -30 -20
        -10 -20 -20 -20 -20 -20 -20 -10
         20  20   0   0   0   0  20  20
         20  30  10   0   0  10  30  20""",
}
# Endgame king: come to the centre, where it attacks and escapes mating nets.
_KING_ENDGAME_ROWS = """
        -50 -40 -30 -20 -20 -30 -40 -50
        -30 -20 -10   0   0 -10 -20 -30
        -30 -10  20  30  30  20 -10 -30
        -30 -10  30  40  40  30 -10 -30
        -30 -10  30  40  40  30 -10 -30
        -30 -10  20  30  30  20 -10 -30
        -30 -30   0   0   0   0 -30 -30
        -50 -30 -30 -30 -30 -30 -30 -50"""


def _table(text: str, color: chess.Color) -> list:
    """Rows as printed -> a list indexed by chess square for ``color``."""
    values = [int(v) for v in text.split()]
    assert len(values) == 64
    table = [0] * 64
    for square in chess.SQUARES:
        # White reads the table upside down (row 0 = rank 8); Black sees it mirrored.
        rank = chess.square_rank(square) if color == chess.BLACK else 7 - chess.square_rank(square)
        table[square] = values[rank * 8 + chess.square_file(square)]
    return table


PST = {(color, pt): _table(text, color) for color in chess.COLORS
       for pt, text in _PST_ROWS.items()}
KING_ENDGAME_PST = {color: _table(_KING_ENDGAME_ROWS, color) for color in chess.COLORS}
#: Non-pawn material (both sides) at the start: phase 1 = opening, 0 = bare endgame.
_FULL_PHASE = 2 * (2 * 300 + 2 * 300 + 2 * 500 + 900)


class PSTEvaluator(Evaluator):
    """Material plus piece-square tables; the king table blends to the endgame one.

    Mates are scored like ``material`` (+-inf); there is no check bonus: the tables
    already say where pieces belong, and the search sees checks for itself.

    Inside a search the evaluator is updated on each move (``incremental``, the hooks
    of ``chesslab.search``): ``push`` adds the few table entries a move changes to the
    running sum, so a leaf costs a lookup instead of a loop over every piece.
    ``evaluate_incremental`` returns exactly what ``evaluate`` returns.
    """

    name = "pst"
    incremental = True

    def __init__(self):
        self._stack = []  # (piece sum without kings, non-pawn material), one per ply

    @staticmethod
    def _pieces(board):
        """(White-view sum of value + table over pawns to queens, non-pawn material)."""
        score = 0
        phase_material = 0
        for color, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
            for piece_type in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK,
                               chess.QUEEN):
                table = PST[color, piece_type]
                value = PIECE_VALUES[piece_type]
                for square in chess.scan_forward(board.pieces_mask(piece_type, color)):
                    score += sign * (value + table[square])
                    if piece_type != chess.PAWN:
                        phase_material += value
        return score, phase_material

    @staticmethod
    def _with_kings(board, score, phase_material) -> float:
        phase = min(1.0, phase_material / _FULL_PHASE)
        for color, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
            king = board.king(color)
            if king is not None:
                score += sign * (phase * PST[color, chess.KING][king]
                                 + (1 - phase) * KING_ENDGAME_PST[color][king])
        return float(round(score))

    def evaluate(self, board: chess.Board) -> float:
        _need_board(board, self.name)
        mate = checkmate_score(board)
        if mate is not None:
            return mate
        return self._with_kings(board, *self._pieces(board))

    # ------------------------------------------------------------ inside a search
    def reset(self, board: chess.Board) -> None:
        """Start a search at ``board``."""
        self._stack = [self._pieces(board)]

    def push(self, board: chess.Board, move: chess.Move) -> None:
        """Before ``board.push(move)``: the sums after the move."""
        score, material = self._stack[-1]
        if move:  # the null move changes nothing
            us = board.turn
            sign = 1 if us == chess.WHITE else -1
            piece = board.piece_type_at(move.from_square)
            if piece == chess.KING and board.is_castling(move):
                # The king is scored at the leaf; the rook moves from the corner.
                rank = chess.square_rank(move.from_square)
                kingside = board.is_kingside_castling(move)
                rook_from = chess.square(7 if kingside else 0, rank)
                if board.piece_type_at(move.to_square) == chess.ROOK \
                        and board.color_at(move.to_square) == us:
                    rook_from = move.to_square  # king-takes-rook notation
                rook_to = chess.square(5 if kingside else 3, rank)
                table = PST[us, chess.ROOK]
                score += sign * (table[rook_to] - table[rook_from])
            else:
                if piece != chess.KING:
                    score -= sign * (PIECE_VALUES[piece] + PST[us, piece][move.from_square])
                placed = move.promotion or piece
                if placed != chess.KING:
                    score += sign * (PIECE_VALUES[placed] + PST[us, placed][move.to_square])
                if move.promotion:
                    material += PIECE_VALUES[move.promotion]
                them = not us
                if board.is_en_passant(move):
                    square = move.to_square + (-8 if us == chess.WHITE else 8)
                    score += sign * (PIECE_VALUES[chess.PAWN] + PST[them, chess.PAWN][square])
                else:
                    captured = board.piece_type_at(move.to_square)
                    if captured:
                        score += sign * (PIECE_VALUES[captured]
                                         + PST[them, captured][move.to_square])
                        if captured != chess.PAWN:
                            material -= PIECE_VALUES[captured]
        self._stack.append((score, material))

    def pop(self) -> None:
        """After ``board.pop()``."""
        self._stack.pop()

    def evaluate_incremental(self, board: chess.Board) -> float:
        """The score of ``board`` from the running sums (equals ``evaluate``)."""
        mate = checkmate_score(board)
        if mate is not None:
            return mate
        return self._with_kings(board, *self._stack[-1])


# ---------------------------------------------------------------- the registry
_REGISTRY = {}
#: Learned evaluators and the notebook / command that trains each model file.
LEARNED = {
    "ann": "notebook 05 (or `python -m chesslab train ann`)",
    "cnn": "notebook 05 (or `python -m chesslab train cnn`)",
    "conv": "`python -m chesslab train conv`",
    "residual": "`python -m chesslab train residual`",
    "bayes": "`python bench/bayes_results.py` (notebook 09 trains a small one)",
    "nnue": "`python -m chesslab train nnue`",
    "linear": "`python -m chesslab train linear`",
}


#: Modules that register a learned evaluator when imported (load_evaluator imports
#: them on first use, so importing chesslab.evaluation stays light).
LEARNED_MODULES = {"bayes": "chesslab.bayes", "nnue": "chesslab.nnue",
                   "linear": "chesslab.nnue"}


def register_evaluator(name: str, factory) -> None:
    """Make ``load_evaluator(name)`` call ``factory()`` (a class or a function)."""
    _REGISTRY[name] = factory


register_evaluator("material", MaterialEvaluator)
register_evaluator("pst", PSTEvaluator)


def available_evaluators() -> list:
    """Names ``load_evaluator`` knows, built-in first, then learned ones."""
    return list(_REGISTRY) + [n for n in LEARNED if n not in _REGISTRY]


def load_evaluator(name: str) -> Evaluator:
    """An evaluator by name: 'material', 'pst', or a learned one with a model file."""
    if isinstance(name, Evaluator):
        return name
    if not isinstance(name, str):
        raise TypeError(f"an evaluator is a name such as 'pst' or an Evaluator object, not "
                        f"{type(name).__name__} {name!r:.40}; choose one of "
                        f"{', '.join(available_evaluators())}")
    if name in LEARNED:
        path = MODELS_DIR / f"{name}.json"
        if not path.exists():
            raise FileNotFoundError(
                f"the '{name}' evaluator needs the model file data/models/{name}.json, "
                f"which does not exist yet; train it with {LEARNED[name]}")
        if name not in _REGISTRY and name in LEARNED_MODULES:
            importlib.import_module(LEARNED_MODULES[name])
    if name not in _REGISTRY:
        raise ValueError(f"unknown evaluator {name!r}; choose one of "
                         f"{', '.join(available_evaluators())}")
    return _REGISTRY[name]()


# ---------------------------------------------------------------- learned: neural nets
# A network answers in "target units", not centipawns. Four scalings:
# * "tanh": a linear output learns tanh(cp / 400) in (-1, 1) with MSE there;
# * "unit": a sigmoid output learns (1 + tanh(cp / 400)) / 2 in (0, 1) (the tutorial);
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


def side_to_move_view(boards) -> list:
    """Each board as the side to move sees it: Black's positions colour-mirrored
    (``board.mirror()``: ranks flipped, colours swapped), so it is always White to move."""
    return [b if b.turn == chess.WHITE else b.mirror() for b in boards]


def turn_signs(boards) -> np.ndarray:
    """+1 where White is to move, -1 where Black is: side-to-move scores -> White's."""
    return np.array([1.0 if b.turn == chess.WHITE else -1.0 for b in boards])


def _thesis_board(boards):
    return thesis_vectors(boards).reshape(-1, 1, 8, 8)


def _planes14_flat(boards):
    return planes14_batch(boards).reshape(-1, 14 * 64)


def _piece_square(boards):
    return piece_square_onehot(piece_square_indices_batch(boards))


def _piece_square_mover(boards):
    return _piece_square(boards)[:, 0]


#: How a network sees a batch of boards: name -> (batch function, input shape).
ENCODINGS = {
    "piece_square": (_piece_square, (2, 768)),      # NNUE: both sides' 768 features
    "piece_square_mover": (_piece_square_mover, (768,)),  # the side to move's 768 only
    "thesis64": (thesis_vectors, (64,)),            # the thesis: 64 numbers (ANN)
    "thesis64_board": (_thesis_board, (1, 8, 8)),   # the same 64 numbers as one 8x8 plane (CNN)
    "planes14": (planes14_batch, (14, 8, 8)),       # the tutorial's 14 planes (conv nets)
    "planes14_flat": (_planes14_flat, (896,)),      # 14 planes as one vector (dense nets)
}


def encode_boards(boards, encoding: str) -> np.ndarray:
    """A batch of boards as the network input named ``encoding`` (float32)."""
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; use one of {', '.join(ENCODINGS)}")
    if isinstance(boards, chess.Board):
        raise TypeError("encode_boards() takes a list of boards; for one board pass [board]")
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
        shape = ENCODINGS[encoding][1]
        if tuple(model.input_shape) != shape:
            raise ValueError(f"the network {model.name!r} takes inputs of shape "
                             f"{tuple(model.input_shape)}, but the encoding {encoding!r} "
                             f"gives {shape}; pick the encoding it was trained with")
        self.model, self.encoding, self.target, self.name = model.eval(), encoding, target, name
        self.perspective = perspective

    @classmethod
    def from_file(cls, path, name: str | None = None) -> "NetworkEvaluator":
        """Rebuild an evaluator from a model file written by ``chesslab.training``.

        The file's ``"chesslab"`` entry says which encoding, target scaling and
        perspective to use (files from before perspectives existed are White's view).
        """
        doc = read_json(path, "model file")
        meta = doc.get("chesslab") if isinstance(doc, dict) else None
        if not isinstance(meta, dict) or "encoding" not in meta or "target" not in meta:
            raise ValueError(f"model file {path} has no 'chesslab' entry with 'encoding' and "
                             f"'target'; it was not saved by chesslab.training.save (retrain "
                             f"it with `python -m chesslab train NAME`)")
        return cls(load_model(path), meta["encoding"], meta["target"],
                   name or meta.get("evaluator", doc.get("name", "network")),
                   meta.get("perspective", "white"))

    def evaluate_batch(self, boards) -> np.ndarray:
        boards = list(boards)
        mover = self.perspective == "side_to_move"
        x = encode_boards(side_to_move_view(boards) if mover else boards, self.encoding)
        if len(x) == 0:
            return np.zeros(0)
        cp = target_to_cp(self.model.predict(x)[:, 0], self.target)
        return cp * turn_signs(boards) if mover else cp

    def evaluate(self, board: chess.Board) -> float:
        _need_board(board, self.name)
        return float(self.evaluate_batch([board])[0])


#: The shipped networks (trained by ``python -m chesslab train NAME``); nnue and
#: linear have evaluators of their own in ``chesslab.nnue`` (fast inside a search).
NETWORKS = ("ann", "cnn", "conv", "residual")


def _network_factory(name):
    return lambda: NetworkEvaluator.from_file(MODELS_DIR / f"{name}.json", name)


for _name in NETWORKS:
    register_evaluator(_name, _network_factory(_name))
