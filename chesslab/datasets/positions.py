"""Training data: random positions, and datasets of labelled positions on disk.

Three sources of positions:

* **random** (after the tutorial's ``random_board``): play random legal moves from the
  start for a random number of plies (:func:`random_positions`). Where the tutorial keeps
  the finished position of a game that ends on the way, these walks are thrown away, and
  each walk draws from its own seeded generator instead of the global ``random`` module.
  The start of one such list is stored (``RANDOM_POSITIONS_FILE``) and read instead of
  walked again when it covers the request;
* **game** (the Naive Bayes chapter): positions from game records (``chesslab.datasets.records``);
* **leaf**: the leaves of real searches (``chesslab.training.leaves``, ``data leaves``).

Every position is scored by Stockfish at a fixed depth (``chesslab.datasets.labels``).
:func:`build_dataset` puts games, random positions and labels together;
:func:`extend_with_game_plies` adds every ply of the training games.

A dataset file is one compressed ``.npz`` of plain arrays (no pickles), loaded by
:func:`load_dataset`; :meth:`Dataset.split` splits it **by game** so that positions of
one game never end up on both sides of a train/test split.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import random
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import chess
import numpy as np
from tqdm import tqdm

from chesslab.base.files import DATA_DIR, atomic_path, read_npz
from chesslab.datasets.records import DEFAULT_GAMES, game_positions, read_games
from chesslab.datasets.labels import label_fens
from chesslab.base.parallel import parallel_map
from chesslab.board.rules import outcome
from chesslab.board.scores import LABEL_MATE_CP
from chesslab.base.stockfish import ENGINE_OPTIONS, engine_name

#: The shipped dataset.
DEFAULT_DATASET = DATA_DIR / "positions.npz"
#: The start of one list of random positions, stored: generating them lists the legal
#: moves of every ply of every walk, a cost each notebook run (and each graded student)
#: would pay again. ``python -m chesslab data random-positions`` writes it.
RANDOM_POSITIONS_FILE = DATA_DIR / "random_positions.npz"


# ---------------------------------------------------------------- random positions

def random_board(rng: random.Random, max_plies: int = 200) -> chess.Board | None:
    """A random number of random legal moves from the start, after the tutorial's
    ``random_board``, with two differences.

    The tutorial stops when the game ends on the way and keeps the finished position;
    here the walk returns None (the caller skips it and draws another): an ended walk
    is cheap to replace, and finished positions reach a dataset anyway as the final
    positions of its game records, where they are part of a game.
    The tutorial draws from the global ``random`` module; here the generator is passed
    in, so a seed gives the same positions every time.
    """
    board = chess.Board()
    for _ in range(rng.randrange(0, max_plies)):
        board.push(rng.choice(list(board.legal_moves)))
        # the endings that need no claim (the tutorial's own test, python-chess's
        # is_game_over): it decides which walks the shipped dataset kept
        if outcome(board, claim_draws=False) is not None:
            return None
    return board


def _random_fen(index: int, seed: int, max_plies: int):
    board = random_board(random.Random(f"random:{seed}:{index}"), max_plies)
    return None if board is None else (board.fen(), board.ply())


def random_positions(count: int, seed: int = 0, max_plies: int = 200, exclude=(),
                     workers: int = 1, progress: bool = False) -> list[tuple[str, int]]:
    """``count`` distinct random positions as ``(fen, plies)``, none of them in ``exclude``.

    Walk number k uses its own generator seeded by (seed, k), so the result does not
    depend on the number of workers, and asking for fewer positions gives the start of
    the same list. When ``RANDOM_POSITIONS_FILE`` covers the request (the same seed and
    max_plies, nothing excluded, no more positions than it holds), the positions are
    read from it instead of walked again.
    """
    seen = set(position_key(f) for f in exclude)
    if not seen and count > 0:
        stored = stored_random_positions(count, seed, max_plies)
        if stored is not None:
            return stored
    return [(fen, plies) for fen, plies, _ in
            _walk_positions(count, seed, max_plies, seen, workers, progress)]


def _walk_positions(count, seed, max_plies, seen, workers=1, progress=False):
    """``count`` distinct positions not in ``seen`` (a set of ``position_key``s, added
    to), as ``(fen, plies, walk number)``, walking every time."""
    found, start = [], 0
    work = partial(_random_fen, seed=seed, max_plies=max_plies)
    with tqdm(total=count, desc="random positions", disable=not progress) as bar:
        while len(found) < count:
            batch = 64 + int(1.25 * (count - len(found)))
            walks = parallel_map(work, range(start, start + batch), workers, chunksize=256)
            for walk, item in enumerate(walks, start):
                if item is None or len(found) == count:
                    continue
                key = position_key(item[0])
                if key not in seen:
                    seen.add(key)
                    found.append((*item, walk))
                    bar.update()
            start += batch
    return found


def fens_digest(fens) -> str:
    """SHA-256 of the FENs, one per line: a short name for one exact list of positions."""
    return hashlib.sha256("\n".join(fens).encode()).hexdigest()


def write_random_positions(path=None, count: int = 6000, seed: int = 0,
                           max_plies: int = 200, workers: int = 1,
                           progress: bool = True) -> Path:
    """Walk ``count`` random positions and store them (default: ``RANDOM_POSITIONS_FILE``)
    with each one's walk number and the metadata a reader checks: seed, max_plies, count
    and the FENs' digest."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    path = Path(path or RANDOM_POSITIONS_FILE)
    found = _walk_positions(count, seed, max_plies, set(), workers, progress)
    fens = [fen for fen, _, _ in found]
    metadata = {"seed": seed, "max_plies": max_plies, "count": count,
                "sha256": fens_digest(fens), "python-chess": chess.__version__,
                "written by": f"python -m chesslab data random-positions --count {count} "
                              f"--seed {seed} --max-plies {max_plies}",
                "date": datetime.date.today().isoformat()}
    with atomic_path(path, suffix=".npz.tmp") as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, fen=np.array(fens, dtype=str),
                                plies=np.array([p for _, p, _ in found], dtype=np.int16),
                                walk=np.array([w for _, _, w in found], dtype=np.int64),
                                metadata=np.array(json.dumps(metadata, sort_keys=True)))
    return path


def read_random_positions(path=None) -> dict:
    """A stored list of random positions: ``fen``, ``plies``, ``walk`` (the walk number of
    each) and ``metadata``; a ValueError that says how to write it again when the file
    is damaged or its FENs do not match the digest it stores."""
    path = Path(path or RANDOM_POSITIONS_FILE)
    again = "write it again with `python -m chesslab data random-positions`"
    arrays = read_npz(path, "random positions file")
    missing = [c for c in ("fen", "plies", "walk", "metadata") if c not in arrays]
    if missing:
        raise ValueError(f"{path} is not a random positions file: it lacks "
                         f"{', '.join(missing)}; {again}")
    try:
        metadata = json.loads(str(arrays["metadata"]))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: its metadata is not JSON ({exc}); {again}") from None
    fens = arrays["fen"].tolist()
    if not (len(fens) == len(arrays["plies"]) == len(arrays["walk"]) == metadata.get("count")):
        raise ValueError(f"{path} is damaged: {len(fens)} FENs, {len(arrays['plies'])} "
                         f"plies, {len(arrays['walk'])} walk numbers, metadata count "
                         f"{metadata.get('count')}; {again}")
    if fens_digest(fens) != metadata.get("sha256"):
        raise ValueError(f"{path} is damaged: its FENs do not match the digest it "
                         f"stores; {again}")
    return {"fen": fens, "plies": arrays["plies"].tolist(), "walk": arrays["walk"].tolist(),
            "metadata": metadata}


def stored_random_positions(count: int, seed: int = 0, max_plies: int = 200,
                            path=None) -> list[tuple[str, int]] | None:
    """The first ``count`` stored random positions when the file (default:
    ``RANDOM_POSITIONS_FILE``) covers the request (same seed and max_plies, at least
    ``count`` positions); None when it does not or there is no file."""
    path = Path(path or RANDOM_POSITIONS_FILE)
    if not path.exists():
        return None
    stored = read_random_positions(path)
    meta = stored["metadata"]
    if meta.get("seed") != seed or meta.get("max_plies") != max_plies or count > meta["count"]:
        return None
    return list(zip(stored["fen"][:count], stored["plies"][:count]))


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

    def concat(self, other: "Dataset", metadata: dict | None = None) -> "Dataset":
        """This dataset's rows, then ``other``'s (with ``metadata``, default this one's).

        Numbers keep this dataset's types; text columns widen to fit the longer of the
        two (a FEN longer than any stored so far is kept whole)."""
        def join(a, b):
            both = np.concatenate([a, np.asarray(b)])
            return both if a.dtype.kind in "US" else both.astype(a.dtype)
        return Dataset(**{c: join(getattr(self, c), getattr(other, c)) for c in self.COLUMNS},
                       metadata=dict(self.metadata if metadata is None else metadata))

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
    extra = make_dataset(rows, {"depth": depth})
    metadata = dict(dataset.metadata, extra_plies={
        "depth": depth, "positions": len(rows), "pgn": Path(pgn_path).name,
        "games": f"every ply of the training part's games (split seed {seed})"})
    return dataset.concat(extra, metadata)


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
