"""Your player for the class tournament: copy this file to YOURNAME.py (no leading _).

Rules: ``choose_move`` gets a chess.Board (your own copy: push and pop as you like) and
returns one of ``board.legal_moves`` within the move time the teacher announces (in the
event it is also in the environment variable CHESSLAB_MOVE_TIME, in seconds). You may
import chess, numpy and chesslab. In the tournament your file runs in a process of its
own: a late move, an exception, an illegal move or a file that does not import loses the
game (or withdraws you), so test it before you submit, from the folder that holds the
notebooks (players/ is beside them):

    python -c "import chess; from chesslab.matches.tournament import load_player; \
               p = load_player('players/YOURNAME.py'); print(p.choose_move(chess.Board()))"
"""
import chess

NAME = "your name"


def choose_move(board: chess.Board) -> chess.Move:
    raise NotImplementedError("return one of board.legal_moves")
