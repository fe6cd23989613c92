"""How a player loses (chesslab.experiments.mcts_losses): the lost games found by colour,
each move scored before and after, the blunders kept, the positions file read back and
asked by mcts-tuning. A material count stands in for Stockfish."""
import io

import chess
import chess.pgn
import pytest

from chesslab.base.files import read_json, write_json_atomic
from chesslab.board.scores import LABEL_MATE_CP, material_balance
from chesslab.evaluators.policy_value import PolicyValueNet, save_policy_value
from chesslab.experiments import mcts_losses, move_quality
from chesslab.matches.match import MatchResult
from chesslab.search.quiet import settled


def _pgn(moves, white, black, result):
    game = chess.pgn.Game()
    game.headers.update(White=white, Black=black, Result=result)
    node = game
    for uci in moves:
        node = node.add_variation(chess.Move.from_uci(uci))
    return str(game)


def material_score(board):
    """Material for the side to move where the captures settle (a tiny Stockfish)."""
    end, plies = settled(board)
    m = material_balance(end)
    m = m if end.turn == chess.WHITE else -m
    return float(m if plies % 2 == 0 else -m)


# White (the player) puts its queen where a bishop takes it
HANG = ["e2e4", "d7d5", "d1g4", "c8g4"]
SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def test_lost_games_are_found_by_the_players_colour():
    pgns = [_pgn(SCHOLAR, "pst", "mcts", "1-0"), _pgn(SCHOLAR, "mcts", "pst", "1-0"),
            _pgn(HANG, "mcts", "pst", "0-1"), _pgn(HANG, "pst", "mcts", "1/2-1/2")]
    found = [(k, colour) for k, _, colour in mcts_losses.lost_games(pgns, "mcts")]
    assert found == [(0, chess.BLACK), (2, chess.WHITE)]
    with pytest.raises(ValueError, match="no player named 'mcts@1s'"):
        list(mcts_losses.lost_games(pgns, "mcts@1s"))


def test_the_move_that_hangs_the_queen_is_the_blunder():
    game = chess.pgn.read_game(io.StringIO(_pgn(HANG, "mcts", "pst", "0-1")))
    rows = mcts_losses.scored_moves(game, chess.WHITE, material_score, first_ply=0)
    assert [r["move"] for r in rows] == HANG[0::2]
    queen = rows[1]
    assert queen["move"] == "d1g4" and queen["before"] == 0 and queen["after"] == -900
    blunders = [r["move"] for r in rows if mcts_losses.given_away(r) > 0.2]
    assert blunders == ["d1g4"]
    assert chess.Board(queen["fen"]).ply() == queen["ply"] == 2


def test_a_move_that_mates_scores_a_mate_for_the_side_that_moved():
    game = chess.pgn.read_game(io.StringIO(_pgn(SCHOLAR, "pst", "mcts", "1-0")))
    rows = mcts_losses.scored_moves(game, chess.WHITE, material_score, first_ply=0)
    assert rows[-1]["move"] == "h5f7" and rows[-1]["after"] == LABEL_MATE_CP


def test_a_match_is_found_by_its_players_or_the_pairs_are_named(tmp_path):
    record = MatchResult("mcts@1s", "pst@1s", 0, 0, 1).record()
    path = tmp_path / "m.json"
    write_json_atomic(path, {"matches": [dict(record, pgn=[_pgn(HANG, "mcts@1s", "pst@1s", "0-1")])]})
    assert mcts_losses.find_record(path, "mcts@1s", "pst@1s")["pgn"]
    with pytest.raises(ValueError, match="it has: mcts@1s vs pst@1s"):
        mcts_losses.find_record(path, "mcts@1s", "material@1s")
    write_json_atomic(path, {"matches": [record]})
    with pytest.raises(ValueError, match="kept no games"):
        mcts_losses.find_record(path, "mcts@1s", "pst@1s")


def test_a_positions_file_reads_back_and_mcts_tuning_asks_it(tmp_path, monkeypatch):
    board = chess.Board()
    doc = {"depth": 12, "positions": [
        {"fen": board.fen(), "moves": ["e2e4", "d2d4"] + [""] * 6,
         "scores": [30.0, 25.0] + [0.0] * 6},
        {"fen": "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1",
         "moves": ["d2d5"] + [""] * 7, "scores": [900.0] + [0.0] * 7}]}
    path = tmp_path / "losses.json"
    write_json_atomic(path, doc)
    data = mcts_losses.positions_file(path)
    assert data["depth"] == 12 and list(data["moves"][1][:1]) == ["d2d5"]
    assert data["scores"].shape == (2, 8)
    net_file = tmp_path / "net.json"
    save_policy_value(PolicyValueNet(4, 1, policy_k=4, seed=0, planes="mover"), net_file)
    monkeypatch.setattr(move_quality, "find_stockfish", lambda required=False: None)
    out = tmp_path / "tuning.json"
    move_quality.mcts_tuning(50, (1.0,), (0.0,), 500, net_file, out, progress=False,
                             positions_file=path)
    (row,) = read_json(out)["rows"]
    assert row["positions"] == 2 and row["positions_file"] == "losses.json"
    assert row["positions_digest"] == move_quality.positions_digest(data)
    assert 0 <= row["best_move_share"] <= 1 and len(row["lost_per_position"]) == 2
    write_json_atomic(path, {"positions": [{"fen": board.fen()}]})
    with pytest.raises(ValueError, match="mcts-losses"):
        mcts_losses.positions_file(path)
