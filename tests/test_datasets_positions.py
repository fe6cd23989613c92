"""Datasets: random positions, the split by game, dataset files, the shipped dataset and
the data commands. (Game records: test_datasets_records.py; Stockfish labels: test_datasets_labels.py.)"""
import json
import random

import chess
import numpy as np
import pytest

from chesslab.datasets import positions, records
from chesslab.__main__ import main
from chesslab.board.scores import LABEL_MATE_CP
from needs_stockfish import needs_stockfish


def row(fen, game_id, source="game", cp=0, ply=0):
    return dict(fen=fen, cp=cp, wdl=(0, 1000, 0), source=source, game_id=game_id,
                ply=ply, result="*", sampled_by_rule=False)


def small_dataset(n_games=30, per_game=5, seed=1):
    """Distinct positions from random walks, grouped into fake games."""
    rng = random.Random(seed)
    rows, seen = [], set()
    while len(rows) < n_games * per_game:
        board = positions.random_board(rng, 60)
        if board is not None and positions.position_key(board.fen()) not in seen:
            seen.add(positions.position_key(board.fen()))
            rows.append(row(board.fen(), len(rows) // per_game, cp=len(rows)))
    return positions.make_dataset(rows, {"depth": 10})


def test_random_positions_distinct_seeded_unfinished():
    first = positions.random_positions(40, seed=3, max_plies=80)
    assert first == positions.random_positions(40, seed=3, max_plies=80)
    assert first != positions.random_positions(40, seed=4, max_plies=80)
    keys = [positions.position_key(f) for f, _ in first]
    assert len(set(keys)) == 40
    for fen, plies in first:
        board = chess.Board(fen)
        assert not board.is_game_over() and board.ply() == plies < 80
    # excluded positions are not produced again; two workers give the same list
    rest = positions.random_positions(40, seed=3, max_plies=80, exclude=[f for f, _ in first[:10]])
    assert not set(keys[:10]) & {positions.position_key(f) for f, _ in rest}
    assert positions.random_positions(40, seed=3, max_plies=80, workers=2) == first


def test_split_by_game_has_no_leak_and_is_seeded():
    ds = small_dataset()
    train, val, test = ds.split(seed=5)
    sides = [set(part.game_id.tolist()) for part in (train, val, test)]
    assert not (sides[0] & sides[1] or sides[0] & sides[2] or sides[1] & sides[2])
    assert len(train) + len(val) + len(test) == len(ds)
    assert sorted(np.concatenate([p.cp for p in (train, val, test)])) == sorted(ds.cp)
    assert [len(s) for s in sides] == [24, 3, 3]
    again = ds.split(seed=5)
    assert all(np.array_equal(a.fen, b.fen) for a, b in zip((train, val, test), again))
    with pytest.raises(ValueError, match="sum to 1"):
        ds.split((0.5, 0.1, 0.1))


def test_position_key_ignores_the_move_counters():
    a = chess.Board().fen()
    moved = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8"):  # back to the start, other counters
        moved.push_uci(uci)
    assert moved.fen() != a and positions.position_key(moved.fen()) == positions.position_key(a)
    e4 = chess.Board()
    e4.push_uci("e2e4")
    assert positions.position_key(e4.fen()) != positions.position_key(a)


def test_npz_round_trip_without_pickle(tmp_path):
    ds = small_dataset(n_games=4)
    ds.metadata = {"depth": 10, "engine": "test"}
    path = positions.save_dataset(ds, tmp_path / "p.npz")
    with np.load(path, allow_pickle=False) as npz:
        assert npz["fen"].dtype.kind == "U"
        assert json.loads(str(npz["metadata"]))["engine"] == "test"
    back = positions.load_dataset(path)
    for name in positions.Dataset.COLUMNS:
        assert np.array_equal(getattr(back, name), getattr(ds, name)), name
    assert back.metadata == ds.metadata
    assert [b.fen() for b in back.boards()] == ds.fen.tolist()


def test_empty_and_bad_datasets_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        positions.make_dataset([])
    empty = small_dataset(n_games=1).subset(np.zeros(5, dtype=bool))
    np.savez_compressed(tmp_path / "e.npz", metadata=np.array("{}"),
                        **{c: getattr(empty, c) for c in positions.Dataset.COLUMNS})
    with pytest.raises(ValueError, match="empty"):
        positions.load_dataset(tmp_path / "e.npz")
    with pytest.raises(FileNotFoundError, match="data build"):
        positions.load_dataset(tmp_path / "none.npz")
    np.savez_compressed(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="lacks"):
        positions.load_dataset(tmp_path / "other.npz")


def test_shipped_dataset_meets_the_targets():
    ds = positions.load_dataset()
    summary = positions.describe(ds)
    assert summary["distinct"] == len(ds) >= 250_000
    assert ds.metadata["depth"] >= 10
    # most positions come from play (games, and the leaves of searches from game
    # positions), and games stay the largest source; random walks are the minority
    by_source = summary["by_source"]
    assert by_source["game"] + by_source.get("leaf", 0) >= 0.6 * len(ds)
    assert by_source["game"] == max(by_source.values())
    assert ds.metadata["games"] >= 5000 and positions.DEFAULT_GAMES.exists()
    train, val, test = (set(p.game_id.tolist()) for p in ds.split())
    assert not (train & val or train & test or val & test)
    assert np.all(np.abs(ds.cp) <= LABEL_MATE_CP) and np.all(ds.wdl.sum(axis=1) == 1000)
    assert set(np.unique(ds.result[ds.source == "game"])) <= {"1-0", "0-1", "1/2-1/2"}
    size = positions.DEFAULT_DATASET.stat().st_size + records.DEFAULT_GAMES.stat().st_size
    assert size < 50e6


def test_cli_info(tmp_path, capsys):
    path = positions.save_dataset(small_dataset(n_games=10), tmp_path / "p.npz")
    assert main(["data", "info", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["positions"] == summary["distinct"] == 50
    assert summary["games"] == 10 and summary["depth"] == 10


@needs_stockfish
def test_cli_build_makes_games_and_a_labelled_dataset(tmp_path, capsys):
    pgn, npz = tmp_path / "g.pgn.gz", tmp_path / "p.npz"
    assert main(["data", "build", "--count", "2", "--nodes", "50", "--max-plies", "24",
                 "--random", "5", "--depth", "4", "--workers", "1", "--extra-depth", "0",
                 "--out-games", str(pgn), "--out", str(npz)]) == 0
    ds = positions.load_dataset(npz)
    assert len(records.read_games(pgn)) == 2 == ds.metadata["games"]
    assert (ds.source == "random").sum() == 5 and ds.metadata["depth"] == 4
    assert set(ds.game_id[ds.source == "game"].tolist()) == {0, 1}
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1])["positions"] == len(ds)


def test_ragged_dataset_is_refused(tmp_path):
    ds = small_dataset(n_games=2)
    with pytest.raises(ValueError, match="column ply has 9 rows but fen has 10"):
        positions.Dataset(**{c: getattr(ds, c) for c in positions.Dataset.COLUMNS if c != "ply"},
                     ply=ds.ply[:-1])


@needs_stockfish
def test_extend_adds_every_ply_of_the_training_games_only(tmp_path):
    pgn = records.generate_games(6, tmp_path / "g.pgn.gz", seed=3, nodes=50, max_plies=40,
                               progress=False)
    base = positions.build_dataset([pgn], n_random=4, depth=3, every=8, progress=False)
    grown = positions.extend_with_game_plies(base, pgn, depth=2, progress=False)
    assert len(grown) > len(base) and (grown.depth[:len(base)] == 3).all()
    assert (grown.depth[len(base):] == 2).all()
    # validation and test are exactly as before; the new rows are training games' plies
    for before, after in zip(base.split(), grown.split()):
        assert set(before.game_id.tolist()) == set(after.game_id.tolist())
    train_ids = set(base.split()[0].game_id.tolist())
    new = grown.subset(np.arange(len(base), len(grown)))
    assert set(new.game_id.tolist()) <= train_ids and (new.ply % 2 == 1).any()
    for part_before, part_after in zip(base.split()[1:], grown.split()[1:]):
        assert sorted(part_before.fen.tolist()) == sorted(part_after.fen.tolist())
    assert len({positions.position_key(f) for f in grown.fen}) == len(grown)
    # the depth column survives a save and load; a file without it gets the metadata's
    path = positions.save_dataset(grown, tmp_path / "p.npz")
    assert positions.load_dataset(path).depth.tolist() == grown.depth.tolist()
    arrays = dict(np.load(path))
    del arrays["depth"]
    np.savez(tmp_path / "old.npz", **arrays)
    assert (positions.load_dataset(tmp_path / "old.npz").depth == 3).all()


def test_concat_keeps_every_row_and_a_longer_fen_whole():
    short = positions.make_dataset([dict(fen="8/8/8/8/8/8/8/K6k w - - 0 1", cp=1, wdl=(0, 1000, 0),
                                    source="random", game_id=-1, ply=0, result="*",
                                    sampled_by_rule=False)], {"depth": 10})
    long_fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 10 100"
    extra = positions.make_dataset([dict(fen=long_fen, cp=-5, wdl=(0, 0, 1000), source="leaf",
                                    game_id=3, ply=7, result="1-0", sampled_by_rule=False)],
                              {"depth": 8})
    both = short.concat(extra)
    assert list(both.fen) == [short.fen[0], long_fen] and list(both.cp) == [1, -5]
    assert list(both.depth) == [10, 8] and both.cp.dtype == short.cp.dtype
    assert both.metadata == {"depth": 10} and short.concat(extra, {"x": 1}).metadata == {"x": 1}
