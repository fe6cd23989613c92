"""Players that move without searching, for the game controller's and the widget's tests."""
import threading
from types import SimpleNamespace

import chess


class FirstMove:
    """A predictable AI: the first legal move in UCI order, with a made-up search result."""

    name = "first"

    def __init__(self):
        self.calls = 0

    def choose_move(self, board):
        self.calls += 1
        moves = sorted(board.legal_moves, key=chess.Move.uci)
        best, second = moves[0], moves[-1]
        reply = next(iter(sorted(after(board, best).legal_moves, key=chess.Move.uci)), None)
        pv = [best] + ([reply] if reply else [])
        self.last_result = SimpleNamespace(move=best, score=-25.0, depth=2, nodes=99, pv=pv,
                                           root_moves=[(best, -25.0), (second, 40.0)])
        return best


class Gate(FirstMove):
    """An AI that thinks until the test opens the gate."""

    def __init__(self):
        super().__init__()
        self.gate = threading.Event()
        self.started = threading.Event()

    def choose_move(self, board):
        self.started.set()
        assert self.gate.wait(10)
        return super().choose_move(board)


def after(board, move):
    board = board.copy()
    board.push(move)
    return board
