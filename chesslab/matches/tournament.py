"""A submission in this process, and the in-process round robin.

The class event itself is ``chesslab.matches.event.run_tournament``: every submission in
a process of its own, a gauntlet, Swiss or round robin, faults recorded, Elo anchored on
the course's ladder. ``python -m chesslab tournament`` runs it.

What stays here runs a submission *in this process*, for a student checking a file
before handing it in, and for measuring what isolation costs (``bench/``):
``load_player(path)`` imports one file (a function ``choose_move(board) -> chess.Move``,
optionally ``NAME = "..."``); ``SubmittedPlayer`` replaces a move that raises or is
illegal by the first legal one and counts it as a fault; ``round_robin`` is the
in-process round robin of ``python -m chesslab results tournament``, and
``table_standings`` its standings (``rating.standings``, like every other table's).
Never load a class's files this way: one endless loop stops everything.
"""
from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import chess

from chesslab.matches.match import match
from chesslab.matches.rating import PRIOR_DRAWS, results_of_pairs, standings
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


def round_robin(players, games: int = 2, seed: int = 0, max_plies: int = 200,
                progress: bool = False) -> dict:
    """Every pair plays ``games`` games (``match.match``: colours alternate, each of its
    openings played from both sides).

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


def table_standings(table: dict, prior_draws: float = PRIOR_DRAWS) -> list[dict]:
    """The standings (``rating.standings``: points, score and its 95% interval, Elo with
    its interval or bound, faults) of a ``round_robin`` table. The Elos are fitted with
    mean 0 over all players; a zero or full score's row shows a one-sided bound instead
    of its fitted point, so the Elos shown need not average 0."""
    return standings(table["players"], results_of_pairs(table["pairs"]),
                     faults=table.get("faults"), prior_draws=prior_draws)
