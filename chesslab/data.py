"""Training data: random positions, game records, Stockfish labels, datasets on disk.

Two sources of positions, as in the seed documents:

* **random** (the tutorial): play random legal moves from the start for a random
  number of plies; games that end on the way are thrown away.
* **game** (the Naive Bayes chapter): positions from game records. No game database
  can be downloaded here, so :func:`generate_games` lets Stockfish play itself at mixed
  strengths; :func:`read_games` reads any PGN a teacher brings instead.

Every position is scored by Stockfish at a fixed depth (:func:`label_fens`): centipawns
from White's side, and the engine's win/draw/loss estimate per mille. A forced mate in
``n`` moves is stored as ``±(LABEL_MATE_CP - n)`` (python-chess
``score(mate_score=LABEL_MATE_CP)``); every score is clipped to ``±LABEL_MATE_CP``, so
``|cp| > LABEL_MATE_CP - 1000`` means "a mate was found" (``chesslab.scores`` says why
labels use this smaller scale than the search's ``MATE``).

A dataset file is one compressed ``.npz`` of plain arrays (no pickles), loaded by
:func:`load_dataset`; :meth:`Dataset.split` splits it **by game** so that positions of
one game never end up on both sides of a train/test split.
"""
from __future__ import annotations

import datetime
import gzip
import io
import json
import random
import zipfile
import zlib
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import numpy as np
from tqdm import tqdm

from .files import DATA_DIR, atomic_path
from .game import outcome, play
from .parallel import parallel_map
from .scores import LABEL_MATE_CP
from .stockfish import (ENGINE_OPTIONS, engine_name, find_stockfish, stop_worker_engines,
                        worker_engine)

#: Strength range (UCI_Elo) of the self-play players; Stockfish 15.1 accepts 1350..2850.
ELO_RANGE = (1350, 2850)
#: The shipped dataset and game records.
DEFAULT_DATASET = DATA_DIR / "positions.npz"
DEFAULT_GAMES = DATA_DIR / "games" / "stockfish_selfplay.pgn.gz"


# ---------------------------------------------------------------- random positions

def random_board(rng: random.Random, max_plies: int = 200) -> chess.Board | None:
    """The tutorial's random position: a random number of random legal moves.

    Returns None when the random game ended on the way (the caller skips it).
    """
    board = chess.Board()
    for _ in range(rng.randrange(0, max_plies)):
        board.push(rng.choice(list(board.legal_moves)))
        # the tutorial's own test (not chesslab.game.outcome, which also ends a walk at a
        # threefold repetition): it decides which walks the shipped dataset kept
        if board.is_game_over():
            return None
    return board


def _random_fen(index: int, seed: int, max_plies: int):
    board = random_board(random.Random(f"random:{seed}:{index}"), max_plies)
    return None if board is None else (board.fen(), board.ply())


def random_positions(count: int, seed: int = 0, max_plies: int = 200, exclude=(),
                     workers: int = 1, progress: bool = False) -> list[tuple[str, int]]:
    """``count`` distinct random positions as ``(fen, plies)``, none of them in ``exclude``.

    Walk number k uses its own generator seeded by (seed, k), so the result does not
    depend on the number of workers.
    """
    seen = set(position_key(f) for f in exclude)
    found, start = [], 0
    work = partial(_random_fen, seed=seed, max_plies=max_plies)
    with tqdm(total=count, desc="random positions", disable=not progress) as bar:
        while len(found) < count:
            batch = 64 + int(1.25 * (count - len(found)))
            for item in parallel_map(work, range(start, start + batch), workers,
                                     chunksize=256):
                if item is None or len(found) == count:
                    continue
                key = position_key(item[0])
                if key not in seen:
                    seen.add(key)
                    found.append(item)
                    bar.update()
            start += batch
    return found


# ---------------------------------------------------------------- game records

def sample_plies(n_plies: int) -> list[int]:
    """The Naive Bayes chapter's sampling rule, as plies (half-moves played) to keep.

    Every 6th ply while at most 75% of the game is played, every 2nd ply in the last
    quarter (the endgame, where each move matters more), and always the final position
    (the one that decided the result). Ply p is the position after p half-moves.
    """
    cut = 0.75 * n_plies
    plies = [p for p in range(1, n_plies + 1)
             if (p <= cut and p % 6 == 0) or (p > cut and p % 2 == 0)]
    if not plies or plies[-1] != n_plies:
        plies.append(n_plies)
    return plies


def game_positions(game: chess.pgn.Game, every: int | None = None):
    """Positions of one game as ``(fen, ply, sampled_by_rule)``.

    Always the chapter's sample (:func:`sample_plies`); with ``every=k`` also every
    k-th ply, to get more positions per game for the evaluator dataset.
    """
    moves = list(game.mainline_moves())
    rule = set(sample_plies(len(moves)))
    board = game.board()
    out = [(board.fen(), 0, True)] if 0 in rule else []
    for ply, move in enumerate(moves, start=1):
        board.push(move)
        if ply in rule or (every and ply % every == 0):
            out.append((board.fen(), ply, ply in rule))
    return out


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


def read_games(path, limit: int | None = None) -> list[chess.pgn.Game]:
    """The games of a PGN file (plain or ``.gz``; the first ``limit`` if given), with
    errors that name the problem (a damaged or cut-off file is refused, not half read)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"PGN file {path} does not exist")
    games = []
    try:
        with _open_text(path) as fh:
            while len(games) != limit and (
                    game := chess.pgn.read_game(fh, Visitor=_MarkedGameBuilder)) is not None:
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
    "move cap"; ``chesslab.game.play`` plays it).
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
    game = play(_EngineSide(engine, elos[chess.WHITE], nodes),
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


def generate_games(count: int, path=DEFAULT_GAMES, seed: int = 0, nodes: int = 1000,
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
            with io.TextIOWrapper(out, encoding="utf-8") as text, \
                    tqdm(total=count, desc="games", disable=not progress) as bar:
                def write(_index, pgn):
                    text.write(pgn + "\n\n")
                    bar.update()
                try:
                    parallel_map(work, range(count), workers, on_result=write, chunksize=2)
                finally:
                    stop_worker_engines()
    return path


# ---------------------------------------------------------------- Stockfish labels

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


# ---------------------------------------------------------------- datasets

def position_key(fen: str) -> str:
    """What makes two positions the same: the FEN without its move counters."""
    return " ".join(fen.split()[:4])


@dataclass
class Dataset:
    """Labelled positions; each field is an array with one row per position.

    fen: FEN strings; cp: Stockfish score in centipawns, White's side, clipped to
    ±LABEL_MATE_CP; wdl: (N, 3) win/draw/loss per mille, White's side; source: "random" or
    "game"; game_id: the game a position comes from (random positions get their own
    negative pseudo ids -1, -2, ...); ply: half-moves played; result: the game's result
    ("1-0", "0-1", "1/2-1/2"; "*" for random positions); sampled_by_rule: True for the
    Naive Bayes chapter's sample of each game; metadata: how the file was made;
    depth: the Stockfish depth of each label (default: the metadata's "depth" for all).
    """
    fen: np.ndarray
    cp: np.ndarray
    wdl: np.ndarray
    source: np.ndarray
    game_id: np.ndarray
    ply: np.ndarray
    result: np.ndarray
    sampled_by_rule: np.ndarray
    metadata: dict = field(default_factory=dict)
    depth: np.ndarray | None = None

    COLUMNS = ("fen", "cp", "wdl", "source", "game_id", "ply", "result",
               "sampled_by_rule", "depth")
    #: Files written before labels had a depth each lack the last column.
    REQUIRED = COLUMNS[:-1]

    def __post_init__(self):
        if self.depth is None:
            self.depth = np.full(len(self.fen), int(self.metadata.get("depth", 0)), np.int8)
        problem = _column_problem({c: getattr(self, c) for c in self.COLUMNS})
        if problem:
            raise ValueError(f"inconsistent Dataset: {problem}")

    def __len__(self) -> int:
        return len(self.fen)

    def __repr__(self) -> str:
        counts = ", ".join(f"{s}={int(n)}" for s, n in
                           zip(*np.unique(self.source, return_counts=True)))
        return f"Dataset({len(self)} positions: {counts})"

    def subset(self, index) -> "Dataset":
        """The rows picked by an index array or a boolean mask (metadata kept)."""
        return Dataset(**{c: getattr(self, c)[index] for c in self.COLUMNS},
                       metadata=dict(self.metadata))

    def boards(self) -> list[chess.Board]:
        return boards_from_fens(self.fen)

    def split(self, fractions=(0.8, 0.1, 0.1), seed: int = 0):
        """(train, validation, test) datasets; every game lands on exactly one side."""
        return tuple(self.subset(i) for i in split_by_game(self.game_id, fractions, seed))


def boards_from_fens(fens) -> list[chess.Board]:
    return [chess.Board(str(f)) for f in fens]


def split_by_game(game_ids, fractions=(0.8, 0.1, 0.1), seed: int = 0):
    """Row indices of each part: the distinct game ids are shuffled (seeded) and cut
    by ``fractions``, so all positions of one game go to the same part."""
    fractions = np.asarray(fractions, dtype=float)
    if fractions.ndim != 1 or np.any(fractions < 0) or not np.isclose(fractions.sum(), 1):
        raise ValueError(f"split fractions must be non-negative and sum to 1, got "
                         f"{fractions.tolist()}")
    game_ids = np.asarray(game_ids)
    ids = np.unique(game_ids)
    ids = ids[np.random.default_rng(seed).permutation(len(ids))]
    cuts = np.round(np.cumsum(fractions)[:-1] * len(ids)).astype(int)
    part_of = dict(zip(ids.tolist(), np.repeat(np.arange(len(fractions)),
                                               np.diff([0, *cuts, len(ids)])).tolist()))
    part = np.array([part_of[g] for g in game_ids.tolist()], dtype=int)
    return tuple(np.flatnonzero(part == k) for k in range(len(fractions)))


def make_dataset(rows, metadata=None) -> Dataset:
    """A Dataset from row dicts with keys fen, cp, wdl, source, game_id, ply, result,
    sampled_by_rule."""
    rows = list(rows)
    if not rows:
        raise ValueError("the dataset is empty: there are no positions to store")
    col = lambda name: [r[name] for r in rows]  # noqa: E731
    return Dataset(fen=np.array(col("fen"), dtype=str),
                   cp=np.array(col("cp"), dtype=np.int16),
                   wdl=np.array(col("wdl"), dtype=np.int16).reshape(len(rows), 3),
                   source=np.array(col("source"), dtype="<U6"),
                   game_id=np.array(col("game_id"), dtype=np.int32),
                   ply=np.array(col("ply"), dtype=np.int16),
                   result=np.array(col("result"), dtype="<U7"),
                   sampled_by_rule=np.array(col("sampled_by_rule"), dtype=bool),
                   metadata=dict(metadata or {}))


def save_dataset(dataset: Dataset, path=DEFAULT_DATASET) -> Path:
    """Write a compressed .npz of plain arrays (loads with allow_pickle=False), atomically."""
    if len(dataset) == 0:
        raise ValueError("the dataset is empty: there are no positions to store")
    path = Path(path)
    arrays = {c: np.asarray(getattr(dataset, c)) for c in Dataset.COLUMNS}
    arrays["fen"] = arrays["fen"].astype(str)  # fixed-width unicode, never object
    arrays["metadata"] = np.array(json.dumps(dataset.metadata, sort_keys=True))
    with atomic_path(path, suffix=".npz.tmp") as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)
    return path


def read_npz(path, what: str = "dataset") -> dict:
    """Every array of an ``.npz`` file (no pickles), with one line naming the file when
    it is not an .npz at all, or is cut off or damaged (instead of BadZipFile, zlib.error
    or numpy's "pickled data")."""
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head not in (b"PK\x03\x04", b"PK\x05\x06"):   # how every zip (.npz) file starts
        raise ValueError(f"{what} {path} is not an .npz file (it does not start like one); "
                         f"give the .npz that chesslab wrote")
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error) as exc:
        raise ValueError(f"{what} {path} is cut off or damaged ({exc}); restore it or "
                         f"build it again") from None


def _column_problem(columns: dict) -> str | None:
    """What is wrong with a dataset's columns (None if nothing): every column needs one
    row per position, numbers where numbers belong, text where text belongs."""
    n = len(columns["fen"])
    for name in Dataset.COLUMNS:
        if name not in Dataset.REQUIRED and columns.get(name) is None:
            continue
        value = np.asarray(columns[name])
        if value.ndim == 0 or len(value) != n:
            rows = "a single value" if value.ndim == 0 else f"{len(value)} rows"
            return f"column {name} has {rows} but fen has {n}"
    if np.asarray(columns["wdl"]).shape != (n, 3):
        return f"column wdl has shape {np.asarray(columns['wdl']).shape}, expected ({n}, 3)"
    for name in ("cp", "wdl", "game_id", "ply", "sampled_by_rule"):
        if not (np.issubdtype(np.asarray(columns[name]).dtype, np.number)
                or np.asarray(columns[name]).dtype == bool):
            return f"column {name} holds {np.asarray(columns[name]).dtype}, not numbers"
    return None


def load_dataset(path=None) -> Dataset:
    """Load a dataset file (default: the shipped ``data/positions.npz``)."""
    path = Path(path or DEFAULT_DATASET)
    if not path.exists():
        raise FileNotFoundError(f"dataset {path} does not exist; build it with "
                                f"`python -m chesslab data build`")
    arrays = read_npz(path, "dataset")
    missing = [c for c in (*Dataset.REQUIRED, "metadata") if c not in arrays]
    if missing:
        raise ValueError(f"{path} is not a chesslab dataset: it lacks "
                         f"{', '.join(missing)}")
    columns = {c: arrays[c] for c in Dataset.COLUMNS if c in arrays}
    problem = _column_problem(columns)
    if problem:
        raise ValueError(f"dataset {path} is damaged: {problem}; build it again")
    try:
        metadata = json.loads(str(arrays["metadata"]))
    except json.JSONDecodeError as exc:
        raise ValueError(f"dataset {path}: its metadata is not JSON ({exc})") from None
    if len(columns["fen"]) == 0:
        raise ValueError(f"dataset {path} is empty (no positions)")
    return Dataset(**columns, metadata=metadata)


def build_dataset(pgn_paths=(DEFAULT_GAMES,), n_random: int = 100_000, depth: int = 10,
                  every: int | None = 8, workers: int = 1, seed: int = 0,
                  max_plies: int = 200, progress: bool = True, cache=None) -> Dataset:
    """Positions from the games (the chapter's sample plus every ``every``-th ply) and
    ``n_random`` random positions, deduplicated and labelled by Stockfish."""
    rows, seen, game_id = [], set(), 0
    files = []
    for path in pgn_paths:
        games = read_games(path)
        files.append({"file": Path(path).name, "games": len(games)})
        for game in games:
            result = game.headers.get("Result", "*")
            for fen, ply, by_rule in game_positions(game, every):
                key = position_key(fen)
                if key not in seen:
                    seen.add(key)
                    rows.append(dict(fen=fen, source="game", game_id=game_id, ply=ply,
                                     result=result, sampled_by_rule=by_rule))
            game_id += 1
    randoms = random_positions(n_random, seed, max_plies, exclude=seen, workers=workers,
                               progress=progress) if n_random else []
    rows += [dict(fen=fen, source="random", game_id=-(k + 1), ply=ply, result="*",
                  sampled_by_rule=False) for k, (fen, ply) in enumerate(randoms)]
    if not rows:
        raise ValueError("the dataset is empty: no game positions and no random ones")
    cp, wdl = label_fens([r["fen"] for r in rows], depth, workers, progress, cache)
    for r, c, w in zip(rows, cp, wdl):
        r["cp"], r["wdl"] = c, w
    metadata = {"engine": engine_name(), "depth": depth, "engine_options": ENGINE_OPTIONS,
                "mate_cp": LABEL_MATE_CP, "seed": seed, "random_max_plies": max_plies,
                "game_every": every, "pgn_files": files, "games": game_id,
                "date": datetime.date.today().isoformat()}
    return make_dataset(rows, metadata)


def extend_with_game_plies(dataset: Dataset, pgn_path=DEFAULT_GAMES, depth: int = 8,
                           workers: int = 1, seed: int = 0, progress: bool = True,
                           cache=None) -> Dataset:
    """``dataset`` plus every ply of its TRAINING games (``split(seed=seed)``) that it
    lacks, labelled at ``depth`` (shallower: cheaper, so more positions).

    Game records give every other ply with Black to move, which the sampling rules
    (every 6th / 8th / 2nd ply) never pick. Validation and test games get nothing new,
    so they keep exactly their positions and depth-10 labels, and the split by game is
    unchanged (no new game ids).
    """
    train_ids = {int(g) for g in np.unique(dataset.game_id[
        split_by_game(dataset.game_id, seed=seed)[0]]) if g >= 0}
    seen = {position_key(f) for f in dataset.fen}
    rows = []
    for game_id, game in enumerate(read_games(pgn_path)):
        if game_id not in train_ids:
            continue
        result = game.headers.get("Result", "*")
        for fen, ply, _ in game_positions(game, every=1):
            key = position_key(fen)
            if key not in seen:
                seen.add(key)
                rows.append(dict(fen=fen, source="game", game_id=game_id, ply=ply,
                                 result=result, sampled_by_rule=False))
    if not rows:
        return dataset
    cp, wdl = label_fens([r["fen"] for r in rows], depth, workers, progress, cache)
    for r, c, w in zip(rows, cp, wdl):
        r["cp"], r["wdl"] = c, w
    extra = make_dataset(rows)
    metadata = dict(dataset.metadata, extra_plies={
        "depth": depth, "positions": len(rows), "pgn": Path(pgn_path).name,
        "games": f"every ply of the training part's games (split seed {seed})"})
    return Dataset(**{c: np.concatenate([getattr(dataset, c), getattr(extra, c)])
                      if c != "depth" else np.concatenate(
                          [dataset.depth, np.full(len(extra), depth, np.int8)])
                      for c in Dataset.COLUMNS}, metadata=metadata)


# ---------------------------------------------------------------- summary

def describe(dataset: Dataset) -> dict:
    """Counts worth reporting: positions, distinct, by source (game, random, and the
    search leaves of ``data leaves``), splits, depth."""
    splits = dataset.split()
    return {"positions": len(dataset),
            "distinct": len({position_key(f) for f in dataset.fen.tolist()}),
            "by_source": {str(s): int(n) for s, n in zip(*np.unique(dataset.source,
                                                                    return_counts=True))},
            "sampled_by_rule": int(dataset.sampled_by_rule.sum()),
            "games": int(len(np.unique(dataset.game_id[dataset.source == "game"]))),
            "splits": {n: len(s) for n, s in zip(("train", "validation", "test"), splits)},
            "depth": dataset.metadata.get("depth"),
            "engine": dataset.metadata.get("engine")}
