"""How good are a player's moves, position by position?

Held-out labelled positions (``data policy-labels``: Stockfish's best moves with their
scores, from games the networks never trained on) ask a player for one move each. Two
numbers come back: how often it picks Stockfish's best move, and the expected score it
gives away, in win probability (``expected_score``) against Stockfish's best. A move
outside Stockfish's few best is searched alone by Stockfish at the labels' depth (with
an ``engine``); without one it counts as bad as the worst move listed, a lower bound.
Games answer "who is stronger" with a lot of noise (a 20-game score is
+-0.2); these positions answer "which search setting picks better moves" with much less,
which is what tuning the search needs (``python -m chesslab results mcts-tuning``).
"""
from __future__ import annotations

import hashlib
import itertools
import time
from contextlib import contextmanager
from pathlib import Path

import chess
import chess.engine
import numpy as np
from tqdm.auto import tqdm

from chesslab.base.files import file_tag, read_json, updating_json
from chesslab.base.stockfish import find_stockfish, open_engine, quit_engine
from chesslab.board.scores import LABEL_MATE_CP
from chesslab.datasets.policy_labels import POLICY_LABELS, load_policy_labels
from chesslab.evaluators.neural import expected_score
from chesslab.experiments.mcts_losses import positions_file as load_positions_file
from chesslab.experiments.store import result_path, stamp
from chesslab.matches.players import MCTS_AS_MANY_AS_FIT
from chesslab.search.mcts import DEFAULT_MODEL, MCTSPlayer, shipped_network
from chesslab.training.supervised import held_out_mask, spread_sample


#: The held-out positions come from the first shards only, so that they stay the same
#: while labelling goes on and results measured weeks apart compare position by position.
POSITION_SHARDS = 100


def held_out_positions(count: int, labels=POLICY_LABELS, shards: int = POSITION_SHARDS) -> dict:
    """``count`` labelled positions of held-out games (game id % 20 == 0) of the first
    ``shards`` shards, spread over all of them, with Stockfish's moves and scores;
    finished games left out."""
    data = load_policy_labels(labels, shards=shards)
    rows = np.flatnonzero(held_out_mask(data["game_id"]) & (data["moves"][:, 0] != ""))
    rows = spread_sample(rows, count)
    return {k: v[rows] for k, v in data.items()}


def positions_digest(positions: dict) -> str:
    """A short fingerprint of the positions asked: rows with the same one compare."""
    text = "\n".join(str(f) for f in positions["fen"])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def move_quality(choose, positions: dict, engine=None, depth: int = 8,
                 progress: bool = False) -> dict:
    """Ask ``choose(board) -> move`` for a move in every position of ``positions``
    (``held_out_positions``); ``engine`` (Stockfish) scores the moves it did not list, at
    the positions' own labelling depth when they name one."""
    depth = int(positions.get("depth", depth))
    best = outside = 0.0
    lost = []
    n = len(positions["fen"])
    for fen, moves, scores in tqdm(zip(positions["fen"], positions["moves"], positions["scores"]),
                                   total=n, disable=not progress, desc="positions"):
        board = chess.Board(str(fen))
        listed = [str(m) for m in moves if m]
        cp = np.asarray(scores[:len(listed)], dtype=np.float64)
        move = choose(board).uci()
        if move in listed:
            got = cp[listed.index(move)]
        else:
            outside += 1
            got = cp.min() if engine is None else min(cp.min(), _searched_alone(
                engine, board, chess.Move.from_uci(move), depth))
        best += move == listed[0]
        lost.append(float(expected_score(cp[0]) - expected_score(got)))
    return {"positions": n, "best_move_share": best / n, "expected_score_lost": sum(lost) / n,
            "outside_listed_share": outside / n,
            "lost_per_position": [round(x, 5) for x in lost]}


def player_quality(player, positions: dict, engine=None) -> dict:
    """``move_quality`` of a ``Player`` that searches each position afresh (the
    positions are unrelated: no tree or table carried from one to the next), with the
    mean nodes (simulations) it searched per move when it reports them."""
    nodes = []

    def choose(board):
        player.reset()
        move = player.choose_move(board)
        result = getattr(player, "last_result", None)
        if result is not None:
            nodes.append(result.nodes)
        return move
    quality = move_quality(choose, positions, engine)
    return {**quality, "mean_nodes": round(float(np.mean(nodes)), 1)} if nodes else quality


@contextmanager
def stockfish_if_installed():
    """Stockfish to score the moves it did not list, or None where it is not installed
    (the losses are then lower bounds)."""
    engine = open_engine() if find_stockfish(required=False) else None
    try:
        yield engine
    finally:
        if engine is not None:
            quit_engine(engine)


def paired_difference(a: dict, b: dict) -> tuple[float, float]:
    """Mean of a's loss minus b's on the same positions, and its standard error: two
    settings compared position by position, so the positions' own difficulty cancels."""
    if a.get("positions_digest") != b.get("positions_digest"):
        raise ValueError("these two rows were measured on different positions "
                         f"({a.get('positions_digest')} vs {b.get('positions_digest')}); "
                         "compare rows of the same positions only")
    d = np.subtract(a["lost_per_position"], b["lost_per_position"])
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))


def _searched_alone(engine, board, move, depth) -> float:
    """Stockfish's score of ``move`` for the side to move, the move searched alone."""
    info = engine.analyse(board, chess.engine.Limit(depth=depth), root_moves=[move],
                          game=object())
    cp = info["score"].pov(board.turn).score(mate_score=LABEL_MATE_CP)
    return float(np.clip(cp, -LABEL_MATE_CP, LABEL_MATE_CP))


def mcts_tuning(simulations: int = 400, c_puct=(1.0, 1.5, 2.5), fpu=(0.0, 0.2, 0.4),
                positions: int = 500, network=None, path=None, progress: bool = True,
                describe: str | None = None, settle=(False,), seconds: float | None = None,
                positions_file=None) -> dict:
    """Every (c_puct, first-play urgency reduction, settle) setting of MCTS at
    ``simulations`` on the same held-out positions, with ``network`` (default: the shipped
    one); with ``seconds``, each move gets that much time instead (rows measured at equal
    time compare only on an otherwise idle machine). Each setting is stored when measured
    under the network's SHA-256, so a stopped run resumes where it was and another
    network adds its own rows; ``describe`` notes what the network is. ``positions_file``:
    ask the labelled positions of that file instead (``results mcts-losses``: the
    positions before a player's blunders)."""
    path = Path(path or result_path("mcts_tuning"))
    network = Path(network or DEFAULT_MODEL)
    tag = file_tag(network, 16)
    doc = read_json(path, "results file") if path.exists() else {"rows": []}
    renamed = describe is not None and doc.get("networks", {}).get(tag) not in (None, describe)
    _heading(doc, tag, describe or str(network), bool(describe))
    done = {_setting(r) for r in doc["rows"]}
    data = load_positions_file(positions_file) if positions_file else held_out_positions(positions)
    net = shipped_network(network)

    def save(row=None):
        """Store this run's heading and ``row`` in the file as it is now, under its lock:
        what another command wrote meanwhile (its rows, its networks' words) is kept."""
        with updating_json(path, "results file", lambda: {"rows": []}, indent=1) as stored:
            _heading(stored, tag, describe or str(network), bool(describe),
                     doc["outside_moves"])
            if row is not None and _setting(row) not in {_setting(r) for r in stored["rows"]}:
                stored["rows"].append(row)
            stored.update(stamp())
    with stockfish_if_installed() as engine:
        doc["outside_moves"] = ("searched alone by Stockfish" if engine else
                                "scored as the worst listed move (no Stockfish: a lower bound)")
        source = {"positions_file": Path(positions_file).name} if positions_file else {}
        added = _tune(doc, data, net, tag, simulations, c_puct, fpu, settle, seconds, done,
                      engine, save, progress, source)
    if renamed and not added:        # a new description of a network measured before
        save()
    return doc


def _heading(doc: dict, tag: str, words: str, described: bool, outside_moves=None) -> None:
    """What the results file says it holds, and what the network ``tag`` is: ``words``
    replace a stored description only when they were ``described``."""
    doc["what"] = ("MCTS on held-out labelled positions (game id % 20 == 0; a row with a "
                   "positions_file: that file's positions): the share of Stockfish's best move, "
                   "and the expected score lost against it")
    doc.setdefault("networks", {})
    if described or tag not in doc["networks"]:
        doc["networks"][tag] = words
    if outside_moves is not None:
        doc["outside_moves"] = outside_moves


def _setting(row: dict) -> tuple:
    """What a row measured (rows from before settle and seconds existed had neither)."""
    return (row["network"], row["simulations"], row["c_puct"], row["fpu_reduction"],
            row.get("settle", False), row.get("seconds_per_move"), row["positions_digest"])


def _tune(doc, data, net, tag, simulations, c_puct, fpu, settle, seconds, done, engine, save,
          progress, source):
    """Measure each setting not ``done`` and ``save`` it; how many were measured."""
    positions = len(data["fen"])
    simulations = MCTS_AS_MANY_AS_FIT if seconds else simulations
    added = 0
    for c, f, s in itertools.product(c_puct, fpu, settle):
        row = {"network": tag, "simulations": simulations, "c_puct": c, "fpu_reduction": f,
               "settle": bool(s), **({"seconds_per_move": seconds} if seconds else {}),
               "positions": positions, "positions_digest": positions_digest(data), **source}
        if _setting(row) in done:
            continue
        player = MCTSPlayer(net, simulations, c_puct=c, fpu_reduction=f, settle=bool(s),
                            time_limit=seconds)
        start = time.perf_counter()
        row.update({**player_quality(player, data, engine),
                    "seconds": round(time.perf_counter() - start, 1)})
        doc["rows"].append(row)
        added += 1
        save(row)
        if progress:
            print(f"c_puct {c:g}, fpu {f:g}, settle {bool(s)}: best move "
                  f"{row['best_move_share']:.3f}, expected score lost "
                  f"{row['expected_score_lost']:.4f}, {row.get('mean_nodes', 0):.0f} simulations "
                  f"a move ({row['seconds']:.0f} s)", flush=True)
    return added
