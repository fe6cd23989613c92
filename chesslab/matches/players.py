"""Players: anything with ``choose_move(board) -> chess.Move``.

``make_player(spec)`` turns a short text into a player, for matches and the CLI:

=====================  =====================================================
``random``             a legal move at random (the Naive Bayes chapter's baseline)
``minimax:D``          plain minimax, the thesis's search (no pruning; the thesis
                       evaluates with its networks), with the Naive Bayes chapter's
                       material evaluation, depth D
``alphabeta:D``        plain alpha-beta, the Naive Bayes chapter's and the tutorial's
                       search, the same material evaluation, depth D
``EVAL:D``             the full search with EVAL, any evaluator of the registry
                       (``chesslab.evaluators.registry.EVALUATORS``), at depth D
``EVAL@Ns``            the same with N seconds per move (iterative deepening)
``stockfish:ELO``      Stockfish limited to ELO (within the UCI_Elo range the installed
                       Stockfish accepts), ``STOCKFISH_SECONDS`` per move
``stockfish:skill=N``  Stockfish at skill level N (0-20); ``@Ns`` sets its time
``mcts:N``             MCTS with the shipped policy-value network, N simulations
                       per move (``mcts@Ns``: N seconds per move)
``policy``             the shipped policy-value network alone: its most likely legal
                       move, no search
=====================  =====================================================

A fixed depth above ``MAX_DEPTH`` (e.g. ``pst:100``, which would never answer) is
refused with the cap and the time-limited alternative. An engine that dies mid-game
raises ``EngineStopped``; ``close()`` after that is quiet.

Every player takes a ``seed`` (ties between equally good moves are broken at random,
so engines do not shuffle into repetitions), never changes the board it is given and
has ``close()`` (use ``with make_player(...) as p:`` for engines). Search players keep
``last_result`` (a ``SearchResult``: score, depth, PV, the root moves with scores).
A player refuses, with a ``ValueError`` saying why, a position that is not legal chess
and one without a legal move (checkmate, stalemate; ``board.rules.check_playable``); a
draw by rule that still has moves is played (``_check_playable``).
"""
from __future__ import annotations

from pathlib import Path

import chess
import chess.engine
import numpy as np

from chesslab.base.files import file_tag
from chesslab.search.clock import check_limits
from chesslab.evaluators.registry import EVALUATORS, load_evaluator, model_path
from chesslab.evaluators.registry import is_available as evaluator_available
from chesslab.board.game import Player
from chesslab.board.rules import check_playable
from chesslab.search.mcts import DEFAULT_MODEL, PLAY_FPU_REDUCTION, MCTSPlayer, shipped_network
from chesslab.search.searcher import Searcher
from chesslab.base.stockfish import find_stockfish, quit_engine, start_engine
from chesslab.matches.specs import (EXAMPLES, MAX_DEPTH, SEARCH_ALGORITHMS, STOCKFISH_SECONDS,
                                    PlayerSpec, format_spec, parse_spec)
from chesslab.matches.timecontrol import DEFAULT_OVERHEAD

__all__ = ["Player", "RandomPlayer", "PolicyPlayer", "SearchPlayer", "StockfishPlayer", "EngineStopped",
           "make_player", "model_file", "model_tag", "is_available", "MAX_DEPTH"]



def _check_playable(board: chess.Board):
    """A legal position with a legal move, or a clear error.

    A position drawn by rule that still has moves (threefold repetition, 50 moves,
    insufficient material) is played: in a game ``play_game`` ends it before asking, but
    a GUI asks (a repetition or the 50-move rule is drawn only when claimed), and the
    player then answers with its own choice, not a stand-in move."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"choose_move needs a chess.Board, got {type(board).__name__}")
    check_playable(board, "choose_move")


class RandomPlayer(Player):
    """Any legal move, uniformly at random."""

    def __init__(self, seed: int = 0, name: str = "random"):
        super().__init__(name, seed)

    def choose_move(self, board):
        _check_playable(board)
        return self.rng.choice(list(board.legal_moves))


class SearchPlayer(Player):
    """A search (minimax, alpha-beta or the full one) with an evaluator.

    The player keeps one ``Searcher`` for all its moves: the full search's
    transposition table and history of good moves carry over from move to move
    (switches ``keep_tt`` and ``keep_history``).
    """

    def __init__(self, evaluator="material", depth=None, time_limit=None,
                 algorithm="full", seed: int = 0, name: str | None = None, **options):
        evaluator = load_evaluator(evaluator)
        if depth is None and time_limit is None:
            depth = 3
        check_limits(depth, time_limit)
        if name is None:
            prefix = algorithm if algorithm != "full" else evaluator.name
            name = format_spec(prefix, depth, time_limit)
        super().__init__(name, seed)
        self.evaluator = evaluator
        self.depth = depth
        self.time_limit = time_limit
        self.algorithm = algorithm
        self.options = options
        self.searcher = Searcher(evaluator, algorithm, **options)

    def choose_move(self, board):
        _check_playable(board)
        self.last_result = self.searcher.search(board, self.depth, self.time_limit,
                                                self.rng)
        return self.last_result.move


class EngineStopped(RuntimeError):
    """An engine process died or stopped answering in the middle of a game."""


class StockfishPlayer(Player):
    """Stockfish through ``chess.engine``, weakened by Elo (``UCI_LimitStrength`` and
    ``UCI_Elo``) or by skill level; ``time_limit`` seconds a move, or on a game's clock
    (``choose_move_on_clock``)."""

    def __init__(self, elo=None, skill=None, time_limit=0.1, seed: int = 0, name=None):
        if (elo is None) == (skill is None):
            raise ValueError("give Stockfish either elo=... or skill=...")
        if not time_limit or time_limit <= 0:
            raise ValueError(f"Stockfish needs a positive time per move, not {time_limit}")
        self.engine, self.on_clock = None, False
        self.path = find_stockfish()
        # the spec that plays, time included (a game's PGN headers name it)
        level = str(elo) if elo is not None else f"skill={skill}"
        super().__init__(name or format_spec("stockfish", level, None if time_limit
                                             == STOCKFISH_SECONDS else time_limit), seed)
        self.time_limit = time_limit
        engine = start_engine(self.path)
        options = {"Threads": 1, "Hash": 16}
        if elo is not None:
            if "UCI_Elo" not in engine.options:
                quit_engine(engine)
                raise ValueError(f"{self.path} has no UCI_Elo option; it is not Stockfish "
                                 f"(use stockfish:skill=N, or point CHESSLAB_STOCKFISH at "
                                 f"Stockfish)")
            lowest = engine.options["UCI_Elo"].min
            highest = engine.options["UCI_Elo"].max
            if not lowest <= elo <= highest:
                quit_engine(engine)
                raise ValueError(f"this Stockfish plays Elo {lowest}-{highest}, not {elo}")
            options.update(UCI_LimitStrength=True, UCI_Elo=int(elo))
        else:
            if not 0 <= skill <= 20:
                quit_engine(engine)
                raise ValueError(f"Stockfish skill levels are 0-20, not {skill}")
            options["Skill Level"] = int(skill)
        engine.configure({k: v for k, v in options.items() if k in engine.options})
        self.engine = engine

    def choose_move(self, board):
        return self._play(board, chess.engine.Limit(time=self.time_limit))

    def choose_move_on_clock(self, board, clock):
        """On a clock (``board.game.GameClock``): Stockfish is given both clocks and the
        increments (UCI's ``go wtime btime winc binc``) and spends them by its own time
        management, as at the time control its ``UCI_Elo`` is calibrated at. It keeps
        aside the overhead chesslab's players keep (``timecontrol.DEFAULT_OVERHEAD``):
        with its own few milliseconds it flagged at 10+0.1 on a busy machine."""
        if not self.on_clock and self.engine is not None \
                and "Move Overhead" in self.engine.options:
            self.engine.configure({"Move Overhead": round(DEFAULT_OVERHEAD * 1000)})
        self.on_clock = True
        return self._play(board, chess.engine.Limit(
            white_clock=clock.white, black_clock=clock.black,
            white_inc=clock.increment, black_inc=clock.increment))

    def _play(self, board, limit):
        _check_playable(board)
        if self.engine is None:
            raise EngineStopped(f"{self.name} was closed; make a new player")
        try:
            result = self.engine.play(board, limit)
        except (chess.engine.EngineError, TimeoutError) as exc:
            raise EngineStopped(f"{self.name} ({self.path}) stopped working while "
                                f"choosing a move in {board.fen()}: "
                                f"{exc or type(exc).__name__}") from None
        if result.move is None:
            raise EngineStopped(f"{self.name} gave no move in {board.fen()}")
        return result.move

    def close(self):
        """Stop the engine; quiet if it has died (closing must not hide that error)."""
        if self.engine is not None:
            engine, self.engine = self.engine, None
            quit_engine(engine)


class PolicyPlayer(Player):
    """The network's first instinct: the legal move its policy likes best (no search).

    Ties (equal probabilities) go to the first in python-chess's move order.
    """

    def __init__(self, net, seed: int = 0, name: str = "policy"):
        super().__init__(name, seed)
        self.net = net

    def choose_move(self, board):
        _check_playable(board)
        moves, priors, value = self.net.policy(board)
        self.last_value = value
        return moves[int(np.argmax(priors))]


def model_file(spec, model=None):
    """The model file ``make_player(spec, model=model)`` reads (None if it reads none):
    ``model`` instead of the shipped one when given; a spec that reads no model file
    refuses one."""
    name = parse_spec(spec).name
    shipped = DEFAULT_MODEL if name in ("mcts", "policy") else (
        model_path(name) if name in EVALUATORS else None)
    if model is None:
        return shipped
    if shipped is None:
        raise ValueError(f"{spec!r} reads no model file, so it cannot take model={model!r}")
    return Path(model)


def model_tag(spec, model=None) -> str | None:
    """A digest of the model file a player spec reads (None for hand-written players), so
    a stored result says which trained network played it; ``model``: the file it reads
    instead of the shipped one (``make_player(spec, model=...)``)."""
    path = model_file(spec, model)
    return file_tag(path) if path is not None and path.exists() else None


def is_available(spec) -> bool:
    """Can ``make_player(spec)`` play on this machine: its model file exists, or
    Stockfish is installed? Builds no player."""
    name = parse_spec(spec).name
    if name == "stockfish":
        return find_stockfish(required=False) is not None
    if name in ("mcts", "policy"):
        return DEFAULT_MODEL.exists()
    return name not in EVALUATORS or evaluator_available(name)


def make_player(spec, seed: int = 0, model=None) -> Player:
    """A player from a spec such as 'random', 'pst:3', 'cnn@1s', 'stockfish:1350'.

    ``model``: another model file for a player that reads one (mcts, a learned
    evaluator) instead of the shipped one."""
    if isinstance(spec, Player):
        return spec
    parsed = parse_spec(spec)
    name, arg, time_limit = parsed.name, parsed.arg, parsed.seconds
    model_file(spec, model)                      # a spec that reads no model refuses one
    if name == "random":
        if arg or time_limit:
            raise ValueError(f"'random' takes no depth or time, but {spec!r} gives one; "
                             f"write just random")
        return RandomPlayer(seed)
    if name == "stockfish":
        seconds = time_limit if time_limit is not None else STOCKFISH_SECONDS
        if arg and arg.startswith("skill="):
            level = PlayerSpec("stockfish", arg[6:]).number
            return StockfishPlayer(skill=level, time_limit=seconds, seed=seed, name=str(parsed))
        elo = 1350 if parsed.number is None else parsed.number    # stockfish:0 is refused
        return StockfishPlayer(elo=elo, time_limit=seconds, seed=seed,
                               name=str(parsed))
    if name == "mcts":
        return mcts_player(parsed.number, time_limit, seed=seed, name=str(parsed), model=model)
    if name == "policy":
        if arg or time_limit:
            raise ValueError(f"'policy' plays the network's top move without search, so it "
                             f"takes no simulations or time, but {spec!r} gives one; write "
                             f"just policy (or mcts:N to search)")
        return PolicyPlayer(shipped_network(model), seed)
    if name not in EVALUATORS and name not in SEARCH_ALGORITHMS:
        raise ValueError(f"unknown player {name!r} in {spec!r}: a player is random, "
                         f"{', '.join(SEARCH_ALGORITHMS)}, policy, mcts, stockfish or an evaluator "
                         f"({', '.join(EVALUATORS)}); {EXAMPLES}")
    depth = parsed.number
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1 in {spec!r}")
    if depth is None and time_limit is None:
        depth = 3
    algorithm = parsed.algorithm
    if time_limit is None and depth > MAX_DEPTH[algorithm]:
        raise ValueError(f"depth {depth} in {spec!r} would not finish in a lesson's time; "
                         f"{algorithm} searches at most depth {MAX_DEPTH[algorithm]} here, "
                         f"or give it a time per move, e.g. {name}@10s")
    if algorithm != "full":
        return SearchPlayer("material", depth, time_limit, algorithm=name, seed=seed,
                            name=str(parsed))
    return SearchPlayer(load_evaluator(name, model), depth, time_limit, seed=seed,
                        name=str(parsed))


#: Simulations per move of a bare ``mcts`` (no number, no time).
MCTS_SIMULATIONS = 300
#: The simulations of ``mcts@2s`` (a time, no number): a cap far beyond what a move's
#: time allows, so the time alone ends each search ("as many as fit").
MCTS_AS_MANY_AS_FIT = 10**6


def mcts_player(simulations: int | None = MCTS_SIMULATIONS, time_limit: float | None = None,
                seed: int = 0, name: str | None = None, model=None) -> MCTSPlayer:
    """``make_player("mcts:300")``: the shipped network, 300 simulations per move
    (``mcts@2s``: as many as fit in 2 seconds; ``mcts:300@2s``: the first to end)."""
    if simulations is not None and simulations < 1:
        raise ValueError(f"MCTS needs at least 1 simulation per move, not {simulations}")
    if simulations is None:
        simulations = MCTS_AS_MANY_AS_FIT if time_limit else MCTS_SIMULATIONS
    return MCTSPlayer(shipped_network(model), simulations, seed=seed, time_limit=time_limit,
                      fpu_reduction=PLAY_FPU_REDUCTION,
                      name=name or format_spec("mcts", None if time_limit else simulations,
                                               time_limit))
