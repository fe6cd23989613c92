"""Boards on matplotlib axes: an 8x8 array as a heat map, a position as a small board,
max pooling drawn on a map.

Boards are drawn the way they are printed (rank 8 at the top, file a on the left), the
same layout every array in ``chesslab.board.encoding`` uses. Piece glyphs come from
python-chess's one Unicode table (``chess.Piece.unicode_symbol``), not a copy of ours.
"""
from __future__ import annotations

import chess
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from chesslab.nn import MaxPool2D

FILES = "abcdefgh"
RANKS = "87654321"
#: A middlegame used by the plane figures (Giuoco Piano main line after 8...d5).
EXAMPLE_LINE = "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+ Bd2 Bxd2+ Nbxd2 d5"


def example_position() -> chess.Board:
    """The position after ``EXAMPLE_LINE``: every piece type, both sides developed."""
    board = chess.Board()
    for san in EXAMPLE_LINE.split():
        board.push_san(san)
    return board


def _grid_axes(ax, shape, labels=True, fontsize=7):
    """One tick per cell, thin lines between cells; files and ranks on an 8x8 board."""
    rows, cols = shape
    ax.set_xticks(range(cols))
    ax.set_yticks(range(rows))
    if not labels:
        ax.set_xticklabels([])
        ax.set_yticklabels([])
    elif shape == (8, 8):
        ax.set_xticklabels(list(FILES), fontsize=fontsize)
        ax.set_yticklabels(list(RANKS), fontsize=fontsize)
    else:
        ax.tick_params(labelsize=fontsize)
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(-0.5, cols, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, rows, 1), minor=True)
    ax.grid(which="minor", color="0.75", linewidth=0.5)
    ax.tick_params(which="minor", length=0)


def draw_board_array(ax, array, title=None, cmap="RdBu_r", vmin=None, vmax=None,
                     annotate=False, labels=True, fmt="{:g}"):
    """Draw a 2-D array (an 8x8 board with row 0 = rank 8, or a padded or pooled map)
    as a heat map on ``ax``; ``annotate`` writes each non-zero value in its cell
    (NaN cells stay empty). An 8x8 array gets file and rank names, others indices."""
    array = np.asarray(array, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"draw_board_array needs a 2-D array such as 8x8, got shape "
                         f"{array.shape}")
    if vmax is None:
        vmax = max(1.0, float(np.nanmax(np.abs(array), initial=0.0)))
    if vmin is None:
        vmin = -vmax
    image = ax.imshow(array, cmap=cmap, vmin=vmin, vmax=vmax)
    _grid_axes(ax, array.shape, labels=labels)
    if annotate:
        strong = 0.6 * max(abs(vmin), abs(vmax))
        for (r, c), value in np.ndenumerate(array):
            if value and not np.isnan(value):
                ax.text(c, r, fmt.format(value), ha="center", va="center", fontsize=8,
                        color="white" if abs(value) > strong else "black")
    if title:
        ax.set_title(title, fontsize=9)
    return image


def draw_board(ax, board: chess.Board, x: float, y: float, size: float,
               points_per_unit: float = 72.0, light="#f0d9b5", dark="#b58863",
               alpha: float = 1.0):
    """A small board with its lower-left corner at (x, y) on matplotlib axes ``ax``.

    ``points_per_unit``: how many typographic points one data unit spans (sets the
    piece size).
    """
    cell = size / 8
    for square in chess.SQUARES:
        file, rank = chess.square_file(square), chess.square_rank(square)
        color = light if (file + rank) % 2 else dark
        ax.add_patch(Rectangle((x + file * cell, y + rank * cell), cell, cell,
                               facecolor=color, edgecolor="none", alpha=alpha))
        piece = board.piece_at(square)
        if piece:
            ax.text(x + (file + 0.5) * cell, y + (rank + 0.45) * cell,
                    piece.unicode_symbol(), ha="center", va="center",
                    fontsize=cell * points_per_unit * 0.9, color="black", alpha=alpha)
    ax.add_patch(Rectangle((x, y), size, size, facecolor="none", edgecolor="#333333",
                           linewidth=0.8))


def max_pool_figure(values, sizes=(3, 2)):
    """Max pooling drawn: a square map with each pool's windows shaded, pooled by
    ``MaxPool2D`` of each size in turn (partial last windows kept), every cell annotated.

    A figure, so that a notebook can show what pooling keeps without spelling out the
    call a pooling exercise asks its reader to write.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[0] != values.shape[1]:
        raise ValueError(f"max_pool_figure needs a square 2-D map such as 8x8, got shape "
                         f"{values.shape}")
    maps = [values]
    for size in sizes:
        n = maps[-1].shape[0]
        maps.append(MaxPool2D(size).forward(maps[-1].reshape(1, 1, n, n))[0, 0])
    fig, axes = plt.subplots(1, len(maps), figsize=(11, 3.6),
                             gridspec_kw={"width_ratios": [m.shape[0] for m in maps]})
    vmax = values.max() * 2 or 1.0
    for i, (ax, array) in enumerate(zip(axes, maps)):
        n = array.shape[0]
        title = f"{n}x{n} map" if i == 0 else f"after pool {sizes[i - 1]}: {n}x{n}"
        if i < len(sizes):
            size = sizes[i]
            title += f"\nwindows of {size}"
        draw_board_array(ax, array, title, cmap="Greys", vmax=vmax, annotate=True)
        if i == len(sizes):
            continue
        out_n = maps[i + 1].shape[0]
        colours = plt.cm.tab10(np.arange(out_n * out_n) % 10)
        for r in range(out_n):
            for c in range(out_n):
                h, w = min(size, n - r * size), min(size, n - c * size)
                ax.add_patch(Rectangle((c * size - 0.45, r * size - 0.45), w - 0.1, h - 0.1,
                                       fill=True, alpha=0.25, color=colours[r * out_n + c]))
    fig.tight_layout()
    return fig
