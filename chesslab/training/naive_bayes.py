"""The Naive Bayes chapter's training data and the shipped model: positions sampled from
game records, labelled by each game's result.

The chapter samples every 6th move, every 2nd after 75% of the game, and always the last
(``chesslab.datasets.records.sample_plies``); whole games stay on one side of the split.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chesslab.datasets.positions import split_by_game
from chesslab.datasets.records import DEFAULT_GAMES, read_games, sample_plies, walk
from chesslab.evaluators.bayes import CLASSES, MODEL_PATH, GaussianNB, save_bayes
from chesslab.evaluators.features import StandardScaler, features_batch

__all__ = ["sampled_positions", "load_training_data", "train", "train_test_rows",
           "GameSample", "game_sample", "train_shipped"]


def sampled_positions(games):
    """The chapter's sample of every finished game, labelled by the game's result.

    Returns (boards, labels, game_ids, plies) where ``game_ids[i]`` is the index of the
    game in ``games``. Games without a result ("*") are skipped.
    """
    boards, labels, game_ids, plies = [], [], [], []
    for gid, game in enumerate(games):
        result = game.headers.get("Result", "*")
        if result not in CLASSES:
            continue
        keep = set(sample_plies(game.end().ply() - game.board().ply()))
        for ply, board, _ in walk(game):
            if ply in keep and ply > 0:
                boards.append(board.copy(stack=False))
                labels.append(result)
                game_ids.append(gid)
                plies.append(ply)
    return boards, np.array(labels), np.array(game_ids), np.array(plies)


def load_training_data(path=DEFAULT_GAMES, max_games: int | None = None):
    """Features, labels, game ids and plies of the chapter's sample of a PGN file."""
    games = read_games(path, limit=max_games)   # only the first max_games are parsed
    boards, labels, game_ids, plies = sampled_positions(games)
    return features_batch(boards), labels, game_ids, plies


def train(X, y, var_smoothing: float = 1e-9):
    """Fit a scaler on the training rows, then the classifier on the scaled rows."""
    scaler = StandardScaler().fit(X)
    return GaussianNB(var_smoothing).fit(scaler.transform(X), y, classes=CLASSES), scaler


def train_test_rows(game_ids, test_fraction: float = 0.2, seed: int = 0):
    """(train rows, test rows): whole games on one side (see datasets.positions.split_by_game)."""
    return split_by_game(game_ids, (1 - test_fraction, test_fraction), seed)


@dataclass
class GameSample:
    """The chapter's sample of every game of a PGN file, split by game."""

    X: np.ndarray            # features, one row per sampled position
    y: np.ndarray            # the game's result for each row
    game_ids: np.ndarray
    plies: np.ndarray
    train: np.ndarray        # row indices of the training games
    test: np.ndarray         # row indices of the test games
    info: dict               # what the split holds (recorded with the model and results)


def game_sample(pgn=DEFAULT_GAMES, test_fraction: float = 0.2, seed: int = 0) -> GameSample:
    """Features of the chapter's sample of every game in ``pgn``, split by game."""
    X, y, game_ids, plies = load_training_data(pgn)
    train_rows, test_rows = train_test_rows(game_ids, test_fraction, seed)
    counts = lambda labels: {c: int(np.sum(labels == c)) for c in CLASSES}  # noqa: E731
    info = {"games": Path(pgn).name, "seed": seed,
            "train_games": int(len(np.unique(game_ids[train_rows]))),
            "test_games": int(len(np.unique(game_ids[test_rows]))),
            "train_positions": counts(y[train_rows]), "test_positions": counts(y[test_rows])}
    return GameSample(X, y, game_ids, plies, train_rows, test_rows, info)


def train_shipped(sample: GameSample, path=MODEL_PATH, **info) -> Path:
    """The model ``load_evaluator("bayes")`` reads: fitted on the sample's training
    games, saved with what it was trained on (and ``info``, e.g. the command)."""
    nb, scaler = train(sample.X[sample.train], sample.y[sample.train])
    return save_bayes(path, nb, scaler, info={**sample.info, **info})
