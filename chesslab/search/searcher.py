"""Searching the game tree without keeping it: minimax, alpha-beta, and a strong default.

One negamax routine serves all three algorithms (so they agree on every rule):

* ``"minimax"``: every child gets the full window, nothing is pruned (the thesis);
* ``"alphabeta"``: children get the window (-beta, -alpha) and the loop stops at a
  cutoff; it returns exactly minimax's value (the Naive Bayes chapter, the tutorial);
* ``"full"``: alpha-beta plus the improvements of ``SWITCHES`` (move ordering, a
  transposition table, quiescence, null move, reductions, futility, ...), iterative
  deepening under a clock or a node budget; each is a keyword argument a notebook can
  switch off (``SWITCHES`` says what each one buys).

A node is searched in three parts: what ends it before any move (a draw, the horizon,
the table), the pruning before the moves (reverse futility, null move), the move loop
(futility, reductions, null windows, cutoffs). Each return names its reason to one hook,
``Searcher._note``, that the explorer's recorder (``recording``) listens to. Move order,
the table and the clock have modules of their own (``ordering``, ``transposition``,
``clock``). Scores inside are negamax scores (good for
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
from chesslab.board.rules import Repetitions, check_position
from chesslab.search.ordering import MoveOrderer
from chesslab.board.scores import MATE, MATE_THRESHOLD, mate_value, white_to_side
from chesslab.search.result import SearchResult
from chesslab.search.transposition import TranspositionTable

ALGORITHMS = ("minimax", "alphabeta", "full")
_MAX_PLY = 64

#: The full search's switches: keyword arguments of ``Searcher`` and ``search``, each on
#: by default for ``"full"`` and off for the other algorithms; what each one buys.
SWITCHES = {
    "ordering": "likely best moves first, so alpha-beta cuts off sooner",
    "killers": "remember the quiet moves that caused a cutoff, per ply and anywhere",
    "tt": "transposition table: a position reached again is not searched again",
    "quiescence": "past the depth limit, play the captures out before scoring",
    "iterative": "search depth 1, 2, 3, ...: each iteration orders the next",
    "check_extension": "a position in check is searched a ply deeper",
    "null_move": "if passing still reaches beta, a real move will: prune",
    "reductions": "quiet moves late in the order are searched a ply shallower first",
    "pvs": "after the first move, prove each other move is no better with a null window",
    "aspiration": "search the root in a narrow window around the last iteration's score",
    "see": "static exchange evaluation finds losing captures: last, none in quiescence",
    "futility": "near the leaves, skip quiet moves far below alpha, and stop far above beta",
    "keep_history": "keep the history of good quiet moves from one search to the next",
    "keep_tt": "keep the transposition table from one search to the next",
}
#: Switches that change what minimax means (it is the plain algorithm: none of them).
_NOT_FOR_MINIMAX = ("tt", "quiescence", "null_move", "reductions", "pvs", "aspiration",
                    "futility", "keep_tt")
_ASPIRATION = 50                 # half-width of the first root window, centipawns
_REVERSE_FUTILITY = 120          # per ply of depth left
_FUTILITY = (0, 150, 300)        # by depth left (1 and 2)


class Searcher:
    """The search state: evaluator, switches, counters, transposition table, move orderer.

    Each switch of ``SWITCHES`` (True/False; absent: the algorithm's default) is the
    attribute of its name (``searcher.tt``; the table itself is ``searcher.table``). A
    player keeps one ``Searcher`` for a game: ``keep_tt`` and ``keep_history`` carry the
    table and the history of good quiet moves from one search to the next.
    """

    def __init__(self, evaluator, algorithm: str = "full", *, multipv: int = 1, **switches):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; choose one of "
                             f"{', '.join(ALGORITHMS)}")
        unknown = sorted(set(switches) - set(SWITCHES))
        if unknown:
            raise TypeError(f"unknown switch {', '.join(unknown)}; the switches are "
                            f"{', '.join(SWITCHES)}")
        self.evaluator = evaluator
        self.algorithm = algorithm
        self.prune = algorithm != "minimax"
        for name in SWITCHES:
            value = switches.get(name)
            setattr(self, name, algorithm == "full" if value is None else bool(value))
        if not self.prune:
            wrong = [name for name in _NOT_FOR_MINIMAX if getattr(self, name)]
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
        self.table = TranspositionTable(MATE_THRESHOLD)
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
        check_position(board, "search")    # a clear error, not nonsense, for a bad FEN
        root, board = board, board.copy()  # a timeout leaves the copy mid-search
        self._start(board, Clock(time_limit, node_limit))
        if not self.keep_tt:
            self.table.clear()
        self.orderer.new_search(self.keep_history)
        self._repetitions = Repetitions(board)
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
        if done is None:    # depth 1 overran the whole budget: the first move in order
            first, value = self._order_root(root, moves, None)[0], self.evaluator.evaluate(root)
            done = 0, [(white_to_side(value, root.turn, 0), first, [first])]
        return self._result(root, done, rng, self.clock.seconds())

    def quiet_line(self, board: chess.Board):
        """The quiescence search alone: (score for the side to move, the captures it
        expects to be played). Where that line ends, the position is quiet: the
        training recipe's quiet positions are found this way."""
        board = board.copy(stack=False)
        self._start(board, Clock())
        self._line = True
        try:
            score = self._quiesce(board, -math.inf, math.inf, 0)
        finally:
            self._line = False
        return score, list(self._pv[0])

    def _start(self, board, clock):
        self.clock, self.nodes = clock, 1    # the root is a node
        self._pv = [[] for _ in range(_MAX_PLY + 2)]
        if self.incremental:
            self.evaluator.reset(board)

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
        # The partial iteration searched the previous best first: its verdicts, then the rest.
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
    def _negamax(self, board, depth, alpha, beta, ply, in_check=None):
        """Negamax score of ``board`` for the side to move, searched ``depth`` plies.

        Inside the window (alpha, beta) the score is exact; at or below alpha an upper
        bound, at or above beta a lower one (all the parent needs). First what ends the
        node before any move (a draw, the horizon, the table), then the pruning before the
        moves, then the moves. ``in_check`` may come from the parent (it tested it).
        """
        self._count()
        self._note("enter", board=board, ply=ply, depth=depth, alpha=alpha, beta=beta)
        self._pv[ply] = []
        key = hash(board._transposition_key())
        if self._repetitions.is_draw(board, key):
            return self._note("draw", 0)
        if in_check is None:
            in_check = board.is_check()
        if in_check and self.check_extension and ply < self._root_depth:
            depth += 1    # check extension: a check is answered before the horizon
        if depth <= 0:
            if self.quiescence:
                return self._quiesce(board, alpha, beta, ply, in_check)
            return self._leaf(board, ply)
        if ply >= _MAX_PLY:
            return self._leaf(board, ply)

        hash_move = None
        if self.tt:
            # Searched before at least this deep, with a score that answers this window:
            # settled. Otherwise the table's best move is still tried first.
            value, hash_move = self.table.probe(key, depth, alpha, beta, ply)
            if value is not None:
                return self._note("tt", value)

        # The static score, wanted only by futility pruning: near the leaves, in a null
        # window (a node that only has to answer "better than alpha?").
        stand = None
        if (self.futility and depth <= 3 and not in_check and beta - alpha <= 1
                and abs(beta) < MATE_THRESHOLD):
            stand = self._static(board, ply)

        self._repetitions.add(key)    # below this node, meeting it again is a draw
        value = self._prune_before_moves(board, depth, beta, ply, in_check, stand)
        if value is None:
            value = self._search_moves(board, key, depth, alpha, beta, ply, in_check,
                                       hash_move, stand)
        self._repetitions.remove(key)
        return value

    def _prune_before_moves(self, board, depth, beta, ply, in_check, stand):
        """A verdict (at least beta) without trying a move, or None. Both bet that a real
        move is at least as good as doing nothing: almost always true, not in zugzwang."""
        if stand is not None and stand - _REVERSE_FUTILITY * depth >= beta:
            # Reverse futility: above beta by more than replies gain (_REVERSE_FUTILITY a ply).
            return self._note("reverse futility", stand, static=stand)
        if (self.null_move and depth >= 3 and ply > 0 and not in_check
                and beta < MATE_THRESHOLD and self._has_pieces(board)):
            # Null move: let the opponent move twice; if a search two plies shallower than
            # a real move's (depth - 3) still reaches beta, a real move will too. Not in check
            # (passing is illegal), not with only king and pawns (zugzwang is common there).
            self._push(board, chess.Move.null())
            score = -self._negamax(board, depth - 3, -beta, -beta + 1, ply + 1, False)
            self._pop(board)
            if score >= beta:
                # A mate found after passing proves nothing: claim beta only.
                return self._note("null move", score if score < MATE_THRESHOLD else beta,
                                  static=stand)
        return None

    def _search_moves(self, board, key, depth, alpha, beta, ply, in_check, hash_move, stand):
        """The move loop: each move in order, the best kept, the table told. Once a move
        scores beta or more the opponent, a ply up, avoids this position: the other moves
        cannot matter (alpha-beta's cutoff; minimax does not prune)."""
        alpha0 = alpha
        # Futility: one or two plies from the leaves and so far below alpha that a quiet
        # move cannot gain _FUTILITY[depth]: it is counted but not searched.
        futile = stand is not None and depth <= 2 and stand + _FUTILITY[depth] <= alpha
        if self.ordering:
            moves = self.orderer.staged(board, ply, hash_move, in_check)
        else:
            moves = board.legal_moves
        best, best_move, reason = -math.inf, None, "all moves"
        for i, move in enumerate(moves):
            quiet = not move.promotion and not board.is_capture(move)
            self._push(board, move)
            check = board.is_check()
            if futile and quiet and not check:
                self._count()
                self._note("futility", board=board, ply=ply + 1)
                self._pop(board)
                best = max(best, stand + _FUTILITY[depth])
                continue
            late_quiet = quiet and not in_check and not check
            score = self._search_move(board, i, depth, alpha, beta, ply, late_quiet, check)
            self._pop(board)
            if score > best:
                best, best_move = score, move
                self._pv[ply] = [move] + self._pv[ply + 1]
            if score > alpha:
                alpha = score
                if self.prune and alpha >= beta:
                    if self.killers and quiet:
                        self.orderer.remember_cutoff(move, depth, ply)
                    reason = "cutoff"
                    break
        if best == -math.inf:  # no legal move
            return (self._note("mate", mate_value(ply), static=stand) if in_check
                    else self._note("stalemate", 0, static=stand))
        if self.tt:
            self.table.store(key, depth, best, alpha0, beta, ply, best_move)
        return self._note(reason, best, static=stand,
                          refutation=best_move if reason == "cutoff" else None)

    def _search_move(self, board, i, depth, alpha, beta, ply, quiet, check):
        """Score of the ``i``-th move (pushed) for its player: minus the child's score, in
        the window the child needs. ``quiet``: no capture, no check before or after."""
        if not self.prune:       # minimax: every child gets the full window
            return -self._negamax(board, depth - 1, -math.inf, math.inf, ply + 1, check)
        if i == 0 or not (self.pvs or self.reductions):
            # Alpha-beta: our window (alpha, beta) is the child's (-beta, -alpha).
            return -self._negamax(board, depth - 1, -beta, -alpha, ply + 1, check)
        # Late moves are probably worse than the first. Principal variation search
        # proves it with a null window (alpha, alpha + 1): a score <= alpha says "no
        # better", cheaply. Late-move reductions search a quiet move late in the order
        # a ply shallower. Only a move that beats alpha is searched again properly.
        r = 1 if self.reductions and i >= 3 and depth >= 3 and quiet else 0
        low = -alpha - 1 if self.pvs else -beta
        score = -self._negamax(board, depth - 1 - r, low, -alpha, ply + 1, check)
        if score > alpha and (r or (self.pvs and score < beta)):
            score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1, check)
        return score

    def _quiesce(self, board, alpha, beta, ply, in_check=None):
        """Search captures until the position is quiet; the side to move may stand pat.

        Cheap on purpose (Python is slow): a check here is only tested for mate (check
        extensions answer checks before the horizon); captures that lose material (see)
        or are too small to reach alpha are skipped."""
        if self._line:
            self._pv[ply] = []
        if in_check is None:
            in_check = board.is_check()
        if in_check and self.check_extension and ply < _MAX_PLY:
            return self._evasions(board, alpha, beta, ply)
        if in_check and not any(board.generate_legal_moves()):
            return self._note("mate", mate_value(ply), quiescence=True)
        stand = self._static(board, ply)
        if stand >= beta or ply >= _MAX_PLY:
            # Standing pat: the side to move need not capture, so the static score is
            # already at least its value; at beta or more, the opponent avoids this.
            return self._note("stand pat", stand, static=stand, quiescence=True)
        alpha = max(alpha, stand)
        return self._quiesce_moves(board, self.orderer.captures(board, alpha - stand), stand,
                                   alpha, beta, ply)

    def _quiesce_moves(self, board, moves, stand, alpha, beta, ply):
        """The best of ``stand`` (-inf: no standing pat) and the quiescence scores after
        each of ``moves``."""
        best, reason, refutation = stand, "stand pat", None
        for move in moves:
            self._push(board, move)
            self._count()
            self._note("enter", board=board, ply=ply + 1, depth=None, alpha=-beta,
                       beta=-alpha)
            score = -self._quiesce(board, -beta, -alpha, ply + 1)
            self._pop(board)
            if score > best:
                best, reason = score, "captures"
                if self._line:
                    self._pv[ply] = [move] + self._pv[ply + 1]
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        reason, refutation = "cutoff", move
                        break
        if best == -math.inf:    # in check without a legal move
            return self._note("mate", mate_value(ply), quiescence=True)
        return self._note(reason, best, static=None if stand == -math.inf else stand,
                          refutation=refutation, quiescence=True)

    def _evasions(self, board, alpha, beta, ply):
        """In check at the horizon (a capture gave it): no standing pat, every legal
        reply is searched (there are few), then quiescence goes on."""
        moves = self.orderer.ordered(board, list(board.legal_moves), ply, None)
        return self._quiesce_moves(board, moves, -math.inf, alpha, beta, ply)

    # ------------------------------------------------------------ leaves
    def _static(self, board, ply):
        return white_to_side(self._evaluate(board), board.turn, ply)

    def _leaf(self, board, ply):
        value = self._static(board, ply)
        return self._note("leaf", value, static=value)

    def _push(self, board, move):
        if self.incremental:
            self.evaluator.push(board, move)
        board.push(move)

    def _pop(self, board):
        board.pop()
        if self.incremental:
            self.evaluator.pop()

    # ------------------------------------------------------------ bookkeeping
    def _note(self, event, value=None, board=None, ply=None, depth=None, alpha=None,
              beta=None, static=None, refutation=None, quiescence=False):
        """The one hook, a no-op here: the explorer's recorder (``recording``) listens.

        ``event``: "enter" (a node: ``board``, ``ply``, ``depth`` (None in quiescence),
        ``alpha``, ``beta``), "futility" (a move counted, not searched), or the reason the
        open node ended, with its ``value``, ``static`` (the evaluator's score if asked),
        ``refutation`` (a cutoff's move), ``quiescence`` (quiescence ended it). Returns
        ``value``, so a return names its reason: ``return self._note("draw", 0)``.
        """
        return value

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
    switches of ``SWITCHES`` (True/False) and multipv (how many root scores to make exact).
    """
    if isinstance(evaluator, str):
        # looked up here, not at import: importing the searcher loads no model or data code
        from chesslab.evaluators.registry import load_evaluator
        evaluator = load_evaluator(evaluator)
    if not isinstance(board, chess.Board):
        raise TypeError(f"search needs a chess.Board, got {type(board).__name__}")
    check_limits(depth, time_limit, node_limit)
    return Searcher(evaluator, algorithm, **options).search(board, depth, time_limit, rng,
                                                            node_limit)
