"""evaluators.teaching: the accumulator update the notebook prints gives the NNUE evaluator's
accumulators, move after move."""
import random

import chess
import numpy as np

from chesslab.evaluators import teaching
from chesslab.evaluators.registry import load_evaluator


def test_update_accumulator_gives_the_nnue_accumulators():
    evaluator = load_evaluator("nnue")
    walk = random.Random(1)
    board = chess.Board("r3k2r/pPpp1ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 1")
    evaluator.reset(board)
    acc = evaluator.accumulator(board)
    for _ in range(60):
        moves = list(board.legal_moves)
        if not moves:
            break
        # castling, en passant and promotions first when there are any
        special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m)
                   or m.promotion]
        move = walk.choice(special or moves)
        acc = teaching.update_accumulator(evaluator, acc, board, move)
        evaluator.push(board, move)
        board.push(move)
        np.testing.assert_allclose(acc, evaluator.accumulator(board), atol=1e-9)
        np.testing.assert_allclose(acc, evaluator.current_accumulator(), atol=1e-9)
