"""What the tests of the exercises' checkers share: a student's function not written yet,
the check that a checker says so, a reference's twin (a checker switches the reference
off while a student's function runs, so a planted mistake calls a twin), and plain
minimax written out by hand."""
import types

import chess


def stub(*_args, **_kwargs):
    raise NotImplementedError("your code here")


def not_attempted(checker, *args, **kwargs):
    result = checker(stub, *args, show=False, **kwargs)
    assert not result.attempted and not result.ok
    assert "not attempted yet" in str(result)


def twin(function):
    """A copy of ``function`` (its code in a function object of its own)."""
    return types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)


def minimax_by_hand(board, depth, evaluate):
    if depth == 0:
        return evaluate(board)
    values = []
    for move in list(board.legal_moves):
        board.push(move)
        values.append(minimax_by_hand(board, depth - 1, evaluate))
        board.pop()
    return max(values) if board.turn == chess.WHITE else min(values)
