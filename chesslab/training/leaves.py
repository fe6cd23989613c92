"""Positions a search meets: the leaves of searches, as training data for an evaluator.

A network trained on positions from games is tested on positions from games, and there
it can beat the hand-written tables (notebook 05). A search asks it about other
positions: the leaves of its tree, most of them after a move no player would make. Its
errors there are what the search exploits: among thousands of leaves it picks the one
the network overrates. So we sample leaves of real searches (started from positions of
the training games only, so the test split stays unseen), label them with Stockfish and
train on them too, as Stockfish's own NNUE learns from positions its search produced.
"""
from __future__ import annotations

import random

import chess
import numpy as np

from chesslab.datasets.positions import Dataset, position_key, split_by_game
from chesslab.base.files import file_tag
from chesslab.evaluators.registry import load_evaluator, model_path
from chesslab.matches.players import model_tag
from chesslab.datasets.labels import label_fens
from chesslab.board.rules import outcome
from chesslab.search.searcher import search


class LeafRecorder:
    """Wraps an evaluator: answers as it does and writes down a random share of the
    positions it is asked about (``rate``, seeded)."""

    incremental = False              # the search calls evaluate(board) at every leaf

    def __init__(self, evaluator, rate: float, rng: random.Random):
        if not 0 < rate <= 1:
            raise ValueError(f"rate (the share of leaves kept) must be in (0, 1], got {rate}")
        self.evaluator, self.rate, self.rng = evaluator, rate, rng
        self.fens = []

    def evaluate(self, board: chess.Board) -> float:
        if self.rng.random() < self.rate:
            self.fens.append(board.fen())
        return self.evaluator.evaluate(board)

    def evaluate_batch(self, boards):
        return [self.evaluate(b) for b in boards]


def search_leaves(roots, evaluators, depth: int = 3, rate: float = 0.03, seed: int = 0,
                  exclude=()):
    """Sample leaves of a ``depth`` search from each root position.

    ``evaluators`` take turns (root 0 the first, root 1 the second, ...), so the leaves
    are those each one's own search visits. Returns ``(fens, root_index)``: each
    position once, none whose key (``datasets.positions.position_key``) is in ``exclude``.
    """
    if not evaluators:
        raise ValueError("search_leaves needs at least one evaluator to search with")
    rng = random.Random(seed)
    seen = set(exclude)
    fens, owners = [], []
    for i, fen in enumerate(roots):
        board = chess.Board(fen)
        if outcome(board) is not None:
            continue
        recorder = LeafRecorder(evaluators[i % len(evaluators)], rate, rng)
        search(board, recorder, depth=depth)
        for leaf in recorder.fens:
            key = position_key(leaf)
            if key not in seen:
                seen.add(key)
                fens.append(leaf)
                owners.append(i)
    return fens, np.array(owners, dtype=int)


def with_leaves(dataset: Dataset, fens, root_rows, cp, wdl, depth: int) -> Dataset:
    """``dataset`` plus the labelled leaves as rows of source ``"leaf"``.

    Each leaf keeps the game id and ply of the dataset row its search started from, so
    the split by game puts it beside its root (in the training part)."""
    root_rows = np.asarray(root_rows, dtype=int)
    n = len(fens)
    if not (len(root_rows) == len(cp) == len(wdl) == n):
        raise ValueError(f"leaves, their roots and their labels differ in number: {n} "
                         f"fens, {len(root_rows)} roots, {len(cp)} cp, {len(wdl)} wdl")

    leaves = Dataset(fen=np.asarray(fens, dtype=str), cp=np.asarray(cp),
                     wdl=np.asarray(wdl).reshape(n, 3), source=np.full(n, "leaf"),
                     game_id=dataset.game_id[root_rows], ply=dataset.ply[root_rows],
                     result=dataset.result[root_rows], sampled_by_rule=np.zeros(n, bool),
                     depth=np.full(n, depth))
    return dataset.concat(leaves)


def extend_with_leaves(dataset: Dataset, evaluators=("nnue", "pst"), roots: int = 3000,
                       rate: float = 0.03, search_depth: int = 3, depth: int = 8,
                       workers: int = 1, seed: int = 0, progress: bool = True,
                       cache=None, model=None) -> Dataset:
    """``dataset`` plus the labelled leaves of ``search_depth`` searches by each of
    ``evaluators`` (names, in turn) from ``roots`` game positions of the training part
    (split seed 0), labelled by Stockfish at ``depth``.

    Run it again after retraining a network on the result: its new searches meet new
    positions (``seed`` picks other roots). ``model``: the network file of the one
    evaluator of ``evaluators`` that reads one (default: its file in the models folder),
    e.g. the network you just retrained into a folder of your own. Each run is listed in
    the metadata, with a fingerprint of the file each evaluator searched with."""
    searchers, tags = _searchers(evaluators, model)    # a wrong name or file: before work
    train = split_by_game(dataset.game_id)[0]
    train = train[dataset.source[train] == "game"]
    if roots < 1 or roots > len(train):
        raise ValueError(f"roots must be between 1 and the {len(train)} game positions of "
                         f"the training part, got {roots}")
    chosen = np.sort(np.random.default_rng(seed).choice(train, roots, replace=False))
    fens, owners = search_leaves(dataset.fen[chosen], searchers, search_depth, rate, seed,
                                 exclude={position_key(f) for f in dataset.fen})
    if not fens:
        return dataset
    cp, wdl = label_fens(fens, depth, workers, progress, cache)
    grown = with_leaves(dataset, fens, chosen[owners], cp, wdl, depth)
    run = {"roots": roots, "rate": rate, "search_depth": search_depth, "depth": depth,
           "seed": seed, "positions": len(fens),
           "evaluators": tags}
    grown.metadata["leaves"] = [*dataset.metadata.get("leaves", []), run]
    return grown


def _searchers(evaluators, model=None):
    """The evaluators named in ``evaluators``, ``model`` the file of the one that reads
    a file, and the fingerprint of each one's file by name (None: it reads none)."""
    if not evaluators:
        raise ValueError("data leaves needs at least one evaluator to search with")
    readers = [name for name in evaluators if model_path(name) is not None]
    if model is not None and len(readers) != 1:
        raise ValueError(f"a model file is for the one evaluator that reads a network file, "
                         f"but of {', '.join(evaluators)} "
                         + (f"{len(readers)} do ({', '.join(readers)}): search with one of "
                            f"them" if readers else "none does: add one such as nnue"))
    searchers, tags = [], {}
    for name in evaluators:
        own = model if model is not None and name in readers else None
        searchers.append(load_evaluator(name, own))
        tags[name] = file_tag(own) if own is not None else model_tag(name)
    return searchers, tags
