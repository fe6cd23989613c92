"""chesslab: learn how a chess AI is built, one idea per module, one folder per layer.

The names a student or a teacher's script needs are here, each defined once in its layer
and loaded on first use (so ``import chesslab.search`` does not load the widgets, the
data sets or Stockfish):

    from chesslab import make_player, match, load_evaluator
    from chesslab.search import search
    match("pst:2", "material:2", games=4)

The layers, bottom to top: base, board, nn, datasets, evaluators, search, matches,
training, experiments, widgets, course (figures and cli use them all); imports point
down only. ``chess.Board`` and ``chess.Move`` (python-chess) are passed everywhere.
"""
from importlib import import_module

from chesslab.base.parallel import one_blas_thread as _one_blas_thread

__version__ = "0.1.0"

#: The public face: name -> the module that defines it.
_FACE = {
    "make_player": "chesslab.matches.players",
    "load_evaluator": "chesslab.evaluators.registry",
    "available_evaluators": "chesslab.evaluators.registry",
    "register_evaluator": "chesslab.evaluators.registry",
    "SearchResult": "chesslab.search.result",
    "Player": "chesslab.board.game",
    "play_game": "chesslab.board.game",
    "match": "chesslab.matches.match",
    "MatchResult": "chesslab.matches.match",
    "wilson_interval": "chesslab.matches.rating",
    "elo_difference": "chesslab.matches.rating",
    "play_vs_ai": "chesslab.widgets.boards",
    "ai_vs_ai": "chesslab.widgets.boards",
    "play_vs_stockfish": "chesslab.widgets.boards",
    "explore_search": "chesslab.widgets.explorer",
    "explore_mcts": "chesslab.widgets.mcts_explorer",
}
__all__ = sorted(_FACE) + ["search"]


def __getattr__(name):
    if name in _FACE:
        value = getattr(import_module(_FACE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'chesslab' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


_one_blas_thread()      # numpy's BLAS on one thread (see chesslab.base.parallel)
