"""board.moves: what a move lifts and puts down, checked against the boards themselves."""
import random

import chess
import pytest

from chesslab.board.moves import piece_changes


def _pieces(board):
    return {(p.color, p.piece_type, sq) for sq, p in board.piece_map().items()}


@pytest.mark.parametrize("fen, uci", [
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"),           # castling, both sides
    ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"),
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"),              # en passant
    ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q"),              # capture and promote
])
def test_the_changes_turn_one_position_into_the_next(fen, uci):
    board = chess.Board(fen)
    added, removed = piece_changes(board, chess.Move.from_uci(uci))
    before = _pieces(board)
    board.push_uci(uci)
    assert (before - set(removed)) | set(added) == _pieces(board)


def test_king_takes_rook_castling_and_random_games():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    move = chess.Move.from_uci("e1h1")                            # Chess960 notation
    added, removed = piece_changes(board, move)
    before = _pieces(board)
    board.push(move)
    assert (before - set(removed)) | set(added) == _pieces(board)
    rng = random.Random(0)
    for _ in range(20):
        board = chess.Board()
        for _ in range(120):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            added, removed = piece_changes(board, move)
            before = _pieces(board)
            board.push(move)
            assert (before - set(removed)) | set(added) == _pieces(board)
    assert piece_changes(chess.Board(), chess.Move.null()) == ((), ())
