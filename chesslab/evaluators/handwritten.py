"""The hand-written evaluations: material, and piece-square tables.

Both follow ``chesslab.evaluators.base.Evaluator``; the piece values are the board
layer's (``chesslab.board.scores.PIECE_VALUES``), shared with adjudication and move
ordering.
"""
from __future__ import annotations

import chess

from chesslab.board.moves import piece_changes
from chesslab.board.scores import PIECE_VALUES, checkmate_score, material_balance
from chesslab.evaluators.base import Evaluator, need_board

#: The chapter's bonus for giving check ("a very strong move").
CHECK_BONUS = 10


class MaterialEvaluator(Evaluator):
    """The Naive Bayes chapter: material, checkmate = +-infinity, check = +10."""

    name = "material"

    def evaluate(self, board: chess.Board) -> float:
        need_board(board, self.name)
        mate = checkmate_score(board)           # +-inf: the side to move is mated
        if mate is not None:
            return mate
        score = material_balance(board)
        if board.is_check():                    # the side NOT to move gives the check
            score += CHECK_BONUS if board.turn == chess.BLACK else -CHECK_BONUS
        return float(score)


# Piece-square tables, the Chess Programming Wiki's Simplified Evaluation Function:
# centipawns added to a piece's value on each square, written from White's side with
# row 0 = rank 8 (the board as printed). Black uses the mirror.
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
_FULL_PHASE = 2 * sum(PIECE_VALUES[piece] * count for piece, count in (
    (chess.KNIGHT, 2), (chess.BISHOP, 2), (chess.ROOK, 2), (chess.QUEEN, 1)))
#: What a piece on a square adds to the White-view sum that a search updates move by
#: move (value + table, negative for Black; kings 0: they are scored at the leaf), and
#: what it adds to the material that sets the game phase (pieces but pawns and kings).
_SIGNED = {(color, piece): [(1 if color else -1) * (PIECE_VALUES[piece] + bonus)
                            if piece != chess.KING else 0 for bonus in PST[color, piece]]
           for color in chess.COLORS for piece in chess.PIECE_TYPES}
_PHASE_VALUE = {piece: 0 if piece in (chess.PAWN, chess.KING) else PIECE_VALUES[piece]
                for piece in chess.PIECE_TYPES}


class PSTEvaluator(Evaluator):
    """Material plus piece-square tables; the king table blends to the endgame one.

    Mates are scored like ``material`` (+-inf); there is no check bonus: the tables
    already say where pieces belong, and the search sees checks for itself.

    Inside a search the evaluator is updated on each move (``incremental``, the hooks
    of ``chesslab.search.searcher``): ``push`` adds the few table entries a move changes to the
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
        need_board(board, self.name)
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
        added, removed = piece_changes(board, move)
        for color, piece, square in added:
            score += _SIGNED[color, piece][square]
            material += _PHASE_VALUE[piece]
        for color, piece, square in removed:
            score -= _SIGNED[color, piece][square]
            material -= _PHASE_VALUE[piece]
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
