"""Notebook 05's NNUE exercise: the accumulator updated for one move (captures,
castling, en passant and promotions) against the accumulator computed from scratch."""
from __future__ import annotations

import random

import chess

from chesslab import nn
from chesslab.board.moves import piece_changes
from chesslab.course.checking import CheckResult, close_arrays, own_work, run_cases
from chesslab.evaluators import teaching as evaluator_teaching
from chesslab.evaluators.nnue import NNUEEvaluator


def _special_moves():
    """(board, move) pairs every NNUE update must get right."""
    pairs = []
    for fen, uci in (
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"),      # castling, all four
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8g8"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"),         # en passant, both sides
            ("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 2", "d4e3"),
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"),          # promotions
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n"),
            ("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q"),         # promotion with capture
            ("4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1", "b2a1r"),
            ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "d2d5")):        # a plain capture
        board = chess.Board(fen)
        pairs.append((board, chess.Move.from_uci(uci)))
    return pairs


def nnue_move_cases(count: int, seed: int):
    """``count`` (board, move) pairs: the special moves, then every move of seeded
    random games, a capture, a castling, an en passant or a promotion whenever one is
    legal there."""
    pairs, rng = _special_moves(), random.Random(seed)
    while len(pairs) < count:
        board = chess.Board()
        for _ in range(rng.randrange(20, 160)):
            moves = list(board.legal_moves)
            if not moves or len(pairs) >= count:
                break
            special = [m for m in moves if board.is_capture(m) or m.promotion
                       or board.is_castling(m)]
            move = rng.choice(special if special and rng.random() < 0.5 else moves)
            pairs.append((board.copy(stack=False), move))   # the position; no history needed
            board.push(move)
    return pairs


def small_nnue(seed: int = 0) -> NNUEEvaluator:
    """A small random NNUE (its rows are random, so every wrong row shows)."""
    return NNUEEvaluator(nn.nnue_net(hidden=8, head=4, seed=seed))


class WeightRows:
    """What the student's update is given as ``evaluator``: the weight rows and nothing
    else, so that an answer cannot ask the evaluator for the accumulator after the move
    (``accumulator``, ``push``) instead of working out what the move changes."""

    def __init__(self, rows):
        self.rows = rows.copy()
        self.rows.flags.writeable = False        # the same rows for every case

    def __getattr__(self, name):
        raise AttributeError(f"the checker gives your function only `evaluator.rows` (one "
                             f"weight row per colour, piece type and square), not "
                             f"`evaluator.{name}`: add and subtract rows yourself")


def check_accumulator_update(fn, cases: int = 300, seed: int = 11, show=True) -> CheckResult:
    """``fn(evaluator, accumulator, board, move) -> accumulator after the move`` (board is
    the position before it), against ``evaluator.accumulator`` of the position after it
    computed from scratch: captures, castling, en passant and promotions included. The
    student's function gets a ``WeightRows`` (only ``rows``) as ``evaluator``."""
    evaluator = small_nnue(seed)
    given = WeightRows(evaluator.rows)
    fn = own_work(fn, NNUEEvaluator.accumulator, evaluator_teaching.update_accumulator,
                  piece_changes)

    def compare(pair):
        board, move = pair
        after = board.copy(stack=False)
        after.push(move)
        acc = evaluator.accumulator(board)
        mine = fn(given, acc.copy(), board.copy(stack=False), move)
        problem = close_arrays(mine, evaluator.accumulator(after), "accumulator", atol=1e-9)
        return problem and f"{board.san(move)} ({move.uci()}) in {board.fen()}: {problem}"
    return run_cases("my_update", nnue_move_cases(cases, seed), compare, show)
