"""Players: specs, legal moves only, boards left alone, seeds, engines closed."""
import chess
import pytest

from chesslab.base.stockfish import find_stockfish
from chesslab.board.game import play_game
from chesslab.matches.players import RandomPlayer, SearchPlayer, StockfishPlayer, make_player
from needs_stockfish import needs_stockfish


def test_specs_make_the_right_players():
    assert isinstance(make_player("random"), RandomPlayer)
    p = make_player("pst:3")
    assert isinstance(p, SearchPlayer) and (p.depth, p.algorithm) == (3, "full")
    p = make_player("minimax:2")
    assert (p.algorithm, p.evaluator.name, p.depth) == ("minimax", "material", 2)
    p = make_player("material@0.5s")
    assert (p.depth, p.time_limit) == (None, 0.5)
    assert make_player("pst@1s").time_limit == 1.0


def test_a_games_headers_name_the_specs_that_played_time_included():
    game = play_game(make_player(" Material:1@0.01s "), make_player("random"), max_plies=4)
    assert (game.headers["White"], game.headers["Black"]) == ("material:1@0.01s", "random")
    assert SearchPlayer("pst", 2, 0.5).name == "pst:2@0.5s"       # depth and time both


@needs_stockfish
def test_stockfish_is_named_with_its_time_per_move():
    with make_player("stockfish:1350@0.02s") as fast, make_player("stockfish:1350") as usual:
        assert (fast.name, usual.name) == ("stockfish:1350@0.02s", "stockfish:1350")
        game = play_game(fast, make_player("random"), max_plies=2)
    assert game.headers["White"] == "stockfish:1350@0.02s"
    with StockfishPlayer(skill=2, time_limit=0.05) as made:        # not from a spec
        assert made.name == "stockfish:skill=2@0.05s"


@pytest.mark.parametrize("spec, message", [
    ("pst:x", "whole number"), ("pst:0", "at least 1"), ("???", "cannot read"),
    ("nosuch:2", "unknown player 'nosuch'"), ("stockfish:skill=99", "0-20")])
def test_bad_specs_are_explained(spec, message):
    if spec.startswith("stockfish") and find_stockfish(required=False) is None:
        pytest.skip("Stockfish not installed")
    with pytest.raises(ValueError, match=message):
        make_player(spec)


def test_learned_evaluator_without_model_says_which_file(monkeypatch, tmp_path):
    import chesslab.evaluators.registry as ev
    monkeypatch.setattr(ev, "MODELS_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="data/models/residual.json"):
        make_player("residual:2")


def test_search_player_keeps_last_result_and_the_board():
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    before = (board.fen(), list(board.move_stack))
    with make_player("pst:2") as player:
        move = player.choose_move(board)
    assert move == chess.Move.from_uci("h5f7")
    assert (board.fen(), list(board.move_stack)) == before
    result = player.last_result
    assert result.move == move and result.pv[0] == move and result.root_moves[0][0] == move


def test_same_seed_same_game_different_seed_different_moves():
    def first_moves(seed):
        player, board = make_player("material:1", seed=seed), chess.Board()
        moves = []
        for _ in range(6):
            moves.append(player.choose_move(board))
            board.push(moves[-1])
        return moves
    assert first_moves(1) == first_moves(1)
    assert len({tuple(first_moves(s)) for s in range(5)}) > 1


def test_game_over_is_refused():
    board = chess.Board("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
    with pytest.raises(ValueError, match="game is over"):
        RandomPlayer().choose_move(board)


@pytest.mark.stockfish
def test_stockfish_player_plays_and_closes():
    if find_stockfish(required=False) is None:
        pytest.skip("Stockfish not installed")
    board = chess.Board()
    with make_player("stockfish:1350@0.05s") as player:
        assert player.choose_move(board) in board.legal_moves
    assert player.engine is None
    player.close()  # twice is fine
    with StockfishPlayer(skill=0, time_limit=0.05) as weak:
        assert weak.choose_move(board) in board.legal_moves


@pytest.mark.parametrize("spec, error, message", [
    (None, TypeError, "player spec is a text"), (3, TypeError, "not int"),
    ("pst@1.2.3s", ValueError, "seconds like @1s"), ("pst@0s", ValueError, "positive"),
    ("random:5", ValueError, "takes no depth"), ("pst:100", ValueError, "pst@10s"),
    ("minimax:9", ValueError, "at most depth 5")])
def test_senseless_specs_are_one_line_errors(spec, error, message):
    with pytest.raises(error, match=message):
        make_player(spec)
    # a deep search with a time limit is fine: it stops when the time is up
    assert make_player("pst:30@1s").time_limit == 1.0


@pytest.mark.stockfish
def test_dead_engine_is_a_named_error_and_closes_quietly():
    import os
    import signal

    from chesslab.matches.players import EngineStopped
    if find_stockfish(required=False) is None:
        pytest.skip("Stockfish not installed")
    player = make_player("stockfish:skill=0@0.01s")
    os.kill(player.engine.transport.get_pid(), signal.SIGKILL)
    with pytest.raises(EngineStopped, match="stopped working while choosing a move"):
        player.choose_move(chess.Board())
    player.close()                          # no second error hiding the first
    assert player.engine is None
