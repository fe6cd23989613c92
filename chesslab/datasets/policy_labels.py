"""Stockfish's move preferences as training targets for the policy-value network.

For each position Stockfish scores its ``multipv`` best moves at a fixed depth; the
scores, from the side to move's view, become a move distribution at a temperature
(``policy_target``) and the best line's win/draw/loss estimate becomes the value target.
A far richer signal than "the move that was played": it says which moves are nearly as
good, and how sure the position is.

The positions are the game and search-leaf positions of the labelled dataset, in a
seeded order, labelled shard by shard. A finished shard is a file of its own (written
atomically), so the run can stop at any time and the next call labels only the shards
that are missing; ``load_policy_labels`` reads whatever is done, in order.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

from chesslab.base.files import DATA_DIR, atomic_path, read_npz
from chesslab.base.parallel import parallel_map
from chesslab.base.stockfish import find_stockfish, stop_worker_engines, worker_engine
from chesslab.board.rules import outcome
from chesslab.board.scores import LABEL_MATE_CP

__all__ = ["label_policy_board", "policy_order", "label_policy_shards", "load_policy_labels",
           "policy_target", "COLUMNS", "POLICY_LABELS"]

#: Where ``python -m chesslab data policy-labels`` keeps its shards by default.
POLICY_LABELS = DATA_DIR / "policy_labels"
#: What a shard holds, one row per position (moves best first, "" where fewer exist).
COLUMNS = ("fen", "game_id", "ply", "source", "moves", "scores", "wdl")


def label_policy_board(engine, board: chess.Board, depth: int = 8, multipv: int = 8):
    """``(moves, scores, wdl)``: Stockfish's ``multipv`` best moves (UCI, best first),
    their centipawns from the side to move's view (a mate in n as
    ``+-(LABEL_MATE_CP - n)``) and the best line's win/draw/loss per mille, side to move.

    A finished game has no moves: a mated side scores (0, 0, 1000), a draw (0, 1000, 0).
    Each position starts with an empty hash, so a label depends only on the position.
    """
    ended = outcome(board)
    if ended is not None:
        return [], [], ((0, 1000, 0) if ended.winner is None else (0, 0, 1000))
    infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=multipv,
                           game=object())
    moves, scores = [], []
    for info in infos:
        if info.get("pv"):
            moves.append(info["pv"][0].uci())
            cp = info["score"].pov(board.turn).score(mate_score=LABEL_MATE_CP)
            scores.append(int(np.clip(cp, -LABEL_MATE_CP, LABEL_MATE_CP)))
    wdl = infos[0].get("wdl") or infos[0]["score"].wdl(model="sf", ply=board.ply())
    side = wdl.pov(board.turn)
    return moves, scores, (side.wins, side.draws, side.losses)


def _label(fen: str, depth: int, multipv: int, engine_path: str):
    return label_policy_board(worker_engine(engine_path), chess.Board(fen), depth, multipv)


def policy_order(dataset, seed: int = 0) -> np.ndarray:
    """Row indices of the dataset's game and search-leaf positions in a seeded order
    (random positions are left out: no game reaches them)."""
    rows = np.flatnonzero(np.asarray(dataset.source) != "random")
    return rows[np.random.default_rng(seed).permutation(len(rows))]


def _shard_path(folder, depth, multipv, seed, index) -> Path:
    return Path(folder) / f"d{depth}_k{multipv}_seed{seed}_{index:05d}.npz"


def label_policy_shards(dataset, folder=POLICY_LABELS, depth: int = 8, multipv: int = 8, seed: int = 0,
                        shard: int = 1000, limit: int | None = None, workers=1,
                        progress: bool = True) -> int:
    """Label the first ``limit`` positions of ``policy_order(dataset, seed)`` (all by
    default) into shards of ``shard`` positions in ``folder``; shards already there are
    kept. Returns the number of positions labelled now."""
    for name, value in (("depth", depth), ("multipv", multipv), ("shard", shard)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    order = policy_order(dataset, seed)[:limit]
    work = partial(_label, depth=depth, multipv=multipv, engine_path=find_stockfish())
    todo = [i for i in range(0, len(order), shard)
            if not _shard_path(folder, depth, multipv, seed, i // shard).exists()]
    done = 0
    try:
        for start in tqdm(todo, desc=f"policy labels d{depth} k{multipv}",
                          disable=not progress):
            rows = order[start:start + shard]
            fens = [str(f) for f in dataset.fen[rows]]
            labels = parallel_map(work, fens, workers, chunksize=8)
            moves = np.full((len(rows), multipv), "", dtype="<U5")
            scores = np.zeros((len(rows), multipv), dtype=np.int16)
            for j, (m, s, _) in enumerate(labels):
                moves[j, :len(m)], scores[j, :len(s)] = m, s
            path = _shard_path(folder, depth, multipv, seed, start // shard)
            with atomic_path(path, suffix=".npz.tmp") as tmp:
                with open(tmp, "wb") as fh:
                    np.savez_compressed(
                        fh, fen=np.array(fens, dtype=str), game_id=dataset.game_id[rows],
                        ply=dataset.ply[rows], source=dataset.source[rows], moves=moves,
                        scores=scores, wdl=np.array([w for *_, w in labels], np.int16))
            done += len(rows)
    finally:
        stop_worker_engines()
    return done


def load_policy_labels(folder, depth: int = 8, multipv: int = 8, seed: int = 0,
                       shards: int | None = None) -> dict:
    """Every finished shard of that labelling run (or the first ``shards`` of them, a
    set that stays the same while labelling goes on), in order, as arrays of ``COLUMNS``."""
    paths = sorted(Path(folder).glob(f"d{depth}_k{multipv}_seed{seed}_*.npz"))
    if shards is not None:
        if len(paths) < shards:
            raise FileNotFoundError(f"{shards} policy-label shards asked for, {len(paths)} "
                                    f"in {folder}; label more with `python -m chesslab data "
                                    f"policy-labels`")
        paths = paths[:shards]
    if not paths:
        raise FileNotFoundError(f"no policy labels (depth {depth}, multipv {multipv}, seed "
                                f"{seed}) in {folder}; make them with `python -m chesslab "
                                f"data policy-labels --out {folder}`")
    shards = [read_npz(p, "policy-label shard") for p in paths]
    return {c: np.concatenate([s[c] for s in shards]) for c in COLUMNS}


def policy_target(scores, moves, temperature: float = 100.0) -> np.ndarray:
    """A distribution over one position's labelled moves: softmax of their centipawns
    divided by ``temperature`` (lower: sharper; the best move alone as it nears 0).
    Empty move slots get nothing."""
    scores = np.asarray(scores, dtype=float)
    present = np.asarray(moves) != ""
    if not present.any():
        return np.zeros(len(scores))
    if not temperature > 0:
        raise ValueError(f"temperature must be positive (centipawns), got {temperature!r}")
    z = np.where(present, scores / temperature, -np.inf)
    z = np.exp(z - z[present].max())
    return z / z.sum()
