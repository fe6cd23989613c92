"""figures.board: arrays drawn as the board is printed, pieces from python-chess's glyphs."""
import chess
import matplotlib.pyplot as plt
import numpy as np
import pytest

from chesslab.figures import board as fb


def test_an_8x8_array_gets_files_and_ranks_and_values_in_their_cells():
    array = np.zeros((8, 8))
    array[0, 0], array[7, 7] = 5, -1                  # a8 and h1
    _, ax = plt.subplots()
    fb.draw_board_array(ax, array, annotate=True)
    assert [t.get_text() for t in ax.get_xticklabels()] == list("abcdefgh")
    assert [t.get_text() for t in ax.get_yticklabels()] == list("87654321")
    cells = sorted((t.get_position(), t.get_text()) for t in ax.texts)
    assert cells == [((0, 0), "5"), ((7, 7), "-1")]   # zeros stay empty


def test_other_shapes_get_indices_and_nan_cells_stay_empty():
    padded = np.pad(np.ones((2, 2)), 1)
    padded[0, 0] = np.nan
    _, ax = plt.subplots()
    image = fb.draw_board_array(ax, padded, annotate=True)
    assert list(ax.get_xticks()) == [0, 1, 2, 3]
    assert "a" not in [t.get_text() for t in ax.get_xticklabels()]
    assert len(ax.texts) == 4 and image.get_clim() == (-1.0, 1.0)


@pytest.mark.parametrize("shape", [(64,), (2, 8, 8)])
def test_draw_board_array_needs_a_2d_array(shape):
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="2-D array"):
        fb.draw_board_array(ax, np.zeros(shape))


def test_draw_board_writes_each_piece_with_its_unicode_glyph():
    _, ax = plt.subplots()
    fb.draw_board(ax, chess.Board(), 0, 0, 1)
    glyphs = sorted(t.get_text() for t in ax.texts)
    assert glyphs == sorted(p.unicode_symbol() for p in chess.Board().piece_map().values())
    assert glyphs.count("\u2659") == 8 and glyphs.count("\u265a") == 1   # white pawns, black king
    assert len(ax.patches) == 65                      # 64 squares and the frame


def test_example_position_is_the_giuoco_piano_line():
    board = fb.example_position()
    assert board.ply() == len(fb.EXAMPLE_LINE.split()) and board.turn == chess.WHITE
    assert board.piece_at(chess.D5) == chess.Piece(chess.PAWN, chess.BLACK)


def test_max_pool_figure_keeps_each_windows_maximum_and_the_partial_last_window():
    values = np.arange(64, dtype=float).reshape(8, 8)      # largest at the bottom right
    fig = fb.max_pool_figure(values, sizes=(3, 2))
    first, pooled3, pooled2 = fig.axes
    assert len(first.patches) == 9                        # 8 by 3: 3 x 3 windows, not 2 x 2
    cells3 = {t.get_position(): t.get_text() for t in pooled3.texts}
    assert cells3[(0, 0)] == "18" and cells3[(2, 2)] == "63"   # rows/cols 0-2; partial 6-7
    assert {t.get_position(): t.get_text() for t in pooled2.texts}[(1, 1)] == "63"
    assert pooled2.get_title() == "after pool 2: 2x2"
    plt.close(fig)


def test_max_pool_figure_needs_a_square_map():
    with pytest.raises(ValueError, match="square 2-D map"):
        fb.max_pool_figure(np.zeros((8, 6)))
