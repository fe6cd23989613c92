"""Searching the game tree without keeping it: minimax, alpha-beta, and a strong default.

One negamax routine serves all three algorithms (so they agree on every rule):

* ``"minimax"``: every child gets the full window, nothing is pruned (the thesis);
* ``"alphabeta"``: children get the window (-beta, -alpha) and the loop stops at a
  cutoff; it returns exactly minimax's value (the Naive Bayes chapter, the tutorial);
* ``"full"``: alpha-beta plus move ordering, killer/history moves, a transposition
  table, quiescence search, check extensions, null-move pruning, late-move
  reductions with null-window searches, and iterative deepening under a clock.
  Each improvement is a keyword argument so a notebook can switch it on and off.

Scores inside are "negamax" scores (good for the side to move); ``SearchResult.score``
is converted to centipawns from White's point of view, like the evaluators. A mate
found at ``ply`` half-moves from the root scores ``MATE - ply``, so faster mates score
higher. Mate is detected where it is cheap: a node with no legal moves (the search
generates the moves anyway), and in quiescence only when the side to move is in check.
Repetitions inside the search (and of the game's earlier positions), the 50-move rule
and insufficient material score as draws (0).
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field

import chess
import chess.polyglot

from chesslab.evaluation import PIECE_VALUES

#: Score of "mated right now"; a mate ``ply`` half-moves away scores MATE - ply.
MATE = 100000
#: Scores beyond this are mates.
MATE_THRESHOLD = MATE - 1000
ALGORITHMS = ("minimax", "alphabeta", "full")
_EXACT, _LOWER, _UPPER = 0, 1, 2
_MAX_PLY = 64
_TT_MAX_ENTRIES = 400_000
_VALUES = {**PIECE_VALUES, chess.KING: 2000}
_PROMOTION_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8


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
        if abs(self.score) < MATE_THRESHOLD:
            return None
        plies = MATE - abs(self.score)
        return int(math.copysign((plies + 1) // 2, self.score))

    def describe(self, board: chess.Board | None = None) -> str:
        score = (f"mate {self.mate_in}" if self.mate_in is not None
                 else f"{self.score:+.0f} cp")
        pv = " ".join(m.uci() for m in self.pv)
        if board is not None and self.pv:
            pv = board.variation_san(self.pv)
        move = self.move.uci() if self.move else "(none)"
        return (f"bestmove {move}  score {score}  depth {self.depth}  nodes {self.nodes}"
                f"  nps {self.nps:.0f}  pv {pv}")


def mate_value(ply: int) -> int:
    """Negamax score of the side to move when it is checkmated ``ply`` plies deep."""
    return -(MATE - ply)


def white_to_side(value: float, turn: chess.Color, ply: int) -> float:
    """An evaluator's White-view value -> negamax score; +-inf becomes a mate score."""
    if value == math.inf:
        value = MATE - ply
    elif value == -math.inf:
        value = -(MATE - ply)
    return value if turn == chess.WHITE else -value


def draw_by_rule(board: chess.Board) -> bool:
    """Drawn whatever the moves: the 50-move rule or insufficient material.

    A move that mates on the 100th half-move still wins: mate comes before the rule.
    """
    if board.halfmove_clock >= 100:
        return not board.is_checkmate()
    return (not (board.pawns | board.rooks | board.queens)
            and board.is_insufficient_material())


class _Timeout(Exception):
    pass


class Searcher:
    """The search state: evaluator, switches, counters, transposition table, killers."""

    def __init__(self, evaluator, algorithm: str = "full", *, ordering=None, killers=None,
                 tt=None, quiescence=None, iterative=None, check_extension=None,
                 null_move=None, reductions=None, batch=None, multipv: int = 1):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; choose one of "
                             f"{', '.join(ALGORITHMS)}")
        full = algorithm == "full"

        def pick(value, default):
            return default if value is None else bool(value)

        self.evaluator = evaluator
        self.algorithm = algorithm
        self.prune = algorithm != "minimax"
        self.ordering = pick(ordering, full)
        self.killers = pick(killers, full)
        self.tt_enabled = pick(tt, full)
        self.quiescence = pick(quiescence, full)
        self.iterative = pick(iterative, full)
        self.check_extension = pick(check_extension, full)
        self.null_move = pick(null_move, full)
        self.reductions = pick(reductions, full)
        # Batched leaves (one evaluate_batch call for a frontier node's children) are a
        # switch, off by default: with chesslab's nets a forward pass costs about the same
        # per position at batch 1 as at batch 30, and the batch also scores children that
        # alpha-beta would have pruned, so it was measured slower
        # (``python bench/search_speed.py batch``).
        self.batch = pick(batch, False)
        if not self.prune and (self.tt_enabled or self.quiescence or self.null_move
                               or self.reductions):
            raise ValueError("minimax is the plain algorithm: no tt, quiescence, null "
                             "move or reductions")
        self.multipv = max(1, int(multipv))
        # An efficiently updatable evaluator (chesslab.nnue) follows every push and pop
        # and scores a leaf from its accumulator instead of from scratch.
        self.incremental = bool(getattr(evaluator, "incremental", False))
        self._evaluate = (evaluator.evaluate_incremental if self.incremental
                          else evaluator.evaluate)
        self.nodes = 0
        self.tt = {}
        self.deadline = math.inf

    # ------------------------------------------------------------ entry point
    def search(self, board: chess.Board, depth=None, time_limit=None, rng=None):
        if depth is None and time_limit is None:
            depth = 4 if self.algorithm == "full" else 3
        max_depth = depth if depth is not None else _MAX_PLY - 1
        if max_depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        start = time.perf_counter()
        root, board = board, board.copy()  # a timeout leaves the copy mid-search
        self.nodes = 1  # the root
        self.deadline = math.inf
        self.tt.clear()
        self._killer = [[None, None] for _ in range(_MAX_PLY + 2)]
        self._history = {}
        self._pv = [[] for _ in range(_MAX_PLY + 2)]
        self._seen = self._game_history(board)
        if self.incremental:
            self.evaluator.reset(board)
        moves = list(board.legal_moves)
        if not moves:
            score = mate_value(0) if board.is_check() else 0
            return SearchResult(None, score if board.turn else -score, 0, 1, [], [],
                                time.perf_counter() - start, self.algorithm)
        iterative = self.iterative or time_limit is not None
        depths = range(1 if iterative else max_depth, max_depth + 1)
        done = None
        for d in depths:
            if time_limit is not None and d > 1:
                # Do not start an iteration we are unlikely to finish (each costs
                # several times the previous one); stop hard at the limit.
                if time.perf_counter() - start > 0.5 * time_limit:
                    break
                self.deadline = start + time_limit
            self._root_depth = d
            order = self._order_root(board, moves, done)
            try:
                done = self._search_root(board, d, order, rng is not None)
            except _Timeout as partial:
                done = self._merge_partial(partial.args[0], done)
                break
            best = done[1][0][0]
            if abs(best) >= MATE_THRESHOLD and MATE - abs(best) <= d:
                break  # a mate within the searched depth: deeper cannot change it
        return self._result(root, done, rng, time.perf_counter() - start)

    # ------------------------------------------------------------ the root
    def _search_root(self, board, depth, moves, ties):
        """Search every root move; returns (depth, [(score, move, pv)] exact, best first).

        With ``ties`` a move that equals the k-th best (k = multipv) is searched with a
        window just below it, so it comes back with an exact score and can be picked.
        """
        exact = []
        margin = 1e-6 if ties else 0.0
        for move in moves:
            lower = -math.inf
            if self.prune and len(exact) >= self.multipv:
                lower = exact[self.multipv - 1][0] - margin
            self._push(board, move)
            self._seen_push(board)
            try:
                score = -self._negamax(board, depth - 1, -math.inf, -lower, 1)
            except _Timeout:
                raise _Timeout((depth, exact)) from None  # board and counts abandoned
            self._seen_pop(board)
            self._pop(board)
            if score > lower:
                exact.append((score, move, [move] + self._pv[1]))
                exact.sort(key=lambda item: -item[0])
        return depth, exact

    def _order_root(self, board, moves, done):
        ordered = self._ordered(board, moves, 0, None) if self.ordering else list(moves)
        if done is not None and self.ordering:
            ranked = [m for _, m, _ in done[1]]
            ordered = ranked + [m for m in ordered if m not in ranked]
        return ordered

    @staticmethod
    def _merge_partial(partial, done):
        depth, exact = partial
        if not exact:
            return done
        if done is None:
            return partial
        moves = {m for _, m, _ in exact}
        # The partial iteration searched the previous best first: keep its verdicts,
        # then the previous iteration's other moves.
        return depth, exact + [item for item in done[1] if item[1] not in moves]

    def _result(self, board, done, rng, seconds):
        depth, exact = done
        best_score = exact[0][0]
        ties = [item for item in exact if item[0] == best_score]
        score, move, pv = ties[rng.randrange(len(ties))] if rng and len(ties) > 1 else ties[0]
        sign = 1 if board.turn == chess.WHITE else -1
        root_moves = [(m, sign * s) for s, m, _ in exact]
        return SearchResult(move, sign * score, depth, self.nodes, list(pv), root_moves,
                            seconds, self.algorithm)

    # ------------------------------------------------------------ the tree
    def _negamax(self, board, depth, alpha, beta, ply, static=None):
        """Negamax score of ``board`` for the side to move, searched ``depth`` plies."""
        self._count()
        self._pv[ply] = []
        if self._is_draw(board):
            return 0
        in_check = board.is_check()
        if in_check and self.check_extension and ply < self._root_depth:
            depth += 1
        if depth <= 0:
            if self.quiescence:
                return self._quiesce(board, alpha, beta, ply, static)
            return static if static is not None else self._static(board, ply)
        if ply >= _MAX_PLY:
            return self._static(board, ply)

        alpha0 = alpha
        key = hash_move = None
        if self.tt_enabled:
            key = chess.polyglot.zobrist_hash(board)
            entry = self.tt.get(key)
            if entry is not None:
                e_depth, flag, value, hash_move = entry
                value = _from_tt(value, ply)
                if e_depth >= depth:
                    if (flag == _EXACT or (flag == _LOWER and value >= beta)
                            or (flag == _UPPER and value <= alpha)):
                        return value

        if (self.null_move and depth >= 3 and ply > 0 and not in_check
                and beta < MATE_THRESHOLD and self._has_pieces(board)):
            # Null move: let the opponent move twice. If we still reach beta with a
            # shallower search, a real move will too (not in zugzwang-prone endings).
            self._push(board, chess.Move.null())
            score = -self._negamax(board, depth - 3, -beta, -beta + 1, ply + 1)
            self._pop(board)
            if score >= beta:
                return score if score < MATE_THRESHOLD else beta

        moves = list(board.legal_moves)
        if not moves:
            return mate_value(ply) if in_check else 0
        if self.ordering:
            moves = self._ordered(board, moves, ply, hash_move)
        statics = self._batch_statics(board, moves, ply) if depth == 1 and self.batch else None

        best, best_move = -math.inf, None
        for i, move in enumerate(moves):
            quiet = not move.promotion and not board.is_capture(move)
            self._push(board, move)
            self._seen_push(board)
            child_static = None if statics is None else statics[i]
            if not self.prune:
                score = -self._negamax(board, depth - 1, -math.inf, math.inf, ply + 1,
                                       child_static)
            elif i == 0 or not self.reductions:
                score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1, child_static)
            else:
                # Late moves are probably worse than the first: prove it with a null
                # window (a ply shallower for quiet moves late in the list), and search
                # again properly only if the proof fails.
                r = 1 if (i >= 3 and depth >= 3 and quiet and not in_check
                          and not board.is_check()) else 0
                score = -self._negamax(board, depth - 1 - r, -alpha - 1, -alpha, ply + 1,
                                       child_static)
                if score > alpha and (r or score < beta):
                    score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1,
                                           child_static)
            self._seen_pop(board)
            self._pop(board)
            if score > best:
                best, best_move = score, move
                self._pv[ply] = [move] + self._pv[ply + 1]
            if score > alpha:
                alpha = score
                if self.prune and alpha >= beta:
                    if self.killers and not board.is_capture(move):
                        self._remember_quiet(move, depth, ply)
                    break
        if self.tt_enabled:
            flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
            if len(self.tt) >= _TT_MAX_ENTRIES:
                self.tt.clear()
            self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def _quiesce(self, board, alpha, beta, ply, static=None):
        """Search captures until the position is quiet; the side to move may stand pat.

        Cheap on purpose (Python is slow): a check here is only tested for mate (the
        search's check extension already answers checks before the horizon), captures
        that lose material to a defended square and captures too small to reach alpha
        are skipped.
        """
        if board.is_check() and not any(board.generate_legal_moves()):
            return mate_value(ply)
        stand = static if static is not None else self._static(board, ply)
        if stand >= beta or ply >= _MAX_PLY:
            return stand
        alpha = max(alpha, stand)
        best = stand
        for move in self._captures(board, alpha - stand):
            self._push(board, move)
            self._count()
            score = -self._quiesce(board, -beta, -alpha, ply + 1)
            self._pop(board)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _captures(self, board, margin):
        """Captures and queen promotions worth trying in quiescence, best first."""
        keyed = []
        for move in board.generate_legal_captures():
            victim = _VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
            gain = victim + (_VALUES[move.promotion] - 100 if move.promotion else 0)
            if gain + 200 < margin:
                continue  # delta pruning: even winning the piece cannot reach alpha
            attacker = _VALUES[board.piece_type_at(move.from_square)]
            if attacker > victim and board.is_attacked_by(not board.turn, move.to_square):
                continue  # e.g. QxP on a defended square: loses material
            keyed.append((10 * gain - attacker, move))
        for move in board.generate_legal_moves(board.pawns, _PROMOTION_RANKS):
            if move.promotion == chess.QUEEN and not board.is_capture(move):
                keyed.append((8 * 800, move))
        keyed.sort(key=lambda item: -item[0])
        return [move for _, move in keyed]

    # ------------------------------------------------------------ leaves
    def _static(self, board, ply):
        return white_to_side(self._evaluate(board), board.turn, ply)

    def _push(self, board, move):
        if self.incremental:
            self.evaluator.push(board, move)
        board.push(move)

    def _pop(self, board):
        board.pop()
        if self.incremental:
            self.evaluator.pop()

    def _batch_statics(self, board, moves, ply):
        """Evaluate every child of a frontier node in one ``evaluate_batch`` call."""
        children = []
        for move in moves:
            board.push(move)
            children.append(board.copy(stack=False))
            board.pop()
        values = self.evaluator.evaluate_batch(children)
        statics = []
        for child, value in zip(children, values):
            if child.is_check() and not any(child.generate_legal_moves()):
                statics.append(mate_value(ply + 1))  # learned nets do not know mate
            else:
                statics.append(white_to_side(float(value), child.turn, ply + 1))
        return statics

    # ------------------------------------------------------------ bookkeeping
    def _count(self):
        self.nodes += 1
        if self.nodes & 1023 == 0 and time.perf_counter() > self.deadline:
            raise _Timeout(None)

    def _is_draw(self, board):
        """Draw by the 50-move rule, insufficient material or a repeated position."""
        if draw_by_rule(board):
            return True
        # A repetition needs at least 4 reversible plies; the key is python-chess's
        # own cheap position key (the one its repetition rules use).
        return board.halfmove_clock >= 4 and self._seen.get(board._transposition_key(), 0) > 1

    def _seen_push(self, board):
        key = board._transposition_key()
        self._seen[key] = self._seen.get(key, 0) + 1

    def _seen_pop(self, board):
        key = board._transposition_key()
        count = self._seen[key] - 1
        if count:
            self._seen[key] = count
        else:
            del self._seen[key]

    @staticmethod
    def _game_history(board):
        """Positions of the game since the last capture or pawn move (root included)."""
        seen = {}
        replay = board.copy()
        for _ in range(min(board.halfmove_clock, len(board.move_stack)) + 1):
            key = replay._transposition_key()
            seen[key] = seen.get(key, 0) + 1
            if not replay.move_stack:
                break
            replay.pop()
        return seen

    @staticmethod
    def _has_pieces(board):
        """The side to move has a piece besides king and pawns (null move is safe)."""
        return bool(board.occupied_co[board.turn] & ~(board.pawns | board.kings))

    def _ordered(self, board, moves, ply, hash_move):
        """Best moves first: hash move, captures (MVV-LVA), promotions, killers, history,
        then captures that give a bigger piece for a defended smaller one."""
        killers = self._killer[ply] if self.killers else ()
        history = self._history
        keyed = []
        for move in moves:
            if move == hash_move:
                key = 10_000_000
            elif board.is_capture(move):
                victim = _VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
                attacker = _VALUES[board.piece_type_at(move.from_square)]
                key = 10 * victim - attacker + (_VALUES[move.promotion] if move.promotion
                                                 else 0)
                if attacker > victim and board.is_attacked_by(not board.turn,
                                                              move.to_square):
                    key -= 100_000  # likely loses material: try after the quiet moves
                else:
                    key += 1_000_000
            elif move.promotion:
                key = 900_000 + _VALUES[move.promotion]
            elif move in killers:
                key = 800_000 - killers.index(move)
            else:
                key = history.get((move.from_square, move.to_square), 0)
            keyed.append((key, move))
        keyed.sort(key=lambda item: -item[0])
        return [move for _, move in keyed]

    def _remember_quiet(self, move, depth, ply):
        killers = self._killer[ply]
        if move != killers[0]:
            killers[1], killers[0] = killers[0], move
        key = (move.from_square, move.to_square)
        self._history[key] = min(self._history.get(key, 0) + depth * depth, 700_000)


def _to_tt(score, ply):
    """Mate scores are stored relative to the node, not the root."""
    if score >= MATE_THRESHOLD:
        return score + ply
    if score <= -MATE_THRESHOLD:
        return score - ply
    return score


def _from_tt(score, ply):
    if score >= MATE_THRESHOLD:
        return score - ply
    if score <= -MATE_THRESHOLD:
        return score + ply
    return score


def search(board: chess.Board, evaluator, depth: int | None = None,
           time_limit: float | None = None, algorithm: str = "full", *, rng=None,
           **options) -> SearchResult:
    """Best move for the side to move: see the module docstring for the algorithms.

    ``evaluator`` is an evaluator object or a name for ``load_evaluator``; ``depth`` is
    in plies (default 4 for "full", 3 otherwise); ``time_limit`` in seconds stops
    iterative deepening; ``rng`` (a ``random.Random``) breaks ties between equally good
    root moves. ``options``: ordering, killers, tt, quiescence, iterative,
    check_extension, null_move, reductions, batch (True/False) and multipv (how many
    root scores to make exact).
    """
    if isinstance(evaluator, str):
        from chesslab.evaluation import load_evaluator
        evaluator = load_evaluator(evaluator)
    if not isinstance(board, chess.Board):
        raise TypeError(f"search needs a chess.Board, got {type(board).__name__}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, numbers.Integral)):
        raise TypeError(f"depth must be a whole number of plies such as 3, got {depth!r}")
    if time_limit is not None and (isinstance(time_limit, bool)
                                   or not isinstance(time_limit, numbers.Real)):
        raise TypeError(f"time_limit must be seconds such as 1.5, got {time_limit!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    return Searcher(evaluator, algorithm, **options).search(board, depth, time_limit, rng)
