"""Pictures of the encodings: the thesis's 64 numbers, the 14 and 9 planes, the thesis
table of piece types, and the 4272-entry policy."""
from __future__ import annotations

import chess
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from chesslab.board import encoding
from chesslab.figures.board import draw_board_array

PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")
PLANE14_TITLES = ([f"white {p}" for p in PIECE_NAMES] + [f"black {p}" for p in PIECE_NAMES]
                  + ["White's move targets", "Black's move targets"])
PLANE9_TITLES = [f"{p} (+1 mover)" for p in PIECE_NAMES] + ["turn", "turn", "turn"]


def thesis_vector_figure(board: chess.Board, title="thesis_vector(board) as 8x8"):
    """The thesis's 64 numbers drawn on the board: positive White, negative Black."""
    fig, ax = plt.subplots(figsize=(3.6, 3.6))
    draw_board_array(ax, encoding.thesis_vector(board).reshape(8, 8), title=title,
                     vmin=-7, vmax=7, annotate=True)
    fig.tight_layout()
    return fig


#: What a cell's colour means, per encoding (value -> words), for the figure legends.
PLANE14_LEGEND = {1: "1: a piece there / a move goes there", 0: "0: nothing"}
PLANE9_LEGEND = {1: "+1: the side to move's piece; turn planes: White to move",
                 -1: "-1: the opponent's piece; turn planes: Black to move",
                 0: "0: nothing"}


def planes_figure(planes, titles=None, ncols=7, suptitle=None, size=1.7, vmin=-1, vmax=1,
                  legend=None, cmap="RdBu_r"):
    """A grid of small heatmaps, one per plane of a (C, 8, 8) array, each with files
    and ranks; ``legend`` (value -> words) explains the colours under the grid."""
    planes = np.asarray(planes)
    if planes.ndim != 3 or planes.shape[1:] != (8, 8):
        raise ValueError(f"planes_figure needs a (C, 8, 8) array, got shape {planes.shape}")
    n = planes.shape[0]
    nrows = int(np.ceil(n / ncols))
    extra = 0.45 if legend else 0.0
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(size * ncols, (size + 0.3) * nrows + 0.5 + extra))
    for i, ax in enumerate(axes.flat):
        if i >= n:
            ax.axis("off")
            continue
        draw_board_array(ax, planes[i], title=titles[i] if titles else f"plane {i}",
                         vmin=vmin, vmax=vmax, cmap=cmap)
        ax.tick_params(labelsize=5, pad=1)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout(rect=(0, extra / fig.get_figheight(), 1, 1))
    if legend:
        colours = plt.get_cmap(cmap)
        handles = [Patch(facecolor=colours((value - vmin) / (vmax - vmin)), edgecolor="0.6",
                         label=words) for value, words in legend.items()]
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8,
                   frameon=False)
    return fig


def planes14_figure(board: chess.Board, suptitle="planes14(board): 14 x 8 x 8"):
    """The tutorial's 14 planes of a position (like the actor-critic README's bit maps)."""
    return planes_figure(encoding.planes14(board), PLANE14_TITLES, ncols=7, suptitle=suptitle,
                         legend=PLANE14_LEGEND)


def planes9_figure(board: chess.Board, suptitle="planes9(board): 9 x 8 x 8"):
    """The actor-critic's 9 planes: +1 pieces of the side to move, -1 the opponent's."""
    return planes_figure(encoding.planes9(board), PLANE9_TITLES, ncols=9, suptitle=suptitle,
                         legend=PLANE9_LEGEND)


def piece_table_figure():
    """The thesis's table of piece types: symbol, number value, string value."""
    rows = [(f"{chess.Piece(pt, chess.WHITE).unicode_symbol()} "
             f"{chess.Piece(pt, chess.BLACK).unicode_symbol()}",
             f"{v} / {-v}", f"w{encoding.PIECE_STRINGS[pt]} / b{encoding.PIECE_STRINGS[pt]}")
            for pt, v in encoding.THESIS_CODES.items()]
    fig, ax = plt.subplots(figsize=(4.2, 2.6))
    ax.axis("off")
    table = ax.table(cellText=rows, colLabels=["symbol", "number value", "string value"],
                     loc="center", cellLoc="center")
    table.scale(1, 1.6)
    table.set_fontsize(12)
    for (r, _), cell in table.get_celld().items():
        if r == 0:
            cell.set_text_props(weight="bold")
            cell.set_facecolor("0.9")
    ax.set_title("The list of chess pieces types (thesis table)", fontsize=10)
    fig.tight_layout()
    return fig


def policy_figure(board: chess.Board, highlight=None, title=None):
    """The 4272-entry policy as a picture: a 64x64 from-to grid plus the promotion strip.

    Legal moves of ``board`` are dark; ``highlight`` (a chess.Move) is marked in red.
    """
    mask = encoding.legal_mask(board).astype(float)
    grid = mask[:4096].reshape(64, 64)
    promo = mask[4096:].reshape(44, 4).T                       # 4 pieces x 44 pairs
    fig = plt.figure(figsize=(8.2, 4.6))
    ax = fig.add_axes([0.07, 0.12, 0.48, 0.78])
    ax.imshow(grid, cmap=ListedColormap(["#f4f4f4", "#1f4e79"]), vmin=0, vmax=1,
              interpolation="nearest")
    ticks = list(range(0, 64, 8))
    ax.set_xticks(ticks)
    ax.set_xticklabels([chess.square_name(t) for t in ticks], fontsize=7)
    ax.set_yticks(ticks)
    ax.set_yticklabels([chess.square_name(t) for t in ticks], fontsize=7)
    ax.set_xlabel("to square (a1=0 ... h8=63)", fontsize=8)
    ax.set_ylabel("from square", fontsize=8)
    ax.set_title(f"entries 0-4095: from*64 + to  ({int(mask.sum())} legal)", fontsize=9)
    ax2 = fig.add_axes([0.62, 0.55, 0.36, 0.25])
    ax2.imshow(promo, cmap=ListedColormap(["#f4f4f4", "#1f4e79"]), vmin=0, vmax=1,
               aspect="auto", interpolation="nearest")
    ax2.set_yticks(range(4))
    ax2.set_yticklabels(["N", "B", "R", "Q"], fontsize=7)
    ax2.axvline(21.5, color="0.5", linewidth=1)
    ax2.set_xticks([10.5, 32.5])
    ax2.set_xticklabels(["Black: rank 2 to 1", "White: rank 7 to 8"], fontsize=7)
    ax2.tick_params(axis="x", length=0)
    ax2.set_title("entries 4096-4271:\n44 promotion pairs x 4 pieces", fontsize=9)
    if highlight is not None:
        index = encoding.move_to_index(highlight)
        if index < 4096:
            ax.plot(index % 64, index // 64, "o", mfc="none", mec="red", ms=12, mew=2)
            ax.annotate(f"{highlight.uci()} = {index}", (index % 64, index // 64),
                        xytext=(index % 64 + 4, index // 64 + 14), color="red", fontsize=9,
                        arrowprops=dict(arrowstyle="->", color="red"))
        else:
            pair, piece = divmod(index - 4096, 4)
            ax2.plot(pair, piece, "o", mfc="none", mec="red", ms=10, mew=2)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
