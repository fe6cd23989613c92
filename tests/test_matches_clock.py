"""Games on a clock: play_game's clocks, how each kind of player spends them
(matches.clock.on_clock), and results match / results ladder with --tc."""
import io
import json
import time

import chess
import chess.pgn
import pytest

from chesslab.__main__ import main
from chesslab.board.game import GameClock, play_game
from chesslab.board.rules import TIME_FORFEIT, flag_result
from chesslab.matches.clock import ClockPlayer, on_clock
from chesslab.matches.match import match
from chesslab.matches.players import make_player
from chesslab.matches.timecontrol import time_budget
from tests.needs_stockfish import needs_stockfish
from tests.scripted_players import FirstMove


class LateAfter(FirstMove):
    """Plays its first ``quick`` moves at once, then thinks ``seconds`` before each move."""

    name = "late"

    def __init__(self, quick=0, seconds=1.0):
        super().__init__()
        self.quick, self.seconds = quick, seconds

    def choose_move(self, board):
        if self.calls >= self.quick:
            time.sleep(self.seconds)
        return super().choose_move(board)


def clocks_of(game):
    """The [%clk] of each move, None where a move has none."""
    return [node.clock() for node in game.mainline()]


def test_two_course_players_on_a_tiny_clock_finish_without_flagging():
    # A search's first iteration is not cut short before a second, so a clock this small
    # flags on a machine several times oversubscribed (seen at a load of 11 on 2 cores
    # with 2+0.05).
    game = play_game(on_clock(make_player("pst")), on_clock(make_player("material", seed=1)),
                     clock=(3, 0.1), max_plies=20, opening="e2e4 e7e5")
    assert game.headers["Termination"] != TIME_FORFEIT
    assert game.headers["TimeControl"] == "3+0.1"
    clocks = clocks_of(game)
    assert clocks[:2] == [None, None]                     # the opening is not on the clock
    assert len(clocks) == int(game.headers["PlyCount"]) > 2
    assert all(0 < c < 3 + 0.1 * 10 for c in clocks[2:])
    read = chess.pgn.read_game(io.StringIO(str(game)))    # as a PGN reader sees it
    assert read.headers["TimeControl"] == "3+0.1" and clocks_of(read) == clocks


def test_a_slow_player_loses_on_time_and_its_late_move_is_not_played():
    game = play_game(LateAfter(quick=2, seconds=1.5), FirstMove(), clock=(1, 0.0))
    assert (game.headers["Result"], game.headers["Termination"]) == ("0-1", TIME_FORFEIT)
    assert game.headers["PlyCount"] == "4"                # 2 moves each; the third never came
    white_clocks = clocks_of(game)[::2]
    assert len(white_clocks) == 2 and all(0.9 < c <= 1.0 for c in white_clocks)


def test_black_flags_too():
    game = play_game(FirstMove(), LateAfter(quick=0, seconds=0.3), clock=(0.2, 0.1))
    assert (game.headers["Result"], game.headers["Termination"]) == ("1-0", TIME_FORFEIT)
    assert game.headers["PlyCount"] == "1"


def test_a_flag_against_a_side_that_cannot_mate_is_a_draw():
    lone_king = "7k/8/8/8/8/8/8/KQ6 w - - 0 1"          # White flags; Black has a lone king
    game = play_game(LateAfter(seconds=0.3), FirstMove(), start=lone_king, clock=(0.2, 0))
    assert (game.headers["Result"], game.headers["Termination"]) == ("1/2-1/2", TIME_FORFEIT)
    board = chess.Board(lone_king)
    assert flag_result(board, chess.WHITE) == "1/2-1/2"
    assert flag_result(board, chess.BLACK) == "1-0"       # White's queen can mate
    bare = chess.Board("7k/6n1/8/8/8/8/8/K7 w - - 0 1")    # K+N cannot mate a bare king
    assert flag_result(bare, chess.WHITE) == "1/2-1/2"
    pawn = chess.Board("7k/6n1/8/8/8/8/P7/K7 w - - 0 1")   # ... but can one boxed in by a pawn
    assert flag_result(pawn, chess.WHITE) == "0-1"


def test_a_ladder_on_stockfishs_own_clock_says_its_anchors_are_not_nominal():
    from chesslab.matches.event import rate_pairs
    anchors = {"stockfish:1350": 1350.0}
    pairs = {"pst vs stockfish:1350": [1, 0, 1]}
    calibrated = rate_pairs(["pst", "stockfish:1350"], pairs, anchors,
                            {"games_per_pair": 2, "time_control": "60+0.6"})["what"]
    assert "on a 60+0.6 clock" in calibrated and "nominal" not in calibrated
    assert "calibrates UCI_Elo at" in calibrated
    fast = rate_pairs(["pst", "stockfish:1350"], pairs, anchors,
                      {"games_per_pair": 2, "time_control": "10+0.1"})["what"]
    assert "on a 10+0.1 clock" in fast and "nominal" in fast


def test_each_kind_of_player_gets_its_clock_its_own_way():
    pst = on_clock(make_player("pst:2"))
    assert isinstance(pst, ClockPlayer) and pst.name == "pst:2"
    move = pst.choose_move_on_clock(chess.Board(), GameClock(30.0, 30.0, 0.0))
    assert move in chess.Board().legal_moves and pst.last_result.depth <= 2  # spec's cap
    assert isinstance(on_clock(make_player("mcts")), ClockPlayer)
    rand, first = make_player("random"), FirstMove()
    assert on_clock(rand) is rand and on_clock(first) is first   # they just move, timed


def test_a_search_on_a_clock_gets_the_optimum_and_the_maximum_mcts_the_share():
    """What each thinker is asked for, on a clock with 20 s left at 60+0.6 (no move is
    timed: the thinker is replaced by one that writes its limits down)."""
    budget = time_budget(20.0, 0.6)
    for spec, seconds, optimum in (("pst", budget.maximum, budget.optimum),
                                   ("mcts", budget.share, None)):
        player, asked = on_clock(make_player(spec)), []

        def think(board, limits, stop, say):
            asked.append(limits)
            return next(iter(board.legal_moves))

        player.thinker.think = think
        player.choose_move_on_clock(chess.Board(), GameClock(20.0, 45.0, 0.6))
        assert (asked[0].seconds, asked[0].optimum) == (seconds, optimum), spec


def test_an_mcts_game_on_a_clock_ends_by_the_resign_rule_too():
    """On a clock MCTS thinks through MCTSThinker: it keeps the result it played, so
    the resign rule reads its score there as well."""
    hopeless = "4k3/pppp4/8/8/8/8/PPPP4/3QK2R w K - 0 1"
    white, black = (on_clock(make_player(s, seed=i), "10+0.1")
                    for i, s in enumerate(("pst:1", "mcts")))
    game = play_game(white, black, start=hopeless, resign_cp=1000, max_plies=60,
                     clock=(10, 0.1))
    assert game.headers["Termination"] == "adjudicated: both engines see White 1000+ cp ahead"


def test_every_runner_reads_the_clock_and_the_spec_caps_in_one_place():
    from chesslab.matches.clock import clock_text, seat_on_clock
    from chesslab.matches.thinking import spec_caps
    assert clock_text("60+0.60", ["pst", "random"]) == "60+0.6" and clock_text(None) is None
    with pytest.raises(ValueError, match="pst@1s has its own time per move"):
        clock_text("60+0.6", ["random", "pst@1s"])
    with pytest.raises(ValueError, match="cannot read the time control '1 minute'"):
        clock_text("1 minute")
    rand = make_player("random")
    assert seat_on_clock([rand], None) == ([rand], None)
    (seated,), clock = seat_on_clock([make_player("pst:2")], "3+0.10")
    assert clock == (3.0, 0.1) and isinstance(seated, ClockPlayer)
    assert seated.thinker.cap_number == 2               # the spec's depth caps it
    assert spec_caps("pst:3@1s") == (3, 1.0) and spec_caps("mcts:300") == (300, None)
    for level in ("stockfish:1500@0.5s", "stockfish:skill=3@0.5s"):   # a level, not a cap
        assert spec_caps(level) == (None, 0.5)
    assert spec_caps("random") == (None, None) and spec_caps("policy") == (None, None)


def test_a_player_with_its_own_time_is_refused_on_a_clock(capsys):
    with pytest.raises(ValueError, match=r"nnue@1s has its own time per move \(@1s\) but "
                                         r"the games are on a clock \(10\+0.1\).*write nnue"):
        match("nnue@1s", "random", games=2, time_control="10+0.1", progress=False)
    assert main(["results", "match", "--a", "random", "--b", "pst@0.5s", "--games", "2",
                 "--tc", "10+0.1"]) == 2
    assert "pst@0.5s has its own time per move (@0.5s)" in capsys.readouterr().err
    assert main(["results", "ladder", "--tc", "60+0.6", "--seconds", "1"]) == 2
    assert "--seconds 1 and --tc 60+0.6 together" in capsys.readouterr().err
    assert main(["results", "match", "--a", "random", "--b", "pst", "--tc", "1 minute"]) == 2
    assert "cannot read the time control '1 minute'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="positive seconds per game"):
        play_game(FirstMove(), FirstMove(), clock=(0, 1))


def test_match_and_the_event_ladder_take_a_clock_read_like_the_others(tmp_path, monkeypatch,
                                                                      capsys):
    from chesslab.cli import build_parser
    import chesslab.cli.results as results
    parser = build_parser()
    for words in (["match", "--white", "pst:1", "--black", "random"],
                  ["results", "event-ladder"], ["results", "ladder"],
                  ["results", "match", "--a", "pst:1", "--b", "random"]):
        assert parser.parse_args(words).tc is None
        assert parser.parse_args([*words, "--tc", "60+0.60"]).tc == "60+0.6"
        assert main([*words, "--tc", "1 minute"]) == 2
        err = capsys.readouterr().err
        assert "argument --tc: cannot read the time control '1 minute': write seconds" in err
    asked = {}

    def rate_ladder(**kwargs):
        asked.update(kwargs)
        raise ValueError("not played in this test")
    monkeypatch.setattr(results, "rate_ladder", rate_ladder)
    monkeypatch.setattr(results.store, "result_path", lambda name: tmp_path / f"{name}.json")
    assert main(["results", "event-ladder", "--tc", "5+0.10", "--games", "2"]) == 2
    assert asked["time_control"] == "5+0.1" and asked["games"] == 2
    assert asked["path"].name == "ladder_anchor_5+0.1.json"  # not the fixed-depth ladder's file
    pgn = tmp_path / "one.pgn"
    assert main(["match", "--white", "pst:1", "--black", "material:1", "--games", "1",
                 "--max-plies", "16", "--tc", "3+0.1", "--pgn", str(pgn), "--quiet"]) == 0
    assert "on a 3+0.1 clock" in capsys.readouterr().out
    game = chess.pgn.read_game(io.StringIO(pgn.read_text()))
    assert game.headers["TimeControl"] == "3+0.1" and game.headers["Termination"] != TIME_FORFEIT
    assert all(c is not None and c > 0 for c in clocks_of(game)[2:])


def test_results_match_on_a_clock_is_stored_beside_the_fixed_time_match(tmp_path, monkeypatch,
                                                                        capsys):
    import chesslab.experiments.matches as matches
    monkeypatch.setattr(matches, "checkpoint_path", lambda name: tmp_path / f"{name}.jsonl")
    # the held-out openings cost a dataset's load and split (many CPU seconds) per run
    monkeypatch.setattr(matches, "held_out_openings", lambda count: ["d2d4 d7d5"] * count)
    out = tmp_path / "matches.json"
    common = ["results", "match", "--a", "material:1", "--b", "random", "--games", "2",
              "--max-plies", "16", "--workers", "1", "--out", str(out)]
    assert main(common) == 0
    assert main([*common, "--tc", "5+0.1"]) == 0
    assert "on a 5+0.1 clock" in capsys.readouterr().out
    assert main([*common, "--tc", "5+0.10"]) == 0          # the same clock again: replaces
    entries = json.loads(out.read_text())["matches"]
    assert [e["time_control"] for e in entries] == [None, "5+0.1"]
    timed = entries[1]
    assert timed["games"] == 2 and "time forfeit" not in timed["endings"]
    assert timed["command"] == "python -m chesslab " + " ".join([*common, "--tc", "5+0.10"])
    for text in timed["pgn"]:
        assert '[TimeControl "5+0.1"]' in text and "[%clk 0:00:0" in text
    assert all("TimeControl" not in text for text in entries[0]["pgn"])
    assert not list(tmp_path.glob("*.jsonl"))               # checkpoints gone once stored


@needs_stockfish
@pytest.mark.stockfish
def test_stockfish_plays_on_both_clocks_through_the_uci_client():
    sf = make_player("stockfish:1350")
    limits = []
    play = sf.engine.play
    sf.engine.play = lambda board, limit, **kw: limits.append(limit) or play(board, limit, **kw)
    with sf:
        assert on_clock(sf) is sf
        game = play_game(sf, on_clock(make_player("pst", seed=1)), clock=(3, 0.05),
                         max_plies=16)
    assert game.headers["Termination"] != TIME_FORFEIT
    assert game.headers["TimeControl"] == "3+0.05" and all(c > 0 for c in clocks_of(game))
    first, later = limits[0], limits[-1]
    assert (first.white_clock, first.black_clock, first.white_inc, first.black_inc,
            first.time) == (3, 3, 0.05, 0.05, None)
    assert later.white_clock < 3 + 0.05 * 8 and later.black_clock < 3 + 0.05 * 8


@needs_stockfish
@pytest.mark.stockfish
def test_the_ladder_on_a_clock_keeps_its_time_control(tmp_path):
    from chesslab.experiments.ladder import ladder_path, rate_every_player
    assert ladder_path("60+0.60").name == "ladder_60+0.6.json"
    path = tmp_path / "ladder.json"
    data = rate_every_player(games=2, anchor_elos=(1350,), players=["material:1"],
                             max_plies=16, path=path, progress=False, time_control="3+0.05")
    assert data["time_control"] == "3+0.05" and data["seconds_per_move"] is None
    assert "on a 3+0.05 clock" in data["what"] and "nominal" in data["what"]
    assert set(data["pairs"]) == {"material:1 vs stockfish:1350"}
    assert sum(data["endings"].values()) == 2
    assert json.loads(path.read_text())["time_control"] == "3+0.05"
