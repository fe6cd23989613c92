"""The class tournament: students' players in a round robin, with Elo and Wilson intervals.

A submission is a Python file with a function ``choose_move(board) -> chess.Move`` (and
optionally ``NAME = "..."``); files whose names start with ``_`` are skipped (templates).
``load_players(folder)`` imports every submission; ``round_robin(players)`` plays every
pair with colours alternating from the arena's openings; ``elo_ratings(table)`` turns
the results into ratings. A submission that raises or returns an illegal move does not
stop the tournament: that move is replaced by the first legal one and counted as a
fault, so the teacher sees it in the table.
"""
from __future__ import annotations

import importlib.util
import itertools
import math
from pathlib import Path

import chess

from chesslab.matches.match import match
from chesslab.matches.rating import wilson_interval
from chesslab.board.game import Player


class SubmittedPlayer(Player):
    """A student's ``choose_move`` behind the ``Player`` protocol, with a fault count."""

    def __init__(self, name: str, choose_move, source: str = ""):
        super().__init__(name)
        self._choose = choose_move
        self.source = source
        self.faults = []            # (FEN, what went wrong), in order

    def choose_move(self, board: chess.Board) -> chess.Move:
        try:
            move = self._choose(board.copy())
            problem = None if isinstance(move, chess.Move) and move in board.legal_moves \
                else f"returned {move!r}, not a legal chess.Move"
        except Exception as exc:          # noqa: BLE001  (a student's code may raise anything)
            problem = f"raised {type(exc).__name__}: {exc}"
        if problem is None:
            return move
        self.faults.append((board.fen(), problem))
        return next(iter(board.legal_moves))


def load_player(path) -> SubmittedPlayer:
    """Import one submission file; a clear error if it has no ``choose_move``."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no submission file {path}")
    spec = importlib.util.spec_from_file_location(f"submission_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ValueError(f"{path.name} could not be imported ({type(exc).__name__}: {exc}); "
                         f"run it with `python {path}` to see the error") from exc
    choose = getattr(module, "choose_move", None)
    if not callable(choose):
        raise ValueError(f"{path.name} has no function choose_move(board); a submission "
                         f"defines `def choose_move(board): ... return move`")
    return SubmittedPlayer(str(getattr(module, "NAME", path.stem)), choose, str(path))


def load_players(folder) -> list[SubmittedPlayer]:
    """Every submission in ``folder`` (``*.py`` not starting with ``_``), by file name."""
    folder = Path(folder)
    files = sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    if not files:
        raise FileNotFoundError(f"no submissions (*.py) in {folder}")
    players = [load_player(p) for p in files]
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"two submissions share a NAME: {names}; give each file its own")
    return players


def round_robin(players, games: int = 2, seed: int = 0, max_plies: int = 200,
                progress: bool = False) -> dict:
    """Every pair plays ``games`` games (colours alternate, openings from the arena).

    ``players``: Player objects or player specs ('pst:2'). The result has the shape of
    ``python -m chesslab results tournament`` (so ``figures.tournament_figure`` draws it).
    """
    names = [p if isinstance(p, str) else p.name for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"every player needs its own name, got {names}")
    pairs = {}
    for a, b in itertools.combinations(players, 2):
        result = match(a, b, games=games, seed=seed, max_plies=max_plies, progress=progress)
        pairs[f"{result.player_a} vs {result.player_b}"] = {
            "wins": result.wins, "draws": result.draws, "losses": result.losses}
    return {"what": f"round robin, {games} games per pair, colours alternating",
            "players": names, "games_per_pair": games, "seed": seed, "max_plies": max_plies,
            "pairs": pairs,
            "faults": {p.name: len(p.faults) for p in players if hasattr(p, "faults")}}


def standings(table: dict, prior_draws: float = 1.0) -> list[dict]:
    """Each player's points, games, score with its 95% Wilson interval, and an Elo
    rating (mean 0), best first.

    The ratings are the maximum-likelihood Elo of the results (Bradley-Terry, a draw half
    a win), with ``prior_draws`` virtual draws per pair so a clean sweep gets a finite
    rating (as BayesElo does).
    """
    players = table["players"]
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    points = [[0.0] * n for _ in players]
    played = [[0.0] * n for _ in players]
    for key, r in table["pairs"].items():
        a, b = (index[x] for x in key.split(" vs "))
        games = r["wins"] + r["draws"] + r["losses"]
        points[a][b] += r["wins"] + r["draws"] / 2
        points[b][a] += r["losses"] + r["draws"] / 2
        played[a][b] = played[b][a] = played[a][b] + games
    gamma = [1.0] * n
    for _ in range(2000):    # minorisation-maximisation: converges for any table
        new = []
        for i in range(n):
            won = sum(points[i][j] + prior_draws / 2 for j in range(n) if j != i and played[i][j])
            rate = sum((played[i][j] + prior_draws) / (gamma[i] + gamma[j])
                       for j in range(n) if j != i and played[i][j])
            new.append(won / rate if rate else gamma[i])
        mean_log = sum(math.log(g) for g in new) / n
        new = [g / math.exp(mean_log) for g in new]
        done = max(abs(x - y) for x, y in zip(new, gamma)) < 1e-10
        gamma = new
        if done:
            break
    rows = []
    for i, name in enumerate(players):
        got, games = sum(points[i]), sum(played[i])
        low, high = wilson_interval(got, games)
        rows.append({"player": name, "points": got, "games": int(games),
                     "score": got / games if games else float("nan"), "interval95": (low, high),
                     "elo": 400 * math.log10(gamma[i]),
                     "faults": table.get("faults", {}).get(name, 0)})
    return sorted(rows, key=lambda r: -r["elo"])
