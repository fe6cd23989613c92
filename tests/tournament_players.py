"""Submissions for the tournament's tests: two good players and one of each fault.

Each value is a file's text; ``write_class(folder, names)`` writes some of them as a
class's folder of submissions.
"""
GOOD = {
    "first.py": '''import chess
NAME = "first"
def choose_move(board):
    return sorted(board.legal_moves, key=lambda m: m.uci())[0]
''',
    "chatty.py": '''import random
import chess
NAME = "chatty"
def choose_move(board):
    print("thinking out loud, on stdout")          # must not break the pipe
    return random.Random(board.fen()).choice(sorted(board.legal_moves, key=chess.Move.uci))
''',
}

FAULTY = {
    "hangs.py": '''NAME = "hangs"
def choose_move(board):
    while True:
        pass
''',
    "slow.py": '''import os, time
NAME = "slow"
def choose_move(board):
    time.sleep(3 * float(os.environ["CHESSLAB_MOVE_TIME"]))   # 3x the move time
    return next(iter(board.legal_moves))
''',
    "raises.py": '''NAME = "raises"
def choose_move(board):
    if board.fullmove_number >= 3:
        raise KeyError("no idea")
    return sorted(board.legal_moves, key=lambda m: m.uci())[-1]
''',
    "illegal.py": '''import chess
NAME = "illegal"
def choose_move(board):
    return chess.Move.from_uci("a1a8")
''',
    "exits.py": '''import sys
NAME = "exits"
def choose_move(board):
    sys.exit(3)
''',
    "broken.py": '''import no_such_module_anywhere
def choose_move(board):
    return None
''',
}

#: The fault each faulty submission must be charged with.
REASONS = {"hangs": "late move", "slow": "late move", "raises": "exception",
           "illegal": "illegal move", "exits": "process exited"}


def write_class(folder, names):
    """Write the submissions ``names`` (file names) into ``folder``; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text({**GOOD, **FAULTY}[name])
    (folder / "_template.py").write_text("def choose_move(board):\n    raise "
                                         "NotImplementedError\n")
    return folder
