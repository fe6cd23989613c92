"""The round robin between the course's players (``results tournament``)."""
from __future__ import annotations

from chesslab.evaluators.registry import EVALUATORS
from chesslab.experiments.store import stamp
from chesslab.matches.players import is_available
from chesslab.matches.tournament import round_robin


#: Players of the default tournament: random, every evaluator of the registry at depth 2
#: (learned ones when their model files exist) and MCTS.
TOURNAMENT_PLAYERS = ("random", *(f"{name}:2" for name in EVALUATORS), "mcts:100")


def measure_round_robin(players=TOURNAMENT_PLAYERS, games: int = 4, seed: int = 0,
                        max_plies: int = 300, progress=True) -> dict:
    """The stored round robin: every pair of the ``players`` that can play here plays
    ``games`` games (colours alternate), stamped with when and where."""
    players = [p for p in players if is_available(p)]
    table = round_robin(players, games=games, seed=seed, max_plies=max_plies,
                        progress=progress)
    return {**table, **stamp()}


def score_matrix(tournament: dict):
    """(players, matrix) where matrix[i][j] is player i's score against j (None on the diagonal)."""
    players = tournament["players"]
    index = {p: i for i, p in enumerate(players)}
    matrix = [[None] * len(players) for _ in players]
    for key, r in tournament["pairs"].items():
        a, b = key.split(" vs ")
        n = r["wins"] + r["draws"] + r["losses"]
        if not n:
            continue
        score = (r["wins"] + 0.5 * r["draws"]) / n
        matrix[index[a]][index[b]] = score
        matrix[index[b]][index[a]] = 1 - score
    return players, matrix
