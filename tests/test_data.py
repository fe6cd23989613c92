"""Training data: sampling rule, PGN reading, labels, dataset files and splits."""
import gzip
import json
import random

import chess
import numpy as np
import pytest

from chesslab import data, games, labels
from chesslab.__main__ import main
from chesslab.game import outcome
from chesslab.scores import LABEL_MATE_CP
from chesslab.stockfish import find_stockfish, open_engine

needs_stockfish = pytest.mark.skipif(
    find_stockfish(required=False) is None,
    reason="Stockfish is not installed (apt-get install stockfish, or set "
           "CHESSLAB_STOCKFISH); CI installs it so these tests run there")

# A 24-ply game written for this test (the Italian game, then a quiet middlegame).
KNOWN_PGN = """[Event "test"]
[White "A"]
[Black "B"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d3 d6 6. O-O O-O 7. Re1 a6
8. a4 Ba7 9. h3 h6 10. Nbd2 Re8 11. Nf1 Be6 12. Bxe6 Rxe6 1/2-1/2

[Event "test"]
[White "C"]
[Black "D"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0
"""


def row(fen, game_id, source="game", cp=0, ply=0):
    return dict(fen=fen, cp=cp, wdl=(0, 1000, 0), source=source, game_id=game_id,
                ply=ply, result="*", sampled_by_rule=False)


def small_dataset(n_games=30, per_game=5, seed=1):
    """Distinct positions from random walks, grouped into fake games."""
    rng = random.Random(seed)
    rows, seen = [], set()
    while len(rows) < n_games * per_game:
        board = data.random_board(rng, 60)
        if board is not None and data.position_key(board.fen()) not in seen:
            seen.add(data.position_key(board.fen()))
            rows.append(row(board.fen(), len(rows) // per_game, cp=len(rows)))
    return data.make_dataset(rows, {"depth": 10})


def test_sampling_rule_by_hand():
    # 40 plies: the first 75% (30 plies) every 6th, then every 2nd, the last always
    assert games.sample_plies(40) == [6, 12, 18, 24, 30, 32, 34, 36, 38, 40]
    assert games.sample_plies(41) == [6, 12, 18, 24, 30, 32, 34, 36, 38, 40, 41]
    assert games.sample_plies(7) == [6, 7]
    assert games.sample_plies(0) == [0]


@pytest.mark.parametrize("suffix", [".pgn", ".pgn.gz"])
def test_known_pgn_read_and_sampled(tmp_path, suffix):
    path = tmp_path / f"two{suffix}"
    opener = gzip.open if suffix.endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.write(KNOWN_PGN)
    italian, mate = data.read_games(path)
    assert mate.headers["Result"] == "1-0"
    positions = data.game_positions(italian)
    # 24 plies: 6, 12, 18 (<= 18 = 75%), then 20, 22, 24
    assert [p for _, p, _ in positions] == [6, 12, 18, 20, 22, 24]
    assert all(by_rule for _, _, by_rule in positions)
    board = chess.Board()
    for move in list(italian.mainline_moves())[:12]:
        board.push(move)
    assert positions[1][0] == board.fen()
    last = data.game_positions(mate)
    assert [p for _, p, _ in last] == [6, 7]
    assert chess.Board(last[-1][0]).is_checkmate()
    # every=4 adds plies 4, 8, 16 without marking them as the chapter's sample
    extra = {p: r for _, p, r in data.game_positions(italian, every=4)}
    assert sorted(extra) == [4, 6, 8, 12, 16, 18, 20, 22, 24]
    assert [p for p, r in extra.items() if not r] == [4, 8, 16]


def test_unreadable_pgn_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        data.read_games(tmp_path / "missing.pgn")
    junk = tmp_path / "junk.pgn"
    junk.write_bytes(b"\x00\x01 this is not chess at all \xff" * 20)
    with pytest.raises(ValueError, match="no chess game"):
        data.read_games(junk)
    illegal = tmp_path / "illegal.pgn"
    illegal.write_text('[Event "x"]\n\n1. e4 e5 2. Ke3 Nc6 *\n')
    with pytest.raises(ValueError, match="game 1 has an error"):
        data.read_games(illegal)
    corrupt = tmp_path / "corrupt.pgn.gz"
    corrupt.write_bytes(b"not gzip data")
    with pytest.raises(ValueError, match="not a readable PGN"):
        data.read_games(corrupt)


def test_random_positions_distinct_seeded_unfinished():
    first = data.random_positions(40, seed=3, max_plies=80)
    assert first == data.random_positions(40, seed=3, max_plies=80)
    assert first != data.random_positions(40, seed=4, max_plies=80)
    keys = [data.position_key(f) for f, _ in first]
    assert len(set(keys)) == 40
    for fen, plies in first:
        board = chess.Board(fen)
        assert not board.is_game_over() and board.ply() == plies < 80
    # excluded positions are not produced again; two workers give the same list
    rest = data.random_positions(40, seed=3, max_plies=80, exclude=[f for f, _ in first[:10]])
    assert not set(keys[:10]) & {data.position_key(f) for f, _ in rest}
    assert data.random_positions(40, seed=3, max_plies=80, workers=2) == first


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
    assert moved.fen() != a and data.position_key(moved.fen()) == data.position_key(a)
    e4 = chess.Board()
    e4.push_uci("e2e4")
    assert data.position_key(e4.fen()) != data.position_key(a)


def test_npz_round_trip_without_pickle(tmp_path):
    ds = small_dataset(n_games=4)
    ds.metadata = {"depth": 10, "engine": "test"}
    path = data.save_dataset(ds, tmp_path / "p.npz")
    with np.load(path, allow_pickle=False) as npz:
        assert npz["fen"].dtype.kind == "U"
        assert json.loads(str(npz["metadata"]))["engine"] == "test"
    back = data.load_dataset(path)
    for name in data.Dataset.COLUMNS:
        assert np.array_equal(getattr(back, name), getattr(ds, name)), name
    assert back.metadata == ds.metadata
    assert [b.fen() for b in back.boards()] == ds.fen.tolist()


def test_empty_and_bad_datasets_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        data.make_dataset([])
    with pytest.raises(ValueError, match="empty"):
        data.label_fens([])
    empty = small_dataset(n_games=1).subset(np.zeros(5, dtype=bool))
    np.savez_compressed(tmp_path / "e.npz", metadata=np.array("{}"),
                        **{c: getattr(empty, c) for c in data.Dataset.COLUMNS})
    with pytest.raises(ValueError, match="empty"):
        data.load_dataset(tmp_path / "e.npz")
    with pytest.raises(FileNotFoundError, match="data build"):
        data.load_dataset(tmp_path / "none.npz")
    np.savez_compressed(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="lacks"):
        data.load_dataset(tmp_path / "other.npz")


def test_missing_stockfish_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(tmp_path / "no-such-stockfish"))
    with pytest.raises(FileNotFoundError) as err:
        data.label_fens([chess.STARTING_FEN])
    assert "CHESSLAB_STOCKFISH" in str(err.value)
    assert "apt-get install stockfish" in str(err.value)
    with pytest.raises(FileNotFoundError, match="CHESSLAB_STOCKFISH"):
        games.generate_games(1, tmp_path / "g.pgn")


def test_finished_positions_need_no_engine():
    mate = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert labels.label_board(None, mate) == (-LABEL_MATE_CP, (0, 0, 1000))
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert labels.label_board(None, stalemate) == (0, (0, 1000, 0))


@needs_stockfish
def test_labels_match_stockfish_and_common_sense():
    queen_up = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    black_queen_up = chess.Board("3qk3/8/8/8/8/8/8/4K3 b - - 0 1")
    cp, wdl = data.label_fens([queen_up.fen(), black_queen_up.fen(),
                               chess.STARTING_FEN], depth=8, progress=False)
    assert cp[0] > 500 and wdl[0][0] > 900
    assert cp[1] < -500 and wdl[1][2] > 900
    assert abs(int(cp[2])) < 100 and wdl[2].sum() == 1000


@needs_stockfish
def test_shipped_labels_recheck_against_stockfish():
    ds = data.load_dataset()
    picks = np.random.default_rng(0).choice(len(ds), 20, replace=False)
    with open_engine() as engine:
        assert engine.id["name"] == ds.metadata["engine"]
        for i in picks:
            depth = int(ds.depth[i])      # extra game plies are labelled shallower
            cp, wdl = labels.label_board(engine, chess.Board(ds.fen[i]), depth)
            assert (cp, wdl) == (ds.cp[i], tuple(ds.wdl[i].tolist())), ds.fen[i]


def test_shipped_dataset_meets_the_targets():
    ds = data.load_dataset()
    summary = data.describe(ds)
    assert summary["distinct"] == len(ds) >= 250_000
    assert ds.metadata["depth"] >= 10
    assert summary["by_source"]["game"] >= 0.6 * len(ds)
    assert ds.metadata["games"] >= 5000 and data.DEFAULT_GAMES.exists()
    train, val, test = (set(p.game_id.tolist()) for p in ds.split())
    assert not (train & val or train & test or val & test)
    assert np.all(np.abs(ds.cp) <= LABEL_MATE_CP) and np.all(ds.wdl.sum(axis=1) == 1000)
    assert set(np.unique(ds.result[ds.source == "game"])) <= {"1-0", "0-1", "1/2-1/2"}
    size = data.DEFAULT_DATASET.stat().st_size + games.DEFAULT_GAMES.stat().st_size
    assert size < 50e6


@needs_stockfish
def test_selfplay_game_is_legal_and_recorded(tmp_path):
    path = games.generate_games(2, tmp_path / "g.pgn.gz", seed=7, nodes=100,
                                max_plies=30, progress=False)
    played = data.read_games(path)
    assert len(played) == 2
    for index, game in enumerate(played):
        h = game.headers
        assert h["GameId"] == str(index) and h["NodesPerMove"] == "100"
        assert 1350 <= int(h["WhiteElo"]) <= 2850 and 1350 <= int(h["BlackElo"]) <= 2850
        board = game.end().board()
        assert board.ply() <= 30 and h["Result"] in ("1-0", "0-1", "1/2-1/2")
        if h["Termination"] == "move cap":
            assert board.ply() == 30 and outcome(board) is None and h["Result"] == "1/2-1/2"
        else:
            assert outcome(board) is not None


def test_cli_info(tmp_path, capsys):
    path = data.save_dataset(small_dataset(n_games=10), tmp_path / "p.npz")
    assert main(["data", "info", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["positions"] == summary["distinct"] == 50
    assert summary["games"] == 10 and summary["depth"] == 10


@needs_stockfish
def test_label_cache_is_reused_for_the_same_depth(tmp_path):
    cache = tmp_path / "cache.npz"
    fens = [chess.STARTING_FEN, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"]
    cp, _ = data.label_fens(fens, depth=6, progress=False, cache=cache)
    with np.load(cache) as npz:
        stored = {k: npz[k] for k in npz.files}
    stored["cp"] = stored["cp"] + 7  # a marker: reused labels carry it
    np.savez(cache, **stored)
    again, _ = data.label_fens(fens, depth=6, progress=False, cache=cache)
    assert again.tolist() == (cp + 7).tolist()
    other_depth, _ = data.label_fens(fens, depth=5, progress=False, cache=cache)
    assert abs(int(other_depth[0])) < 100 and other_depth[1] > 500


@needs_stockfish
def test_cli_build_makes_games_and_a_labelled_dataset(tmp_path, capsys):
    pgn, positions = tmp_path / "g.pgn.gz", tmp_path / "p.npz"
    assert main(["data", "build", "--count", "2", "--nodes", "50", "--max-plies", "24",
                 "--random", "5", "--depth", "4", "--workers", "1", "--extra-depth", "0",
                 "--out-games", str(pgn), "--out", str(positions)]) == 0
    ds = data.load_dataset(positions)
    assert len(data.read_games(pgn)) == 2 == ds.metadata["games"]
    assert (ds.source == "random").sum() == 5 and ds.metadata["depth"] == 4
    assert set(ds.game_id[ds.source == "game"].tolist()) == {0, 1}
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1])["positions"] == len(ds)


def test_pgn_cut_mid_game_is_refused_not_half_read(tmp_path):
    cut = tmp_path / "cut.pgn"
    cut.write_text(KNOWN_PGN[:KNOWN_PGN.index("3. Qh5")])   # game 2 stops after move 2
    with pytest.raises(ValueError, match="game 2 stops before its result marker.*cut off"):
        data.read_games(cut)
    headers_only = tmp_path / "headers.pgn"                  # cut right after the headers
    headers_only.write_text(KNOWN_PGN[:KNOWN_PGN.index("1. e4 e5 2. Bc4")])
    with pytest.raises(ValueError, match="game 2 stops before"):
        data.read_games(headers_only)
    clash = tmp_path / "clash.pgn"
    clash.write_text(KNOWN_PGN.replace("Qxf7# 1-0", "Qxf7# 0-1"))
    with pytest.raises(ValueError, match='game 2 says Result "1-0".*ends with 0-1'):
        data.read_games(clash)
    assert len(data.read_games(cut, limit=1)) == 1           # the whole first game is fine


def test_cut_or_corrupted_gz_is_a_named_error(tmp_path):
    whole = gzip.compress(KNOWN_PGN.encode() * 20)
    cut = tmp_path / "cut.pgn.gz"
    cut.write_bytes(whole[:len(whole) // 2])
    with pytest.raises(ValueError, match="cut.pgn.gz is not a readable PGN file"):
        data.read_games(cut)
    flipped = bytearray(whole)
    for i in range(20, 60):
        flipped[i] ^= 0xFF
    bad = tmp_path / "bad.pgn.gz"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="bad.pgn.gz is not a readable PGN file"):
        data.read_games(bad)


def test_ragged_dataset_is_refused(tmp_path):
    ds = small_dataset(n_games=2)
    with pytest.raises(ValueError, match="column ply has 9 rows but fen has 10"):
        data.Dataset(**{c: getattr(ds, c) for c in data.Dataset.COLUMNS if c != "ply"},
                     ply=ds.ply[:-1])
    path = data.save_dataset(ds, tmp_path / "d.npz")
    cache = tmp_path / "cache.npz"
    cache.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="label cache .* is cut off or damaged"):
        data.label_fens([chess.STARTING_FEN], depth=1, cache=cache)


@needs_stockfish
def test_extend_adds_every_ply_of_the_training_games_only(tmp_path):
    records = games.generate_games(6, tmp_path / "g.pgn.gz", seed=3, nodes=50, max_plies=40,
                                   progress=False)
    base = data.build_dataset([records], n_random=4, depth=3, every=8, progress=False)
    grown = data.extend_with_game_plies(base, records, depth=2, progress=False)
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
    assert len({data.position_key(f) for f in grown.fen}) == len(grown)
    # the depth column survives a save and load; a file without it gets the metadata's
    path = data.save_dataset(grown, tmp_path / "p.npz")
    assert data.load_dataset(path).depth.tolist() == grown.depth.tolist()
    arrays = dict(np.load(path))
    del arrays["depth"]
    np.savez(tmp_path / "old.npz", **arrays)
    assert (data.load_dataset(tmp_path / "old.npz").depth == 3).all()
