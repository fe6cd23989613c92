"""Board encodings: known values, the policy index round trip, symmetry, bad input."""
import random

import chess
import numpy as np
import pytest

from chesslab.board import encoding as enc

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PROMO_FEN = "1n2k3/P1P5/8/8/8/8/5p1p/K5N1 w - - 0 1"   # both sides can promote, with captures
EP_FEN = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"


def random_positions(n, seed, every=7):
    """Positions from seeded random games (every 7th ply), biased towards special moves
    so promotions, castling and en passant all appear."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 300 and len(out) < n:
            moves = list(board.legal_moves)
            special = [m for m in moves if m.promotion or board.is_castling(m)
                       or board.is_en_passant(m)]
            board.push(rng.choice(special) if special and rng.random() < 0.5 else rng.choice(moves))
            if board.ply() % every == 0 or board.ply() < 12:
                out.append(board.copy())
    return out


@pytest.fixture(scope="module")
def positions():
    return random_positions(2000, seed=7) + [chess.Board(f) for f in (KIWIPETE, PROMO_FEN, EP_FEN)]


# --- thesis vector -------------------------------------------------------------------
def test_thesis_vector_start_position():
    v = enc.thesis_vector(chess.Board())
    assert v.shape == (64,)
    grid = v.reshape(8, 8)
    np.testing.assert_array_equal(grid[0], [-2, -3, -4, -5, -7, -4, -3, -2])   # rank 8
    np.testing.assert_array_equal(grid[1], [-1] * 8)
    np.testing.assert_array_equal(grid[6], [1] * 8)
    np.testing.assert_array_equal(grid[7], [2, 3, 4, 5, 7, 4, 3, 2])           # rank 1
    assert not grid[2:6].any()


def test_thesis_vector_matches_piece_table_on_every_square(positions):
    for board in positions[:200]:
        v = enc.thesis_vector(board).reshape(8, 8)
        for square in chess.SQUARES:
            row, col = enc.square_to_rowcol(square)
            piece = board.piece_at(square)
            expected = 0 if piece is None else enc.THESIS_CODES[piece.piece_type] * (
                1 if piece.color == chess.WHITE else -1)
            assert v[row, col] == expected


def test_thesis_vector_of_a_lone_piece():
    board = chess.Board("8/8/8/8/8/8/8/8 w - - 0 1")
    board.set_piece_at(chess.C6, chess.Piece(chess.QUEEN, chess.BLACK))
    v = enc.thesis_vector(board).reshape(8, 8)
    assert v[2, 2] == -5 and np.count_nonzero(v) == 1


# --- 14 planes -----------------------------------------------------------------------
def test_planes14_start_position():
    p = enc.planes14(chess.Board())
    assert p.shape == (14, 8, 8) and p.dtype == np.float32
    assert p[0, 6].sum() == 8 and p[0].sum() == 8           # white pawns on rank 2
    assert p[5, 7, 4] == 1 and p[5].sum() == 1              # white king e1
    assert p[11, 0, 4] == 1 and p[11].sum() == 1            # black king e8
    # 20 legal moves each side go to 16 squares: ranks 3-4 (White), 6-5 (Black)
    assert p[12].sum() == 16 and p[12, 4:6].all()
    assert p[13].sum() == 16 and p[13, 2:4].all()


def test_planes14_move_planes_are_legal_targets_for_both_sides(positions):
    for board in positions[:300]:
        p = enc.planes14(board)
        for color, plane in ((chess.WHITE, 12), (chess.BLACK, 13)):
            b = board.copy(stack=False)
            if b.turn != color:
                b.turn = color
                b.ep_square = None
            targets = {m.to_square for m in b.legal_moves}
            got = {chess.square(c, 7 - r) for r, c in zip(*np.nonzero(p[plane]))}
            assert got == targets


def test_planes14_piece_planes_agree_with_thesis_vector(positions):
    boards = positions[:300]
    p = enc.planes14_batch(boards)
    weights = np.array([1, 3, 4, 2, 5, 7] + [-1, -3, -4, -2, -5, -7], dtype=np.float32)
    rebuilt = np.einsum("npij,p->nij", p[:, :12], weights).reshape(len(boards), 64)
    np.testing.assert_array_equal(rebuilt, enc.thesis_vectors(boards))


# --- 9 planes ------------------------------------------------------------------------
def test_planes9_start_position_and_turn_planes():
    board = chess.Board()
    p = enc.planes9(board)
    assert p.shape == (9, 8, 8)
    np.testing.assert_array_equal(p[0, 6], np.ones(8))     # own pawns +1
    np.testing.assert_array_equal(p[0, 1], -np.ones(8))    # opponent pawns -1
    assert (p[6:] == 1).all()
    board.push_san("e4")
    q = enc.planes9(board)
    assert (q[6:] == -1).all()
    assert q[0, 1].sum() == 8 and q[0, 4, 4] == -1          # Black to move: black pawns +1


# --- symmetry ------------------------------------------------------------------------
def test_colour_mirror_symmetry(positions):
    for board in positions[:300]:
        m = board.mirror()
        tv, tm = enc.thesis_vector(board).reshape(8, 8), enc.thesis_vector(m).reshape(8, 8)
        np.testing.assert_array_equal(tm, -tv[::-1])
        p, q = enc.planes14(board), enc.planes14(m)
        np.testing.assert_array_equal(q[:6], p[6:12, ::-1])
        np.testing.assert_array_equal(q[6:12], p[:6, ::-1])
        np.testing.assert_array_equal(q[12], p[13, ::-1])
        np.testing.assert_array_equal(q[13], p[12, ::-1])
        a, b = enc.planes9(board), enc.planes9(m)
        np.testing.assert_array_equal(b[:6], a[:6, ::-1])
        np.testing.assert_array_equal(b[6:], -a[6:])


def test_batch_helpers_equal_single_calls(positions):
    boards = positions[:50]
    np.testing.assert_array_equal(enc.thesis_vectors(boards),
                                  np.stack([enc.thesis_vector(b) for b in boards]))
    np.testing.assert_array_equal(enc.planes14_batch(boards),
                                  np.stack([enc.planes14(b) for b in boards]))
    np.testing.assert_array_equal(enc.planes9_batch(boards),
                                  np.stack([enc.planes9(b) for b in boards]))
    assert enc.planes14_batch([]).shape == (0, 14, 8, 8)


def test_encoders_never_change_the_board(positions):
    for board in positions[:100] + [chess.Board(EP_FEN)]:
        before = (board.fen(), len(board.move_stack), board.turn, board.ep_square)
        enc.thesis_vector(board), enc.planes14(board), enc.planes9(board), enc.legal_mask(board)
        assert (board.fen(), len(board.move_stack), board.turn, board.ep_square) == before


# --- policy index --------------------------------------------------------------------
def test_policy_layout():
    assert enc.POLICY_SIZE == 4272 and enc.N_PROMOTIONS == 176
    assert len(enc.PROMOTION_PAIRS) == 44 == len(set(enc.PROMOTION_PAIRS))
    assert enc.move_to_index(chess.Move.from_uci("c1f4")) == 2 * 64 + 29 == 157
    assert enc.move_to_index(chess.Move.from_uci("a1b1")) == 1
    assert enc.move_to_index(chess.Move.from_uci("h8h7")) == 63 * 64 + 55
    # every index except the from == to ones (never a move) decodes and encodes back
    usable = [i for i in range(enc.POLICY_SIZE) if i >= 4096 or i // 64 != i % 64]
    assert len(usable) == enc.POLICY_SIZE - 64
    assert [enc.move_to_index(enc._index_to_raw_move(i)) for i in usable] == usable
    assert all(enc._index_to_raw_move(i).promotion for i in range(4096, 4272))


def test_every_legal_move_round_trips_and_mask_is_exact(positions):
    seen_promotions, seen_castles, seen_ep = 0, 0, 0
    for board in positions:
        legal = list(board.legal_moves)
        indices = [enc.move_to_index(m) for m in legal]
        assert len(set(indices)) == len(legal)                  # no two moves share an index
        for move, index in zip(legal, indices):
            assert enc.index_to_move(index, board) == move
            seen_promotions += bool(move.promotion)
            seen_castles += board.is_castling(move)
            seen_ep += board.is_en_passant(move)
        mask = enc.legal_mask(board)
        assert mask.sum() == len(legal)
        assert set(np.flatnonzero(mask)) == set(indices)
    assert seen_promotions > 50 and seen_castles > 5 and seen_ep > 5


def test_promotions_use_the_last_176_entries():
    board = chess.Board(PROMO_FEN)
    promos = [m for m in board.legal_moves if m.promotion]
    assert len(promos) == 16          # a7a8, a7xb8, c7c8, c7xb8, each to N, B, R, Q
    for move in promos:
        assert 4096 <= enc.move_to_index(move) < 4272
    board.push_san("Kb2")
    black = [m for m in board.legal_moves if m.promotion]
    assert len(black) == 16           # f2f1, f2xg1, h2h1, h2xg1
    assert all(4096 <= enc.move_to_index(m) < 4272 for m in black)


# --- bad input -----------------------------------------------------------------------
@pytest.mark.parametrize("func", [enc.thesis_vector, enc.planes14, enc.planes9, enc.legal_mask])
def test_encoders_reject_non_boards(func):
    with pytest.raises(TypeError, match="chess.Board"):
        func("not a board")


def test_index_errors():
    board = chess.Board()
    with pytest.raises(ValueError, match="outside 0..4271"):
        enc.index_to_move(4272, board)
    with pytest.raises(ValueError, match="outside 0..4271"):
        enc.index_to_move(-1, board)
    with pytest.raises(ValueError, match="not a legal move"):
        enc.index_to_move(enc.move_to_index(chess.Move.from_uci("e2e5")), board)
    with pytest.raises(TypeError, match="integer"):
        enc.index_to_move("157", board)
    with pytest.raises(ValueError, match="not a possible promotion"):
        enc.move_to_index(chess.Move.from_uci("e2e4q"))
    with pytest.raises(ValueError, match="null move"):
        enc.move_to_index(chess.Move.null())
    with pytest.raises(TypeError, match="chess.Move"):
        enc.move_to_index("e2e4")
    # a pawn reaching the 8th rank needs a promotion slot: the from-to slot is illegal
    pawn = chess.Board("8/P7/8/8/8/8/8/k1K5 w - - 0 1")
    with pytest.raises(ValueError, match="a7a8"):
        enc.index_to_move(enc.move_to_index(chess.Move.from_uci("a7a8")), pawn)


def test_as_board_errors():
    assert enc.as_board(chess.STARTING_FEN) == chess.Board()
    with pytest.raises(ValueError, match="not a valid FEN"):
        enc.as_board("not a fen")
    with pytest.raises(ValueError, match="not a legal chess position"):
        enc.as_board("8/8/8/8/8/8/8/8 w - - 0 1")
    with pytest.raises(TypeError):
        enc.as_board(42)


@pytest.mark.parametrize("func", [enc.thesis_vectors, enc.planes14_batch, enc.planes9_batch,
                                  enc.piece_square_indices_batch])
def test_batch_encoders_given_one_board_say_so(func):
    with pytest.raises(TypeError, match=f"{func.__name__}\\(\\) takes a list of boards, got "
                                        f"one chess.Board; pass \\[board\\]"):
        func(chess.Board())
    assert func([chess.Board()]).shape[0] == 1


BATCH_ENCODERS = [enc.thesis_vectors, enc.planes14_batch, enc.planes9_batch,
                  enc.piece_square_indices_batch]


@pytest.mark.parametrize("func", BATCH_ENCODERS)
@pytest.mark.parametrize("given, says", [
    (None, "got NoneType None; pass e.g. [chess.Board()]"),
    (42, "got int 42; pass e.g. [chess.Board()]"),
    (chess.STARTING_FEN, f"got the string {chess.STARTING_FEN!r}; for a FEN pass "
                         f"[chess.Board(fen)]"),
    ([chess.Board(), None], "but item 1 is NoneType None; make each board with "
                            "chess.Board() or chess.Board(fen)"),
    ([chess.Board(), "e4"], "but item 1 is str 'e4'; make each board with"),
])
def test_batch_encoders_name_what_they_got_and_what_they_need(func, given, says):
    with pytest.raises(TypeError) as info:
        func(given)
    assert str(info.value).startswith(f"{func.__name__}() takes a list of chess.Board, ")
    assert says in str(info.value)


@pytest.mark.parametrize("func", BATCH_ENCODERS)
def test_batch_encoders_take_any_iterable_of_boards(func):
    boards = [chess.Board(), chess.Board(KIWIPETE)]
    np.testing.assert_array_equal(func(b for b in boards), func(boards))
    assert func([]).shape[0] == 0


def test_piece_square_onehot_names_bad_indices():
    good = enc.piece_square_indices_batch([chess.Board()])
    assert enc.piece_square_onehot(good).sum() == 2 * 32
    with pytest.raises(TypeError, match=r"takes integer feature indices of shape \(\.\.\., 32\), "
                                        r"got NoneType None; make them with "
                                        r"piece_square_indices_batch\(boards\)"):
        enc.piece_square_onehot(None)
    with pytest.raises(TypeError, match="got an array of float64"):
        enc.piece_square_onehot(good.astype(float))
    with pytest.raises(ValueError, match=r"run from 0 to 767 \(768 pads\), got 0\.\.800"):
        enc.piece_square_onehot(np.array([[0, 800]]))


def _random_boards(count, seed):
    rng, boards = random.Random(seed), []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(0, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            boards.append(board)
    return boards


def test_mover_planes_see_black_to_move_as_white_to_move_on_the_mirrored_board():
    for board in _random_boards(60, 11):
        mirrored = board.mirror()          # colours swapped, board flipped, other side to move
        np.testing.assert_array_equal(enc.mover_planes(board), enc.mover_planes(mirrored))
        moves = list(board.legal_moves)
        seen = enc.mover_indices(board, moves)
        images = [chess.Move(m.from_square ^ 56, m.to_square ^ 56, m.promotion) for m in moves]
        np.testing.assert_array_equal(seen, enc.mover_indices(mirrored, images))
        if board.turn == chess.WHITE:
            np.testing.assert_array_equal(seen, enc.legal_indices(board))


def test_mover_planes_pieces_castling_en_passant_and_clock():
    board = chess.Board("r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 0 30")
    p = enc.mover_planes(board)
    assert p.shape == (enc.MOVER_PLANES, 8, 8)
    assert p[5, 7, 4] == 1 and p[11, 0, 4] == 1            # our king e1, theirs e8
    assert p[0, 3, 4] == 1 and p[6, 3, 3] == 1             # our pawn e5, theirs d5
    assert p[12].sum() == 1 and p[12, 7, 7] == 1           # we may castle with the h1 rook
    assert p[13].sum() == 1 and p[13, 0, 0] == 1           # they with the a8 rook
    assert p[14].sum() == 1 and p[14, 2, 3] == 1           # en passant on d6
    assert np.all(p[15] == 0.0)
    board.push_san("Ke2")                                  # Black to move, clock 1
    q = enc.mover_planes(board)
    assert q[12].sum() == 1 and q[12, 7, 0] == 1           # Black's a8 rook, seen on a1
    assert q[13].sum() == 0 and q[14].sum() == 0           # White lost its rights; no ep
    assert np.allclose(q[15], 0.01)


def test_mirrored_index_is_its_own_inverse_and_maps_promotions_to_promotions():
    m = enc.MIRRORED_INDEX
    np.testing.assert_array_equal(m[m], np.arange(enc.POLICY_SIZE))
    move = chess.Move.from_uci("b2a1q")
    assert m[enc.move_to_index(move)] == enc.move_to_index(chess.Move.from_uci("b7a8q"))


# --- every input by name -------------------------------------------------------------
ONE_BOARD = {"thesis64": enc.thesis_vector, "planes14": enc.planes14, "planes9": enc.planes9,
             "mover": enc.mover_planes}


def test_every_encoding_gives_its_shape_and_the_one_board_functions_numbers(positions):
    boards = positions[::50]
    for name, (batch, shape) in enc.ENCODINGS.items():
        x = batch(boards)
        assert x.shape == (len(boards), *shape) and x.dtype == np.float32, name
        assert batch([]).shape == (0, *shape), name
        assert np.array_equal(batch(boards[3:4])[0], x[3]), name
        if name in ONE_BOARD:
            assert all(np.array_equal(ONE_BOARD[name](b), row) for b, row in zip(boards, x)), name


def test_the_derived_encodings_hold_the_same_numbers_laid_out_another_way(positions):
    boards, table = positions[::40], enc.ENCODINGS
    n = len(boards)
    assert np.array_equal(table["thesis64_board"].batch(boards).reshape(n, 64),
                          enc.thesis_vectors(boards))
    assert np.array_equal(table["planes14_flat"].batch(boards).reshape(n, 14, 8, 8),
                          enc.planes14_batch(boards))
    both = table["piece_square"].batch(boards)
    assert np.array_equal(table["piece_square_mover"].batch(boards), both[:, 0])
    for board, onehot in zip(boards, both):         # one-hot -> indices: the same features
        indices = enc.piece_square_indices(board)
        for side in range(2):
            active = indices[side][indices[side] != enc.PAD_FEATURE]
            assert sorted(np.flatnonzero(onehot[side])) == sorted(active)
