"""matches.isolation: a submitted player in its own process: a hanging one is killed and the
next game gets a fresh one, a file that stops while loading loses where it stood."""
import chess
import pytest

from chesslab.matches.isolation import IsolatedPlayer, PlayerFault
from tournament_players import FAULTY, GOOD


def test_a_hanging_player_is_killed_and_the_next_game_gets_a_fresh_one():
    player = IsolatedPlayer("hangs", FAULTY["hangs.py"], move_time=0.1, grace=0.1)
    player.start()
    process = player.process
    with pytest.raises(PlayerFault, match="late move") as fault:
        player.choose_move(chess.Board())
    assert process.poll() is not None and player.process is None     # killed
    assert fault.value.fen == chess.STARTING_FEN and fault.value.ply == 0
    good = IsolatedPlayer("first", GOOD["first.py"], move_time=0.5, grace=0.5)
    try:
        assert good.choose_move(chess.Board()) == chess.Move.from_uci("a2a3")
        assert good.process.poll() is None                   # alive for the next move
    finally:
        good.close()


def test_a_file_that_stops_while_loading_in_a_game_loses_that_game_where_it_stood():
    board = chess.Board()
    board.push_uci("e2e4")
    player = IsolatedPlayer("quits", "import sys\nsys.exit(1)\n", move_time=0.5, grace=0.5)
    with pytest.raises(PlayerFault, match="did not load") as fault:
        player.choose_move(board)
    assert "exit code 1" in fault.value.detail
    assert (fault.value.fen, fault.value.ply) == (board.fen(), 1)       # Black's turn
    assert player.process is None
