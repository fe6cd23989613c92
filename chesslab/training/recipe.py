"""The training recipe's data steps: which positions a network trains on, seen how.

Each step is one ``TrainConfig`` switch (``chesslab.training.pipeline`` lists them and what they
buy; notebook 05 measures each): quiet positions (where a capture sequence ends),
colour-mirrored and a-h flipped copies, and the side to move's view.
"""
from __future__ import annotations

import chess
import numpy as np

from chesslab.datasets.positions import Dataset
from chesslab.evaluators.neural import side_to_move_view, turn_signs
from chesslab.search.quiet import quiet_leaf

#: The recipe (see the module docstring), every switch on: the shipped models' settings,
#: changed for each net by its ``training`` entry in the registry (retraining all the
#: shipped nets is a long CPU job: ``python -m chesslab train nets``).
RECIPE = dict(perspective="side_to_move", target="wdl", quiet=True, flip=True,
              extra_plies=True)

#: The recipe, one step at a time (each row adds its switch to the one above).
RECIPE_STEPS = (
    ("thesis pipeline", {}),
    ("+ side to move", {"perspective": "side_to_move"}),
    ("+ win-probability target", {"target": "wdl"}),
    ("+ quiet positions", {"quiet": True}),
    ("+ a-h flips", {"flip": True}),
    ("+ every ply (depth 8)", {"extra_plies": True}),
    ("+ search leaves", {"leaves": True}),
)


def training_positions(dataset: Dataset, quiet: bool = False, mirror: bool = False,
                       flip: bool = False):
    """(boards, cp from White's side) to train on: each position, or its quiet leaf
    (positions in check dropped), plus colour-mirrored copies with the score negated,
    plus left-right mirrored copies of positions without castling rights."""
    boards, cp = dataset.boards(), np.asarray(dataset.cp, dtype=np.float64)
    if quiet:
        leaves = [quiet_leaf(b) for b in boards]
        keep = [i for i, leaf in enumerate(leaves) if leaf is not None]
        boards, cp = [leaves[i] for i in keep], cp[keep]
    if mirror:
        boards = boards + [b.mirror() for b in boards]
        cp = np.concatenate([cp, -cp])
    if flip:
        no_castling = [i for i, b in enumerate(boards) if not b.castling_rights]
        boards = boards + [boards[i].transform(chess.flip_horizontal) for i in no_castling]
        cp = np.concatenate([cp, cp[no_castling]])
    return boards, cp


def base_depth(dataset: Dataset) -> int:
    """The depth of the dataset's main labels (validation and test have only these)."""
    return int(dataset.metadata.get("depth", int(dataset.depth.max())))


def network_view(boards, cp, perspective: str):
    """The boards and scores as a network with that perspective sees them."""
    if perspective == "side_to_move":
        return side_to_move_view(boards), np.asarray(cp) * turn_signs(boards)
    return boards, np.asarray(cp)
