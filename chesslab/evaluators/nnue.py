"""The efficiently updatable network (NNUE) inside a search, and learned piece-square tables.

A network's first layer is ``acc = b + sum of W[f] over the active features f`` (one
weight row per piece on a square, ``chesslab.nn.FeatureTransformer``). A move changes
at most four features (a piece leaves a square, arrives on another, a captured piece
goes, a castling rook moves), so the search does not recompute ``acc``: on every
``push`` it adds and subtracts those few rows, on ``pop`` it goes back to the previous
one. The rest of the network is small (the two accumulators feed one narrow hidden
layer), so one evaluation costs a little more than the hand-written piece-square
tables' (``bench/eval_speed.py`` measures both), yet it was learned from Stockfish's
scores. That is the idea behind Stockfish's NNUE, here in numpy.

Two accumulators are kept, one per side's view of the board (White's view and Black's
view, the board upside down); the side to move's comes first when the rest of the
network reads them. ``LinearPSTEvaluator`` is the one-number version: a linear model of
the side to move's 768 features is exactly twelve piece-square tables, learned.
"""
from __future__ import annotations


import chess

from chesslab.board.moves import piece_changes
import numpy as np

from chesslab.board.encoding import N_PIECE_SQUARES, piece_square_feature
from chesslab.evaluators.neural import TARGET_SCALE_CP, NetworkEvaluator
from chesslab.nn import Dense, FeatureTransformer, NNUEHead
from chesslab.board.scores import checkmate_score

_COLOR_INDEX = {chess.WHITE: 0, chess.BLACK: 1}


def _clip01(x, out):
    """``np.clip(x, 0, 1, out=out)`` as two ufunc calls: the same numbers, and at one
    position np.clip's Python wrapper costs more than the clip itself."""
    return np.minimum(np.maximum(x, 0.0, out=out), 1.0, out=out)


def absolute_index(color: chess.Color, piece_type: chess.PieceType, square: chess.Square) -> int:
    """Row of the accumulator table: (colour, piece type, square) from no one's view."""
    return (_COLOR_INDEX[color] * 6 + piece_type - 1) * 64 + square


def move_changes(board: chess.Board, move: chess.Move):
    """(added, removed): the input rows ``move`` switches on and off
    (``chesslab.board.moves.piece_changes`` as ``absolute_index`` rows); ``board`` is
    the position before the move."""
    added, removed = piece_changes(board, move)
    return (tuple(absolute_index(*change) for change in added),
            tuple(absolute_index(*change) for change in removed))


class _SideToMoveNetwork(NetworkEvaluator):
    """A network evaluator whose encoding, target and perspective are fixed by its class.
    Its fast code reads the output as a logit only: a net trained for another target (a
    recipe step before the win-probability target) gets the plain ``NetworkEvaluator``,
    which reads the output the way it was trained."""

    TARGET = "logit"

    @classmethod
    def from_model(cls, model, name: str, encoding=None, target=None, perspective=None):
        if target is not None and target != cls.TARGET:
            return NetworkEvaluator.from_model(model, name, encoding, target, perspective)
        return cls(model, name)


class NNUEEvaluator(_SideToMoveNetwork):
    """An NNUE network with an incrementally updated accumulator.

    Outside a search ``evaluate(board)`` builds the accumulator from scratch. A search
    calls ``reset(root)`` once, then ``push(board, move)`` before each ``board.push``,
    ``pop()`` after each ``board.pop`` and ``evaluate_incremental(board)`` at a leaf
    (``incremental = True`` tells it to).
    """

    incremental = True

    def __init__(self, model, name: str = "nnue"):
        layers = model.layers
        if not (len(layers) == 2 and isinstance(layers[0], FeatureTransformer)
                and isinstance(layers[1], NNUEHead) and layers[0].n_out == layers[1].hidden + 1
                and layers[0].n_features == N_PIECE_SQUARES):
            raise ValueError(f"{model.name!r} is not an NNUE network (FeatureTransformer(768, "
                             f"H + 1) then NNUEHead(H, ...)); build one with "
                             f"chesslab.nn.nnue_net()")
        super().__init__(model, "piece_square", self.TARGET, name, "side_to_move")
        ft = layers[0]
        hidden, out = layers[1].layers[1::2]
        h = ft.n_out                       # accumulator width per side (PSQT included)
        w = ft.params["W"].astype(np.float64)
        # One row per (colour, piece, square): White's view beside Black's view, so one
        # addition updates both accumulators. The last number is a constant 1 (zero in
        # every row, 1 in the bias): it survives the clipped ReLU and carries the
        # head's biases, so the head is two products and two clips, nothing else.
        self.rows = np.zeros((2 * 6 * 64, 2 * h + 1))
        for color in chess.COLORS:
            for piece_type in chess.PIECE_TYPES:
                for square in chess.SQUARES:
                    row = self.rows[absolute_index(color, piece_type, square)]
                    row[:h] = w[piece_square_feature(chess.WHITE, color, piece_type, square)]
                    row[h:2 * h] = w[piece_square_feature(chess.BLACK, color, piece_type, square)]
        self.bias = np.append(np.tile(ft.params["b"].astype(np.float64), 2), 1.0)
        w1 = hidden.params["W"].astype(np.float64)
        k = w1.shape[0] // 2               # hidden numbers per side that the head reads
        # The PSQT number of each side gets a zero row: the head ignores it, and the
        # score adds half the difference of the two (side to move first).
        zero = np.zeros((1, w1.shape[1]))
        w1 = np.vstack([w1[:k], zero, w1[k:], zero])
        b1 = hidden.params["b"].astype(np.float64)
        self.w1t = {}        # the first head layer, transposed: (outputs, inputs)
        for turn, order in ((chess.WHITE, w1), (chess.BLACK, np.vstack([w1[h:], w1[:h]]))):
            # the constant 1 brings b1, and one more hidden number that is always 1
            # (it brings b2 through w2)
            full = np.zeros((2 * h + 1, len(b1) + 1))
            full[:2 * h, :len(b1)] = order
            full[2 * h] = np.append(b1, 1.0)
            self.w1t[turn] = np.ascontiguousarray(full.T)
        self.psqt = (h - 1, 2 * h - 1)      # where each side's PSQT number sits
        self.w2 = np.append(out.params["W"][:, 0].astype(np.float64), float(out.params["b"][0]))
        self._stack = np.zeros((256, 2 * h + 1))
        self._changes = [None] * len(self._stack)     # (added, removed) of each level's move
        self._top = self._ready = -1
        self._x, self._hidden = np.empty(2 * h + 1), np.empty(len(b1) + 1)  # _score's buffers

    # ------------------------------------------------------------ from scratch
    def accumulator(self, board: chess.Board) -> np.ndarray:
        """Both accumulators of ``board`` (White's view, Black's view), from scratch."""
        rows = [absolute_index(color, piece_type, square)
                for color in chess.COLORS for piece_type in chess.PIECE_TYPES
                for square in chess.scan_forward(board.pieces_mask(piece_type, color))]
        return self.bias + self.rows[rows].sum(axis=0)

    def _score(self, acc, turn) -> float:
        """The rest of the network on an accumulator -> centipawns, White's view.

        Written for speed at one position: the clipped ReLUs write into buffers kept
        between calls, and the first layer's weights are stored transposed (``W.T @ x``
        is the faster product for one vector here)."""
        x = _clip01(acc, out=self._x)
        hidden = _clip01(np.dot(self.w1t[turn], x, out=self._hidden), out=self._hidden)
        z = float(np.dot(hidden, self.w2))
        white, black = self.psqt        # White's PSQT minus Black's, from White's view
        half = 0.5 * float(acc[white] - acc[black])
        z += half if turn == chess.WHITE else -half
        return TARGET_SCALE_CP * z if turn == chess.WHITE else -TARGET_SCALE_CP * z

    def evaluate(self, board: chess.Board) -> float:
        mate = checkmate_score(board)
        if mate is not None:
            return mate
        return float(self._score(self.accumulator(board), board.turn))

    # ------------------------------------------------------------ inside a search
    def reset(self, board: chess.Board) -> None:
        """Start a search at ``board``: the stack holds its accumulator only."""
        self._stack[0] = self.accumulator(board)
        self._top = self._ready = 0

    def push(self, board: chess.Board, move: chess.Move) -> None:
        """Before ``board.push(move)``: note the rows the move adds and removes.

        The additions wait until a position below is evaluated (a lazy update, as in
        Stockfish): many pushed positions never are (a cutoff, a transposition-table
        hit, a repetition), and their update would be wasted work."""
        top = self._top + 1
        if top == len(self._stack):
            self._stack = np.vstack([self._stack, np.zeros_like(self._stack)])
            self._changes += [None] * (len(self._stack) - len(self._changes))
        self._changes[top] = move_changes(board, move)
        self._top = top

    def pop(self) -> None:
        """After ``board.pop()``: back to the previous accumulator."""
        self._top -= 1
        self._ready = min(self._ready, self._top)

    def current_accumulator(self) -> np.ndarray:
        """The accumulator of the position on top of the stack: the last one up to date
        plus, move by move, the rows each move added minus the rows it removed."""
        stack, rows = self._stack, self.rows
        for level in range(self._ready + 1, self._top + 1):
            added, removed = self._changes[level]
            nxt = stack[level]
            if added:                    # copy and first addition in one step
                np.add(stack[level - 1], rows[added[0]], out=nxt)
            else:                        # the null move
                nxt[:] = stack[level - 1]
            for a in added[1:]:
                nxt += rows[a]
            for r in removed:
                nxt -= rows[r]
        self._ready = self._top
        return stack[self._top]

    def evaluate_incremental(self, board: chess.Board) -> float:
        """The score of ``board`` from the accumulator on top of the stack."""
        return self._score(self.current_accumulator(), board.turn)


class LinearPSTEvaluator(_SideToMoveNetwork):
    """Learned piece-square tables: a linear model of the side to move's 768 features.

    Evaluated like ``pst``: one table lookup per piece, summed.
    """

    def __init__(self, model, name: str = "linear"):
        if len(model.layers) != 1 or not isinstance(model.layers[0], Dense) \
                or model.input_shape != (N_PIECE_SQUARES,):
            raise ValueError(f"{model.name!r} is not a linear model of the 768 piece-square "
                             f"features; build one with chesslab.nn.linear_pst_net()")
        super().__init__(model, "piece_square_mover", self.TARGET, name, "side_to_move")
        w = model.layers[0].params["W"][:, 0].astype(np.float64) * TARGET_SCALE_CP
        self.bias = float(model.layers[0].params["b"][0]) * TARGET_SCALE_CP
        #: tables[perspective][(colour, piece)] -> 64 centipawn values by square
        self.tables = {perspective: {
            (color, piece_type): [float(w[piece_square_feature(perspective, color, piece_type, sq)])
                                  for sq in chess.SQUARES]
            for color in chess.COLORS for piece_type in chess.PIECE_TYPES}
            for perspective in chess.COLORS}

    def table(self, piece_type: chess.PieceType, ours: bool = True) -> np.ndarray:
        """The learned 8x8 table (centipawns, rank 8 on top) of the side to move's
        (``ours``) or the opponent's piece, White to move."""
        color = chess.WHITE if ours else chess.BLACK
        values = self.tables[chess.WHITE][color, piece_type]
        return np.array([[values[chess.square(f, 7 - r)] for f in range(8)] for r in range(8)])

    def evaluate(self, board: chess.Board) -> float:
        mate = checkmate_score(board)
        if mate is not None:
            return mate
        tables = self.tables[board.turn]
        score = self.bias
        for color in chess.COLORS:
            for piece_type in chess.PIECE_TYPES:
                values = tables[color, piece_type]
                for square in chess.scan_forward(board.pieces_mask(piece_type, color)):
                    score += values[square]
        return score if board.turn == chess.WHITE else -score
