"""Board -> numbers: the inputs of every network in chesslab.

The encodings, one per design the course reproduces:

* ``thesis_vector``: the thesis's 64 numbers, K=7 Q=5 B=4 N=3 R=2 P=1, negative for black.
* ``planes14``: the tutorial's 14x8x8 planes: 12 piece planes (white P N B R Q K, then
  black) plus the squares each side's legal moves go to.
* ``planes9``: the actor-critic input: 6 piece-type planes (+1 side to move, -1 opponent)
  and 3 planes filled with +1 (White to move) or -1 (Black to move).
* ``mover_planes``: AlphaZero's kind of input, which the shipped policy-value network
  reads: 16x8x8 planes of the board as the side to move sees it (flipped for Black):
  our pieces, theirs, the rooks that may castle, the en passant square, the fifty-move
  counter; ``mover_indices`` flips the policy's moves with it.
* the 4272-entry policy index: ``move_to_index``, ``index_to_move``, ``legal_mask``;
* ``piece_square_indices``: the efficiently updatable network's input, 768 one-hot
  piece-square features seen from each side (the side to move first).

``ENCODINGS`` names every input a network can read (the name its model file records),
with the function that encodes a batch of boards and the shape of one board's input.

Every 8x8 array is laid out as the board is printed: row 0 is rank 8, column 0 is file a.
Square numbers follow python-chess: a1=0, b1=1, ..., h8=63.
"""
from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, Sequence

import chess
import numpy as np

from chesslab.board.rules import position_problems

__all__ = [
    "THESIS_CODES", "PIECE_STRINGS", "POLICY_SIZE", "N_PROMOTIONS", "PROMOTION_PAIRS",
    "thesis_vector", "thesis_vectors", "planes14", "planes14_batch", "planes9",
    "planes9_batch", "MOVER_PLANES", "mover_bitboards", "mover_planes_from", "mover_planes",
    "mover_planes_batch", "MIRRORED_INDEX", "mover_indices", "move_to_index", "index_to_move", "legal_mask", "legal_indices",
    "square_to_rowcol", "as_board", "N_PIECE_SQUARES", "PAD_FEATURE",
    "piece_square_feature", "piece_square_indices", "piece_square_indices_batch",
    "piece_square_onehot", "Encoding", "ENCODINGS",
]

#: The thesis's number for each piece type (white positive, black negative): a code for
#: the network's input, not a value (``chesslab.board.scores.PIECE_VALUES`` are centipawns).
THESIS_CODES = {chess.KING: 7, chess.QUEEN: 5, chess.BISHOP: 4,
                chess.KNIGHT: 3, chess.ROOK: 2, chess.PAWN: 1}
#: The thesis's string for each piece type, prefixed with "w" or "b".
PIECE_STRINGS = {chess.KING: "K", chess.QUEEN: "Q", chess.BISHOP: "B",
                 chess.KNIGHT: "N", chess.ROOK: "R", chess.PAWN: "P"}

_PIECE_ORDER = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
# Printed-board order of the 64 squares: position i of a flattened 8x8 array holds
# square _PRINT_ORDER[i] (a8 b8 ... h8, a7 ... h1).
_PRINT_ORDER = np.array([chess.square(f, 7 - r) for r in range(8) for f in range(8)])


def square_to_rowcol(square: int) -> tuple[int, int]:
    """Row and column of a square in the printed 8x8 layout (row 0 = rank 8)."""
    return 7 - chess.square_rank(square), chess.square_file(square)


def as_board(obj) -> chess.Board:
    """A ``chess.Board`` from a board or a FEN string, with a clear error otherwise."""
    if isinstance(obj, chess.Board):
        return obj
    if isinstance(obj, str):
        try:
            board = chess.Board(obj.strip())
        except ValueError as exc:
            raise ValueError(
                f"not a valid FEN: {obj!r} ({exc}). A FEN looks like "
                f"'{chess.STARTING_FEN}'.") from None
        problems = position_problems(board)
        if problems:
            raise ValueError(f"FEN {obj!r} parses but is not a legal chess position: "
                             f"{'; '.join(problems)}.")
        return board
    raise TypeError(f"expected a chess.Board or a FEN string, got {type(obj).__name__}")


def _check_board(board, func: str) -> None:
    if not isinstance(board, chess.Board):
        raise TypeError(f"{func}() expects a chess.Board, got {type(board).__name__} "
                        f"{board!r:.60}. Make one with chess.Board() or chess.Board(fen).")


def _board_list(boards, func: str) -> list:
    """The boards of a batch call as a list, each checked.

    Checked here, before any encoding, so a wrong argument is named as the caller wrote
    it: ``list(None)`` would only say "not iterable", and a FEN string would be taken
    apart into one-letter "boards".
    """
    if isinstance(boards, chess.Board):
        raise TypeError(f"{func}() takes a list of boards, got one chess.Board; pass "
                        f"[board] (or use the one-board function without _batch/s)")
    if isinstance(boards, (str, bytes)):
        raise TypeError(f"{func}() takes a list of chess.Board, got the string "
                        f"{boards!r:.60}; for a FEN pass [chess.Board(fen)]")
    try:
        iter(boards)
    except TypeError:
        raise TypeError(f"{func}() takes a list of chess.Board, got "
                        f"{type(boards).__name__} {boards!r:.60}; pass e.g. "
                        f"[chess.Board()]") from None
    boards = list(boards)
    for i, b in enumerate(boards):
        if not isinstance(b, chess.Board):
            raise TypeError(f"{func}() takes a list of chess.Board, but item {i} is "
                            f"{type(b).__name__} {b!r:.60}; make each board with "
                            f"chess.Board() or chess.Board(fen)")
    return boards


def _bits(bitboards: np.ndarray) -> np.ndarray:
    """(..., ) uint64 bitboards -> (..., 64) 0/1 array in printed-board order."""
    raw = np.ascontiguousarray(bitboards, dtype="<u8")
    bits = np.unpackbits(raw.view(np.uint8).reshape(*raw.shape, 8), axis=-1,
                         bitorder="little")           # (..., 64) indexed by square a1..h8
    return bits[..., _PRINT_ORDER]


def _piece_bitboards(board: chess.Board) -> np.ndarray:
    """(12,) uint64: white P N B R Q K then black P N B R Q K."""
    return np.array([board.pieces_mask(pt, color)
                     for color in (chess.WHITE, chess.BLACK) for pt in _PIECE_ORDER],
                    dtype=np.uint64)


def _piece_bits(boards: Sequence[chess.Board]) -> np.ndarray:
    """(N, 12, 64) piece occupancy for a batch, printed-board order."""
    return _bits(np.stack([_piece_bitboards(b) for b in boards]))


# --- the thesis's 64-vector ---------------------------------------------------------
_THESIS_WEIGHTS = np.array([THESIS_CODES[pt] for pt in _PIECE_ORDER]
                           + [-THESIS_CODES[pt] for pt in _PIECE_ORDER], dtype=np.float32)


def thesis_vector(board: chess.Board) -> np.ndarray:
    """The thesis's input: 64 numbers, K=7 Q=5 B=4 N=3 R=2 P=1, negative for black.

    Entry ``8*row + col`` is the square at that row and column of the printed board
    (row 0 = rank 8), so ``thesis_vector(b).reshape(8, 8)`` looks like ``print(b)``.
    """
    _check_board(board, "thesis_vector")
    return thesis_vectors([board])[0]


def thesis_vectors(boards: Iterable[chess.Board]) -> np.ndarray:
    """``thesis_vector`` for many boards at once: (N, 64) float32."""
    boards = _board_list(boards, "thesis_vectors")
    if not boards:
        return np.zeros((0, 64), dtype=np.float32)
    bits = _piece_bits(boards).astype(np.float32)               # (N, 12, 64)
    return np.einsum("npk,p->nk", bits, _THESIS_WEIGHTS)


# --- the tutorial's 14 planes -------------------------------------------------------
def _move_targets(board: chess.Board, color: chess.Color) -> int:
    """Bitboard of the squares ``color``'s legal moves go to, whoever is to move.

    Works on a copy, so the caller's board is never touched: the tutorial sets
    ``board.turn`` on the board itself and sets it back afterwards, keeping the en
    passant square of the side that was to move while the other side's moves are
    generated; the copy drops it.
    """
    if board.turn != color:
        board = board.copy(stack=False)
        board.turn = color
        board.ep_square = None          # en passant belongs to the side that was to move
    mask = 0
    for move in board.generate_legal_moves():
        mask |= chess.BB_SQUARES[move.to_square]
    return mask


def planes14(board: chess.Board) -> np.ndarray:
    """The tutorial's 14x8x8 input (float32).

    Planes 0-5: white pawn, knight, bishop, rook, queen, king; 6-11 the same for black;
    12: squares White's legal moves go to; 13: squares Black's legal moves go to.
    Both move planes are computed whoever is to move.
    """
    _check_board(board, "planes14")
    return planes14_batch([board])[0]


def planes14_batch(boards: Iterable[chess.Board]) -> np.ndarray:
    """``planes14`` for many boards at once: (N, 14, 8, 8) float32."""
    boards = _board_list(boards, "planes14_batch")
    if not boards:
        return np.zeros((0, 14, 8, 8), dtype=np.float32)
    bbs = np.array([list(_piece_bitboards(b)) + [_move_targets(b, chess.WHITE),
                                                 _move_targets(b, chess.BLACK)]
                    for b in boards], dtype=np.uint64)
    return _bits(bbs).astype(np.float32).reshape(len(boards), 14, 8, 8)


# --- the actor-critic's 9 planes ----------------------------------------------------
def planes9(board: chess.Board) -> np.ndarray:
    """The actor-critic input: 9x8x8 float32.

    Planes 0-5 (pawn, knight, bishop, rook, queen, king): +1 where the side to move has
    that piece, -1 where the opponent has it. Planes 6-8: all +1 if White is to move,
    all -1 if Black is. The board is not flipped for Black.
    """
    _check_board(board, "planes9")
    return planes9_batch([board])[0]


def planes9_batch(boards: Iterable[chess.Board]) -> np.ndarray:
    """``planes9`` for many boards at once: (N, 9, 8, 8) float32."""
    boards = _board_list(boards, "planes9_batch")
    n = len(boards)
    out = np.empty((n, 9, 8, 8), dtype=np.float32)
    if not n:
        return out
    bits = _piece_bits(boards).astype(np.float32).reshape(n, 2, 6, 8, 8)
    sign = np.array([1.0 if b.turn == chess.WHITE else -1.0 for b in boards],
                    dtype=np.float32)[:, None, None, None]
    out[:, :6] = (bits[:, 0] - bits[:, 1]) * sign   # white minus black, then from the mover's side
    out[:, 6:] = sign
    return out


# --- the 4272-move policy -------------------------------------------------------------
#: Number of policy entries: 64*64 from-to moves plus 176 promotions.
POLICY_SIZE = 4272
#: Number of promotion entries (44 from-to pairs x 4 pieces).
N_PROMOTIONS = 176
#: The 44 promotion (from, to) pairs, sorted: Black's (rank 2 -> rank 1) then White's.
PROMOTION_PAIRS = tuple(sorted(
    (f, t)
    for f_rank, t_rank in ((1, 0), (6, 7))
    for f_file in range(8)
    for t_file in range(max(0, f_file - 1), min(7, f_file + 1) + 1)
    for f, t in [(chess.square(f_file, f_rank), chess.square(t_file, t_rank))]))
_PROMO_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_PAIR_INDEX = {pair: i for i, pair in enumerate(PROMOTION_PAIRS)}
assert len(PROMOTION_PAIRS) * len(_PROMO_PIECES) == N_PROMOTIONS == POLICY_SIZE - 4096


def move_to_index(move: chess.Move) -> int:
    """Policy index of a move: ``from*64 + to``, or 4096 + a promotion slot.

    Non-promotion moves (castling is the king's move, e.g. e1g1) use
    ``from_square*64 + to_square`` with python-chess's squares (a1=0 ... h8=63), so
    c1f4 is 2*64 + 29 = 157. The actor-critic README writes 2*64 + 30 = 158: it counts
    the entries from 1 (two blocks of 64, then the 30th entry); counted from 0, as
    python-chess and chesslab count, that entry is 157.
    Promotions use 4096 + 4*pair + piece, where pair is the position of (from, to) in
    ``PROMOTION_PAIRS`` and piece is 0..3 for knight, bishop, rook, queen.
    """
    if not isinstance(move, chess.Move):
        raise TypeError(f"move_to_index() expects a chess.Move, got {type(move).__name__}; "
                        f"make one with chess.Move.from_uci('e2e4').")
    if not move:
        raise ValueError("the null move (0000) has no policy index")
    if move.drop:
        raise ValueError(f"drop moves ({move.uci()}) are not chess moves")
    if move.promotion is None:
        return move.from_square * 64 + move.to_square
    pair = _PAIR_INDEX.get((move.from_square, move.to_square))
    if pair is None or move.promotion not in _PROMO_PIECES:
        raise ValueError(f"{move.uci()} is not a possible promotion: a pawn promotes from "
                         f"the 7th to the 8th rank (2nd to 1st for Black) to N, B, R or Q")
    return 4096 + 4 * pair + _PROMO_PIECES.index(move.promotion)


def _index_to_raw_move(index: int) -> chess.Move:
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"policy index must be an integer, got {type(index).__name__}")
    index = int(index)
    if not 0 <= index < POLICY_SIZE:
        raise ValueError(f"policy index {index} is outside 0..{POLICY_SIZE - 1}")
    if index < 4096:
        return chess.Move(index // 64, index % 64)
    pair, piece = divmod(index - 4096, 4)
    f, t = PROMOTION_PAIRS[pair]
    return chess.Move(f, t, promotion=_PROMO_PIECES[piece])


def index_to_move(index: int, board: chess.Board) -> chess.Move:
    """The legal move of ``board`` that a policy index stands for.

    Raises ``ValueError`` when the index is out of range or names a move that is not
    legal on this board (for example a pawn reaching the last rank without promotion).
    """
    _check_board(board, "index_to_move")
    move = _index_to_raw_move(index)
    if not board.is_legal(move):
        raise ValueError(f"policy index {int(index)} means {move.uci()}, which is not a legal "
                         f"move in {board.fen()!r}; mask the policy with legal_mask(board) "
                         f"before picking an index")
    return move


def legal_indices(board: chess.Board) -> np.ndarray:
    """Policy indices of the legal moves of ``board``, in python-chess's move order."""
    _check_board(board, "legal_indices")
    return np.fromiter((move_to_index(m) for m in board.generate_legal_moves()),
                       dtype=np.int64)


def legal_mask(board: chess.Board) -> np.ndarray:
    """Boolean (4272,) array, True exactly at the indices of the legal moves."""
    mask = np.zeros(POLICY_SIZE, dtype=bool)
    mask[legal_indices(board)] = True
    return mask


# --- the side to move's view (AlphaZero's input) ---------------------------------------
#: Planes of ``mover_planes``: our P N B R Q K, their P N B R Q K, our rooks that may
#: still castle, theirs, the en passant target square, and the fifty-move counter.
MOVER_PLANES = 16


def mover_bitboards(boards: Iterable[chess.Board]) -> tuple[np.ndarray, np.ndarray]:
    """``(bitboards (N, 15) uint64, halfmove clocks (N,) uint8)``: the position as the side
    to move sees it, White's pieces and Black's swapped and the board flipped top to
    bottom when Black is to move, so a pawn always runs "up".

    Compact enough to keep hundreds of thousands of positions in memory;
    ``mover_planes_from`` turns them into network input.
    """
    boards = _board_list(boards, "mover_bitboards")
    bbs = np.zeros((len(boards), 15), dtype=np.uint64)
    clock = np.zeros(len(boards), dtype=np.uint8)
    for i, b in enumerate(boards):
        us, them = b.turn, not b.turn
        rooks = b.clean_castling_rights()
        ep = b.ep_square if b.ep_square is not None and b.has_pseudo_legal_en_passant() else None
        bbs[i] = ([b.pieces_mask(pt, us) for pt in _PIECE_ORDER]
                  + [b.pieces_mask(pt, them) for pt in _PIECE_ORDER]
                  + [rooks & b.occupied_co[us], rooks & b.occupied_co[them],
                     chess.BB_SQUARES[ep] if ep is not None else 0])
        clock[i] = min(b.halfmove_clock, 255)
        if us == chess.BLACK:
            bbs[i] = bbs[i].byteswap()         # byte k is rank k+1: reversed = flipped
    return bbs, clock


def mover_planes_from(bitboards: np.ndarray, clock: np.ndarray) -> np.ndarray:
    """(N, 16, 8, 8) float32 from ``mover_bitboards``' arrays (printed order: row 0 is
    the far side of the side to move)."""
    n = len(bitboards)
    out = np.empty((n, MOVER_PLANES, 64), dtype=np.float32)
    out[:, :15] = _bits(bitboards)
    out[:, 15] = (np.asarray(clock, dtype=np.float32) / 100.0)[:, None]
    return out.reshape(n, MOVER_PLANES, 8, 8)


def mover_planes(board: chess.Board) -> np.ndarray:
    """The policy-value network's input for one board: ``MOVER_PLANES`` x 8 x 8."""
    _check_board(board, "mover_planes")
    return mover_planes_batch([board])[0]


def mover_planes_batch(boards: Iterable[chess.Board]) -> np.ndarray:
    """``mover_planes`` for many boards at once: (N, 16, 8, 8) float32."""
    return mover_planes_from(*mover_bitboards(boards))


def _mirrored_index_map() -> np.ndarray:
    """Policy index -> the index of the same move seen with the board flipped (a1 <-> a8)."""
    out = np.empty(POLICY_SIZE, dtype=np.int64)
    squares = np.arange(64) ^ 56
    out[:4096] = squares[np.arange(4096) // 64] * 64 + squares[np.arange(4096) % 64]
    for i, (f, t) in enumerate(PROMOTION_PAIRS):
        j = _PAIR_INDEX[(f ^ 56, t ^ 56)]
        out[4096 + 4 * i:4100 + 4 * i] = 4096 + 4 * j + np.arange(4)
    return out


#: ``MIRRORED_INDEX[i]``: policy index i with the board flipped top to bottom (its own inverse).
MIRRORED_INDEX = _mirrored_index_map()


def mover_indices(board: chess.Board, moves=None) -> np.ndarray:
    """Policy indices of ``moves`` (default: the legal moves, in python-chess's order) as
    the side to move sees them: Black's e7e5 is the index of e2e4."""
    moves = board.generate_legal_moves() if moves is None else moves
    idx = np.fromiter((move_to_index(m) for m in moves), dtype=np.int64)
    return MIRRORED_INDEX[idx] if board.turn == chess.BLACK else idx


# --- the efficiently updatable network's piece-square features -------------------------
#: Features seen from one side: 2 owners (ours, theirs) x 6 piece types x 64 squares.
N_PIECE_SQUARES = 768
#: ``piece_square_indices`` pads its rows with this index (one past the last feature).
PAD_FEATURE = N_PIECE_SQUARES
_MAX_PIECES = 32


def piece_square_feature(perspective: chess.Color, color: chess.Color,
                         piece_type: chess.PieceType, square: chess.Square) -> int:
    """Index 0..767 of "a ``color`` ``piece_type`` on ``square``", seen by ``perspective``.

    Our pieces come first (pawn .. king, 64 squares each), then the opponent's. Black
    looks at the board upside down (``square ^ 56`` turns a1 into a8), so a position and
    its colour-mirrored twin (``board.mirror()``) give the side to move the same features.
    """
    owner = 0 if color == perspective else 6
    return (owner + piece_type - 1) * 64 + (square if perspective == chess.WHITE else square ^ 56)


def piece_square_indices(board: chess.Board) -> np.ndarray:
    """(2, 32) int16: row 0 the side to move's active features, row 1 the opponent's.

    A position has at most 32 pieces, so each row lists the active feature indices and
    is padded with ``PAD_FEATURE``. Sparse on purpose: the network sums one weight row
    per piece instead of multiplying 768 mostly-zero inputs.
    """
    _check_board(board, "piece_square_indices")
    out = np.full((2, _MAX_PIECES), PAD_FEATURE, dtype=np.int16)
    for row, perspective in enumerate((board.turn, not board.turn)):
        k = 0
        for color in chess.COLORS:
            for piece_type in chess.PIECE_TYPES:
                for square in chess.scan_forward(board.pieces_mask(piece_type, color)):
                    if k == _MAX_PIECES:
                        raise ValueError(f"more than {_MAX_PIECES} pieces in {board.fen()}")
                    out[row, k] = piece_square_feature(perspective, color, piece_type, square)
                    k += 1
    return out


def piece_square_indices_batch(boards: Iterable[chess.Board]) -> np.ndarray:
    """``piece_square_indices`` for many boards: (N, 2, 32) int16."""
    boards = _board_list(boards, "piece_square_indices_batch")
    if not boards:
        return np.zeros((0, 2, _MAX_PIECES), dtype=np.int16)
    return np.stack([piece_square_indices(b) for b in boards])


def piece_square_onehot(indices: np.ndarray) -> np.ndarray:
    """Sparse indices (..., 32) -> one-hot features (..., 768) float32 (padding dropped)."""
    given = indices
    indices = np.asarray(indices)
    if indices.ndim == 0 or (indices.dtype.kind not in "iu" and indices.size):
        what = (f"an array of {indices.dtype}" if isinstance(given, np.ndarray)
                else f"{type(given).__name__} {given!r:.60}")
        raise TypeError(f"piece_square_onehot() takes integer feature indices of shape "
                        f"(..., {_MAX_PIECES}), got {what}; make them with "
                        f"piece_square_indices_batch(boards)")
    if indices.size and (indices.min() < 0 or indices.max() > PAD_FEATURE):
        raise ValueError(f"piece_square_onehot(): feature indices run from 0 to "
                         f"{N_PIECE_SQUARES - 1} ({PAD_FEATURE} pads), got "
                         f"{indices.min()}..{indices.max()}; make them with "
                         f"piece_square_indices_batch(boards)")
    out = np.zeros(indices.shape[:-1] + (N_PIECE_SQUARES + 1,), dtype=np.float32)
    np.put_along_axis(out, indices.astype(np.intp), 1.0, axis=-1)
    return out[..., :N_PIECE_SQUARES]


# --- every input by name ------------------------------------------------------------
class Encoding(NamedTuple):
    """One network input: ``batch(boards)`` -> array (N, *shape) float32."""

    batch: Callable
    shape: tuple


def _thesis_board(boards):
    return thesis_vectors(boards).reshape(-1, 1, 8, 8)


def _planes14_flat(boards):
    return planes14_batch(boards).reshape(-1, 14 * 64)


def _piece_square(boards):
    return piece_square_onehot(piece_square_indices_batch(boards))


def _piece_square_mover(boards):
    return _piece_square(boards)[:, 0]


#: Every network input by the name a model file records: ``Encoding(batch, shape)``.
ENCODINGS = {
    "piece_square": Encoding(_piece_square, (2, N_PIECE_SQUARES)),   # NNUE: both sides' features
    "piece_square_mover": Encoding(_piece_square_mover, (N_PIECE_SQUARES,)),  # the mover's only
    "thesis64": Encoding(thesis_vectors, (64,)),          # the thesis: 64 numbers (ANN)
    "thesis64_board": Encoding(_thesis_board, (1, 8, 8)),  # the same as one 8x8 plane (CNN)
    "planes14": Encoding(planes14_batch, (14, 8, 8)),     # the tutorial's 14 planes (conv nets)
    "planes14_flat": Encoding(_planes14_flat, (14 * 64,)),  # 14 planes as one vector (dense)
    "planes9": Encoding(planes9_batch, (9, 8, 8)),        # the actor-critic seed's planes
    "mover": Encoding(mover_planes_batch, (MOVER_PLANES, 8, 8)),  # the side to move's view
}
