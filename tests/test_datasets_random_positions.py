"""The stored random positions (data/random_positions.npz): the same positions the walks
give, read only when the file covers the request, written by `data random-positions`."""
import json
import random

import numpy as np
import pytest

from chesslab.__main__ import main
from chesslab.datasets import positions

WALK = positions._walk_positions        # the walker itself (a test below counts its calls)


def _walked(count, seed=0, max_plies=200):
    """``random_positions`` computed by walking, never read from a file."""
    return [(fen, plies) for fen, plies, _ in WALK(count, seed, max_plies, set())]


def test_the_stored_file_holds_the_walks_positions():
    stored = positions.read_random_positions()          # checks the digest it stores
    meta = stored["metadata"]
    assert (meta["seed"], meta["max_plies"]) == (0, 200)
    assert meta["count"] == len(stored["fen"]) >= 2000   # notebooks 02 and 03 read 2000
    assert meta["sha256"] == positions.fens_digest(stored["fen"])
    pairs = list(zip(stored["fen"], stored["plies"]))
    # the start, walked again in full (skipped walks and duplicates included)
    assert pairs[:300] == _walked(300)
    # and positions from the whole list, each walked again alone from its walk number
    walks = stored["walk"]
    assert walks == sorted(set(walks))
    for k in sorted(random.Random(1).sample(range(len(walks)), 40)):
        assert positions._random_fen(walks[k], 0, 200) == pairs[k]
    assert len({positions.position_key(f) for f in stored["fen"]}) == len(pairs)


@pytest.fixture
def small_store(tmp_path, monkeypatch):
    """A 30-position store (seed 5, max_plies 60) in place of the shipped one, and a
    count of the walks made."""
    path = positions.write_random_positions(tmp_path / "r.npz", 30, seed=5, max_plies=60,
                                            progress=False)
    monkeypatch.setattr(positions, "RANDOM_POSITIONS_FILE", path)
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return WALK(*args, **kwargs)
    monkeypatch.setattr(positions, "_walk_positions", counted)
    return path, calls


def test_a_covered_request_is_read_and_any_other_is_walked(small_store):
    path, calls = small_store
    stored = positions.read_random_positions(path)
    pairs = list(zip(stored["fen"], stored["plies"]))
    assert positions.random_positions(30, seed=5, max_plies=60) == pairs
    assert positions.random_positions(12, seed=5, max_plies=60) == pairs[:12]
    assert calls == []                                   # read, not walked
    assert pairs == _walked(30, 5, 60)
    calls.clear()
    # more than it holds, another seed or max_plies, or something excluded: walked
    longer = positions.random_positions(40, seed=5, max_plies=60)
    assert longer[:30] == pairs and len(longer) == 40    # a prefix of itself either way
    assert positions.random_positions(10, seed=6, max_plies=60) == _walked(10, 6, 60)
    assert positions.random_positions(10, seed=5, max_plies=61) == _walked(10, 5, 61)
    rest = positions.random_positions(10, seed=5, max_plies=60, exclude=[pairs[0][0]])
    assert rest == pairs[1:11]
    assert [c[:3] for c in calls] == [(40, 5, 60), (10, 6, 60), (10, 5, 61), (10, 5, 60)]


def test_a_damaged_store_says_how_to_write_it_again(small_store, tmp_path):
    path, _ = small_store
    with np.load(path) as npz:
        arrays = dict(npz)
    arrays["fen"] = arrays["fen"][::-1]                  # other FENs, same count
    bad = tmp_path / "bad.npz"
    np.savez_compressed(bad, **arrays)
    with pytest.raises(ValueError, match="digest.*data random-positions"):
        positions.read_random_positions(bad)
    meta = json.loads(str(arrays["metadata"]))
    arrays["metadata"] = np.array(json.dumps(dict(meta, count=31)))
    np.savez_compressed(bad, **arrays)
    with pytest.raises(ValueError, match="metadata count 31"):
        positions.read_random_positions(bad)
    bad.write_text("not a zip")
    with pytest.raises(ValueError, match="not an .npz"):
        positions.stored_random_positions(5, path=bad)


def test_the_command_writes_the_walks(tmp_path, capsys):
    out = tmp_path / "walks.npz"
    assert main(["data", "random-positions", "--count", "15", "--seed", "2",
                 "--max-plies", "50", "--out", str(out)]) == 0
    assert "wrote 15 random positions (seed 2, max_plies 50" in capsys.readouterr().out
    stored = positions.read_random_positions(out)
    assert list(zip(stored["fen"], stored["plies"])) == _walked(15, 2, 50)
    assert positions.stored_random_positions(15, 2, 50, path=out) == _walked(15, 2, 50)
    assert positions.stored_random_positions(16, 2, 50, path=out) is None
    assert positions.stored_random_positions(5, 2, 50, path=tmp_path / "none.npz") is None
