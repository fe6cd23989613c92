"""Games and matches: rules, adjudication, scores, Elo, PGN, the CLI."""
import math

import chess
import chess.pgn
import pytest

from chesslab.__main__ import main
from chesslab.matches.match import MatchResult, match
from chesslab.matches.rating import elo_difference
from chesslab.board.game import play_game
from chesslab.matches.players import Player, make_player


class BoardGuard(Player):
    """Wraps a player; fails if the board it was handed changed or a move was illegal."""

    def __init__(self, inner):
        super().__init__(inner.name, inner.seed)
        self.inner = inner

    def choose_move(self, board):
        fen, stack = board.fen(), list(board.move_stack)
        move = self.inner.choose_move(board)
        assert (board.fen(), list(board.move_stack)) == (fen, stack)
        assert move in board.legal_moves
        return move


def test_200_seeded_random_vs_engine_games_are_legal():
    ends = set()
    for seed in range(200):
        engine = BoardGuard(make_player("alphabeta:1", seed=seed))
        rand = BoardGuard(make_player("random", seed=seed))
        white, black = (engine, rand) if seed % 2 else (rand, engine)
        game = play_game(white, black, max_plies=40)
        board = game.end().board()  # replaying the PGN checks every move again
        assert len(board.move_stack) <= 40
        ends.add(game.headers["Termination"])
    assert "move cap" in ends and "checkmate" in ends


def test_full_search_mates_random_and_pgn_names_players():
    game = play_game(make_player("material:2", seed=3), make_player("random", seed=3))
    assert game.headers["Result"] == "1-0"
    assert game.headers["Termination"] == "checkmate"
    assert (game.headers["White"], game.headers["Black"]) == ("material:2", "random")


def test_claimable_draws_and_move_cap_are_adjudicated():
    # Kings only: insufficient material ends the game at once.
    game = play_game(make_player("random"), make_player("random"),
                     start=chess.Board("8/8/3k4/8/8/3K4/8/8 w - - 0 1"))
    assert (game.headers["Result"], game.headers["Termination"]) == (
        "1/2-1/2", "insufficient material")
    game = play_game(make_player("random"), make_player("random"), max_plies=6)
    assert game.headers["Termination"] == "move cap" and game.headers["Result"] == "1/2-1/2"
    # Knights shuffling back and forth: the threefold repetition ends the game once it
    # has happened (the start position for the third time), not a move earlier.

    class Shuffler(Player):
        def choose_move(self, board):
            for uci in ("g1f3", "f3g1", "g8f6", "f6g8"):
                move = chess.Move.from_uci(uci)
                if move in board.legal_moves:
                    return move
    game = play_game(Shuffler("w"), Shuffler("b"))
    assert game.headers["Termination"] == "threefold repetition"
    assert game.headers["PlyCount"] == "8" and game.end().board().is_repetition(3)


def test_illegal_move_is_reported():
    class Cheater(Player):
        def choose_move(self, board):
            return chess.Move.from_uci("e2e5")
    with pytest.raises(ValueError, match="cheater chose the illegal move e2e5"):
        play_game(Cheater("cheater"), make_player("random"))


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
    assert f"at least {elo_difference(low):+.0f} at 95%" in text and "+inf" in text
    lost = MatchResult("a", "b", wins=0, draws=0, losses=4).summary()
    assert "every game lost: at most -" in lost
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


def test_cli_match_and_bestmove(capsys, tmp_path):
    assert main(["match", "--white", "alphabeta:1", "--black", "random", "--games", "2",
                 "--max-plies", "20", "--quiet", "--pgn", str(tmp_path / "x.pgn")]) == 0
    assert "alphabeta:1 vs random" in capsys.readouterr().out
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    assert main(["bestmove", "--fen", fen, "--player", "pst:2"]) == 0
    out = capsys.readouterr().out
    assert "bestmove h5f7" in out and "score +M1" in out and "Qxf7#" in out
    assert main(["bestmove", "--fen", "not a fen"]) == 2


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
    import chesslab.matches.match as arena
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    played = []
    monkeypatch.setattr(arena, "play_game", lambda *a, **k: played.append(1))
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

    import chesslab.matches.match as arena
    from chesslab.base.stockfish import find_stockfish
    from chesslab.matches.players import EngineStopped
    if find_stockfish(required=False) is None:
        pytest.skip("Stockfish not installed")
    real_play_game, started = arena.play_game, []

    def kill_in_third_game(white, black, **kwargs):
        started.append(1)
        if len(started) == 3:   # the engine dies before game 3
            engine = white if hasattr(white, "engine") else black
            os.kill(engine.engine.transport.get_pid(), signal.SIGKILL)
        return real_play_game(white, black, **kwargs)

    monkeypatch.setattr(arena, "play_game", kill_in_third_game)
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


def test_a_decided_game_is_adjudicated_only_when_both_engines_agree():
    queen_up = chess.Board("4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
    game = play_game(make_player("material:1"), make_player("material:1", seed=1),
                     start=queen_up, resign_cp=500)
    assert game.headers["Result"] == "1-0"
    assert game.headers["Termination"].startswith("adjudicated: both engines see White")
    assert len(list(game.mainline_moves())) == 4          # four plies of agreement
    # off by default: the same game goes on (here to the move cap)
    game = play_game(make_player("material:1"), make_player("material:1", seed=1),
                     start=queen_up, max_plies=6)
    assert game.headers["Termination"] in ("move cap", "checkmate")
    # a player that reports no score (random) never agrees to anything
    game = play_game(make_player("material:1"), make_player("random"), start=queen_up,
                     resign_cp=500, max_plies=6)
    assert not game.headers["Termination"].startswith("adjudicated")


def test_the_resign_rule_accepts_players_whose_search_has_no_score():
    """An MCTS player's last result has visits and a value, not a centipawn score."""
    queen_up = chess.Board("4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
    game = play_game(make_player("mcts:8"), make_player("material:1"), start=queen_up,
                     resign_cp=500, max_plies=6)
    assert not game.headers["Termination"].startswith("adjudicated")
    assert len(list(game.mainline_moves())) <= 6


def test_a_long_clean_sweep_reads_as_a_lower_bound_not_a_finite_error():
    from chesslab.matches.match import MatchResult
    # 100 of 100: the interval's upper end rounds to 1, which has no finite Elo
    text = MatchResult("a", "b", 100, 0, 0).summary()
    assert "every game won: at least +" in text and "+inf +-" not in text
    assert "every game lost: at most -" in MatchResult("a", "b", 0, 0, 100).summary()
