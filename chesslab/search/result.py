"""What a search returns: the move, its score, and how the search got there."""
from __future__ import annotations

from dataclasses import dataclass, field

import chess

from chesslab.board.scores import format_score, mate_in

__all__ = ["SearchResult"]


@dataclass
class SearchResult:
    """What a search found. Scores are centipawns from White's point of view."""

    move: chess.Move | None
    score: float
    depth: int
    nodes: int
    pv: list
    #: (move, score) best first; only moves whose score is exact (all of them for
    #: minimax, the best few for alpha-beta: the others were only proved worse).
    root_moves: list = field(default_factory=list)
    seconds: float = 0.0
    algorithm: str = "full"

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def mate_in(self) -> int | None:
        """Moves to mate (positive: White mates, negative: Black mates), else None."""
        return mate_in(self.score)

    def describe(self, board: chess.Board | None = None) -> str:
        score = format_score(self.score, unit="cp")
        score += "" if self.mate_in is not None else " cp"
        pv = " ".join(m.uci() for m in self.pv)
        if board is not None and self.pv:
            pv = board.variation_san(self.pv)
        move = self.move.uci() if self.move else "(none)"
        return (f"bestmove {move}  score {score}  depth {self.depth}  nodes {self.nodes}"
                f"  nps {self.nps:.0f}  pv {pv}")
