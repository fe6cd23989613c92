"""How a player loses: the positions before its worst moves in the games it lost.

A stored match record keeps its games' PGN. Every move the player made in a lost game
is scored by Stockfish before and after (for the side that moved, in expected score,
``expected_score``): a move that gives away more than ``drop`` of it is a blunder. The
positions before the blunders, labelled like the policy labels (Stockfish's best moves
with their scores), are a test set where a search setting shows whether it would still
play the blunder (``python -m chesslab results mcts-tuning --positions-file ...``). Also
kept: the best score each lost game had reached, since a lost game that was won once is
a failure to convert, not a tactic missed.

    python -m chesslab results mcts-losses --player mcts@1s --opponent pst@1s
"""
from __future__ import annotations

import io
from pathlib import Path

import chess
import chess.pgn
import numpy as np
from tqdm.auto import tqdm

from chesslab.base.files import read_json, write_json_atomic
from chesslab.base.stockfish import open_engine, quit_engine
from chesslab.board.scores import LABEL_MATE_CP
from chesslab.datasets.labels import label_board
from chesslab.datasets.policy_labels import label_policy_board
from chesslab.evaluators.neural import expected_score
from chesslab.experiments.store import result_path, stamp
from chesslab.matches.match import read_record

#: Stockfish's depth for scoring every move and labelling the blunders' positions.
DEPTH = 12
#: Best moves listed per blunder position (as the policy labels).
MULTIPV = 8


def find_record(path, player: str, opponent: str) -> dict:
    """The match record of ``player`` vs ``opponent`` in the results file ``path``, the
    last one when several; a clear error naming the pairs it holds otherwise."""
    doc = read_json(path, "results file")
    records = [read_record(r) for r in doc.get("matches", [])]
    found = [r for r in records if (r["a"], r["b"]) == (player, opponent)]
    if not found:
        pairs = sorted({f"{r['a']} vs {r['b']}" for r in records})
        raise ValueError(f"{path} has no match {player} vs {opponent}; it has: "
                         f"{', '.join(pairs) or 'none'}")
    if not found[-1].get("pgn"):
        raise ValueError(f"the match {player} vs {opponent} in {path} kept no games (pgn); "
                         f"replay it with `python -m chesslab results match`")
    return found[-1]


def lost_games(pgns, player: str):
    """(game index, game, the player's colour) of every game ``player`` lost."""
    for k, text in enumerate(pgns):
        game = chess.pgn.read_game(io.StringIO(text))
        if player not in (game.headers["White"], game.headers["Black"]):
            raise ValueError(f"game {k} is {game.headers['White']} vs {game.headers['Black']}: "
                             f"no player named {player!r} (give the name its PGN headers use)")
        colour = chess.WHITE if game.headers["White"] == player else chess.BLACK
        if game.headers["Result"] == ("0-1" if colour == chess.WHITE else "1-0"):
            yield k, game, colour


def scored_moves(game, colour, score, first_ply: int = 8) -> list[dict]:
    """Per move of ``colour`` from ``first_ply`` on (the openings were given): the
    position, the move, and ``score(board)`` (centipawns for the side to move) before it
    and, for the same side, after it."""
    board, out = game.board(), []
    for move in game.mainline_moves():
        if board.turn == colour and board.ply() >= first_ply:
            row = {"fen": board.fen(), "ply": board.ply(), "move": move.uci(),
                   "before": score(board)}
            board.push(move)
            row["after"] = -score(board) if not board.is_game_over() else _final(board)
            out.append(row)
        else:
            board.push(move)
    return out


def _final(board) -> float:
    """The score of a finished game for the side that just moved."""
    return LABEL_MATE_CP if board.is_checkmate() else 0.0


def given_away(row: dict) -> float:
    """Expected score the move gave away (negative: it gained)."""
    return float(expected_score(row["before"]) - expected_score(row["after"]))


def stockfish_score(engine, depth: int = DEPTH):
    """``score(board)``: Stockfish's centipawns for the side to move, as the dataset's
    labels have them (``datasets.labels.label_board``: an empty hash, mates clipped)."""
    def score(board):
        cp, _ = label_board(engine, board, depth)
        return float(cp if board.turn == chess.WHITE else -cp)
    return score


def stockfish_labels(engine, board, depth: int = DEPTH, multipv: int = MULTIPV):
    """Stockfish's ``multipv`` best moves of ``board`` and their scores for the side to
    move, as the policy labels keep them (``label_policy_board``), padded to ``multipv``."""
    moves, scores, _ = label_policy_board(engine, board, depth, multipv)
    pad = multipv - len(moves)
    return moves + [""] * pad, [float(x) for x in scores] + [0.0] * pad


def mcts_losses(player: str = "mcts@1s", opponent: str = "pst@1s", matches=None,
                drop: float = 0.2, depth: int = DEPTH, path=None, progress: bool = True) -> dict:
    """Find and label the blunders of ``player`` in the games it lost to ``opponent``
    (the match record in ``matches``, default data/results/matches.json); written to
    ``path`` (default data/results/mcts_losses.json)."""
    matches = Path(matches or result_path("matches"))
    record = find_record(matches, player, opponent)
    engine = open_engine()
    try:
        stockfish_name = engine.id.get("name", "unknown engine")
        score = stockfish_score(engine, depth)
        games = []
        lost = list(lost_games(record["pgn"], player))
        for k, game, colour in tqdm(lost, disable=not progress, desc="lost games"):
            rows = scored_moves(game, colour, score)
            games.append({"game": k, "colour": "white" if colour else "black",
                          "best_before": max((r["before"] for r in rows), default=None),
                          "moves": rows})
        blunders = [dict(r, game=g["game"], given_away=round(lost, 4))
                    for g in games for r in g["moves"] if (lost := given_away(r)) > drop]
        for b in tqdm(blunders, disable=not progress, desc="labelling"):
            b["moves"], b["scores"] = stockfish_labels(engine, chess.Board(b["fen"]), depth)
    finally:
        quit_engine(engine)
    doc = {"what": f"the positions before {player}'s moves that gave away more than {drop} "
                   f"of expected score (Stockfish depth {depth}) in the games it lost to "
                   f"{opponent}, labelled with Stockfish's {MULTIPV} best moves",
           "player": player, "opponent": opponent, "matches_file": matches.name,
           "record_summary": record.get("summary"), "network": record.get("a_model"),
           "stockfish": stockfish_name, "drop": drop, "depth": depth,
           "lost_games": len(games), "moves_scored": sum(len(g["moves"]) for g in games),
           "games": [{k: v for k, v in g.items() if k != "moves"} for g in games],
           "positions": blunders, **stamp()}
    write_json_atomic(Path(path or result_path("mcts_losses")), doc, indent=1)
    return doc


def positions_file(path) -> dict:
    """The labelled positions of a losses file as ``move_quality`` asks them (fen, moves,
    scores, and the depth they were labelled at), in the file's order."""
    doc = read_json(path, "positions file")
    rows = doc.get("positions")
    if not rows or not all({"fen", "moves", "scores"} <= set(r) for r in rows):
        raise ValueError(f"{path} holds no labelled positions (a list 'positions' of fen, "
                         f"moves, scores); write one with `python -m chesslab results "
                         f"mcts-losses`")
    return {"fen": np.array([r["fen"] for r in rows]),
            "moves": np.array([r["moves"] for r in rows]),
            "scores": np.array([r["scores"] for r in rows], dtype=np.float64),
            "depth": int(doc.get("depth", DEPTH))}
