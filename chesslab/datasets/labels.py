"""Stockfish labels: a centipawn score and a win/draw/loss estimate for each position.

Every position is scored at a fixed depth: centipawns from White's side, and the
engine's win/draw/loss estimate per mille. A forced mate in ``n`` moves is stored as
``±(LABEL_MATE_CP - n)`` (python-chess ``score(mate_score=LABEL_MATE_CP)``); every score
is clipped to ``±LABEL_MATE_CP`` (``chesslab.board.scores`` says why labels use a smaller
scale than the search's ``MATE``). Each worker process keeps one engine for all its
positions, and a label cache lets an interrupted run resume.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

from chesslab.base.files import atomic_path, read_npz
from chesslab.board.rules import outcome
from chesslab.base.parallel import parallel_map
from chesslab.board.scores import LABEL_MATE_CP
from chesslab.base.stockfish import find_stockfish, stop_worker_engines, worker_engine


def label_board(engine, board: chess.Board, depth: int = 10):
    """Stockfish's verdict on one position: ``(cp, (win, draw, loss))``, White's side.

    ``cp`` is clipped centipawns (mates as ``±(LABEL_MATE_CP - moves)``), the WDL triple
    is per mille. Finished positions need no search: White mated is ``-LABEL_MATE_CP``,
    Black mated ``+LABEL_MATE_CP``, a draw 0.
    """
    ended = outcome(board)
    if ended is not None:
        if ended.winner is None:
            return 0, (0, 1000, 0)
        return ((LABEL_MATE_CP, (1000, 0, 0)) if ended.winner
                else (-LABEL_MATE_CP, (0, 0, 1000)))
    # game=object() starts a new game (ucinewgame): an empty hash, so labels do not
    # depend on which positions the engine saw before.
    info = engine.analyse(board, chess.engine.Limit(depth=depth), game=object())
    score = info["score"].white()
    cp = int(np.clip(score.score(mate_score=LABEL_MATE_CP), -LABEL_MATE_CP, LABEL_MATE_CP))
    wdl = info.get("wdl") or info["score"].wdl(model="sf15.1", ply=board.ply())
    return cp, tuple(int(x) for x in wdl.white())


def _label_fen(fen: str, depth: int, engine_path: str):
    return label_board(worker_engine(engine_path), chess.Board(fen), depth)


def label_fens(fens, depth: int = 10, workers: int = 1, progress: bool = True,
               cache=None):
    """Label many positions: arrays ``cp`` (N,) and ``wdl`` (N, 3), int16.

    Each of the ``workers`` processes starts one Stockfish and keeps it for all its
    positions (starting an engine costs more than a shallow search). With ``cache``
    (an .npz path), labels are saved there as they come and reused by the next call
    with the same depth, so an interrupted run resumes where it stopped.
    """
    fens = [str(f) for f in fens]
    if not fens:
        raise ValueError("no positions to label (the list of FENs is empty)")
    known = _read_label_cache(cache, depth)
    todo = list(dict.fromkeys(f for f in fens if f not in known))
    work = partial(_label_fen, depth=depth, engine_path=find_stockfish())
    with tqdm(total=len(todo), desc=f"labels d{depth}", disable=not progress) as bar:
        def keep(i, label):
            known[todo[i]] = label
            bar.update()
            if cache and ((i + 1) % 10_000 == 0 or i + 1 == len(todo)):
                _write_label_cache(cache, depth, known)
        try:
            parallel_map(work, todo, workers, on_result=keep, chunksize=16)
        finally:
            stop_worker_engines()
    cp = np.array([known[f][0] for f in fens], dtype=np.int16)
    wdl = np.array([known[f][1] for f in fens], dtype=np.int16).reshape(len(fens), 3)
    return cp, wdl


def _read_label_cache(cache, depth):
    if not cache or not Path(cache).exists():
        return {}
    npz = read_npz(cache, "label cache")
    if any(k not in npz for k in ("depth", "fen", "cp", "wdl")):
        raise ValueError(f"label cache {cache} is not a chesslab label cache (it lacks "
                         f"depth, fen, cp or wdl); give another --cache file")
    if int(npz["depth"]) != depth:
        return {}
    return {f: (int(c), tuple(w)) for f, c, w in
            zip(npz["fen"].tolist(), npz["cp"].tolist(), npz["wdl"].tolist())}


def _write_label_cache(cache, depth, known):
    with atomic_path(cache, suffix=".npz.tmp") as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, depth=depth, fen=np.array(list(known), dtype=str),
                     cp=np.array([c for c, _ in known.values()], dtype=np.int16),
                     wdl=np.array([w for _, w in known.values()], dtype=np.int16))
