"""Self-play: training records, the replay buffer, the task's scoring of draws, the
arena gate (in processes or threads), the endgame curriculum, starts from records,
the CLI."""
from concurrent.futures import ThreadPoolExecutor

import chess
import numpy as np
import pytest

from chesslab.training import selfplay
from chesslab.__main__ import main
from chesslab.board.encoding import legal_indices
from chesslab.board.rules import adjudicate_material
from chesslab.board.game import play_game
from chesslab.datasets.records import DEFAULT_GAMES, read_games
from chesslab.search.mcts import uniform_evaluate
from chesslab.evaluators.policy_value import PolicyValueNet
from chesslab.training.endgames import CentreDefender, endgame_starts, mate_test
from chesslab.training.selfplay import (GATE_SCORE, ReplayBuffer, gate, net_match, record_starts,
                                        scored_result, self_play_game)


@pytest.fixture(scope="module")
def net():
    return PolicyValueNet(8, 1, policy_k=8, seed=0).eval()


def test_self_play_records(net):
    start = "8/8/8/8/3k4/8/Q7/K7 w - - 0 1"
    game = self_play_game(net, start, simulations=16, max_plies=12, draw_value=-1.0, seed=1)
    assert game["records"] and len(game["records"]) == len(game["moves"])
    for rec in game["records"]:
        board = chess.Board(rec["fen"])
        assert sorted(rec["legal"]) == sorted(legal_indices(board).tolist())
        assert np.isclose(sum(rec["pi"]), 1, atol=1e-3)
        white = rec["turn"] == "w"
        expected = {"1-0": 1, "0-1": -1}[game["result"]] * (1 if white else -1)
        assert rec["z"] == expected        # draws count as White's failure in this task
        assert -1.0 <= rec["q"] <= 1.0     # the search's value of the position
    buf = ReplayBuffer(capacity=5)
    buf.add(game["records"])
    assert len(buf) == min(5, len(game["records"]))
    assert ReplayBuffer.from_json(buf.to_json()).rows == buf.rows


def test_endgame_starts_and_gate(monkeypatch):
    starts = endgame_starts(6, "QR", seed=1)
    assert len(set(starts)) == 6
    for fen in starts:
        board = chess.Board(fen)
        assert board.is_valid() and board.turn == chess.WHITE and len(board.piece_map()) == 3
    for fen in endgame_starts(4, seed=2, level=0):
        board = chess.Board(fen)
        bk, wk = board.king(chess.BLACK), board.king(chess.WHITE)
        assert chess.square_distance(bk, wk) == 2
    # the same network against itself scores exactly 1/2: not enough to replace the best
    accepted, result = gate(uniform_evaluate, uniform_evaluate, starts[:2], simulations=8,
                            max_plies=10, draw_value=-1.0)
    assert result["games"] == 4 and result["score"] == 0.5 and not accepted
    res = mate_test(uniform_evaluate, endgame_starts(2, seed=3, level=0), 30, max_moves=3)
    assert len(res["per_start"]) == 2

    def arena_scores(score):
        monkeypatch.setattr(selfplay, "net_match", lambda *args, **kwargs: {"score": score})
    arena_scores(GATE_SCORE)
    assert not gate(None, None, [])[0]                 # at the threshold: the best stays
    arena_scores(GATE_SCORE + 0.01)
    assert gate(None, None, [])[0]                     # above it: replaced
    assert not gate(None, None, [], threshold=0.6)[0]  # a threshold given is the one used


def test_net_match_in_two_processes_or_threads_plays_the_same_games(net):
    # a weak net against the uniform prior; each game carries its own seeds, so the
    # processes that play them do not change any result
    other = PolicyValueNet(8, 1, policy_k=8, seed=5).eval()
    starts = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
              "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"]
    one = net_match(net, other, starts, simulations=8, max_plies=12,
                    adjudicate=adjudicate_material)
    two = net_match(net, other, starts, simulations=8, max_plies=12,
                    adjudicate=adjudicate_material, workers=2)
    with ThreadPoolExecutor(2) as executor:
        three = net_match(net, other, starts, simulations=8, max_plies=12,
                          adjudicate=adjudicate_material, workers=executor)
    assert one == two == three and one["games"] == 4


def test_record_starts_come_from_game_records():
    games = read_games(DEFAULT_GAMES, limit=40)
    fens = record_starts(12, seed=3, records=games)
    assert len(fens) == 12 and len(set(fens)) == 12
    assert fens == record_starts(12, seed=3, records=games)
    assert fens != record_starts(12, seed=4, records=games)
    for fen in fens:
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_game_over()
        assert 8 <= 2 * (board.fullmove_number - 1) + (board.turn == chess.BLACK) <= 40


def test_selfplay_cli_rejects_options_of_the_other_task(tmp_path, capsys):
    assert main(["selfplay", "endgame", "--workdir", str(tmp_path), "--starts", "records",
                 "--anchor", "100"]) == 2
    assert "starts, anchor only apply to the full game" in capsys.readouterr().err
    assert main(["selfplay", "full", "--workdir", str(tmp_path), "--piece", "R"]) == 2
    assert "piece only applies" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())          # nothing was started


def test_train_selfplay_refuses_the_other_tasks_settings_before_any_work(tmp_path):
    workdir = tmp_path / "run"
    with pytest.raises(ValueError, match="initial only apply to the full game"):
        selfplay.train_selfplay(workdir, "endgame", initial="bootstrap.json")
    with pytest.raises(ValueError, match="piece only applies"):
        selfplay.train_selfplay(workdir, "full", piece="R")
    with pytest.raises(ValueError, match="kind must be one of"):
        selfplay.train_selfplay(workdir, "middlegame")
    selfplay.check_settings("full", "bootstrap.json", anchor=100, starts="records")
    selfplay.check_settings("endgame", piece="R", games=2)
    assert not workdir.exists()

def test_a_draw_is_whites_failure_in_the_endgame_task():
    # Black to move, stalemated: a draw by the rules; at the move cap, a draw by adjudication
    stalemate = play_game(CentreDefender(), CentreDefender(), "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    capped = play_game(CentreDefender(), CentreDefender(), "8/8/4k3/8/8/4K3/4Q3/8 w - - 0 1",
                  max_plies=2)
    for game in (stalemate, capped):
        assert game.headers["Result"] == "1/2-1/2"
        assert scored_result(game, 0.0) == "1/2-1/2" and scored_result(game, -1.0) == "0-1"
    assert capped.headers["Termination"] == "move cap"
    with pytest.raises(ValueError, match="draw_value must be 0"):
        self_play_game(uniform_evaluate, draw_value=0.5)


def test_self_play_records_each_move_before_it_is_played():
    game = self_play_game(uniform_evaluate, simulations=8, max_plies=6, seed=3)
    board = chess.Board()
    for rec, uci in zip(game["records"], game["moves"]):
        assert rec["fen"] == board.fen() and rec["turn"] == "wb"[board.turn == chess.BLACK]
        assert chess.Move.from_uci(uci) in board.legal_moves
        board.push_uci(uci)
    assert len(game["moves"]) == 6 and game["termination"] == "move cap"
    assert game == self_play_game(uniform_evaluate, simulations=8, max_plies=6, seed=3)


def test_settings_are_one_dataclass_that_refuses_what_cannot_run(tmp_path):
    from dataclasses import asdict, replace

    from chesslab.training.selfplay import DEFAULTS, SelfPlayConfig, check_settings
    full = DEFAULTS["full"]
    assert isinstance(full, SelfPlayConfig) and full.kind == "full" and full.draw_value == 0.0
    assert SelfPlayConfig(**asdict(full)) == full               # what state.json keeps
    for bad, message in ((dict(games=0), "games must be"), (dict(adjudicate="coin"), "adjudicate"),
                         (dict(value_target="q"), "value_target"), (dict(draw_value=0.5), "draw_value")):
        with pytest.raises(ValueError, match=message):
            replace(full, **bad)
        with pytest.raises(ValueError, match=message):
            check_settings("full", **bad)
    with pytest.raises(ValueError, match="unknown self-play setting.*gamez"):
        check_settings("full", gamez=3)
    with pytest.raises(ValueError, match="only apply to the full game"):
        check_settings("endgame", anchor=10)


def test_a_copied_network_keeps_its_input_encoding_and_answers():
    from chesslab.training.selfplay import _copy_net
    net = PolicyValueNet(8, 1, policy_k=8, seed=5, planes="mover").eval()
    twin = _copy_net(net)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 3")
    assert twin.planes == "mover"
    np.testing.assert_allclose(twin.policy(board)[1], net.policy(board)[1], rtol=1e-6)


def test_a_float64_run_keeps_its_networks_in_float64_and_never_changes_the_callers():
    """dtype="float64" is how a small run gives the same games on every CPU: the copies
    the loop makes (gate winner, resumed files) must stay float64."""
    from dataclasses import replace

    from chesslab.training.selfplay import DEFAULTS, _copy_net, _with_dtype
    net = PolicyValueNet(8, 1, policy_k=8, seed=5).eval()
    assert _with_dtype(net, "float32") is net
    wide = _with_dtype(net, "float64")
    assert wide.dtype == np.float64 and net.dtype == np.float32
    assert _copy_net(wide).dtype == np.float64
    board = chess.Board("8/8/8/8/3k4/8/Q7/K7 w - - 0 1")
    np.testing.assert_allclose(wide.policy(board)[1], net.policy(board)[1], rtol=1e-5)
    with pytest.raises(ValueError, match="dtype must be one of float32, float64"):
        replace(DEFAULTS["endgame"], dtype="float16")
