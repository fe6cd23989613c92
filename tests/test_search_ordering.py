"""Move ordering: static exchange evaluation, the staged move generator, killers, history."""
import random

import chess
import pytest

from chesslab.board.scores import PIECE_VALUES
from chesslab.search.ordering import MoveOrderer, see


@pytest.mark.parametrize("fen, uci, expected", [
    # Qxd5?? on a pawn defended by a rook: the queen is lost for a pawn.
    ("3r2k1/5ppp/8/3p4/8/8/5PPP/3Q2K1 w - - 0 1", "d1d5",
     PIECE_VALUES[chess.PAWN] - PIECE_VALUES[chess.QUEEN]),
    # An undefended pawn is simply won.
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", PIECE_VALUES[chess.PAWN]),
    # Nxe5: four attackers each (x-rays through the rook and the bishop); White ends a
    # knight for a pawn down, because Black stops recapturing when it would lose more.
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5",
     PIECE_VALUES[chess.PAWN] - PIECE_VALUES[chess.KNIGHT]),
    # RxR with the queen behind: Black's recapture costs its last rook, still even.
    ("3r2k1/8/8/8/8/8/8/Q2R2K1 w - - 0 1", "d1d8", PIECE_VALUES[chess.ROOK]),
    # En passant: a pawn for a pawn, the capturer lost to the recapture.
    ("4k3/2p5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
])
def test_static_exchange_evaluation(fen, uci, expected):
    board = chess.Board(fen)
    assert see(board, chess.Move.from_uci(uci)) == expected
    assert board.fen() == fen


STAGED = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "4k3/1P6/8/3pP3/8/8/6p1/4K2R w K d6 0 1",             # castling, en passant, promotions
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/8/8/8/4r3/R3K3 w Q - 0 1",                    # in check
]


@pytest.mark.parametrize("fen", STAGED)
def test_staged_moves_are_every_legal_move_once_hash_move_first(fen):
    board = chess.Board(fen)
    orderer = MoveOrderer(max_ply=1)
    legal = list(board.legal_moves)
    rng = random.Random(0)
    for _ in range(20):
        hash_move = rng.choice(legal + [None, chess.Move.from_uci("a1a2")])
        orderer.killer_moves[1] = [rng.choice(legal), rng.choice(legal)]
        moves = list(orderer.staged(board, 1, hash_move, board.is_check()))
        assert sorted(moves, key=str) == sorted(legal, key=str)   # each exactly once
        if board.is_check():  # few moves: all at once, in the same order
            assert moves == orderer.ordered(board, legal, 1, hash_move)
        if hash_move in legal:
            assert moves[0] == hash_move
    assert board.fen() == fen


def test_killers_and_history_come_before_other_quiet_moves_and_age():
    board = chess.Board()
    orderer = MoveOrderer()
    g1f3, b1c3 = chess.Move.from_uci("g1f3"), chess.Move.from_uci("b1c3")
    orderer.remember_cutoff(g1f3, 3, 2)        # a killer at ply 2, history everywhere
    assert orderer.ordered(board, list(board.legal_moves), 2, None)[0] == g1f3
    orderer.remember_cutoff(b1c3, 2, 2)        # the newest killer goes first
    assert orderer.ordered(board, list(board.legal_moves), 2, b1c3)[:2] == [b1c3, g1f3]
    assert orderer.ordered(board, list(board.legal_moves), 5, None)[0] == g1f3  # history 9 > 4
    orderer.new_search(keep_history=True)
    assert orderer.killer_moves[2] == [None, None]
    assert orderer.history == {(g1f3.from_square, g1f3.to_square): 9 >> 2,
                               (b1c3.from_square, b1c3.to_square): 4 >> 2}
    orderer.new_search(keep_history=False)
    assert orderer.history == {}


def test_quiescence_captures_skip_losing_and_hopeless_captures():
    # White: Qxd5 loses the queen for a pawn (defended by the rook); Rxa7 wins a pawn.
    board = chess.Board("3r2k1/p4ppp/8/3p4/8/8/5PPP/R2Q2K1 w - - 0 1")
    captures = [m.uci() for m in MoveOrderer().captures(board, margin=0)]
    assert captures == ["a1a7"]
    assert MoveOrderer().captures(board, margin=400) == []   # a pawn cannot reach alpha
