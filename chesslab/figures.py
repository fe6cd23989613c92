"""Figures: one function per picture, each returning a matplotlib Figure.

Boards are drawn the way they are printed (rank 8 at the top, file a on the left), the
same layout every array in ``chesslab.encoding`` uses.
"""
from __future__ import annotations

import chess
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from . import encoding

FILES = "abcdefgh"
RANKS = "87654321"
PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")
PLANE14_TITLES = ([f"white {p}" for p in PIECE_NAMES] + [f"black {p}" for p in PIECE_NAMES]
                  + ["White's move targets", "Black's move targets"])
PLANE9_TITLES = [f"{p} (+1 mover)" for p in PIECE_NAMES] + ["turn", "turn", "turn"]

# glyphs of the pieces, white then black (DejaVu Sans ships them)
_GLYPHS = {(chess.WHITE, pt): chess.Piece(pt, chess.WHITE).unicode_symbol() for pt in chess.PIECE_TYPES}
_GLYPHS.update({(chess.BLACK, pt): chess.Piece(pt, chess.BLACK).unicode_symbol()
                for pt in chess.PIECE_TYPES})


def _board_axes(ax, labels=True, fontsize=7):
    ax.set_xticks(range(8))
    ax.set_yticks(range(8))
    if labels:
        ax.set_xticklabels(list(FILES), fontsize=fontsize)
        ax.set_yticklabels(list(RANKS), fontsize=fontsize)
    else:
        ax.set_xticklabels([])
        ax.set_yticklabels([])
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(-0.5, 8, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, 8, 1), minor=True)
    ax.grid(which="minor", color="0.75", linewidth=0.5)
    ax.tick_params(which="minor", length=0)


def draw_board_array(ax, array, title=None, cmap="RdBu_r", vmin=None, vmax=None,
                     annotate=False, labels=True, fmt="{:g}"):
    """Draw one 8x8 array (row 0 = rank 8) as a heatmap on ``ax``."""
    array = np.asarray(array, dtype=float)
    if array.shape != (8, 8):
        raise ValueError(f"draw_board_array needs an 8x8 array, got shape {array.shape}")
    if vmax is None:
        vmax = max(1.0, float(np.abs(array).max()))
    if vmin is None:
        vmin = -vmax
    image = ax.imshow(array, cmap=cmap, vmin=vmin, vmax=vmax)
    _board_axes(ax, labels=labels)
    if annotate:
        for r in range(8):
            for c in range(8):
                if array[r, c]:
                    strong = abs(array[r, c]) > 0.6 * max(abs(vmin), abs(vmax))
                    ax.text(c, r, fmt.format(array[r, c]), ha="center", va="center",
                            fontsize=8, color="white" if strong else "black")
    if title:
        ax.set_title(title, fontsize=9)
    return image


def thesis_vector_figure(board: chess.Board, title="thesis_vector(board) as 8x8"):
    """The thesis's 64 numbers drawn on the board: positive White, negative Black."""
    fig, ax = plt.subplots(figsize=(3.6, 3.6))
    draw_board_array(ax, encoding.thesis_vector(board).reshape(8, 8), title=title,
                     vmin=-7, vmax=7, annotate=True)
    fig.tight_layout()
    return fig


def planes_figure(planes, titles=None, ncols=7, suptitle=None, size=1.7, vmin=-1, vmax=1):
    """A grid of small heatmaps, one per plane of a (C, 8, 8) array."""
    planes = np.asarray(planes)
    if planes.ndim != 3 or planes.shape[1:] != (8, 8):
        raise ValueError(f"planes_figure needs a (C, 8, 8) array, got shape {planes.shape}")
    n = planes.shape[0]
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols, (size + 0.3) * nrows + 0.5),
                             squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i >= n:
            ax.axis("off")
            continue
        draw_board_array(ax, planes[i], title=titles[i] if titles else f"plane {i}",
                         vmin=vmin, vmax=vmax, labels=False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout()
    return fig


def planes14_figure(board: chess.Board, suptitle="planes14(board): 14 x 8 x 8"):
    """The tutorial's 14 planes of a position (like the actor-critic README's bit maps)."""
    return planes_figure(encoding.planes14(board), PLANE14_TITLES, ncols=7, suptitle=suptitle)


def planes9_figure(board: chess.Board, suptitle="planes9(board): 9 x 8 x 8"):
    """The actor-critic's 9 planes: +1 pieces of the side to move, -1 the opponent's."""
    return planes_figure(encoding.planes9(board), PLANE9_TITLES, ncols=9, suptitle=suptitle)


def piece_table_figure():
    """The thesis's table of piece types: symbol, number value, string value."""
    rows = [(f"{_GLYPHS[(chess.WHITE, pt)]} {_GLYPHS[(chess.BLACK, pt)]}",
             f"{v} / {-v}", f"w{encoding.PIECE_STRINGS[pt]} / b{encoding.PIECE_STRINGS[pt]}")
            for pt, v in encoding.PIECE_VALUES.items()]
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


# --- the thesis's network figures ------------------------------------------------------
_BOX_STYLE = {"Conv": "#cfe2f3", "Pool": "#d9ead3", "Activ": "#fff2cc", "Full": "#f4cccc",
              "Input": "#eeeeee", "Output": "#eeeeee"}


def network_boxes(model):
    """(kind, label, output shape) per block of a thesis-style network, from the model.

    Flatten and the dense layer after it form one "Full" box, as in the thesis figure.
    """
    from .nn import Conv2D, Dense, Flatten, MaxPool2D, ReLU, Sigmoid, Tanh
    boxes = [("Input", "input", tuple(model.input_shape))]
    counters = {}
    for layer, shape in model.shapes():
        if isinstance(layer, Flatten):
            continue
        if isinstance(layer, Conv2D):
            kind, detail = "Conv", f"{layer.out_channels} kernels {layer.kernel_size}x{layer.kernel_size}"
        elif isinstance(layer, MaxPool2D):
            kind, detail = "Pool", f"max {layer.size}x{layer.size}"
        elif isinstance(layer, (ReLU, Sigmoid, Tanh)):
            kind, detail = "Activ", type(layer).__name__
        elif isinstance(layer, Dense):
            kind, detail = "Full", f"{layer.n_in} -> {layer.n_out}"
        else:
            kind, detail = type(layer).__name__, ""
        counters[kind] = counters.get(kind, 0) + 1
        boxes.append((kind, f"{kind}{counters[kind]}\n{detail}", tuple(shape)))
    return boxes


def cnn_structure_figure(model=None):
    """The thesis figure "Structure of the implemented CNN", drawn from the real model.

    Boxes (Conv, Pool, Activ, Full) come from ``thesis_cnn()`` itself, with the shape
    each layer really outputs, so the picture cannot drift from the code.
    """
    from matplotlib.patches import FancyBboxPatch
    from .nn import thesis_cnn
    model = thesis_cnn() if model is None else model
    boxes = network_boxes(model)
    n = len(boxes)
    fig, ax = plt.subplots(figsize=(1.45 * n + 0.4, 2.6))
    ax.set_xlim(-0.2, 1.45 * n)
    ax.set_ylim(-0.2, 2.1)
    ax.axis("off")
    for i, (kind, label, shape) in enumerate(boxes):
        x = 1.45 * i
        ax.add_patch(FancyBboxPatch((x, 0.75), 1.1, 0.95, boxstyle="round,pad=0.04",
                                    fc=_BOX_STYLE.get(kind, "white"), ec="0.3"))
        ax.text(x + 0.55, 1.22, label, ha="center", va="center", fontsize=8)
        ax.text(x + 0.55, 0.5, " x ".join(map(str, shape)), ha="center", va="center",
                fontsize=8, color="0.25")
        if i:
            ax.annotate("", xy=(x - 0.04, 1.22), xytext=(x - 0.31, 1.22),
                        arrowprops=dict(arrowstyle="->", color="0.3"))
    total = sum(p.size for _, p, _ in model.parameters())
    ax.text(0, 0.05, f"{model.name}: {total} parameters; shapes below each box are the "
            f"real output shapes (channels x rows x columns)", fontsize=8, color="0.35")
    ax.set_title("Structure of the implemented CNN (Conv - convolutional layer, Pool - "
                 "pooling layer, Activ - activation layer, Full - fully connected layer)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def _small_ann():
    """The thesis listing's ANN: 2 inputs, 1 hidden neuron, 1 output, its numbers."""
    from .nn import ANN
    net = ANN.from_topology([2, 1, 1], name="NN 1")
    dense = [leaf for leaf in net.leaves() if "W" in leaf.params]
    dense[0].params["W"][:] = [[0.1], [0.4]]
    dense[0].params["b"][:] = [0.2]
    dense[1].params["W"][:] = [[0.5]]
    dense[1].params["b"][:] = [0.3]
    return net


def _small_cnn():
    """A tiny CNN in the spirit of the thesis listing: one 2x2 kernel, one output."""
    from .nn import CNN, Conv2D
    net = CNN((1, 3, 3), name="NN 2", seed=0)
    net.add(Conv2D(1, 1, 2, rng=net.rng))
    net.add_output_layer(1)
    conv, dense = [leaf for leaf in net.leaves() if "W" in leaf.params]
    conv.params["W"][:] = [[[[0.1, 0.5], [0.4, 0.9]]]]
    conv.params["b"][:] = [0.3]
    dense.params["W"][:] = [[0.7], [0.6], [0.2], [0.5]]
    dense.params["b"][:] = [0.5]
    return net


def model_listing(model, max_numbers: int = 12) -> str:
    """The JSON that ``save_model`` really writes for ``model``, laid out like the thesis.

    The file is written to a temporary folder and read back; arrays longer than
    ``max_numbers`` are cut with "...". The architecture entry is summarised.
    """
    import json
    import tempfile
    from pathlib import Path
    from .nn import save_model
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        save_model(model, path)
        doc = json.loads(path.read_text())

    def short(value):
        flat = np.asarray(value, dtype=float).ravel()
        text = json.dumps(np.round(np.asarray(value, dtype=float), 3).tolist())
        if flat.size > max_numbers:
            text = json.dumps(np.round(flat[:max_numbers], 3).tolist())[:-1] + ", ...]"
        return text

    lines = ["{", f'  "name": {json.dumps(doc["name"])},']
    for key, value in doc.items():
        if key in ("name", "architecture", "format_version"):
            continue
        if isinstance(value, dict):
            lines.append(f'  "{key}": {{')
            lines += [f'    "{k}": {short(v)},' for k, v in value.items()]
            lines[-1] = lines[-1].rstrip(",")
            lines.append("  },")
        else:
            lines.append(f'  "{key}": {short(value)},')
    layers = ", ".join(layer["type"] for layer in doc["architecture"]["layers"])
    lines.append(f'  "format_version": {doc["format_version"]},')
    lines.append(f'  "architecture": {{"class": "{doc["architecture"]["class"]}", '
                 f'"layers": [{layers}], ...}}')
    lines.append("}")
    return "\n".join(lines)


def saved_model_figure(kind="ann"):
    """The thesis listings "Example of file containing saved ANN/CNN model configuration",
    rendered from a real file written by ``chesslab.nn.save_model``."""
    if kind not in ("ann", "cnn"):
        raise ValueError(f"kind must be 'ann' or 'cnn', got {kind!r}")
    model = _small_ann() if kind == "ann" else _small_cnn()
    text = model_listing(model)
    n_lines = text.count("\n") + 1
    fig, ax = plt.subplots(figsize=(7.2, 0.17 * n_lines + 0.6))
    ax.axis("off")
    ax.text(0.01, 0.98, text, family="monospace", fontsize=8.5, va="top", ha="left",
            transform=ax.transAxes)
    what = "ANN" if kind == "ann" else "CNN"
    ax.set_title(f"Example of file containing saved {what} model configuration "
                 f"(written by save_model)", fontsize=9)
    fig.tight_layout()
    return fig


# --- the command line: python -m chesslab figures ------------------------------------
#: A middlegame used by the plane figures (Giuoco Piano main line after 8...d5).
EXAMPLE_LINE = "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+ Bd2 Bxd2+ Nbxd2 d5"
RESULTS_DIR = None   # set below (data/results), kept here so tests can point elsewhere


def example_position() -> chess.Board:
    board = chess.Board()
    for san in EXAMPLE_LINE.split():
        board.push_san(san)
    return board


def _results_dir():
    from .files import DATA_DIR
    return RESULTS_DIR if RESULTS_DIR is not None else DATA_DIR / "results"


def read_results(name: str, command: str):
    """A results file from data/results/, with the command that makes it when missing."""
    from .files import read_json
    path = _results_dir() / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"results file data/results/{name}.json is missing; "
                                f"make it with `{command}`")
    return read_json(path, "results file")


def figure_registry():
    """name -> (function making the figure, thesis-style caption)."""
    return {
        "game_tree_fragment": (game_tree_figure, "Game tree fragment example (1 - chess "
                               "board representation, 2 - move command, 3 - evaluation "
                               "value)."),
        "piece_table": (piece_table_figure, "The list of chess pieces types."),
        "cnn_structure": (cnn_structure_figure, "Structure of the implemented CNN (Conv - "
                          "convolutional layer, Pool - pooling layer, Activ - activation "
                          "layer, Full - fully connected layer)."),
        "saved_model_ann": (lambda: saved_model_figure("ann"),
                            "Example of file containing saved ANN model configuration."),
        "saved_model_cnn": (lambda: saved_model_figure("cnn"),
                            "Example of file containing saved CNN model configuration."),
        "planes14": (lambda: planes14_figure(example_position(),
                                             "planes14: Giuoco Piano after 8...d5"),
                     "The tutorial's 14 input planes of a middlegame position."),
        "planes9": (lambda: planes9_figure(example_position(),
                                           "planes9: Giuoco Piano after 8...d5 (White to move)"),
                    "The actor-critic's 9 input planes of the same position."),
        "training_curves": (training_curves_figure, "ANN vs CNN training curves: the "
                            "thesis pipeline on the same data."),
        "accuracy_table": (accuracy_table_figure, "Accuracy of every evaluator on the same "
                           "test split."),
        "depth_cost": (depth_cost_figure, "Decision time and positions visited vs the "
                       "depth limit: minimax, alpha-beta and the full search."),
        "tournament": (tournament_figure, "Round robin between the evaluators."),
    }


def save_figure(fig, out_dir, name, formats=("png", "svg")):
    """Save ``fig`` as out_dir/name.png and .svg, byte-for-byte reproducible."""
    from pathlib import Path
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    with plt.rc_context({"svg.hashsalt": "chesslab", "svg.fonttype": "path"}):
        for fmt in formats:
            path = out_dir / f"{name}.{fmt}"
            metadata = {"Date": None} if fmt == "svg" else {"Software": None}
            fig.savefig(path, dpi=110, metadata=metadata)
            paths.append(path)
    plt.close(fig)
    return paths


def make_figures(out_dir="figures", only=None, progress=True):
    """Draw the figures (all, or the names in ``only``) into ``out_dir``.

    Returns [(name, status)], status "ok" or the reason a figure was skipped (a missing
    results file says which command makes it).
    """
    from tqdm.auto import tqdm
    registry = figure_registry()
    names = list(registry) if not only else list(only)
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise ValueError(f"unknown figure(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(registry)}")
    report = []
    for name in tqdm(names, desc="figures", disable=not progress):
        try:
            fig = registry[name][0]()
        except FileNotFoundError as exc:
            report.append((name, f"skipped: {exc}"))
            continue
        save_figure(fig, out_dir, name)
        report.append((name, "ok"))
    return report


def _cli_figures(args):
    import time
    from .files import check_writable_dir
    check_writable_dir(args.out, "--out folder")
    start = time.perf_counter()
    report = make_figures(args.out, args.only, progress=not args.quiet)
    for name, status in report:
        print(f"{name:22s} {status}")
    made = sum(status == "ok" for _, status in report)
    print(f"{made} figure(s) written to {args.out}/ (PNG + SVG) in "
          f"{time.perf_counter() - start:.1f} s")
    return 0 if made == len(report) else 1


def register_cli(subparsers):
    p = subparsers.add_parser("figures", help="draw the thesis figures into figures/")
    p.add_argument("--out", default="figures", help="output folder (default: figures)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these figures")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cli_figures)


# --- figures from the search and from measured results ---------------------------------
def game_tree_figure(depth: int = 3, levels: int = 2, width: int = 3):
    """The thesis figure "Game tree fragment example": boards at nodes (1), move commands
    on edges (2), evaluation values (3), the minimax path in red.

    The tree is built to the thesis's default depth limit (3); its top ``levels`` are
    drawn, each node with the value minimax backed up from the leaves."""
    from .evaluation import load_evaluator
    from .tree import GameTree, draw_fragment
    board = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bc4 Nf6".split():     # Two Knights Defence: White to move
        board.push_san(san)
    tree = GameTree(board, load_evaluator("pst"), depth=depth)
    tree.minimax()
    ax = draw_fragment(tree, levels=levels, width=width)
    ax.set_title(f"Game tree fragment: depth limit {depth}, top {levels} levels drawn, "
                 f"{width} children per node; pst evaluation, minimax values in "
                 f"centipawns for White", fontsize=10)
    return ax.figure


_ALGO_STYLE = {"minimax": ("#c0392b", "o"), "alphabeta": ("#2980b9", "s"),
               "full": ("#27ae60", "^")}


def depth_cost_figure(data=None):
    """Decision cost vs depth limit: nodes and seconds of minimax, alpha-beta and the
    full search (log scale), from ``python -m chesslab results depth-cost``."""
    data = data or read_results("depth_cost", "python -m chesslab results depth-cost")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for algorithm in dict.fromkeys(r["algorithm"] for r in data["rows"]):
        rows = [r for r in data["rows"] if r["algorithm"] == algorithm]
        color, marker = _ALGO_STYLE.get(algorithm, ("0.3", "x"))
        depths = [r["depth"] for r in rows]
        for ax, key in zip(axes, ("nodes", "seconds")):
            ax.plot(depths, [max(r[key], 1e-4) for r in rows], marker=marker, color=color,
                    label=algorithm)
    for ax, label in zip(axes, ("positions visited", "seconds")):
        ax.set_yscale("log")
        ax.set_xlabel("depth limit (plies)")
        ax.set_ylabel(label)
        ax.set_xticks(sorted({r["depth"] for r in data["rows"]}))
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=8)
    n = len(data["positions"])
    fig.suptitle(f"Cost of a decision vs depth ({data['evaluator']} evaluation, summed over "
                 f"{n} positions, measured {data['date']})", fontsize=10)
    fig.tight_layout()
    return fig


def tournament_figure(data=None):
    """Round-robin results as a heat map: each cell is the row player's score against
    the column player, from ``python -m chesslab results tournament``."""
    from .results import score_matrix
    data = data or read_results("tournament", "python -m chesslab results tournament")
    players, matrix = score_matrix(data)
    grid = np.array([[np.nan if s is None else s for s in row] for row in matrix])
    n = len(players)
    fig, ax = plt.subplots(figsize=(1.0 * n + 2.6, 0.8 * n + 1.4))
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8)
    means = np.nanmean(grid, axis=1)
    ax.set_xticks(range(n))
    ax.set_xticklabels(players, rotation=40, ha="right", fontsize=8)
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{p} ({m:.2f})" for p, m in zip(players, means)], fontsize=8)
    ax.set_xlabel("opponent")
    ax.set_title(f"Score of the row player (mean in brackets); {data['games_per_pair']} "
                 f"games per pair", fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.04)
    fig.tight_layout()
    return fig


# --- the training figures (from the shipped model files and results table) -------------
_CURVE_NETS = (("ann64", "thesis ANN, 64 numbers"), ("cnn64", "thesis CNN, 64 numbers"),
               ("ann", "thesis ANN layers, 14 planes"), ("cnn", "thesis CNN layers, 14 planes"))


def training_curves_figure(names=_CURVE_NETS):
    """ANN vs CNN trained by the same pipeline on the same data: validation loss and
    accuracy per epoch, read from the training history stored in each model file."""
    from .training import load_history
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9.5, 3.6))
    drawn = 0
    for i, (name, label) in enumerate(names):
        try:
            history = load_history(name)
        except FileNotFoundError:
            continue
        style = "-" if "64" in name else "--"
        color = "#2980b9" if name.startswith("ann") else "#c0392b"
        ax_loss.plot(history.epoch, history.val_loss, style, color=color, label=label)
        ax_acc.plot(history.epoch, history.val_accuracy, style, color=color, label=label)
        drawn += 1
    if not drawn:
        raise FileNotFoundError("no trained ANN/CNN model files in data/models; train them "
                                "with `python -m chesslab train all`")
    ax_loss.set(xlabel="epoch", ylabel="validation MSE (scaled target)",
                title="validation loss")
    ax_acc.set(xlabel="epoch", ylabel="sign accuracy", title="validation accuracy")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
    ax_acc.legend(fontsize=7)
    fig.suptitle("ANN vs CNN: the same pipeline on the same data", fontsize=10)
    fig.tight_layout()
    return fig


def accuracy_table_figure(table=None):
    """The evaluators' accuracy table on the test split, drawn as a table."""
    table = table or read_results("evaluators", "python -m chesslab evaluate-models")
    header = ["evaluator", "depth-1 MAE (cp)", "static MAE (cp)", "correlation",
              "sign accuracy", "parameters"]
    rows = [[r["evaluator"],
             f"{r['search_depth1']['all']['mae_cp']:.0f}" if "search_depth1" in r else "-",
             f"{r['test']['mae_cp']:.0f}", f"{r['test']['correlation']:.3f}",
             f"{r['test']['sign_accuracy']:.3f}", f"{r['parameters']:,}"]
            for r in table["rows"]]
    fig, ax = plt.subplots(figsize=(7.6, 0.32 * len(rows) + 1.0))
    ax.axis("off")
    cells = ax.table(cellText=rows, colLabels=header, loc="center", cellLoc="center")
    cells.scale(1, 1.3)
    cells.set_fontsize(9)
    def value(i, c):
        text = rows[i][c]
        if text == "-":
            return -float("inf")
        return float(text) * (-1 if c in (1, 2) else 1)     # lower MAE is better
    best = {c: max(range(len(rows)), key=lambda i: value(i, c)) for c in (1, 2, 3, 4)}
    for (r, c), cell in cells.get_celld().items():
        if r == 0:
            cell.set_text_props(weight="bold")
            cell.set_facecolor("0.9")
        elif best.get(c) == r - 1:
            cell.set_facecolor("#d9ead3")
    n = table["rows"][0]["test"]["positions"]
    ax.set_title(f"Evaluators on the same test split ({n:,} positions; depth-1: a search "
                 f"of one move + captures, 2,000 of them)\nsign accuracy: the same side "
                 f"better as Stockfish says, where |cp| > {table['sign_margin_cp']}; best "
                 f"in green", fontsize=9)
    fig.tight_layout()
    return fig
