"""Players: anything with ``choose_move(board) -> chess.Move``.

``make_player(spec)`` turns a short text into a player, for matches and the CLI:

=====================  =====================================================
``random``             a legal move at random (the Naive Bayes chapter's baseline)
``minimax:D``          the thesis: plain minimax, material evaluation, depth D
``alphabeta:D``        plain alpha-beta (the chapter, the tutorial), material, depth D
``EVAL:D``             the full search with evaluator EVAL (material, pst, ann, cnn,
                       conv, residual, bayes) at depth D
``EVAL@Ns``            the same with N seconds per move (iterative deepening)
``stockfish:ELO``      Stockfish limited to ELO (1350-2850), 0.1 s per move
``stockfish:skill=N``  Stockfish at skill level N (0-20); ``@Ns`` sets its time
``mcts:N``             MCTS with the shipped policy-value network, N simulations
                       per move (``mcts@Ns``: N seconds per move)
=====================  =====================================================

Every player takes a ``seed`` (ties between equally good moves are broken at random,
so engines do not shuffle into repetitions), never changes the board it is given and
has ``close()`` (use ``with make_player(...) as p:`` for engines). Search players keep
``last_result`` (a ``SearchResult``: score, depth, PV, the root moves with scores).
"""
from __future__ import annotations

import random
import re

import chess

from chesslab.evaluation import load_evaluator
from chesslab.search import search

#: The setting a student plays against by default: answers in about a second.
DEFAULT_PLAYER = "pst@1s"


class Player:
    """Base class: a name (the spec), a seeded random source, ``close()``."""

    def __init__(self, name: str, seed: int = 0):
        self.name = name
        self.seed = seed
        self.rng = random.Random(seed)
        self.last_result = None

    def choose_move(self, board: chess.Board) -> chess.Move:
        raise NotImplementedError

    def close(self):
        """Release resources (engines); safe to call twice."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


def _check_playable(board: chess.Board):
    if not isinstance(board, chess.Board):
        raise TypeError(f"choose_move needs a chess.Board, got {type(board).__name__}")
    if board.is_game_over():
        raise ValueError(f"the game is over ({board.result()}); there is no move to "
                         f"choose in {board.fen()}")


class RandomPlayer(Player):
    """Any legal move, uniformly at random."""

    def __init__(self, seed: int = 0, name: str = "random"):
        super().__init__(name, seed)

    def choose_move(self, board):
        _check_playable(board)
        return self.rng.choice(list(board.legal_moves))


class SearchPlayer(Player):
    """A search (minimax, alpha-beta or the full one) with an evaluator."""

    def __init__(self, evaluator="material", depth=None, time_limit=None,
                 algorithm="full", seed: int = 0, name: str | None = None, **options):
        evaluator = load_evaluator(evaluator)
        if depth is None and time_limit is None:
            depth = 3
        if name is None:
            prefix = algorithm if algorithm != "full" else evaluator.name
            name = f"{prefix}:{depth}" if time_limit is None else f"{prefix}@{time_limit:g}s"
        super().__init__(name, seed)
        self.evaluator = evaluator
        self.depth = depth
        self.time_limit = time_limit
        self.algorithm = algorithm
        self.options = options

    def choose_move(self, board):
        _check_playable(board)
        self.last_result = search(board, self.evaluator, depth=self.depth,
                                  time_limit=self.time_limit, algorithm=self.algorithm,
                                  rng=self.rng, **self.options)
        return self.last_result.move


class StockfishPlayer(Player):
    """Stockfish through ``chess.engine``, weakened by Elo or by skill level."""

    def __init__(self, elo=None, skill=None, time_limit=0.1, seed: int = 0, name=None):
        from chess.engine import SimpleEngine

        from chesslab.files import find_stockfish

        if (elo is None) == (skill is None):
            raise ValueError("give Stockfish either elo=... or skill=...")
        path = find_stockfish()
        super().__init__(name or (f"stockfish:{elo}" if elo is not None
                                  else f"stockfish:skill={skill}"), seed)
        self.time_limit = time_limit
        self.engine = SimpleEngine.popen_uci(path)
        options = {"Threads": 1, "Hash": 16}
        if elo is not None:
            lowest = self.engine.options["UCI_Elo"].min
            highest = self.engine.options["UCI_Elo"].max
            if not lowest <= elo <= highest:
                self.engine.quit()
                raise ValueError(f"this Stockfish plays Elo {lowest}-{highest}, not {elo}")
            options.update(UCI_LimitStrength=True, UCI_Elo=int(elo))
        else:
            if not 0 <= skill <= 20:
                self.engine.quit()
                raise ValueError(f"Stockfish skill levels are 0-20, not {skill}")
            options["Skill Level"] = int(skill)
        self.engine.configure(options)

    def choose_move(self, board):
        import chess.engine

        _check_playable(board)
        result = self.engine.play(board, chess.engine.Limit(time=self.time_limit))
        return result.move

    def close(self):
        if self.engine is not None:
            self.engine.quit()
            self.engine = None


_SPEC = re.compile(r"^(?P<name>[a-z_]+)(?::(?P<arg>[^@]+))?(?:@(?P<secs>[0-9.]+)s)?$")


def make_player(spec, seed: int = 0) -> Player:
    """A player from a spec such as 'random', 'pst:3', 'cnn@1s', 'stockfish:1350'."""
    if isinstance(spec, Player):
        return spec
    match = _SPEC.match(str(spec).strip().lower())
    if not match:
        raise ValueError(f"cannot read player spec {spec!r}; examples: random, "
                         f"material:3, pst@1s, minimax:3, stockfish:1350")
    name, arg, secs = match["name"], match["arg"], match["secs"]
    time_limit = float(secs) if secs else None
    if name == "random":
        return RandomPlayer(seed)
    if name == "stockfish":
        if arg and arg.startswith("skill="):
            return StockfishPlayer(skill=_int(arg[6:], spec), time_limit=time_limit or 0.1,
                                   seed=seed)
        return StockfishPlayer(elo=_int(arg, spec) if arg else 1350,
                               time_limit=time_limit or 0.1, seed=seed)
    if name == "mcts":
        from chesslab.mcts import mcts_player   # imported here: mcts builds on this module
        return mcts_player(_int(arg, spec) if arg else None, time_limit, seed=seed,
                           name=str(spec))
    depth = _int(arg, spec) if arg else None
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1 in {spec!r}")
    if depth is None and time_limit is None:
        depth = 3
    if name in ("minimax", "alphabeta"):
        return SearchPlayer("material", depth, time_limit, algorithm=name, seed=seed,
                            name=str(spec))
    return SearchPlayer(name, depth, time_limit, seed=seed, name=str(spec))


def _int(text, spec):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"expected a whole number in player spec {spec!r}, "
                         f"got {text!r}") from None
