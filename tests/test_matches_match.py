"""matches.match: a match alternates colours and writes its PGN, its score, interval and
Elo, settings and files checked before the first game, an engine that dies mid-match."""
import math

import chess
import chess.pgn
import pytest

from chesslab.__main__ import main
from chesslab.board.game import play_game
from chesslab.matches.match import MatchResult, match, read_record
from chesslab.matches.players import make_player
from chesslab.matches.rating import elo_difference, wilson_interval


def test_scores_interval_and_elo():
    r = MatchResult("a", "b", wins=6, draws=2, losses=2)
    assert r.score == pytest.approx(0.7)
    low, high = r.score_interval()
    assert low < 0.7 < high
    assert r.elo == pytest.approx(-400 * math.log10(1 / 0.7 - 1))
    assert elo_difference(0.5) == 0 and elo_difference(1.0) == math.inf
    assert r.elo_error > 0


def test_a_clean_sweep_reports_the_elo_its_interval_proves():
    sweep = MatchResult("a", "b", wins=20, draws=0, losses=0)
    low, high = sweep.score_interval()
    assert high == pytest.approx(1.0) and 0.8 < low < 0.9
    text = sweep.summary()
    assert (f"at least {elo_difference(low):+.0f}, the lower end of the 95% interval"
            in text) and "+inf" in text
    lost = MatchResult("a", "b", wins=0, draws=0, losses=4).summary()
    assert "every game lost: at most -" in lost and "upper end of the 95% interval" in lost
    assert "every game" not in MatchResult("a", "b", wins=3, draws=1, losses=0).summary()


def test_match_alternates_colours_and_writes_pgn(tmp_path):
    path = tmp_path / "m.pgn"
    result = match("alphabeta:1", "random", games=4, max_plies=30, progress=False,
                   pgn_path=path)
    assert result.n == 4
    whites = [g.headers["White"] for g in result.games]
    assert whites == ["alphabeta:1", "random", "alphabeta:1", "random"]
    with open(path) as fh:
        games = [chess.pgn.read_game(fh) for _ in range(4)]
    assert [g.headers["Round"] for g in games] == ["1", "2", "3", "4"]
    assert games[0].headers["Opening"] == games[1].headers["Opening"]


def test_a_stopped_match_keeps_the_games_a_full_one_plays_first():
    """``stop`` is asked after each game; the games before it are those of the full match."""
    full = match("alphabeta:1", "random", games=4, max_plies=30, seed=3, progress=False)
    asked = []

    def after_two(result):
        asked.append(result.n)
        return result.n == 2
    stopped = match("alphabeta:1", "random", games=4, max_plies=30, seed=3, progress=False,
                    stop=after_two)
    assert asked == [1, 2] and stopped.n == 2
    assert [str(g) for g in stopped.games] == [str(g) for g in full.games[:2]]
    first_two = MatchResult("a", "b")
    for game, a_is_white in zip(full.games[:2], (True, False)):
        white_points = {"1-0": 1.0, "0-1": 0.0}.get(game.headers["Result"], 0.5)
        first_two.add(white_points if a_is_white else 1 - white_points)
    assert (stopped.wins, stopped.draws, stopped.losses) == (
        first_two.wins, first_two.draws, first_two.losses)
    never = match("alphabeta:1", "random", games=2, max_plies=30, seed=3, progress=False,
                  stop=lambda result: False)
    assert [str(g) for g in never.games] == [str(g) for g in full.games[:2]]


def test_senseless_match_settings_are_refused():
    with pytest.raises(ValueError, match="at least 1 game"):
        match("random", "random", games=0, progress=False)
    with pytest.raises(ValueError, match="max_plies"):
        match("random", "random", games=2, max_plies=0, progress=False)
    with pytest.raises(ValueError, match="max_plies"):
        play_game(make_player("random"), make_player("random"), max_plies=-1)
    with pytest.raises(TypeError, match="needs players"):
        play_game("random", make_player("random"))
    assert main(["match", "--white", "random", "--black", "random", "--max-plies", "0",
                 "--quiet"]) == 2


def test_unwritable_pgn_destination_fails_before_the_first_game(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    played = []
    monkeypatch.setattr("chesslab.matches.match.play_game", lambda *a, **k: played.append(1))
    with pytest.raises(ValueError, match="cannot write the PGN file"):
        match("random", "random", games=2, progress=False, pgn_path=blocker / "m.pgn")
    with pytest.raises(ValueError, match="is a folder"):
        match("random", "random", games=2, progress=False, pgn_path=tmp_path)
    assert main(["match", "--white", "random", "--black", "random", "--games", "2",
                 "--quiet", "--pgn", str(blocker / "m.pgn")]) == 2
    assert "cannot write the PGN file" in capsys.readouterr().err
    assert played == []                      # checked before any work was done


@pytest.mark.stockfish
def test_engine_killed_mid_match_keeps_the_finished_games(tmp_path, monkeypatch, capsys):
    import os
    import signal

    from chesslab.base.stockfish import find_stockfish
    from chesslab.matches.players import EngineStopped
    if find_stockfish(required=False) is None:
        pytest.skip("Stockfish not installed")
    real_play_game, started = play_game, []

    def kill_in_third_game(white, black, **kwargs):
        started.append(1)
        if len(started) == 3:   # the engine dies before game 3
            engine = white if hasattr(white, "engine") else black
            os.kill(engine.engine.transport.get_pid(), signal.SIGKILL)
        return real_play_game(white, black, **kwargs)

    monkeypatch.setattr("chesslab.matches.match.play_game", kill_in_third_game)
    path = tmp_path / "m.pgn"
    with pytest.raises(EngineStopped, match="game 3 of .* 2 finished game") as err:
        match("stockfish:skill=0@0.01s", "random", games=5, max_plies=16, progress=False,
              pgn_path=path)
    assert err.value.match_result.n == 2
    with open(path) as fh:
        saved = [chess.pgn.read_game(fh) for _ in range(3)]
    assert [g.headers["Round"] for g in saved[:2]] == ["1", "2"] and saved[2] is None
    # the CLI says it in one line and exits 2
    started.clear()
    assert main(["match", "--white", "stockfish:skill=0@0.01s", "--black", "random",
                 "--games", "4", "--max-plies", "16", "--quiet", "--pgn",
                 str(tmp_path / "cli.pgn")]) == 2
    err_text = capsys.readouterr().err
    assert err_text.startswith("error: game 3") and len(err_text.strip().splitlines()) == 1
    assert (tmp_path / "cli.pgn").read_text().count("[Round ") == 2


def test_a_long_clean_sweep_reads_as_a_lower_bound_not_a_finite_error():
    # 100 of 100: the interval's upper end rounds to 1, which has no finite Elo
    text = MatchResult("a", "b", 100, 0, 0).summary()
    assert "every game won: at least +" in text and "+inf +-" not in text
    assert "every game lost: at most -" in MatchResult("a", "b", 0, 0, 100).summary()


def test_an_old_normal_interval_is_read_as_the_wilson_interval_of_the_counts():
    # the shape of the first entry of data/results/mcts_head_to_head.json
    old = {"a": "self-play iteration 1", "b": "policy_value_bootstrap.json", "games": 64,
           "wins": 23, "draws": 28, "losses": 13, "score": 0.5781, "ci95": [0.488, 0.668]}
    entry = read_record(old)
    low, high = wilson_interval(23 + 28 / 2, 64)
    assert entry["interval95"] == [round(low, 4), round(high, 4)]
    assert entry["interval95"] != old["ci95"] and entry["interval95"][0] < 0.488
    assert "ci95" not in entry and old["ci95"] == [0.488, 0.668]   # the input is untouched
    assert entry["interval95"] == MatchResult.from_record(old).record()["interval95"]
    # an older name of the interval is read under today's name, with the value its counts
    # give (a stored interval no longer the counts' Wilson interval is recomputed)
    wilson = entry["interval95"]
    assert read_record({**old, "score_95": wilson} | {"ci95": [0.5, 0.6]})["interval95"] == wilson
    assert read_record({**old, "score_95": [0.4, 0.7]})["interval95"] == wilson
    # a stale derivation never reaches the reader: a normal interval stored as interval95
    # and the summary made from it are read as the current rule gives them
    stale = {**MatchResult("x", "y", 36, 8, 56).record(), "interval95": [0.3081, 0.4919],
             "summary": "x vs y: +36 =8 -56  score 0.400 (95% CI 0.31-0.49)  Elo -70 +- 67"}
    assert read_record(stale) == MatchResult("x", "y", 36, 8, 56).record()
    with pytest.raises(ValueError, match="no wins, draws, losses"):
        read_record({"a": "x", "b": "y", "games": 4, "score": 0.5, "ci95": [0.1, 0.9]})
