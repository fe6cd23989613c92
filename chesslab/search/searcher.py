"""Searching the game tree without keeping it: minimax, alpha-beta, and a strong default.

One negamax routine serves all three algorithms (so they agree on every rule):

* ``"minimax"``: every child gets the full window, nothing is pruned (the thesis);
* ``"alphabeta"``: children get the window (-beta, -alpha) and the loop stops at a
  cutoff; it returns exactly minimax's value (the Naive Bayes chapter, the tutorial);
* ``"full"``: alpha-beta plus move ordering (moves generated in stages: hash move,
  captures, killers, quiet moves by history), killer/history moves, a transposition
  table, quiescence search, check extensions, null-move pruning, late-move
  reductions, principal variation search (null windows), aspiration windows, static
  exchange evaluation, futility pruning, and iterative deepening under a clock (or a
  node budget). Each improvement is a keyword argument (``SWITCHES``) so a notebook
  can switch it on and off; razoring is one too, off by default (it prunes the quiet
  move that mates: measured worse on tactics).

Move order, the transposition table and the clock have modules of their own
(``ordering``, ``transposition``, ``clock``). Scores inside are negamax scores (good for
the side to move); ``SearchResult.score`` is centipawns from White's side. A mate at
``ply`` half-moves scores ``MATE - ply`` (faster mates score higher); it is detected
where it is cheap: a node with no legal moves, and in quiescence only when in check
(which then searches every evasion instead of standing pat). Repetitions, the 50-move
rule and insufficient material score 0 (``chesslab.board.rules.Repetitions``).
"""
from __future__ import annotations

import math
import chess

from chesslab.search.clock import Clock, OutOfTime, check_limits
from chesslab.board.rules import Repetitions
from chesslab.search.ordering import MoveOrderer
from chesslab.board.scores import MATE, MATE_THRESHOLD, mate_value, white_to_side
from chesslab.search.result import SearchResult
from chesslab.search.transposition import TranspositionTable

ALGORITHMS = ("minimax", "alphabeta", "full")
_MAX_PLY = 64


#: The full search's switches: keyword arguments of ``Searcher`` and ``search``, each on
#: by default for ``"full"`` and off for the other algorithms (``batch`` is off for all).
SWITCHES = ("ordering", "killers", "tt", "quiescence", "iterative", "check_extension",
            "null_move", "reductions", "pvs", "aspiration", "see", "futility", "razoring",
            "keep_history", "keep_tt")
#: Switches that change what minimax means (it is the plain algorithm: none of them).
_NOT_FOR_MINIMAX = ("tt", "quiescence", "null_move", "reductions", "pvs", "aspiration",
                    "futility", "razoring", "keep_tt")
_ASPIRATION = 50                 # half-width of the first root window, centipawns
_REVERSE_FUTILITY = 120          # per ply of depth left
_FUTILITY = (0, 150, 300)        # by depth left (1 and 2)
_RAZOR = (0, 300, 500)           # by depth left (1 and 2)


class Searcher:
    """The search state: evaluator, switches, counters, transposition table, move orderer.

    One ``Searcher`` can search many positions: with ``keep_tt`` its transposition
    table, and with ``keep_history`` its history of good quiet moves, carry over from
    one search to the next (a player keeps its searcher for the whole game).
    """

    def __init__(self, evaluator, algorithm: str = "full", *, ordering=None, killers=None,
                 tt=None, quiescence=None, iterative=None, check_extension=None,
                 null_move=None, reductions=None, pvs=None, aspiration=None, see=None,
                 futility=None, razoring=None, keep_history=None, keep_tt=None,
                 batch=None, multipv: int = 1):
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
        # Principal variation search: after the first move, prove each other move is
        # no better with a null window (alpha, alpha + 1); search it again if not.
        self.pvs = pick(pvs, full)
        # Each iteration first searches the root in a window around the previous
        # iteration's score, and again in the full window only if it falls outside.
        self.aspiration = pick(aspiration, full)
        # Static exchange evaluation decides which captures lose material (ordering
        # and quiescence); without it, "a bigger piece takes a defended smaller one".
        self.see = pick(see, full)
        # Reverse futility and futility pruning one to three plies from the leaves,
        # razoring one or two: judged from the static evaluation.
        self.futility = pick(futility, full)
        self.razoring = pick(razoring, False)
        self.keep_history = pick(keep_history, full)
        self.keep_tt = pick(keep_tt, full)
        # Batched leaves (one evaluate_batch call for a frontier node's children) are a
        # switch, off by default: with chesslab's nets a forward pass costs about the same
        # per position at batch 1 as at batch 30, and the batch also scores children that
        # alpha-beta would have pruned, so it was measured slower
        # (``python bench/search_speed.py batch``).
        self.batch = pick(batch, False)
        if not self.prune:
            wrong = [name for name in _NOT_FOR_MINIMAX
                     if getattr(self, "tt_enabled" if name == "tt" else name)]
            if wrong:
                raise ValueError(f"minimax is the plain algorithm: no {', '.join(wrong)}")
        self.multipv = max(1, int(multipv))
        # An efficiently updatable evaluator (chesslab.evaluators.nnue) follows every push and pop
        # and scores a leaf from its accumulator instead of from scratch.
        self.incremental = bool(getattr(evaluator, "incremental", False))
        self._evaluate = (evaluator.evaluate_incremental if self.incremental
                          else evaluator.evaluate)
        self.nodes = 0
        self._line = False      # quiet_line() records the capture line it expects
        self.tt = TranspositionTable(MATE_THRESHOLD)
        self.orderer = MoveOrderer(self.see, _MAX_PLY)
        self.clock = Clock()

    # ------------------------------------------------------------ entry point
    def search(self, board: chess.Board, depth=None, time_limit=None, rng=None,
               node_limit=None):
        if depth is None and time_limit is None and node_limit is None:
            depth = 4 if self.algorithm == "full" else 3
        max_depth = depth if depth is not None else _MAX_PLY - 1
        if max_depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self.clock = Clock(time_limit, node_limit)
        root, board = board, board.copy()  # a timeout leaves the copy mid-search
        self.nodes = 1  # the root
        if not self.keep_tt:
            self.tt.clear()
        self.orderer.new_search(self.keep_history)
        self._pv = [[] for _ in range(_MAX_PLY + 2)]
        self._repetitions = Repetitions(board)
        if self.incremental:
            self.evaluator.reset(board)
        moves = list(board.legal_moves)
        if not moves:
            score = mate_value(0) if board.is_check() else 0
            return SearchResult(None, score if board.turn else -score, 0, 1, [], [],
                                self.clock.seconds(), self.algorithm)
        iterative = self.iterative or time_limit is not None or node_limit is not None
        depths = range(1 if iterative else max_depth, max_depth + 1)
        done = None
        for d in depths:
            if not self.clock.start_iteration(d, self.nodes):
                break
            self._root_depth = d
            order = self._order_root(board, moves, done)
            try:
                done = self._iteration(board, d, order, done, rng is not None)
            except OutOfTime as partial:
                done = self._merge_partial(partial.args[0], done)
                break
            best = done[1][0][0]
            if abs(best) >= MATE_THRESHOLD and MATE - abs(best) <= d:
                break  # a mate within the searched depth: deeper cannot change it
        return self._result(root, done, rng, self.clock.seconds())

    def quiet_line(self, board: chess.Board):
        """The quiescence search alone: (score for the side to move, the captures it
        expects to be played). Where that line ends, the position is quiet: the
        training recipe's quiet positions are found this way."""
        board = board.copy(stack=False)
        self.nodes = 1
        self.clock = Clock()
        self._pv = [[] for _ in range(_MAX_PLY + 2)]
        if self.incremental:
            self.evaluator.reset(board)
        self._line = True
        try:
            score = self._quiesce(board, -math.inf, math.inf, 0)
        finally:
            self._line = False
        return score, list(self._pv[0])

    # ------------------------------------------------------------ the root
    def _iteration(self, board, depth, moves, done, ties):
        """One iteration of iterative deepening; returns (depth, exact scores).

        With aspiration windows the root is first searched in a narrow window around
        the previous iteration's score; only if the score falls outside it is the root
        searched again in the full window (the move that failed high first).
        """
        fail_high = None
        if (self.aspiration and done is not None and self.multipv == 1 and depth >= 3
                and abs(done[1][0][0]) < MATE_THRESHOLD):
            previous = done[1][0][0]
            exact, fail_high = self._search_root(board, depth, moves, ties,
                                                 previous - _ASPIRATION,
                                                 previous + _ASPIRATION)
            if exact and fail_high is None:
                return depth, exact
            if fail_high is not None:
                moves = [fail_high[1]] + [m for m in moves if m != fail_high[1]]
        try:
            exact, _ = self._search_root(board, depth, moves, ties)
        except OutOfTime as partial:
            if fail_high is not None and not partial.args[0][1]:
                # The narrow window had already shown this move beats the old best.
                raise OutOfTime((depth, [fail_high])) from None
            raise
        return depth, exact

    def _search_root(self, board, depth, moves, ties, alpha=-math.inf, beta=math.inf):
        """Search every root move in the window (alpha, beta).

        Returns ([(score, move, pv)] exact, best first; None) or, when a move scores
        beta or more, (None, (score, move, pv)): the window was too low. With ``ties`` a
        move that equals the k-th best (k = multipv) is searched with a window just
        below it, so it comes back with an exact score and can be picked.
        """
        exact = []
        margin = 1e-6 if ties else 0.0
        for move in moves:
            lower = alpha
            if self.prune and len(exact) >= self.multipv:
                lower = max(alpha, exact[self.multipv - 1][0] - margin)
            self._push(board, move)
            try:
                if self.pvs and len(exact) >= self.multipv:
                    score = -self._negamax(board, depth - 1, -lower - 1, -lower, 1)
                    if score > lower:
                        score = -self._negamax(board, depth - 1, -beta, -lower, 1)
                else:
                    score = -self._negamax(board, depth - 1, -beta, -lower, 1)
            except OutOfTime:
                raise OutOfTime((depth, exact)) from None  # board and counts abandoned
            self._pop(board)
            if score >= beta:
                return None, (score, move, [move] + self._pv[1])
            if score > lower:
                exact.append((score, move, [move] + self._pv[1]))
                exact.sort(key=lambda item: -item[0])
        return exact, None

    def _order_root(self, board, moves, done):
        ordered = self.orderer.ordered(board, moves, 0, None) if self.ordering else list(moves)
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
    def _negamax(self, board, depth, alpha, beta, ply, static=None, in_check=None):
        """Negamax score of ``board`` for the side to move, searched ``depth`` plies.

        ``in_check`` may be passed by the parent (it tested the move for check).
        """
        self._count()
        self._pv[ply] = []
        key = hash(board._transposition_key())
        if self._repetitions.is_draw(board, key):
            return 0
        if in_check is None:
            in_check = board.is_check()
        if in_check and self.check_extension and ply < self._root_depth:
            depth += 1
        if depth <= 0:
            if self.quiescence:
                return self._quiesce(board, alpha, beta, ply, static, in_check)
            return static if static is not None else self._static(board, ply)
        if ply >= _MAX_PLY:
            return self._static(board, ply)

        alpha0 = alpha
        hash_move = None
        if self.tt_enabled:
            value, hash_move = self.tt.probe(key, depth, alpha, beta, ply)
            if value is not None:
                return value

        stand = None  # the static evaluation, for the pruning near the leaves
        if ((self.futility or self.razoring) and depth <= 3 and not in_check
                and beta - alpha <= 1 and abs(beta) < MATE_THRESHOLD):
            stand = self._static(board, ply)
            if self.futility and stand - _REVERSE_FUTILITY * depth >= beta:
                return stand  # reverse futility: so far ahead no quiet reply catches up
            if (self.razoring and self.quiescence and depth <= 2
                    and stand + _RAZOR[depth] <= alpha):
                # Razoring: so far behind that only captures could help; if quiescence
                # confirms it, do not search the quiet moves.
                score = self._quiesce(board, alpha, beta, ply, stand, False)
                if score <= alpha:
                    return score
        futile = (self.futility and stand is not None and depth <= 2
                  and stand + _FUTILITY[depth] <= alpha)

        self._repetitions.add(key)
        if (self.null_move and depth >= 3 and ply > 0 and not in_check
                and beta < MATE_THRESHOLD and self._has_pieces(board)):
            # Null move: let the opponent move twice. If we still reach beta with a
            # shallower search, a real move will too (not in zugzwang-prone endings).
            self._push(board, chess.Move.null())
            score = -self._negamax(board, depth - 3, -beta, -beta + 1, ply + 1, None, False)
            self._pop(board)
            if score >= beta:
                self._repetitions.remove(key)
                return score if score < MATE_THRESHOLD else beta

        statics = None
        if depth == 1 and self.batch:
            moves = list(board.legal_moves)
            if self.ordering:
                moves = self.orderer.ordered(board, moves, ply, hash_move)
            statics = self._batch_statics(board, moves, ply)
        elif self.ordering:
            moves = self.orderer.staged(board, ply, hash_move, in_check)
        else:
            moves = board.legal_moves

        best, best_move = -math.inf, None
        for i, move in enumerate(moves):
            quiet = not move.promotion and not board.is_capture(move)
            self._push(board, move)
            check = board.is_check()
            if futile and quiet and not check:
                # Futility: too far below alpha for a quiet move to matter here.
                self._count()
                self._pop(board)
                best = max(best, stand + _FUTILITY[depth])
                continue
            child_static = None if statics is None else statics[i]
            if not self.prune:
                score = -self._negamax(board, depth - 1, -math.inf, math.inf, ply + 1,
                                       child_static, check)
            elif i == 0 or not (self.pvs or self.reductions):
                score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1,
                                       child_static, check)
            else:
                # Late moves are probably worse than the first: prove it with a null
                # window (pvs), a ply shallower for quiet moves late in the list
                # (reductions), and search again properly only if the proof fails.
                r = 1 if (self.reductions and i >= 3 and depth >= 3 and quiet
                          and not in_check and not check) else 0
                low = -alpha - 1 if self.pvs else -beta
                score = -self._negamax(board, depth - 1 - r, low, -alpha, ply + 1,
                                       child_static, check)
                if score > alpha and (r or (self.pvs and score < beta)):
                    score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1,
                                           child_static, check)
            self._pop(board)
            if score > best:
                best, best_move = score, move
                self._pv[ply] = [move] + self._pv[ply + 1]
            if score > alpha:
                alpha = score
                if self.prune and alpha >= beta:
                    if self.killers and quiet:
                        self.orderer.remember_cutoff(move, depth, ply)
                    break
        self._repetitions.remove(key)
        if best == -math.inf:  # no legal move
            return mate_value(ply) if in_check else 0
        if self.tt_enabled:
            self.tt.store(key, depth, best, alpha0, beta, ply, best_move)
        return best

    def _quiesce(self, board, alpha, beta, ply, static=None, in_check=None):
        """Search captures until the position is quiet; the side to move may stand pat.

        Cheap on purpose (Python is slow): a check here is only tested for mate (the
        search's check extension already answers checks before the horizon), captures
        that lose material (static exchange evaluation) and captures too small to
        reach alpha are skipped.
        """
        if self._line:
            self._pv[ply] = []
        if in_check is None:
            in_check = board.is_check()
        if in_check and self.check_extension and ply < _MAX_PLY:
            return self._evasions(board, alpha, beta, ply)
        if in_check and not any(board.generate_legal_moves()):
            return mate_value(ply)
        stand = static if static is not None else self._static(board, ply)
        if stand >= beta or ply >= _MAX_PLY:
            return stand
        alpha = max(alpha, stand)
        return self._quiesce_moves(board, self.orderer.captures(board, alpha - stand), stand,
                                   alpha, beta, ply)

    def _quiesce_moves(self, board, moves, best, alpha, beta, ply):
        """The best of ``best`` and the quiescence scores after each of ``moves``."""
        for move in moves:
            self._push(board, move)
            self._count()
            score = -self._quiesce(board, -beta, -alpha, ply + 1)
            self._pop(board)
            if score > best:
                best = score
                if self._line:
                    self._pv[ply] = [move] + self._pv[ply + 1]
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _evasions(self, board, alpha, beta, ply):
        """In check at the horizon (a capture gave it): no standing pat, every legal
        reply is searched (there are few), then quiescence goes on."""
        moves = self.orderer.ordered(board, list(board.legal_moves), ply, None)
        best = self._quiesce_moves(board, moves, -math.inf, alpha, beta, ply)
        return mate_value(ply) if best == -math.inf else best

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
        if self.nodes & 1023 == 0:
            self.clock.check(self.nodes)

    @staticmethod
    def _has_pieces(board):
        """The side to move has a piece besides king and pawns (null move is safe)."""
        return bool(board.occupied_co[board.turn] & ~(board.pawns | board.kings))


def search(board: chess.Board, evaluator, depth: int | None = None,
           time_limit: float | None = None, algorithm: str = "full", *, rng=None,
           node_limit: int | None = None, **options) -> SearchResult:
    """Best move for the side to move: see the module docstring for the algorithms.

    ``evaluator`` is an evaluator object or a name for ``load_evaluator``; ``depth`` is
    in plies (default 4 for "full", 3 otherwise); ``time_limit`` in seconds stops
    iterative deepening, and so does ``node_limit`` (positions visited); ``rng`` (a
    ``random.Random``) breaks ties between equally good root moves. ``options``: the
    switches in ``SWITCHES`` (True/False: ordering, killers, tt, quiescence, iterative,
    check_extension, null_move, reductions, pvs, aspiration, see, futility, razoring,
    keep_history, keep_tt), batch (True/False) and multipv (how many root scores to
    make exact).
    """
    if isinstance(evaluator, str):
        # A name is looked up here, not at import: the searcher itself needs only an
        # object with evaluate(board), so importing it loads no model or data code.
        from chesslab.evaluators.registry import load_evaluator
        evaluator = load_evaluator(evaluator)
    if not isinstance(board, chess.Board):
        raise TypeError(f"search needs a chess.Board, got {type(board).__name__}")
    check_limits(depth, time_limit, node_limit)
    return Searcher(evaluator, algorithm, **options).search(board, depth, time_limit, rng,
                                                            node_limit)
