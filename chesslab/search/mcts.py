"""Monte Carlo tree search guided by a policy-value network (AlphaZero style).

One simulation walks from the root to a leaf, always taking the move with the largest
``Q + U`` (PUCT):

* ``Q`` = mean value of the move so far, for the player who makes it;
* ``U = c_puct * P * sqrt(N_parent) / (1 + N)``: large for moves the network likes (P)
  and that were rarely tried (N), shrinking as they are visited.

At the leaf the network gives priors P for the legal moves (expansion) and a value v
for the side to move (instead of a random rollout). v is added to every move on the
path, with its sign flipped at each ply because the players alternate. Finished games
are scored exactly: the side to move is mated = -1, any draw = 0.

Extras of the design: Dirichlet noise mixed into the root priors once per search (so
self-play tries new moves), a temperature on the visit counts (explore early, then
play the most visited move), the tree kept after a move, and several leaves evaluated
in one network call, with a *virtual loss* on the paths already chosen so that the
simulations of one batch spread over different leaves; and, beyond the papers, leaf
values read where the captures settle (``settle=True``, ``search.quiet``).

Below the search: the player (``MCTSPlayer``, ``make_player("mcts:300")``) and the shipped
network it loads (trained in ``chesslab.training``: selfplay, bootstrap, supervised).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
import numpy as np

from chesslab.board.encoding import as_board, move_to_index, planes9_batch
from chesslab.base.files import MODELS_DIR, load_cached
from chesslab.board.game import Player
from chesslab.board.rules import check_playable, drawn_with_moves_left, history_key, outcome
from chesslab.board.scores import MATE
from chesslab.evaluators.policy_value import load_policy_value, value_to_cp as expected_score_cp
from chesslab.search.quiet import settle_leaves

#: Value of a position where the side to move is checkmated.
LOSS_VALUE = -1.0


def uniform_evaluate(planes, legal):
    """A network that knows nothing: equal priors, value 0 (for tests and teaching)."""
    return [np.full(len(idx), 1.0 / len(idx)) for idx in legal], np.zeros(len(legal))


def terminal_value(board: chess.Board, draw_value: float = 0.0):
    """Exact value for the side to move if the game is over (``chesslab.board.rules.outcome``),
    else None.

    Checkmate = -1 (the side to move lost); every draw is worth ``draw_value`` to White
    (0 in chess; -1 in the endgame task, where White must mate and a draw is failure)."""
    ended = outcome(board)
    if ended is None:
        return None
    if ended.winner is not None:
        return LOSS_VALUE
    return draw_value if board.turn == chess.WHITE else -draw_value


def puct_select(q, n, prior, c_puct: float) -> int:
    """The move PUCT follows: the largest Q + U, U = c_puct * P * sqrt(sum N) / (1 + N).

    Q (mean value so far) exploits; U explores, big for a move the network likes (P) that
    has few visits (N) compared with its siblings. It is UCB1's bandit rule with the
    prior in front. Before any visit sum N is 0; it counts as 1, so the priors decide the
    first step instead of all U being 0. Ties go to the first move.
    """
    u = c_puct * prior * math.sqrt(max(float(np.sum(n)), 1.0)) / (1.0 + n)
    return int(np.argmax(q + u))


class MCTSNode:
    """A position in the tree. Its moves' statistics live in arrays (one entry per
    legal move): prior P, visit count N, total value W (for the player to move here).

    ``terminal`` is the exact value for the side to move when it is known: the game is
    over here, or the search *proved* it (a move that mates or reaches a proven loss for
    the opponent is a proven win; a node whose every move is a proven win for the
    opponent is a proven loss). A simulation stops at such a node and backs its value up.
    """

    __slots__ = ("moves", "prior", "N", "W", "children", "terminal")

    def __init__(self):
        self.moves = None       # legal moves, once expanded
        self.terminal = None    # exact value for the side to move, if the game is over

    def expand(self, moves, prior):
        self.moves = moves
        self.prior = np.asarray(prior, dtype=np.float64)
        self.N = np.zeros(len(moves))
        self.W = np.zeros(len(moves))
        self.children = [None] * len(moves)

    @property
    def expanded(self) -> bool:
        return self.moves is not None

    def q(self, unvisited: float = 0.0):
        """Mean value of each move for the player to move here (``unvisited`` for a move
        never tried)."""
        return np.divide(self.W, self.N, out=np.full_like(self.W, unvisited), where=self.N > 0)

    def value(self) -> float:
        """Mean of the values backed up through this node, for the player to move here."""
        n = float(self.N.sum())
        return float(self.W.sum()) / n if n > 0 else 0.0

    def winning_move(self):
        """Index of a move proven to win (mate, or a proven loss for the opponent), or None."""
        for a, child in enumerate(self.children):
            if child is not None and child.terminal is not None and child.terminal <= LOSS_VALUE:
                return a
        return None

    def lost_moves(self) -> np.ndarray:
        """True for each move proven to lose (it reaches a proven win for the opponent)."""
        return np.array([child is not None and child.terminal is not None
                         and child.terminal >= -LOSS_VALUE for child in self.children])


class MCTS:
    """PUCT search over ``evaluate(planes, legal) -> (priors, values)``.

    ``evaluate`` is ``PolicyValueNet.evaluate`` or ``uniform_evaluate``. ``batch_size``
    leaves are evaluated per network call (1 = the plain algorithm).
    """

    def __init__(self, evaluate=uniform_evaluate, simulations: int = 300,
                 c_puct: float = 1.5, batch_size: int = 8, dirichlet_alpha: float = 0.3,
                 noise_fraction: float = 0.25, virtual_loss: float = 1.0,
                 reuse_tree: bool = True, draw_value: float = 0.0, fpu_reduction: float = 0.0,
                 solve: bool = True, settle: bool = False, seed: int = 0):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.evaluate = getattr(evaluate, "evaluate", evaluate)   # a net or a function
        # a network reads its values back in centipawns on the scale it learned
        self.value_to_cp = getattr(evaluate, "value_to_cp", None)
        # a network encodes the boards its own way (its input planes, its move indices)
        self.evaluate_boards = getattr(evaluate, "evaluate_boards", None)
        self.simulations, self.c_puct, self.batch_size = int(simulations), c_puct, batch_size
        self.alpha, self.noise_fraction, self.virtual_loss = dirichlet_alpha, noise_fraction, virtual_loss
        self.reuse_tree, self.draw_value = reuse_tree, draw_value
        # first-play urgency, below the root: an untried move is the node's value minus this
        self.fpu_reduction = fpu_reduction
        self.solve = solve              # let exact results climb the tree (see _backup)
        self.settle = settle            # leaf values where the captures stop (search.quiet)
        self.rng = np.random.default_rng(seed)
        self.root, self.root_key = None, None
        self.noise_draws = 0            # how many times Dirichlet noise was sampled
        self.network_calls = self.last_simulations = 0
        self._root_prior = None

    # ------------------------------------------------------------------ the search
    def search(self, board: chess.Board, simulations: int | None = None,
               noise: bool = False, time_limit: float | None = None) -> MCTSNode:
        """Run the simulations from ``board`` (not modified; a draw by rule is searched:
        a GUI may ask), stopping after ``time_limit`` seconds if given; returns the root."""
        start = time.perf_counter()
        board = as_board(board).copy()
        check_playable(board, "MCTS")
        root = self._reused_root(board) or MCTSNode()
        if not root.expanded:
            self._expand_now(board, root)
        self._root_prior = root.prior
        if noise:
            # once per search: the same noisy priors for every simulation of this move
            eta = self.rng.dirichlet([self.alpha] * len(root.moves))
            self._root_prior = (1 - self.noise_fraction) * root.prior + self.noise_fraction * eta
            self.noise_draws += 1
        total, done = self.simulations if simulations is None else int(simulations), 0
        while done < total and root.terminal is None:      # stop once the root is proven
            done += self._run_batch(board, root, min(self.batch_size, total - done))
            if time_limit is not None and time.perf_counter() - start > time_limit:
                break
        self.root, self.root_key, self.last_simulations = root, history_key(board), done
        return root

    def _expand_now(self, board, node):
        moves = list(board.generate_legal_moves())
        priors, _ = self._call([board], [moves])
        node.expand(moves, priors[0])

    def _call(self, boards, move_lists):
        self.network_calls += 1
        if self.evaluate_boards is not None:
            return self.evaluate_boards(boards, move_lists)
        legal = [np.fromiter((move_to_index(m) for m in ms), np.int64, len(ms))
                 for ms in move_lists]
        return self.evaluate(planes9_batch(boards), legal)

    def _select(self, node: MCTSNode, prior, root: bool = False) -> int:
        if self.fpu_reduction and not root:
            return puct_select(node.q(node.value() - self.fpu_reduction), node.N, prior,
                               self.c_puct)
        return puct_select(node.q(), node.N, prior, self.c_puct)

    def _run_batch(self, board, root, k: int) -> int:
        """Up to ``k`` simulations, their new leaves evaluated in one call.

        Returns how many simulations were completed (fewer than k when a simulation
        ran into a leaf already waiting for the network: the batch is cut there).
        """
        vl = self.virtual_loss
        pending, waiting, done = [], set(), 0
        for _ in range(k):
            if root.terminal is not None:
                break            # proven: the rest of the batch would walk nowhere
            node, path = root, []
            while node.expanded and node.terminal is None:
                a = (self._select(node, self._root_prior, root=True) if node is root
                     else self._select(node, node.prior))
                node.N[a] += vl          # virtual loss: look visited and lost, for now
                node.W[a] -= vl
                path.append((node, a))
                if node.children[a] is None:
                    node.children[a] = MCTSNode()
                board.push(node.moves[a])
                node = node.children[a]
            collision = False
            if node.terminal is None:
                if id(node) in waiting:
                    collision = True
                else:
                    moves = list(board.generate_legal_moves())
                    node.terminal = self._leaf_value(board, moves)
                    if node.terminal is None:
                        pending.append((path, node, board.copy(stack=False), moves))
                        waiting.add(id(node))
            for _ in path:
                board.pop()
            if collision:
                for parent, a in path:
                    parent.N[a] -= vl
                    parent.W[a] += vl
                break
            if node.terminal is not None:
                self._backup(path, node.terminal)
                done += 1
        if pending:
            boards = [p[2] for p in pending]
            ends = settle_leaves(boards, self._leaf_value) if self.settle else [None] * len(boards)
            asked = [e for e in ends if e is not None and e.value is None]
            priors, values = self._call(boards + [e.board for e in asked],
                                        [p[3] for p in pending] + [e.moves for e in asked])
            later = iter(values[len(pending):])
            for (path, node, _, moves), prior, value, end in zip(pending, priors, values, ends):
                node.expand(moves, prior)
                if end is not None:     # the value where the captures stop, for the leaf's side
                    value = end.sign * (end.value if end.value is not None else next(later))
                self._backup(path, float(value))
                done += 1
        return done

    def _leaf_value(self, board, moves):
        """``terminal_value`` of a new leaf whose legal moves are already generated (asking
        ``outcome`` would generate them again: measurably slower, ``bench/mcts_speed.py``);
        ``tests/test_search_mcts.py`` checks that the two agree on thousands of positions."""
        if not moves:
            return LOSS_VALUE if board.is_check() else self._draw_for(board.turn)
        if drawn_with_moves_left(board):
            return self._draw_for(board.turn)
        return None

    def _draw_for(self, turn: chess.Color) -> float:
        return self.draw_value if turn == chess.WHITE else -self.draw_value

    def _backup(self, path, value: float) -> None:
        """``value`` is for the side to move at the leaf; flip it at every ply up.

        On the way up, exact results climb too (``MCTSNode.terminal``): a move into a
        lost position proves its parent won; a node all of whose moves lead to proven
        wins for the opponent is lost.
        """
        vl = self.virtual_loss
        for node, a in reversed(path):
            value = -value                  # now: for the player who chose move a
            node.N[a] += 1 - vl             # the real visit replaces the virtual loss
            node.W[a] += value + vl
            child = node.children[a]
            if (self.solve and node.terminal is None and child is not None
                    and child.terminal is not None):
                if child.terminal <= LOSS_VALUE:
                    node.terminal = -LOSS_VALUE
                elif child.terminal >= -LOSS_VALUE and all(
                        c is not None and c.terminal is not None and c.terminal >= -LOSS_VALUE
                        for c in node.children):
                    node.terminal = LOSS_VALUE

    def _reused_root(self, board):
        """The subtree for ``board`` if it is at most 2 plies below the last root, the same
        game (``history_key``: not a tree grown under another game's repetitions)."""
        if not self.reuse_tree or self.root is None:
            return None
        b, played = board.copy(), []
        while history_key(b) != self.root_key:
            if len(played) == 2 or not b.move_stack:
                return None
            played.append(b.pop())
        node = self.root
        for move in reversed(played):
            if not node.expanded or move not in node.moves:
                return None
            node = node.children[node.moves.index(move)]
            if node is None:
                return None
        return node

    def reset(self):
        """Forget the tree (a new game)."""
        self.root = self.root_key = None


# ---------------------------------------------------------------------- choosing a move

#: Mean values closer than this count as equal when visit counts tie: a sum taken in
#: another order (another CPU's arithmetic) differs in its last bits, and that must not
#: change the move.
Q_TIE = 1e-9


def best_index(node: MCTSNode) -> int:
    """The move a search settles on at ``node``: a move proven to win; else the most
    visited of the moves not proven lost (of all moves when every one is); equal visits
    go to the larger mean value Q (within ``Q_TIE``), then to the first in the node's
    move order.

    A proof does not take back the visits a move had before its refutation was found,
    so the most visited move can be one the search knows loses: it is skipped. One rule
    for the move played at temperature 0, the ``visit_policy`` at T = 0 and every step
    of the reported line, so the line starts with the move played and the same tree
    gives the same move on every machine.
    """
    win = node.winning_move()
    if win is not None:
        return win
    lost = node.lost_moves()
    visits = np.where(lost, -1.0, node.N) if not lost.all() else node.N
    tied = np.flatnonzero(visits == visits.max())
    q = node.q()[tied]
    return int(tied[np.flatnonzero(q >= q.max() - Q_TIE)[0]])


def visit_policy(root: MCTSNode, temperature: float = 1.0):
    """Move probabilities from visit counts: N^(1/T), normalised; T = 0 plays
    ``best_index`` (the most visited move, ties by its rule) with probability 1."""
    n = root.N
    if temperature <= 0:
        p = np.zeros(len(n))
        p[best_index(root)] = 1.0
        return p
    p = (n / n.max()) ** (1.0 / temperature)
    return p / p.sum()


def pick_move(root: MCTSNode, temperature: float, rng: np.random.Generator) -> chess.Move:
    """Sample from ``visit_policy`` with ``rng``; at temperature 0, ``best_index``'s move
    (no draw from ``rng``)."""
    if temperature <= 0:
        return root.moves[best_index(root)]
    p = visit_policy(root, temperature)
    return root.moves[int(rng.choice(len(p), p=p))]


def principal_variation(root: MCTSNode, length: int = 8, first: chess.Move | None = None):
    """The line the search expects: ``best_index``'s move from the root down, starting
    with ``first`` when given (the move played, when a temperature sampled another)."""
    pv, node = [], root
    while node is not None and node.expanded and node.N.sum() > 0 and len(pv) < length:
        a = node.moves.index(first) if first is not None and not pv else best_index(node)
        pv.append(node.moves[a])
        node = node.children[a]
    return pv


def proven_plies(node: MCTSNode) -> int:
    """Plies to the game's end along the proof below a proven ``node`` (0: the game is
    over there): the winner's quickest proven mate, the loser's longest proven defence."""
    if not node.expanded:
        return 0
    if node.terminal > 0:
        return 1 + min(proven_plies(c) for c in node.children
                       if c is not None and c.terminal is not None and c.terminal <= LOSS_VALUE)
    return 1 + max(proven_plies(c) for c in node.children)


def move_score(root: MCTSNode, a: int, draw_value: float = 0.0, value_to_cp=None) -> float:
    """Centipawns of move ``a`` for the side to move at ``root``, as a search scores.

    Its mean value Q in centipawns by ``value_to_cp``: the network's own, on the scale its
    value head learned (``policy_value.value_to_cp``; without a network, Q read as an
    expected score). A move the solver proved scores a mate, ``MATE - plies``
    (``board.scores``), unless draws count as losses (``draw_value``)."""
    child = root.children[a]
    if draw_value == 0 and child is not None and child.terminal is not None \
            and abs(child.terminal) >= -LOSS_VALUE:
        mate = MATE - 1 - proven_plies(child)
        return float(mate if child.terminal < 0 else -mate)
    return float((value_to_cp or expected_score_cp)(root.q()[a]))


@dataclass
class MCTSResult:
    """What one search found: visits and Q per move, the root value, the time spent,
    and ``score``, White's centipawns as a ``SearchResult`` has them (``move_score``), so
    the resign rule and a GUI read an MCTS player as any search."""
    move: chess.Move
    moves: list
    visits: np.ndarray
    q: np.ndarray
    value: float                 # mean value of the chosen move, for the side to move
    nodes: int                   # simulations run for this move
    seconds: float
    pv: list = field(default_factory=list)
    score: float | None = None

    @classmethod
    def of(cls, root: MCTSNode, move: chess.Move, turn: chess.Color, nodes: int,
           seconds: float, draw_value: float = 0.0, value_to_cp=None) -> "MCTSResult":
        """Playing ``move`` after a search that left ``root`` (``turn`` to move there)."""
        a = root.moves.index(move)
        score = move_score(root, a, draw_value, value_to_cp)
        return cls(move, list(root.moves), root.N.copy(), root.q(), float(root.q()[a]),
                   nodes, seconds, principal_variation(root, first=move),
                   score if turn == chess.WHITE else -score)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0   # as SearchResult

    def describe(self, board: chess.Board | None = None, top: int = 5) -> str:
        order = np.argsort(-self.visits, kind="stable")[:top]
        name = (lambda m: board.san(m)) if board is not None else (lambda m: m.uci())
        rows = ", ".join(f"{name(self.moves[i])} N={int(self.visits[i])} Q={self.q[i]:+.2f}"
                         for i in order)
        runs = f"{self.nodes} simulation" + ("" if self.nodes == 1 else "s")
        return f"{name(self.move)} (value {self.value:+.2f}, {runs}): {rows}"


class MCTSPlayer(Player):
    """A player: MCTS with ``simulations`` per move, then ``best_index``'s move.

    ``temperature`` > 0 samples moves in proportion to N^(1/T) for the first
    ``temperature_plies`` plies of the game (self-play openings), then plays as at
    T = 0. ``noise=True`` mixes Dirichlet noise into the root priors. ``search``: the
    other settings of ``MCTS`` (c_puct, batch_size, draw_value, fpu_reduction, settle, ...).
    """

    def __init__(self, net=None, simulations: int = 300, temperature: float = 0.0,
                 temperature_plies: int = 0, noise: bool = False, seed: int = 0,
                 name: str | None = None, time_limit: float | None = None, **search):
        super().__init__(name or f"mcts:{simulations}", seed)
        self.net, self.time_limit = net, time_limit
        self.mcts = MCTS(net if net is not None else uniform_evaluate, simulations, seed=seed,
                         **search)
        self.temperature, self.temperature_plies, self.noise = temperature, temperature_plies, noise
        self.rng = np.random.default_rng(seed + 1)

    def choose_move(self, board: chess.Board) -> chess.Move:
        start = time.perf_counter()
        root = self.mcts.search(board, noise=self.noise, time_limit=self.time_limit)
        hot = (self.temperature > 0 and board.ply() < self.temperature_plies
               and root.winning_move() is None)          # a proven win is played at once
        move = pick_move(root, self.temperature if hot else 0.0, self.rng)
        self.last_result = MCTSResult.of(root, move, board.turn, self.mcts.last_simulations,
                                         time.perf_counter() - start, self.mcts.draw_value,
                                         self.mcts.value_to_cp)
        return move

    def reset(self):
        self.mcts.reset()


#: First-play urgency of the course's MCTS player (``make_player("mcts:N")``): an untried
#: move counts as its parent's value minus this, not as a draw. ``results mcts-tuning``: less
#: expected score lost than 0 on average at every c_puct, within the noise. Self-play keeps 0.
PLAY_FPU_REDUCTION = 0.2

#: The shipped full-game network used by ``make_player("mcts:N")``.
DEFAULT_MODEL = MODELS_DIR / "policy_value.json"


def shipped_network(path=None):
    """The shipped policy-value network, or the one in ``path`` (read once, shared by
    every MCTS player of this process: searching does not change it)."""
    path = Path(path or DEFAULT_MODEL)
    if not path.exists():
        raise FileNotFoundError(f"network {path} does not exist; train one with "
                                f"`python -m chesslab train supervised` (see data/README.md)")
    return load_cached(path, load_policy_value, "policy-value network")
