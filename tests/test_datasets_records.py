"""Game records: the chapter's sampling rule, reading PGN (plain or gzipped, cut or
damaged files refused by name), and Stockfish self-play games."""
import gzip
import io
import random

import chess
import chess.pgn
import pytest

from chesslab.datasets import records
from chesslab.board.rules import outcome
from needs_stockfish import needs_stockfish

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


def test_sampling_rule_by_hand():
    # 40 plies: the first 75% (30 plies) every 6th, then every 2nd, the last always
    assert records.sample_plies(40) == [6, 12, 18, 24, 30, 32, 34, 36, 38, 40]
    assert records.sample_plies(41) == [6, 12, 18, 24, 30, 32, 34, 36, 38, 40, 41]
    assert records.sample_plies(7) == [6, 7]
    assert records.sample_plies(0) == [0]


@pytest.mark.parametrize("suffix", [".pgn", ".pgn.gz"])
def test_known_pgn_read_and_sampled(tmp_path, suffix):
    path = tmp_path / f"two{suffix}"
    opener = gzip.open if suffix.endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.write(KNOWN_PGN)
    italian, mate = records.read_games(path)
    assert mate.headers["Result"] == "1-0"
    positions = records.game_positions(italian)
    # 24 plies: 6, 12, 18 (<= 18 = 75%), then 20, 22, 24
    assert [p for _, p, _ in positions] == [6, 12, 18, 20, 22, 24]
    assert all(by_rule for _, _, by_rule in positions)
    board = chess.Board()
    for move in list(italian.mainline_moves())[:12]:
        board.push(move)
    assert positions[1][0] == board.fen()
    last = records.game_positions(mate)
    assert [p for _, p, _ in last] == [6, 7]
    assert chess.Board(last[-1][0]).is_checkmate()
    # every=4 adds plies 4, 8, 16 without marking them as the chapter's sample
    extra = {p: r for _, p, r in records.game_positions(italian, every=4)}
    assert sorted(extra) == [4, 6, 8, 12, 16, 18, 20, 22, 24]
    assert [p for p, r in extra.items() if not r] == [4, 8, 16]


def test_unreadable_pgn_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        records.read_games(tmp_path / "missing.pgn")
    junk = tmp_path / "junk.pgn"
    junk.write_bytes(b"\x01 this is not chess at all \xff" * 20)
    with pytest.raises(ValueError, match="no chess game"):
        records.read_games(junk)
    illegal = tmp_path / "illegal.pgn"
    illegal.write_text('[Event "x"]\n\n1. e4 e5 2. Ke3 Nc6 *\n')
    with pytest.raises(ValueError, match="game 1 has an error"):
        records.read_games(illegal)
    corrupt = tmp_path / "corrupt.pgn.gz"
    corrupt.write_bytes(b"not gzip data")
    with pytest.raises(ValueError, match="not a readable PGN"):
        records.read_games(corrupt)


@needs_stockfish
def test_selfplay_game_is_legal_and_recorded(tmp_path):
    path = records.generate_games(2, tmp_path / "g.pgn.gz", seed=7, nodes=100,
                                max_plies=30, progress=False)
    played = records.read_games(path)
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


@pytest.mark.parametrize("seed", range(8))
def test_a_file_of_random_bytes_is_named_as_not_pgn(tmp_path, seed):
    rng = random.Random(seed)
    noise = tmp_path / "noise.pgn"
    noise.write_bytes(bytes(rng.randrange(256) for _ in range(2000)))
    with pytest.raises(ValueError, match=r"noise.pgn is not a PGN file: it holds binary "
                                         r"data .*pass a PGN text file"):
        records.read_games(noise)
    packed = tmp_path / "noise.pgn.gz"                   # the same inside a gzip file
    packed.write_bytes(gzip.compress(noise.read_bytes()))
    with pytest.raises(ValueError, match="noise.pgn.gz is not a PGN file"):
        records.read_games(packed)


def test_text_that_breaks_the_pgn_parser_is_named(tmp_path):
    # random bytes (seed 2, NULs made 'x') on which python-chess raises IndexError
    rng = random.Random(2)
    garbage = tmp_path / "garbage.pgn"
    garbage.write_bytes(bytes(rng.randrange(256) for _ in range(2000)).replace(b"\0", b"x"))
    with pytest.raises(ValueError, match=r"garbage.pgn is not a readable PGN file: "
                                         r"python-chess cannot parse game 1 \(IndexError"):
        records.read_games(garbage)


def test_pgn_cut_mid_game_is_refused_not_half_read(tmp_path):
    cut = tmp_path / "cut.pgn"
    cut.write_text(KNOWN_PGN[:KNOWN_PGN.index("3. Qh5")])   # game 2 stops after move 2
    with pytest.raises(ValueError, match="game 2 stops before its result marker.*cut off"):
        records.read_games(cut)
    headers_only = tmp_path / "headers.pgn"                  # cut right after the headers
    headers_only.write_text(KNOWN_PGN[:KNOWN_PGN.index("1. e4 e5 2. Bc4")])
    with pytest.raises(ValueError, match="game 2 stops before"):
        records.read_games(headers_only)
    clash = tmp_path / "clash.pgn"
    clash.write_text(KNOWN_PGN.replace("Qxf7# 1-0", "Qxf7# 0-1"))
    with pytest.raises(ValueError, match='game 2 says Result "1-0".*ends with 0-1'):
        records.read_games(clash)
    assert len(records.read_games(cut, limit=1)) == 1           # the whole first game is fine


def test_cut_or_corrupted_gz_is_a_named_error(tmp_path):
    whole = gzip.compress(KNOWN_PGN.encode() * 20)
    cut = tmp_path / "cut.pgn.gz"
    cut.write_bytes(whole[:len(whole) // 2])
    with pytest.raises(ValueError, match="cut.pgn.gz is not a readable PGN file"):
        records.read_games(cut)
    flipped = bytearray(whole)
    for i in range(20, 60):
        flipped[i] ^= 0xFF
    bad = tmp_path / "bad.pgn.gz"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="bad.pgn.gz is not a readable PGN file"):
        records.read_games(bad)


def test_missing_stockfish_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(tmp_path / "no-such-stockfish"))
    with pytest.raises(FileNotFoundError, match="CHESSLAB_STOCKFISH"):
        records.generate_games(1, tmp_path / "g.pgn")


def test_walk_gives_each_position_with_the_move_played_from_it():
    game = chess.pgn.read_game(io.StringIO("1. e4 e5 2. Nf3 *"))
    steps = [(ply, board.fen(), move and move.uci()) for ply, board, move in records.walk(game)]
    assert [s[0] for s in steps] == [0, 1, 2, 3] and [s[2] for s in steps] == [
        "e2e4", "e7e5", "g1f3", None]
    assert steps[0][1] == chess.STARTING_FEN and steps[3][1].startswith("rnbqkbnr/pppp1ppp/8/4p3")
    assert [p for _, p, _ in records.game_positions(game)] == [3]     # the last, by the rule
    assert [p for _, p, _ in records.game_positions(game, every=2)] == [2, 3]
