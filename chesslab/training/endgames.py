"""The endgame curriculum: K+Q (or K+R) vs K starts, a defender that runs to the centre,
and the mate test that measures a network on fixed starts.

The smallest task where AlphaZero's loop can be watched learning on a laptop: a net that
starts knowing nothing must find mates, and the mate rate on the same starts is its curve.
"""
from __future__ import annotations

import random

import chess
import numpy as np

from chesslab.board.game import play_game
from chesslab.board.rules import outcome
from chesslab.search.mcts import MCTSPlayer

__all__ = ["endgame_starts", "mixed_endgame_starts", "CentreDefender", "mate_test"]


def _on_edge(square) -> bool:
    return chess.square_file(square) in (0, 7) or chess.square_rank(square) in (0, 7)


def endgame_starts(count: int, piece: str = "Q", seed: int = 0, level: int = 2) -> list[str]:
    """Random legal K+piece vs K positions, White (the attacker) to move, not over.

    ``piece`` is "Q" or "R" ("QR" alternates them). ``level`` makes the start easier:
    0 = the lone king on the edge with the white king two squares away (mate is near),
    1 = the lone king on the edge, 2 = anywhere.
    """
    kinds = [chess.Piece.from_symbol(p.upper()) for p in piece]
    if not kinds or any(k.piece_type not in (chess.QUEEN, chess.ROOK) for k in kinds):
        raise ValueError(f"piece must be 'Q', 'R' or 'QR', not {piece!r}")
    if level not in (0, 1, 2):
        raise ValueError(f"level must be 0 (easiest), 1 or 2 (random), not {level!r}")
    rng = random.Random(f"endgame:{piece}:{seed}:{level}")
    fens = []
    while len(fens) < count:
        wk, bk, sq = rng.sample(range(64), 3)
        if level < 2 and not _on_edge(bk):
            continue
        if level == 0 and chess.square_distance(wk, bk) != 2:
            continue
        board = chess.Board(None)
        board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(sq, kinds[len(fens) % len(kinds)])
        board.turn = chess.WHITE
        if board.is_valid() and outcome(board) is None:
            fens.append(board.fen())
    return fens


def mixed_endgame_starts(count: int, piece: str = "Q", seed: int = 0) -> list[str]:
    """``count`` starts, a third of each level (easy, edge, random): a fixed test set
    on which an untrained searcher mates sometimes, and a trained one more often."""
    return [fen for level in (0, 1, 2)
            for fen in endgame_starts((count + 2 - level) // 3, piece, seed, level)]


class CentreDefender:
    """The lone king's fixed defence: take a piece if it can, else run to the centre.

    A fixed opponent, so that a better mate rate means a better attacker.
    """

    name = "centre defender"

    def choose_move(self, board: chess.Board) -> chess.Move:
        def badness(move):
            to = move.to_square
            edge = max(abs(chess.square_file(to) - 3.5), abs(chess.square_rank(to) - 3.5))
            return (not board.is_capture(move), edge, move.uci())
        return min(board.legal_moves, key=badness)


def mate_test(net, starts, simulations: int = 50, max_moves: int = 30,
              defender=None, batch_size: int = 8, draw_value: float = -1.0) -> dict:
    """The attacker (White, greedy MCTS with ``net``) against a fixed defender.

    The attacker searches with the task's rule (a draw is worth ``draw_value`` = -1 to
    White), so even the untrained searcher avoids stalemate when it sees it.

    Returns the mate rate, the mean number of attacker moves to mate (mated games
    only) and the per-start results (moves to mate, or None).
    """
    defender = defender or CentreDefender()
    per_start = []
    for i, fen in enumerate(starts):
        attacker = MCTSPlayer(net, simulations, batch_size=batch_size, draw_value=draw_value,
                              seed=i)
        game = play_game(attacker, defender, fen, 2 * max_moves)
        final = game.end().board()
        mated = game.headers["Termination"] == "checkmate" and final.turn == chess.BLACK
        per_start.append((len(final.move_stack) + 1) // 2 if mated else None)
    mated = [m for m in per_start if m is not None]
    return {"mate_rate": len(mated) / len(starts),
            "moves_to_mate": float(np.mean(mated)) if mated else None,
            "per_start": per_start}
