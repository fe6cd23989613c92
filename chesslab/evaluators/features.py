"""Hand-made features of a position (the Naive Bayes chapter) and a standard scaler.

A Naive Bayes classifier cannot read a board; it reads a short row of numbers that a
chess player would look at first. Each number is a named column of
:data:`FEATURE_NAMES`:

* ``material``: White's material minus Black's (pawn 100, knight and bishop 300, rook
  500, queen 900), the chapter's values.
* ``piece_square``: the positional part only: White's piece-square values minus
  Black's, with the chapter's knight table and, for the other pieces, the tables of the
  Chess Programming Wiki's Simplified Evaluation Function (middlegame king table).
* ``mobility``: White's legal move count minus Black's. The side not to move is
  counted on a copy with the turn flipped (en passant cleared); the caller's board is
  never touched. In that flipped copy a king "capture" counts as a move, so a side
  giving check gets one extra move per checking piece.
* ``white_king_attackers`` / ``black_king_attackers``: how many enemy pieces attack
  that king's square or a square next to it (each piece counted once): the king's
  zone, where the chapter counts the pieces attacking the king itself.
* ``white_isolated_pawns`` / ``black_isolated_pawns``: pawns with no friendly pawn
  on a neighbouring file.
* ``white_doubled_pawns`` / ``black_doubled_pawns``: pawns beyond the first on a
  file (two pawns on the c-file count 1, three count 2).
* four castling flags: 1 if that castling right is still held.

Counting pieces, tables and pawn files is done for many boards at once in numpy (one
bit array of shape (N, 12, 64)); mobility and king attackers need python-chess move
generation and are computed board by board.
"""
from __future__ import annotations

import chess
import numpy as np

from chesslab.board.encoding import as_board
from chesslab.board.scores import PIECE_VALUES
from chesslab.evaluators.handwritten import PST

FEATURE_NAMES = (
    "material", "piece_square", "mobility",
    "white_king_attackers", "black_king_attackers",
    "white_isolated_pawns", "black_isolated_pawns",
    "white_doubled_pawns", "black_doubled_pawns",
    "white_kingside_castling", "white_queenside_castling",
    "black_kingside_castling", "black_queenside_castling",
)

#: The chapter's knight table, as printed: row 0 is rank 8, column 0 is file a.
KNIGHT_TABLE = np.array([
    [-50, -40, -30, -30, -30, -30, -40, -50],
    [-40, -20,   0,   5,   5,   0, -20, -40],
    [-30,   0,  10,  15,  15,  10,   0, -30],
    [-30,   5,  15,  20,  20,  15,   5, -30],
    [-30,   0,  15,  20,  20,  15,   0, -30],
    [-30,   5,  10,  15,  15,  10,   5, -30],
    [-40, -20,   0,   5,   5,   0, -20, -40],
    [-50, -40, -30, -30, -30, -30, -40, -50],
])

# Bit planes are ordered White P N B R Q K, then Black P N B R Q K.
_PLANES = [(color, pt) for color in (chess.WHITE, chess.BLACK) for pt in chess.PIECE_TYPES]
_SIGN = np.array([1 if color == chess.WHITE else -1 for color, _ in _PLANES])
_VALUES = np.array([PIECE_VALUES[pt] for _, pt in _PLANES]) * _SIGN


def _square_table(color, piece_type) -> np.ndarray:
    """(64,) values indexed by chess square; knights use the chapter's table."""
    if piece_type != chess.KNIGHT:
        return np.array(PST[color, piece_type], dtype=float)
    # Row r of the printed table is rank 8 - r for White; Black sees it mirrored.
    rows = KNIGHT_TABLE[::-1] if color == chess.WHITE else KNIGHT_TABLE
    return rows.reshape(64).astype(float)


#: (12, 64): signed piece-square values, so one dot product gives White minus Black.
SQUARE_TABLES = np.stack([_square_table(c, pt) for c, pt in _PLANES]) * _SIGN[:, None]


def piece_bits(boards) -> np.ndarray:
    """(N, 12, 64) uint8: 1 where the plane's piece stands (index = chess square)."""
    masks = np.array([[b.pieces_mask(pt, color) for color, pt in _PLANES] for b in boards],
                     dtype="<u8").reshape(len(boards), 12)
    bits = np.unpackbits(masks.view(np.uint8), axis=1, bitorder="little")
    return bits.reshape(len(boards), 12, 64)


def _pawn_structure(pawns: np.ndarray):
    """(isolated, doubled) counts from (N, 64) pawn bits of one side."""
    per_file = pawns.reshape(-1, 8, 8).sum(axis=1, dtype=np.int64)  # square = 8*rank+file
    occupied = np.zeros((len(per_file), 10), dtype=bool)
    occupied[:, 1:9] = per_file > 0
    lonely = ~(occupied[:, :-2] | occupied[:, 2:])
    isolated = (per_file * lonely).sum(axis=1)
    doubled = np.maximum(per_file - 1, 0).sum(axis=1)
    return isolated, doubled


def count_legal_moves(board: chess.Board) -> int:
    """``board.legal_moves.count()``, by popcounts instead of building Move objects.

    Not in check and no en passant (both rare: python-chess counts those), a move is
    legal unless a pinned piece leaves its pin line or the king steps onto an attacked
    square. Mobility is the evaluator's most expensive feature, hence this shortcut.
    """
    if board.ep_square is not None or board.is_check() or board.king(board.turn) is None:
        return board.legal_moves.count()
    us, them = board.turn, not board.turn
    own, enemy, empty = board.occupied_co[us], board.occupied_co[them], ~board.occupied
    king = board.king(us)
    pinned = board._slider_blockers(king)  # own pieces alone between king and a slider
    count = sum(1 for to in chess.scan_forward(chess.BB_KING_ATTACKS[king] & ~own)
                if not board.attackers_mask(them, to))
    count += sum(1 for _ in board.generate_castling_moves())
    for square in chess.scan_forward(own & ~board.pawns & ~board.kings):
        targets = board.attacks_mask(square) & ~own
        if pinned & chess.BB_SQUARES[square]:
            targets &= chess.ray(king, square)
        count += chess.popcount(targets)
    pawns = own & board.pawns
    free = pawns & ~pinned
    if us == chess.WHITE:
        single = (free << 8) & empty
        double = ((single & chess.BB_RANK_3) << 8) & empty
        captures = (((free & ~chess.BB_FILE_A) << 7) & enemy,
                    ((free & ~chess.BB_FILE_H) << 9) & enemy)
    else:
        single = (free >> 8) & empty
        double = ((single & chess.BB_RANK_6) >> 8) & empty
        captures = (((free & ~chess.BB_FILE_A) >> 9) & enemy,
                    ((free & ~chess.BB_FILE_H) >> 7) & enemy)
    for targets in (single, *captures):  # a promotion is four moves
        count += chess.popcount(targets) + 3 * chess.popcount(targets & _BACK_RANKS)
    count += chess.popcount(double)
    for square in chess.scan_forward(pawns & pinned):
        count += sum(1 for _ in board.generate_legal_moves(chess.BB_SQUARES[square]))
    return count


_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8


def legal_move_counts(board: chess.Board) -> tuple[int, int]:
    """(White's, Black's) legal move counts; the side not to move on a flipped copy."""
    to_move = count_legal_moves(board)
    other = board.copy(stack=False)
    other.turn = not board.turn
    other.ep_square = None
    waiting = count_legal_moves(other)
    return (to_move, waiting) if board.turn == chess.WHITE else (waiting, to_move)


def king_attackers(board: chess.Board, color: chess.Color) -> int:
    """Enemy pieces attacking ``color``'s king square or a square next to it."""
    king = board.king(color)
    if king is None:
        return 0
    attackers = 0
    for square in chess.scan_forward(chess.BB_KING_ATTACKS[king] | chess.BB_SQUARES[king]):
        attackers |= board.attackers_mask(not color, square)
    return chess.popcount(attackers)


def _move_features(board: chess.Board) -> list:
    white_moves, black_moves = legal_move_counts(board)
    return [white_moves - black_moves,
            king_attackers(board, chess.WHITE), king_attackers(board, chess.BLACK),
            board.has_kingside_castling_rights(chess.WHITE),
            board.has_queenside_castling_rights(chess.WHITE),
            board.has_kingside_castling_rights(chess.BLACK),
            board.has_queenside_castling_rights(chess.BLACK)]


def features_batch(boards) -> np.ndarray:
    """(N, len(FEATURE_NAMES)) float array, one row of features per board."""
    boards = [as_board(b) for b in boards]
    out = np.zeros((len(boards), len(FEATURE_NAMES)))
    if not boards:
        return out
    bits = piece_bits(boards)
    flat = bits.reshape(len(boards), -1).astype(float)
    out[:, 0] = bits.sum(axis=2) @ _VALUES
    out[:, 1] = flat @ SQUARE_TABLES.reshape(-1)
    white_iso, white_dbl = _pawn_structure(bits[:, 0])
    black_iso, black_dbl = _pawn_structure(bits[:, 6])
    out[:, 5], out[:, 6], out[:, 7], out[:, 8] = white_iso, black_iso, white_dbl, black_dbl
    moves = np.array([_move_features(b) for b in boards], dtype=float)
    out[:, [2, 3, 4, 9, 10, 11, 12]] = moves
    return out


def features(board) -> dict:
    """The features of one position as ``{name: value}`` (ints where they are counts)."""
    row = features_batch([board])[0]
    return {name: int(value) for name, value in zip(FEATURE_NAMES, row)}


class StandardScaler:
    """z = (x - mean) / std per column, fitted on training rows only.

    A column that never varies (say, a castling flag that is always 0 in a small
    sample) gets std 1 instead of 0, so it maps to 0 instead of dividing by zero.
    """

    def __init__(self):
        self.mean_ = None
        self.scale_ = None

    def fit(self, X) -> "StandardScaler":
        X = self._check(X, fitted=False)
        if len(X) == 0:
            raise ValueError("StandardScaler.fit needs at least one row")
        self.mean_ = X.mean(axis=0)
        std = X.std(axis=0)
        self.scale_ = np.where(std > 0, std, 1.0)
        return self

    def transform(self, X) -> np.ndarray:
        return (self._check(X) - self.mean_) / self.scale_

    def inverse_transform(self, Z) -> np.ndarray:
        return self._check(Z) * self.scale_ + self.mean_

    def _check(self, X, fitted=True) -> np.ndarray:
        if fitted and self.mean_ is None:
            raise ValueError("this StandardScaler is not fitted yet; call fit(X) first")
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"expected a 2-D array (rows, features), got shape {X.shape}")
        if fitted and X.shape[1] != len(self.mean_):
            raise ValueError(f"expected {len(self.mean_)} feature columns, got {X.shape[1]}")
        if not np.all(np.isfinite(X)):
            raise ValueError("the feature array holds NaN or infinite values")
        return X

    def to_dict(self) -> dict:
        if self.mean_ is None:
            raise ValueError("cannot save an unfitted StandardScaler")
        return {"mean": self.mean_.tolist(), "scale": self.scale_.tolist()}

    @classmethod
    def from_dict(cls, d) -> "StandardScaler":
        if not isinstance(d, dict) or not {"mean", "scale"} <= d.keys():
            raise ValueError("a scaler needs 'mean' and 'scale' lists")
        try:
            mean, scale = (np.asarray(d[k], dtype=float) for k in ("mean", "scale"))
        except (TypeError, ValueError):
            raise ValueError("scaler 'mean' and 'scale' must be lists of numbers") from None
        if mean.ndim != 1 or mean.shape != scale.shape:
            raise ValueError(f"scaler 'mean' and 'scale' must be lists of the same "
                             f"length, got shapes {mean.shape} and {scale.shape}")
        if not np.all(np.isfinite(mean)) or not np.all(scale > 0):
            raise ValueError("scaler 'scale' values must be positive and all finite")
        scaler = cls()
        scaler.mean_, scaler.scale_ = mean, scale
        return scaler
