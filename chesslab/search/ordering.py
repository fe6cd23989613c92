"""Move ordering: try the best moves first, so that alpha-beta cuts off early.

Alpha-beta visits about the square root of minimax's positions when the best move of
every node comes first, and as many as minimax when it comes last. The full search
(``chesslab.search.searcher``) tries moves in this order:

1. the hash move: the best move found for this position before (transposition table);
2. captures, most valuable victim first and then least valuable attacker (MVV-LVA);
3. queen promotions;
4. killer moves: two quiet moves that caused a cutoff at the same ply;
5. the other quiet moves, by history: how much cutting off they did anywhere;
6. last, captures that lose material: a bigger piece taking a defended smaller one,
   judged by the static exchange evaluation ``see``.

The moves are generated in those stages (``MoveOrderer.staged``): a cutoff by the hash
move or a capture saves generating and sorting the quiet moves.
"""
from __future__ import annotations

import chess

from chesslab.board.scores import PIECE_VALUES

#: Centipawns of each piece for exchanges; the king only ever recaptures last.
VALUES = {**PIECE_VALUES, chess.KING: 2000}
PROMOTION_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8


def see(board: chess.Board, move: chess.Move) -> int:
    """Static exchange evaluation: centipawns the capture ``move`` wins for the side to
    move if both sides then recapture on that square with their least valuable piece
    while it pays (pins and checks are ignored). Negative: the capture loses material.
    """
    target = move.to_square
    if board.is_en_passant(move):
        gains = [VALUES[chess.PAWN]]
        occupied = board.occupied ^ chess.BB_SQUARES[move.from_square] ^ chess.BB_SQUARES[
            target + (-8 if board.turn == chess.WHITE else 8)]
    else:
        gains = [VALUES.get(board.piece_type_at(target), 0)]
        occupied = board.occupied ^ chess.BB_SQUARES[move.from_square]
    if move.promotion:
        gains[0] += VALUES[move.promotion] - VALUES[chess.PAWN]
    on_square = VALUES[move.promotion or board.piece_type_at(move.from_square)]
    side = not board.turn
    while True:
        attackers = board.attackers_mask(side, target, occupied) & occupied
        if not attackers:
            break
        for piece_type in chess.PIECE_TYPES:  # the least valuable attacker first
            mine = attackers & board.pieces_mask(piece_type, side)
            if mine:
                break
        gains.append(on_square - gains[-1])  # what ``side`` has won if it takes
        occupied ^= mine & -mine
        on_square = VALUES[piece_type]
        side = not side
    while len(gains) > 1:  # each side may stop recapturing when that is better
        last = gains.pop()
        gains[-1] = -max(-gains[-1], last)
    return gains[0]


class MoveOrderer:
    """What a search learns about good moves as it goes: killers and history.

    ``see=False`` judges "does this capture lose material?" by "is the square
    attacked?" instead of the static exchange evaluation. The killer table and the
    history fill only through ``remember_cutoff`` (a search with killers off never
    calls it, so both stay empty).
    """

    def __init__(self, see: bool = True, max_ply: int = 64):
        self.see = see
        self.max_ply = max_ply
        self.killer_moves = [[None, None] for _ in range(max_ply + 2)]
        self.history = {}

    def new_search(self, keep_history: bool):
        """Forget the killers; keep the last searches' history at a quarter weight
        (``keep_history``) or forget it too."""
        self.killer_moves = [[None, None] for _ in range(self.max_ply + 2)]
        if keep_history:
            self.history = {k: v >> 2 for k, v in self.history.items() if v >= 4}
        else:
            self.history = {}

    def remember_cutoff(self, move, depth, ply):
        """A quiet move refuted the opponent's last move: a killer at this ply, and
        history credit growing with the depth it cut off."""
        killers = self.killer_moves[ply]
        if move != killers[0]:
            killers[1], killers[0] = killers[0], move
        key = (move.from_square, move.to_square)
        self.history[key] = min(self.history.get(key, 0) + depth * depth, 700_000)

    def loses_material(self, board, move):
        """A capture by a bigger piece of a smaller one: does it lose material?"""
        if self.see:
            return see(board, move) < 0
        return board.is_attacked_by(not board.turn, move.to_square)

    def capture_key(self, board, move):
        """(MVV-LVA key, loses material?) of a capture."""
        victim = VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
        attacker = VALUES[board.piece_type_at(move.from_square)]
        key = 10 * victim - attacker + (VALUES[move.promotion] if move.promotion else 0)
        return key, attacker > victim and self.loses_material(board, move)

    def ordered(self, board, moves, ply, hash_move):
        """``moves`` best first: hash move, captures (MVV-LVA), promotions, killers,
        history, then captures that lose material."""
        killers = self.killer_moves[ply]
        history = self.history
        keyed = []
        for move in moves:
            if move == hash_move:
                key = 10_000_000
            elif board.is_capture(move):
                key, loses = self.capture_key(board, move)
                key += -100_000 if loses else 1_000_000
            elif move.promotion:
                key = 900_000 + VALUES[move.promotion]
            elif move in killers:
                key = 800_000 - killers.index(move)
            else:
                key = history.get((move.from_square, move.to_square), 0)
            keyed.append((key, move))
        keyed.sort(key=lambda item: -item[0])
        return [move for _, move in keyed]

    def staged(self, board, ply, hash_move, in_check):
        """The legal moves in ``ordered``'s order, generated in stages: a cutoff by
        the hash move or a capture saves generating and sorting the quiet moves."""
        if in_check:  # few legal moves: all at once
            yield from self.ordered(board, list(board.legal_moves), ply, hash_move)
            return
        if hash_move is not None and board.is_legal(hash_move):
            yield hash_move
        good, bad = [], []
        for move in board.generate_legal_captures():
            if move != hash_move:
                key, loses = self.capture_key(board, move)
                (bad if loses else good).append((key, move))
        empty_last_rank = PROMOTION_RANKS & ~board.occupied
        for move in board.generate_legal_moves(board.pawns, empty_last_rank):
            if move.promotion == chess.QUEEN and move != hash_move:
                good.append((VALUES[chess.QUEEN], move))
        good.sort(key=lambda item: -item[0])
        for _, move in good:
            yield move
        killers = []
        for move in self.killer_moves[ply]:
            if (move is not None and move != hash_move and move not in killers
                    and not move.promotion and not board.is_capture(move)
                    and board.is_legal(move)):
                killers.append(move)
                yield move
        history = self.history
        quiets = [(history.get((m.from_square, m.to_square), 0), m)
                  for m in board.generate_legal_moves()
                  if m.promotion != chess.QUEEN and m != hash_move and m not in killers
                  and not board.is_capture(m)]
        quiets.sort(key=lambda item: -item[0])
        for _, move in quiets:
            yield move
        bad.sort(key=lambda item: -item[0])
        for _, move in bad:
            yield move

    def captures(self, board, margin):
        """Captures and queen promotions worth trying in quiescence, best first.

        Skipped: captures that cannot win ``margin`` centipawns even with the piece
        (delta pruning), and captures that lose material unless they give check.
        """
        keyed = []
        for move in board.generate_legal_captures():
            victim = VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
            gain = victim + (VALUES[move.promotion] - VALUES[chess.PAWN] if move.promotion else 0)
            if gain + 200 < margin:
                continue  # delta pruning: even winning the piece cannot reach alpha
            attacker = VALUES[board.piece_type_at(move.from_square)]
            if (attacker > victim and self.loses_material(board, move)
                    and not board.gives_check(move)):
                # e.g. QxP on a defended square, unless it is check (it might mate).
                # gives_check pushes and pops the board alone with nothing evaluated
                # in between: an incremental evaluator's stack stays in step.
                continue
            keyed.append((10 * gain - attacker, move))
        seventh = chess.BB_RANK_7 if board.turn == chess.WHITE else chess.BB_RANK_2
        if board.pawns & board.occupied_co[board.turn] & seventh:
            for move in board.generate_legal_moves(board.pawns & seventh, PROMOTION_RANKS):
                if move.promotion == chess.QUEEN and not board.is_capture(move):
                    keyed.append((8 * (VALUES[chess.QUEEN] - VALUES[chess.PAWN]), move))
        keyed.sort(key=lambda item: -item[0])
        return [move for _, move in keyed]
