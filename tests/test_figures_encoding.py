"""figures.encoding: each picture shows the numbers the encoding really gives."""
import chess
import numpy as np
import pytest

from chesslab.board import encoding
from chesslab.figures import encoding as fe


def test_thesis_vector_figure_writes_the_64_numbers():
    board = chess.Board()
    ax = fe.thesis_vector_figure(board).axes[0]
    values = sorted(float(t.get_text()) for t in ax.texts)
    assert values == sorted(v for v in encoding.thesis_vector(board) if v)


def test_planes_figures_draw_one_panel_per_plane():
    board = chess.Board()
    fig = fe.planes14_figure(board)
    titled = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in titled] == fe.PLANE14_TITLES
    np.testing.assert_array_equal(titled[13].images[0].get_array(), encoding.planes14(board)[13])
    assert len([ax for ax in fe.planes9_figure(board).axes if ax.get_title()]) == 9
    with pytest.raises(ValueError, match=r"\(C, 8, 8\)"):
        fe.planes_figure(np.zeros((3, 8)))


def test_piece_table_has_the_thesis_values_and_both_glyphs():
    table = fe.piece_table_figure().axes[0].tables[0]
    text = [cell.get_text().get_text() for cell in table.get_celld().values()]
    assert "\u2654 \u265a" in text and "7 / -7" in text and "wK / bK" in text


def test_policy_figure_marks_the_highlighted_move():
    board = chess.Board()
    move = chess.Move.from_uci("e2e4")
    fig = fe.policy_figure(board, highlight=move)
    assert f"e2e4 = {encoding.move_to_index(move)}" in [t.get_text() for t in fig.axes[0].texts]
    assert "(20 legal)" in fig.axes[0].get_title()


def test_plane_panels_name_files_and_ranks_and_the_legend_explains_the_colours():
    fig = fe.planes9_figure(chess.Board())
    panel = [ax for ax in fig.axes if ax.get_title()][0]
    assert [t.get_text() for t in panel.get_xticklabels()] == list("abcdefgh")
    assert [t.get_text() for t in panel.get_yticklabels()] == list("87654321")
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == list(fe.PLANE9_LEGEND.values())
    # each legend patch has the colour the panels give that value
    cmap, norm = panel.images[0].get_cmap(), panel.images[0].norm
    for patch, value in zip(legend.get_patches(), fe.PLANE9_LEGEND):
        np.testing.assert_allclose(patch.get_facecolor(), cmap(norm(value)), atol=1e-6)
