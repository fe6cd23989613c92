"""Checkers of the board and move encodings: notebook 01 (the thesis's 64 numbers, the 14
planes) and notebook 11 (a move's policy index).

Like every checker, each runs the student's function and chesslab's own code on seeded
cases, prints one line (how many cases agree, the first that does not, shown so it can be
reproduced) and returns a ``CheckResult``; the reference is switched off while the
student's function runs (``checking.own_work``), with what computes the same answer under
another name: its batch version and the private helpers doing the work, and
``evaluators.features.piece_bits``, the same piece planes.
"""
from __future__ import annotations

import chess
import numpy as np

from chesslab.board import encoding as board_encoding
from chesslab.board.encoding import PROMOTION_PAIRS, move_to_index, planes14, thesis_vector
from chesslab.course.checking import CheckResult, close_arrays, own_work, run_cases, seeded_boards
from chesslab.evaluators import features


def check_thesis_vector(fn, cases: int = 200, seed: int = 0, show=True) -> CheckResult:
    """``fn(board) -> 64 numbers`` (K=7 Q=5 B=4 N=3 R=2 P=1, negative for Black, index 0
    = a8) against ``chesslab.board.encoding.thesis_vector``, on random positions."""
    fn = own_work(fn, thesis_vector, board_encoding.thesis_vectors, board_encoding._piece_bits,
                  board_encoding._piece_bitboards, features.piece_bits)

    def compare(board):
        problem = _entry_problem(np.asarray(fn(board.copy()), dtype=float).reshape(-1),
                                 thesis_vector(board))
        return problem and f"{problem} in {board.fen()}"
    return run_cases("my_thesis_vector", seeded_boards(cases, seed), compare, show)


def _entry_problem(mine, want):
    """None if the 64 numbers agree, else the first entry that differs named with its
    square, "entry 2 (c8)": entry 0 is a8, while python-chess's square 2 is c1, and that
    mix-up is the mistake this checker most often has to point at."""
    problem = close_arrays(mine, want, "your vector")
    if problem is None or mine.shape != want.shape:
        return problem
    i = int(np.flatnonzero(~np.isclose(mine, want, atol=1e-6, rtol=1e-5))[0])
    square = chess.square_name(chess.square(i % 8, 7 - i // 8))
    return f"entry {i} ({square}) is {mine[i]:.6g}, expected {want[i]:.6g}"


#: Positions for the move planes' rules that random positions rarely draw: en passant for
#: either side to move (its target square is reached by no other move), castling both
#: ways for both sides, a side in check, promotions.
PLANES14_RULES = (
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 2",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1",
    "1n2k3/P7/8/8/8/8/6p1/4K2R w K - 0 1",
)


def check_planes14(fn, cases: int = 100, seed: int = 1, show=True) -> CheckResult:
    """``fn(board) -> (14, 8, 8)``: 6 White piece planes (P N B R Q K), 6 Black, then the
    squares White's and Black's moves go to (whoever is to move); row 0 = rank 8. Against
    ``encoding.planes14`` on ``cases`` positions: ``PLANES14_RULES``, then seeded ones."""
    fn = own_work(fn, planes14, board_encoding.planes14_batch, board_encoding._move_targets,
                  board_encoding._piece_bitboards, features.piece_bits)

    def compare(board):
        problem = close_arrays(fn(board.copy()), planes14(board), "plane, row, column")
        return problem and f"{problem} in {board.fen()}"
    boards = [chess.Board(fen) for fen in PLANES14_RULES][:cases]
    boards += seeded_boards(cases - len(boards), seed)
    return run_cases("my_planes14", boards, compare, show)


def check_move_to_index(fn, cases: int = 60, seed: int = 8, show=True) -> CheckResult:
    """``fn(move) -> 0..4271``: ``from*64 + to`` (a1 = 0), or 4096 + 4 * (promotion pair)
    + (N, B, R, Q = 0..3) with the pairs of ``encoding.PROMOTION_PAIRS``. Against
    ``encoding.move_to_index`` on every legal move of random positions and every
    promotion."""
    fn = own_work(fn, move_to_index, board_encoding._index_to_raw_move,   # and its inverse,
                  board_encoding.mover_indices, board_encoding.legal_indices)   # its lists
    moves = {m for board in seeded_boards(cases, seed) for m in board.legal_moves}
    moves |= {chess.Move(f, t, promotion=p) for f, t in PROMOTION_PAIRS
              for p in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)}

    def compare(move):
        mine, want = fn(move), move_to_index(move)
        return None if mine == want else f"{move.uci()}: you give {mine}, expected {want}"
    return run_cases("my_move_to_index", sorted(moves, key=move_to_index), compare, show)
