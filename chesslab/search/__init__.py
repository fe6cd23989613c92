"""The search layer: alpha-beta and its improvements, the thesis's game tree, MCTS.

``from chesslab.search import search`` is the entry point (``searcher.search``): the
best move of a position for an evaluator, by "minimax", "alphabeta" or the "full"
search. This package imports only the searcher's own modules: an evaluator named by a
string is looked up when ``search`` is called.
"""
from chesslab.search.result import SearchResult
from chesslab.search.searcher import search

__all__ = ["search", "SearchResult"]
