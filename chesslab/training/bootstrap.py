"""The supervised start of the full-game policy-value network: learn from game records.

Before self-play can teach anything, the network learns the moves that were played in
the shipped Stockfish game records (the policy target) and how good each position is
(the value target: Stockfish's label of the position when data/positions.npz has one,
else the game's result). The last tenth of the games is held out to measure how often
the network's top move is the move that was played.

    python -m chesslab train bootstrap --out data/models/policy_value_bootstrap.json
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import chess
import numpy as np

from chesslab.datasets.positions import DEFAULT_DATASET, load_dataset, position_key
from chesslab.board.encoding import move_to_index
from chesslab.board.rules import RESULTS, result_for
from chesslab.datasets.records import DEFAULT_GAMES, read_games, walk
from chesslab.nn import Adam
from chesslab.evaluators.policy_value import (PolicyValueNet, load_policy_value, net_view_row, policy_targets,
                           save_policy_value, train_epochs)


def split_games(records) -> tuple[list, list]:
    """(training games, held-out games): the first nine tenths and the last tenth. The
    bootstrap trains on the first part and measures on the second; self-play starts
    and anchor positions come from the first part only."""
    cut = max(1, len(records) * 9 // 10)
    return records[:cut], records[cut:]


@functools.lru_cache(maxsize=1)
def shipped_game_split() -> tuple[list, list]:
    """``split_games`` of the shipped game records (read once per process)."""
    return split_games(read_games(DEFAULT_GAMES))


def stockfish_labels() -> dict:
    """``{position_key: cp from White's side}`` of every position in data/positions.npz."""
    ds = load_dataset(DEFAULT_DATASET)
    return {position_key(f): int(cp) for f, cp in zip(ds.fen.tolist(), ds.cp.tolist())}


def game_samples(games, every: int = 1, labels=None, scale: float = 400.0,
                 labelled_only: bool = False) -> list[dict]:
    """Training rows from game records: the policy target is the move played, the value
    target the game's result for the side to move, or ``tanh(cp / scale)`` of a
    Stockfish label when ``labels`` (``{position_key: cp from White's side}``) has one.
    ``labelled_only`` keeps only the positions that have a label: a game's result says
    little about its opening moves, a Stockfish score says something about each position.
    """
    rows = []
    for game in games:
        result = game.headers.get("Result", "*")
        if result not in RESULTS:
            continue
        for ply, board, move in walk(game):
            if move is None:
                break
            cp = labels.get(position_key(board.fen())) if labels else None
            if ply % every == 0 and (cp is not None or not labelled_only):
                legal = [move_to_index(m) for m in board.generate_legal_moves()]
                played = legal.index(move_to_index(move))
                pi = [0.0] * len(legal)
                pi[played] = 1.0
                white = board.turn == chess.WHITE
                z = (result_for(result, board.turn) if cp is None
                     else math.tanh((cp if white else -cp) / scale))
                rows.append({"fen": board.fen(), "legal": legal, "pi": pi, "z": z})
    return rows


def bootstrap(out, pgn=None, games: int = 400, every: int = 2, epochs: int = 3,
              channels: int = 32, blocks: int = 2, lr: float = 1e-3, batch_size: int = 64,
              c: float = 1e-4, seed: int = 0, labelled_only: bool = False, progress=print):
    """Supervised start for the full game: learn the moves and results of game records.

    Resumable: after each epoch the network is saved to ``out`` with the number of
    epochs done; calling again continues with the next epoch.
    """
    out = Path(out)
    pgn = Path(pgn or DEFAULT_GAMES)
    records = read_games(pgn, limit=games)
    labels = stockfish_labels() if DEFAULT_DATASET.exists() else None
    # the last tenth of the games is held out to measure move-prediction accuracy
    train_games, test_games = split_games(records)
    train_rows = game_samples(train_games, every, labels, labelled_only=labelled_only)
    test_rows = game_samples(test_games, every, labels, labelled_only=labelled_only)
    if out.exists():
        net = load_policy_value(out)
        done = net.training_notes.get("epochs", 0)
        history = net.training_notes.get("history", [])
    else:
        net, done, history = PolicyValueNet(channels, blocks, seed=seed,
                                            name="bootstrapped policy-value net"), 0, []
    progress(f"{len(train_rows)} training positions from {len(train_games)} games, {len(test_rows)} "
             f"held out; Stockfish labels: {'yes' if labels else 'no (game results)'}")
    for epoch in range(done, epochs):
        # a fresh Adam per epoch keeps a resumed run identical to an uninterrupted one
        # the step shrinks by a quarter each epoch: big steps first, fine ones at the end
        epoch_lr = lr * 0.75 ** epoch
        # every position also under a random allowed symmetry, and half of them with the
        # colours swapped: the board is not flipped for Black in the 9 planes, so without
        # this the net learns two games, one per colour, from half the data each
        loss = train_epochs(net, train_rows, Adam(epoch_lr), 1, batch_size, c, seed=seed + epoch,
                            augment=True, mirror_colours=True)[0]
        accuracy, value_mse = held_out_scores(net, test_rows)
        history.append({"epoch": epoch + 1, "lr": epoch_lr, **loss,
                        "held_out_move_accuracy": accuracy, "held_out_value_mse": value_mse})
        save_policy_value(net, out, epochs=epoch + 1, history=history, games=len(records),
                          pgn=pgn.name, every=every, labelled_only=labelled_only,
                          value_target="stockfish cp" if labels else "game result")
        progress(f"epoch {epoch + 1}: loss {loss['total']:.3f} (policy {loss['policy']:.3f}, "
                 f"value {loss['value']:.3f}), held-out move accuracy {accuracy:.3f}, "
                 f"value mse {value_mse:.3f}")
    return net


def held_out_scores(net, rows, batch: int = 256) -> tuple[float, float]:
    """(how often the network's top move is the move played, mean (z - v)^2)."""
    hits, squared = 0, 0.0
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        boards = [chess.Board(r["fen"]) for r in part]
        logits, value = net.predict(net.encode(boards))
        pi, mask = policy_targets([net_view_row(net, b, r) for b, r in zip(boards, part)])
        hits += int(np.sum(np.argmax(np.where(mask, logits, -np.inf), 1) == np.argmax(pi, 1)))
        squared += float(np.sum((np.array([r["z"] for r in part]) - value.reshape(-1)) ** 2))
    return hits / max(len(rows), 1), squared / max(len(rows), 1)
