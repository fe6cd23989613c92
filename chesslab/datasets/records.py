"""Game records: the shipped Stockfish self-play games, reading any PGN, sampling positions.

No game database can be downloaded here, so :func:`generate_games` lets Stockfish play
itself at mixed strengths (each side a random ``UCI_Elo``, a few random opening plies so
games differ); :func:`read_games` reads any PGN a teacher brings instead, and
:func:`sample_plies` is the Naive Bayes chapter's rule for which positions of a game to
keep (every 6th ply, every even ply after 75% of the game, always the last).
"""
from __future__ import annotations

import datetime
import gzip
import io
import random
import zlib
from functools import partial
from pathlib import Path

import chess
import chess.engine
import chess.pgn
from tqdm import tqdm

from chesslab.base.files import DATA_DIR, atomic_path
from chesslab.board.game import play_game
from chesslab.base.parallel import parallel_map
from chesslab.base.stockfish import find_stockfish, stop_worker_engines, worker_engine

#: Strength range (UCI_Elo) of the self-play players; Stockfish 15.1 accepts 1350..2850.
ELO_RANGE = (1350, 2850)
#: The shipped game records.
DEFAULT_GAMES = DATA_DIR / "games" / "stockfish_selfplay.pgn.gz"


def sample_plies(n_plies: int) -> list[int]:
    """The Naive Bayes chapter's sampling rule, as plies (half-moves played) to keep.

    Every 6th ply while at most 75% of the game is played, every even ply in the last
    quarter (the endgame, where each move matters more), and always the final position
    (the one that decided the result). Ply p is the position after p half-moves, so an
    even ply has White to move.
    """
    cut = 0.75 * n_plies
    plies = [p for p in range(1, n_plies + 1)
             if (p <= cut and p % 6 == 0) or (p > cut and p % 2 == 0)]
    if not plies or plies[-1] != n_plies:
        plies.append(n_plies)
    return plies


def walk(game: chess.pgn.Game):
    """Each position of a game's main line, in order: ``(ply, board, move)`` where
    ``move`` is the move played from it (None after the last). ``board`` is one board
    moved on after each step: copy it to keep a position."""
    board = game.board()
    ply = 0
    for move in game.mainline_moves():
        yield ply, board, move
        board.push(move)
        ply += 1
    yield ply, board, None


def game_positions(game: chess.pgn.Game, every: int | None = None):
    """Positions of one game as ``(fen, ply, sampled_by_rule)``.

    Always the chapter's sample (:func:`sample_plies`); with ``every=k`` also every
    k-th ply, to get more positions per game for the evaluator dataset.
    """
    rule = set(sample_plies(game.end().ply() - game.board().ply()))
    return [(board.fen(), ply, ply in rule) for ply, board, _ in walk(game)
            if ply in rule or (every and ply and ply % every == 0)]


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


class _MarkedGameBuilder(chess.pgn.GameBuilder):
    """python-chess's game builder, also noting the result marker that ends the moves
    (1-0, 0-1, 1/2-1/2, *). A game without one was cut off: its moves stop early, yet
    its headers still give the whole game's result (a wrong training label)."""

    def visit_result(self, result: str) -> None:
        self.game.result_marker = result
        super().visit_result(result)


def _check_complete(game, path, number):
    marker = getattr(game, "result_marker", None)
    header = game.headers.get("Result", "*")
    if marker is None and (game.next() is not None or header != "*"):
        raise ValueError(f"{path}: game {number} stops before its result marker (1-0, "
                         f"0-1, 1/2-1/2 or *): the file looks cut off mid-game; restore "
                         f"the file or delete the unfinished game")
    if marker is not None and "*" not in (marker, header) and marker != header:
        raise ValueError(f"{path}: game {number} says Result \"{header}\" in its headers "
                         f"but ends with {marker}; fix the file so they agree")


#: How much of a file ``read_games`` looks at for binary data before parsing it.
_SNIFF_CHARS = 1 << 16


def _read_game(fh, path, number):
    """The next game of an open PGN file (None at its end). python-chess's parser
    can fail on garbage with an internal IndexError (the only error fuzzing it with
    random text gave): named here."""
    try:
        return chess.pgn.read_game(fh, Visitor=_MarkedGameBuilder)
    except IndexError as exc:
        raise ValueError(f"{path} is not a readable PGN file: python-chess cannot parse "
                         f"game {number} ({type(exc).__name__}: {exc}); is it a PGN file "
                         f"(text with [Event ...] headers and moves like 1. e4 e5)? Restore "
                         f"or fix it") from None


def read_games(path, limit: int | None = None) -> list[chess.pgn.Game]:
    """The games of a PGN file (plain or ``.gz``; the first ``limit`` if given), with
    errors that name the problem (a damaged or cut-off file is refused, not half read)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"PGN file {path} does not exist")
    games = []
    try:
        with _open_text(path) as fh:
            if "\0" in fh.read(_SNIFF_CHARS):
                raise ValueError(f"{path} is not a PGN file: it holds binary data (a NUL "
                                 f"byte), not text; pass a PGN text file (plain or .gz) "
                                 f"with [Event ...] headers and moves like 1. e4 e5")
            fh.seek(0)
            while len(games) != limit and (game := _read_game(fh, path, len(games) + 1)):
                if game.errors:
                    raise ValueError(f"{path} is not a readable PGN file: game "
                                     f"{len(games) + 1} has an error: {game.errors[0]}")
                _check_complete(game, path, len(games) + 1)
                games.append(game)
    except (OSError, EOFError, zlib.error) as exc:  # e.g. a cut or corrupt .gz file
        raise ValueError(f"{path} is not a readable PGN file ({exc}); it may be cut off "
                         f"or damaged: restore it") from None
    if not games or not any(any(g.mainline_moves()) for g in games):
        raise ValueError(f"{path} holds no chess game with moves; is it a PGN file "
                         f"(text with [Event ...] headers and moves like 1. e4 e5)?")
    return games


class _EngineSide:
    """One side of a Stockfish self-play game: the engine at this side's UCI_Elo."""

    def __init__(self, engine, elo: int, nodes: int):
        self.engine, self.name = engine, f"{engine.id.get('name', 'Stockfish')} (UCI_Elo {elo})"
        self.limit = chess.engine.Limit(nodes=nodes)
        self.options = {"UCI_LimitStrength": True, "UCI_Elo": elo}

    def choose_move(self, board: chess.Board) -> chess.Move:
        return self.engine.play(board, self.limit, options=self.options).move


def play_selfplay_game(engine, index: int = 0, seed: int = 0, nodes: int = 1000,
                       opening_plies=(3, 6), elo_range=ELO_RANGE,
                       max_plies: int = 300) -> chess.pgn.Game:
    """Stockfish against itself: each side gets a random UCI_Elo, the game a few
    random opening plies (so games differ), then ``nodes`` nodes per move.

    Stockfish's strength limit picks among its best moves with its own, clock-seeded
    random generator, so the moves are not reproducible; our own choices (strengths,
    opening plies) are seeded by (seed, index). A game still running after
    ``max_plies`` plies (openings included) is adjudicated a draw (Termination
    "move cap"; ``chesslab.board.game.play_game`` plays it).
    """
    rng = random.Random(f"games:{seed}:{index}")
    elos = {chess.WHITE: rng.randint(*elo_range), chess.BLACK: rng.randint(*elo_range)}
    n_random = rng.randint(*opening_plies)
    board = chess.Board()
    for _ in range(n_random):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    game = play_game(_EngineSide(engine, elos[chess.WHITE], nodes),
                     _EngineSide(engine, elos[chess.BLACK], nodes), board,
                     max_plies=max(max_plies - board.ply(), 0))
    game.headers.update({
        "Event": "chesslab Stockfish self-play", "Site": "chesslab",
        "Date": datetime.date.today().strftime("%Y.%m.%d"), "Round": str(index + 1),
        "WhiteElo": str(elos[chess.WHITE]), "BlackElo": str(elos[chess.BLACK]),
        "GameId": str(index), "Seed": str(seed), "NodesPerMove": str(nodes),
        "RandomOpeningPlies": str(n_random)})
    return game


def _selfplay_pgn(index: int, engine_path: str, **kwargs) -> str:
    return str(play_selfplay_game(worker_engine(engine_path), index, **kwargs))


def generate_games(count: int = 5000, path=DEFAULT_GAMES, seed: int = 0, nodes: int = 1000,
                   workers: int = 1, progress: bool = True, max_plies: int = 300) -> Path:
    """Play ``count`` self-play games and write them to a PGN file (gzip if ``.gz``)."""
    if count < 1:
        raise ValueError(f"the number of games must be at least 1, not {count}")
    if max_plies < 1 or nodes < 1:
        raise ValueError(f"max_plies and nodes must be at least 1, got {max_plies} and "
                         f"{nodes}")
    path = Path(path)
    work = partial(_selfplay_pgn, engine_path=find_stockfish(), seed=seed, nodes=nodes,
                   max_plies=max_plies)
    with atomic_path(path, suffix=".pgn.tmp") as tmp:
        with open(tmp, "wb") as raw:
            out = (gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
                   if path.suffix == ".gz" else raw)
            with io.TextIOWrapper(out, encoding="utf-8", newline="\n") as text, \
                    tqdm(total=count, desc="games", disable=not progress) as bar:
                def write(_index, pgn):
                    text.write(pgn + "\n\n")
                    bar.update()
                try:
                    parallel_map(work, range(count), workers, on_result=write, chunksize=2)
                finally:
                    stop_worker_engines()
    return path
