"""Hand-made features and the standard scaler, on positions checked by hand."""
import chess
import numpy as np
import pytest

import random

from chesslab.evaluators.features import (FEATURE_NAMES, KNIGHT_TABLE, StandardScaler,
                               count_legal_moves, features, features_batch, king_attackers,
                               legal_move_counts)

CASTLING = ("white_kingside_castling", "white_queenside_castling",
            "black_kingside_castling", "black_queenside_castling")


def test_start_position_is_balanced():
    f = features(chess.Board())
    assert list(f) == list(FEATURE_NAMES)
    for name in FEATURE_NAMES:
        assert f[name] == (1 if name in CASTLING else 0), name


def test_material_counts_the_chapter_values():
    no_black_queen = chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert features(no_black_queen)["material"] == 900
    # White: R + B + 2 P = 1000; Black: N + N + 3 P = 900.
    board = chess.Board("4k3/ppp5/2n5/8/8/5n2/PP6/R1B1K3 w - - 0 1")
    assert features(board)["material"] == 100


def test_isolated_and_doubled_pawns():
    # White: a2 alone, c2+c3 doubled with no b/d pawns -> 3 isolated, 1 doubled.
    # Black: a7 b7 fine, d7 d6 d5 tripled and alone -> 3 isolated + h7 = 4, doubled 2.
    board = chess.Board("4k3/pp1p3p/3p4/3p4/8/2P5/P1P2PPP/4K3 w - - 0 1")
    f = features(board)
    assert (f["white_isolated_pawns"], f["white_doubled_pawns"]) == (3, 1)
    assert (f["black_isolated_pawns"], f["black_doubled_pawns"]) == (4, 2)


def test_castling_flags():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1")
    assert [features(board)[n] for n in CASTLING] == [1, 0, 0, 1]


@pytest.mark.parametrize("turn", ["w", "b"])
def test_mobility_counts_both_sides_without_touching_the_board(turn):
    # White: rook a1 has 10 moves, king 5 plus O-O-O = 16. Black: king 5.
    board = chess.Board(f"4k3/8/8/8/8/8/8/R3K3 {turn} Q - 0 1")
    before = board.fen()
    assert legal_move_counts(board) == (16, 5)
    assert features(board)["mobility"] == 11
    assert board.fen() == before and board.turn == (turn == "w")


@pytest.mark.parametrize("fen", [
    "4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1",          # pinned pawn: only the capture on c3
    "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",          # pinned bishop: no move at all
    "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1",     # promotions (with captures), castling
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1",         # castling through an attacked square
])
def test_fast_legal_count_on_tricky_positions(fen):
    board = chess.Board(fen)
    assert count_legal_moves(board) == board.legal_moves.count()


def test_fast_legal_count_agrees_with_python_chess_on_random_positions():
    rng = random.Random(5)
    for _ in range(150):
        board = chess.Board()
        for _ in range(rng.randrange(140)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        flipped = board.copy(stack=False)
        flipped.turn, flipped.ep_square = not board.turn, None
        for b in (board, flipped):
            assert count_legal_moves(b) == b.legal_moves.count(), b.fen()


def test_mobility_of_the_side_not_to_move_ignores_en_passant():
    board = chess.Board()
    for san in ("e4", "a6", "e5", "d5"):  # Black's d5 allows exd6 e.p.
        board.push_san(san)
    white, black = legal_move_counts(board)
    assert white == board.legal_moves.count()  # includes exd6
    flipped = board.copy()
    flipped.turn, flipped.ep_square = chess.BLACK, None
    assert black == flipped.legal_moves.count()
    assert len(board.move_stack) == 4


def test_king_attackers_counts_pieces_hitting_the_king_zone():
    # After Scholar's mate: Qf7 and Bc4 (through f7) hit Black's king zone.
    mated = chess.Board("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
    assert king_attackers(mated, chess.BLACK) == 2
    assert king_attackers(mated, chess.WHITE) == 0
    # A rook on the d-file and a knight on f3 both touch the white king on e1's zone;
    # the bishop on a8 does not.
    board = chess.Board("b2rk3/8/8/8/8/5n2/8/4K3 w - - 0 1")
    assert king_attackers(board, chess.WHITE) == 2


def test_piece_square_uses_the_chapters_knight_table():
    assert KNIGHT_TABLE[1, 3] == 5  # d7 in the chapter (the usual table has 0 there)
    on_a1 = chess.Board("4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
    on_d7 = chess.Board("4k3/3N4/8/8/8/8/8/4K3 w - - 0 1")
    black_on_d2 = chess.Board("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1")
    # Kings on e1/e8 score 0 in the king table, so only the knight counts.
    assert features(on_a1)["piece_square"] == -50
    assert features(on_d7)["piece_square"] == 5
    assert features(black_on_d2)["piece_square"] == -5


def test_mirrored_position_negates_the_balances():
    board = chess.Board("r1bqk2r/pp3ppp/2n2n2/3p4/1b1P4/2N2N2/PP2BPPP/R2QK2R w KQkq - 0 9")
    f, g = features(board), features(board.mirror())
    for name in ("material", "piece_square", "mobility"):
        assert g[name] == -f[name], name
    assert g["white_king_attackers"] == f["black_king_attackers"]
    assert g["white_isolated_pawns"] == f["black_isolated_pawns"]


def test_batch_equals_single_and_accepts_fens():
    fens = ["4k3/pp1p3p/3p4/3p4/8/2P5/P1P2PPP/4K3 w - - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", chess.STARTING_FEN]
    rows = features_batch(fens)
    assert rows.shape == (3, len(FEATURE_NAMES))
    for fen, row in zip(fens, rows):
        assert row.tolist() == list(features(chess.Board(fen)).values())
    assert features_batch([]).shape == (0, len(FEATURE_NAMES))


def test_bad_fen_is_explained():
    with pytest.raises(ValueError, match="not a valid FEN"):
        features("not a fen")


def test_scaler_gives_mean_zero_std_one_and_inverts():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(5, 3, 200), rng.integers(0, 2, 200), np.full(200, 7.0)])
    scaler = StandardScaler().fit(X)
    Z = scaler.transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0)[:2], 1)
    assert np.all(Z[:, 2] == 0)  # a constant column maps to 0, not NaN
    np.testing.assert_allclose(scaler.inverse_transform(Z), X)
    again = StandardScaler.from_dict(scaler.to_dict())
    np.testing.assert_array_equal(again.transform(X), Z)


def test_scaler_errors():
    with pytest.raises(ValueError, match="not fitted"):
        StandardScaler().transform([[1.0]])
    scaler = StandardScaler().fit([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="expected 2 feature columns"):
        scaler.transform([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="2-D"):
        scaler.transform([1.0, 2.0])
    with pytest.raises(ValueError, match="positive"):
        StandardScaler.from_dict({"mean": [0.0], "scale": [0.0]})
    with pytest.raises(ValueError, match="same length"):
        StandardScaler.from_dict({"mean": [0.0, 1.0], "scale": [1.0]})
