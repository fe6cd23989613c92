"""The transposition table: what the search already knows about a position.

Different move orders reach the same position (a transposition); the table keeps, for
each position searched, how deep it was searched, its score, what kind of score that
is, and its best move:

* ``EXACT``: the true score (it fell inside the window);
* ``LOWER``: at least this (a cutoff: the search stopped once it reached beta);
* ``UPPER``: at most this (no move reached alpha).

A stored score settles a node when it was searched at least as deep and its kind
answers the window; otherwise its best move is still the first move to try.
Mate scores count plies from the root, but the same position can be met at another
distance from the root: the table stores them counted from the node instead.
"""
from __future__ import annotations

EXACT, LOWER, UPPER = 0, 1, 2


class TranspositionTable:
    """Position key -> (depth, kind, score, best move), cleared when full.

    ``mate_threshold``: scores beyond it are mates (``chesslab.board.scores.MATE_THRESHOLD``).
    """

    def __init__(self, mate_threshold: float, max_entries: int = 400_000):
        self.mate_threshold = mate_threshold
        self.max_entries = max_entries
        self.entries = {}

    def __len__(self):
        return len(self.entries)

    def clear(self):
        self.entries.clear()

    def probe(self, key, depth, alpha, beta, ply):
        """(score or None, best move or None): the score only when it settles the node."""
        entry = self.entries.get(key)
        if entry is None:
            return None, None
        e_depth, kind, score, move = entry
        score = self._from_node(score, ply)
        if e_depth >= depth and (kind == EXACT or (kind == LOWER and score >= beta)
                                 or (kind == UPPER and score <= alpha)):
            return score, move
        return None, move

    def store(self, key, depth, score, alpha, beta, ply, move):
        """Remember ``score`` of a node searched ``depth`` plies in the window (alpha, beta)."""
        kind = UPPER if score <= alpha else LOWER if score >= beta else EXACT
        if len(self.entries) >= self.max_entries:
            self.entries.clear()
        self.entries[key] = (depth, kind, self._to_node(score, ply), move)

    def _to_node(self, score, ply):
        """A mate score counted from the root -> counted from this node."""
        if score >= self.mate_threshold:
            return score + ply
        if score <= -self.mate_threshold:
            return score - ply
        return score

    def _from_node(self, score, ply):
        if score >= self.mate_threshold:
            return score - ply
        if score <= -self.mate_threshold:
            return score + ply
        return score
