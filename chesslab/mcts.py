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
simulations of one batch spread over different leaves.

Below the search: the player, self-play records, a replay buffer, the arena gate
(a challenger replaces the best network above 55%), the endgame curriculum and the
supervised bootstrap from game records.
"""
from __future__ import annotations

import functools
import math
import multiprocessing
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import chess
import numpy as np

from .encoding import as_board, move_to_index, planes9_batch
from .files import (MODELS_DIR, check_writable, check_writable_dir, read_json,
                    write_json_atomic)
from .nn import Adam
from .players import Player
from .policy_value import (PolicyValueNet, load_policy_value, policy_targets,
                           save_policy_value, train_epochs)

#: Value of a position where the side to move is checkmated.
MATE_VALUE = -1.0


def uniform_evaluate(planes, legal):
    """A network that knows nothing: equal priors, value 0 (for tests and teaching)."""
    return [np.full(len(idx), 1.0 / len(idx)) for idx in legal], np.zeros(len(legal))


def terminal_value(board: chess.Board, moves=None, draw_value: float = 0.0):
    """Exact value for the side to move if the game is over, else None.

    Checkmate = -1 (the side to move lost); stalemate, insufficient material, the
    fifty-move rule and threefold repetition are draws, worth ``draw_value`` to White
    (0 in chess; -1 in the endgame task, where White must mate and a draw is failure).
    """
    if moves is None:
        moves = list(board.generate_legal_moves())
    if not moves and board.is_check():
        return MATE_VALUE
    if (not moves or board.is_insufficient_material() or board.halfmove_clock >= 100
            or board.is_repetition(3)):
        return draw_value if board.turn == chess.WHITE else -draw_value
    return None


class Node:
    """A position in the tree. Its moves' statistics live in arrays (one entry per
    legal move): prior P, visit count N, total value W (for the player to move here)."""

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

    def q(self):
        """Mean value of each move for the player to move here (0 if never visited)."""
        return np.divide(self.W, self.N, out=np.zeros_like(self.W), where=self.N > 0)


class MCTS:
    """PUCT search over ``evaluate(planes, legal) -> (priors, values)``.

    ``evaluate`` is ``PolicyValueNet.evaluate`` or ``uniform_evaluate``. ``batch_size``
    leaves are evaluated per network call (1 = the plain algorithm).
    """

    def __init__(self, evaluate=uniform_evaluate, simulations: int = 300,
                 c_puct: float = 1.5, batch_size: int = 8, dirichlet_alpha: float = 0.3,
                 noise_fraction: float = 0.25, virtual_loss: float = 1.0,
                 reuse_tree: bool = True, draw_value: float = 0.0, seed: int = 0):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.evaluate = getattr(evaluate, "evaluate", evaluate)   # a net or a function
        self.simulations, self.c_puct, self.batch_size = int(simulations), c_puct, batch_size
        self.alpha, self.noise_fraction, self.virtual_loss = dirichlet_alpha, noise_fraction, virtual_loss
        self.reuse_tree, self.draw_value = reuse_tree, draw_value
        self.rng = np.random.default_rng(seed)
        self.root, self.root_fen = None, None
        self.noise_draws = 0            # how many times Dirichlet noise was sampled
        self.network_calls = 0
        self.last_simulations = 0
        self._root_prior = None

    # ------------------------------------------------------------------ the search
    def search(self, board: chess.Board, simulations: int | None = None,
               noise: bool = False, time_limit: float | None = None) -> Node:
        """Run the simulations from ``board`` (not modified); returns the root node.

        With ``time_limit`` (seconds) the search also stops when time is up.
        """
        start = time.perf_counter()
        board = as_board(board).copy()
        if terminal_value(board, draw_value=self.draw_value) is not None:
            raise ValueError(f"the game is over in {board.fen()!r}; nothing to search")
        root = self._reused_root(board) or Node()
        if not root.expanded:
            self._expand_now(board, root)
        self._root_prior = root.prior
        if noise:
            # once per search: the same noisy priors for every simulation of this move
            eta = self.rng.dirichlet([self.alpha] * len(root.moves))
            self._root_prior = (1 - self.noise_fraction) * root.prior + self.noise_fraction * eta
            self.noise_draws += 1
        total = self.simulations if simulations is None else int(simulations)
        done = 0
        while done < total:
            done += self._run_batch(board, root, min(self.batch_size, total - done))
            if time_limit is not None and time.perf_counter() - start > time_limit:
                break
        self.root, self.root_fen, self.last_simulations = root, board.fen(), done
        return root

    def _expand_now(self, board, node):
        moves = list(board.generate_legal_moves())
        priors, _ = self._call([board], [moves])
        node.expand(moves, priors[0])

    def _call(self, boards, move_lists):
        self.network_calls += 1
        legal = [np.fromiter((move_to_index(m) for m in ms), np.int64, len(ms))
                 for ms in move_lists]
        return self.evaluate(planes9_batch(boards), legal)

    def _select(self, node: Node, prior) -> int:
        n = node.N
        u = self.c_puct * prior * math.sqrt(max(n.sum(), 1.0)) / (1.0 + n)
        return int(np.argmax(node.q() + u))

    def _run_batch(self, board, root, k: int) -> int:
        """Up to ``k`` simulations, their new leaves evaluated in one call.

        Returns how many simulations were completed (fewer than k when a simulation
        ran into a leaf already waiting for the network: the batch is cut there).
        """
        vl = self.virtual_loss
        pending, waiting, done = [], set(), 0
        for _ in range(k):
            node, path = root, []
            while node.expanded and node.terminal is None:
                a = self._select(node, self._root_prior if node is root else node.prior)
                node.N[a] += vl          # virtual loss: look visited and lost, for now
                node.W[a] -= vl
                path.append((node, a))
                if node.children[a] is None:
                    node.children[a] = Node()
                board.push(node.moves[a])
                node = node.children[a]
            collision = False
            if node.terminal is None:
                if id(node) in waiting:
                    collision = True
                else:
                    moves = list(board.generate_legal_moves())
                    node.terminal = terminal_value(board, moves, self.draw_value)
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
            priors, values = self._call([p[2] for p in pending], [p[3] for p in pending])
            for (path, node, _, moves), prior, value in zip(pending, priors, values):
                node.expand(moves, prior)
                self._backup(path, float(value))
                done += 1
        return done

    def _backup(self, path, value: float) -> None:
        """``value`` is for the side to move at the leaf; flip it at every ply up."""
        vl = self.virtual_loss
        for node, a in reversed(path):
            value = -value                  # now: for the player who chose move a
            node.N[a] += 1 - vl             # the real visit replaces the virtual loss
            node.W[a] += value + vl

    def _reused_root(self, board):
        """The subtree for ``board`` if it is at most 2 plies below the last root."""
        if not self.reuse_tree or self.root is None:
            return None
        b, played = board.copy(), []
        while b.fen() != self.root_fen:
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
        self.root = self.root_fen = None


# ---------------------------------------------------------------------- choosing a move

def visit_policy(root: Node, temperature: float = 1.0):
    """Move probabilities from visit counts: N^(1/T), normalised; T = 0 is argmax."""
    n = root.N
    if temperature <= 0:
        p = (n == n.max()).astype(float)
    else:
        p = (n / n.max()) ** (1.0 / temperature)
    return p / p.sum()


def pick_move(root: Node, temperature: float, rng: np.random.Generator) -> chess.Move:
    """Sample from ``visit_policy`` (ties at temperature 0 broken by ``rng``)."""
    p = visit_policy(root, temperature)
    return root.moves[int(rng.choice(len(p), p=p))]


def principal_variation(root: Node, length: int = 8):
    """Most visited moves from the root down."""
    pv, node = [], root
    while node is not None and node.expanded and node.N.sum() > 0 and len(pv) < length:
        a = int(np.argmax(node.N))
        pv.append(node.moves[a])
        node = node.children[a]
    return pv


@dataclass
class MCTSResult:
    """What one search found: visits and Q per move, the root value, the time spent."""
    move: chess.Move
    moves: list
    visits: np.ndarray
    q: np.ndarray
    value: float                 # mean value of the chosen move, for the side to move
    nodes: int                   # simulations run for this move
    seconds: float
    pv: list = field(default_factory=list)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("inf")

    def describe(self, board: chess.Board | None = None, top: int = 5) -> str:
        order = np.argsort(-self.visits)[:top]
        name = (lambda m: board.san(m)) if board is not None else (lambda m: m.uci())
        rows = ", ".join(f"{name(self.moves[i])} N={int(self.visits[i])} Q={self.q[i]:+.2f}"
                         for i in order)
        return f"{name(self.move)} (value {self.value:+.2f}, {self.nodes} simulations): {rows}"


class MCTSPlayer(Player):
    """A player: MCTS with ``simulations`` per move, then the most visited move.

    ``temperature`` > 0 samples moves in proportion to N^(1/T) for the first
    ``temperature_plies`` plies of the game (self-play openings), then plays the most
    visited move. ``noise=True`` mixes Dirichlet noise into the root priors.
    """

    def __init__(self, net=None, simulations: int = 300, temperature: float = 0.0,
                 temperature_plies: int = 0, noise: bool = False, batch_size: int = 8,
                 c_puct: float = 1.5, draw_value: float = 0.0, seed: int = 0,
                 name: str | None = None, time_limit: float | None = None):
        super().__init__(name or f"mcts:{simulations}", seed)
        self.net, self.time_limit = net, time_limit
        self.mcts = MCTS(net if net is not None else uniform_evaluate, simulations,
                         c_puct=c_puct, batch_size=batch_size, draw_value=draw_value, seed=seed)
        self.temperature, self.temperature_plies, self.noise = temperature, temperature_plies, noise
        self.rng = np.random.default_rng(seed + 1)

    def choose_move(self, board: chess.Board) -> chess.Move:
        start = time.perf_counter()
        root = self.mcts.search(board, noise=self.noise, time_limit=self.time_limit)
        hot = self.temperature > 0 and board.ply() < self.temperature_plies
        move = pick_move(root, self.temperature if hot else 0.0, self.rng)
        a = root.moves.index(move)
        self.last_result = MCTSResult(move, list(root.moves), root.N.copy(), root.q(),
                                      float(root.q()[a]), self.mcts.last_simulations,
                                      time.perf_counter() - start, principal_variation(root))
        return move

    def reset(self):
        self.mcts.reset()


#: The shipped full-game network used by ``make_player("mcts:N")``.
DEFAULT_MODEL = MODELS_DIR / "policy_value.json"
_LOADED = {}


def shipped_network(path=None):
    """The shipped policy-value network (loaded once per process)."""
    path = Path(path or DEFAULT_MODEL)
    if not path.exists():
        raise FileNotFoundError(f"network {path} does not exist; train one with "
                                f"`python -m chesslab bootstrap` (see data/README.md)")
    key = (str(path), path.stat().st_mtime)
    if key not in _LOADED:
        _LOADED[key] = load_policy_value(path)
    return _LOADED[key]


def mcts_player(simulations: int | None = 300, time_limit: float | None = None,
                seed: int = 0, name: str | None = None, model=None) -> MCTSPlayer:
    """``make_player("mcts:300")``: the shipped network, 300 simulations per move
    (``mcts@2s``: as many as fit in 2 seconds)."""
    if simulations is not None and simulations < 1:
        raise ValueError(f"MCTS needs at least 1 simulation per move, not {simulations}")
    sims = simulations if simulations is not None else (10**6 if time_limit else 300)
    return MCTSPlayer(shipped_network(model), sims, seed=seed, time_limit=time_limit,
                      name=name or (f"mcts:{sims}" if time_limit is None
                                    else f"mcts@{time_limit:g}s"))


# ---------------------------------------------------------------------- playing games

#: Pawn units for adjudication at the move cap.
_MATERIAL = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def adjudicate_draw(board: chess.Board) -> str:
    """At the move cap: a draw (the endgame curriculum: no mate in time is no win)."""
    return "1/2-1/2"


def adjudicate_material(board: chess.Board, margin: int = 3) -> str:
    """At the move cap: a win for the side ahead by ``margin`` pawns or more, else a draw."""
    diff = sum(v * (len(board.pieces(p, chess.WHITE)) - len(board.pieces(p, chess.BLACK)))
               for p, v in _MATERIAL.items())
    return "1-0" if diff >= margin else "0-1" if diff <= -margin else "1/2-1/2"


def game_result(board: chess.Board, draw_value: float = 0.0):
    """("1-0" | "0-1" | "1/2-1/2", reason) if the game is over (draws claimed), else None.

    With ``draw_value=-1`` (the endgame task) a draw is scored "0-1": White failed to mate.
    """
    moves = list(board.generate_legal_moves())
    value = terminal_value(board, moves)
    if value is None:
        return None
    if not moves and board.is_check():
        return ("0-1" if board.turn == chess.WHITE else "1-0"), "checkmate"
    return _DRAW_RESULT[draw_value], "draw"


_DRAW_RESULT = {0.0: "1/2-1/2", -1.0: "0-1"}


def play_out(board: chess.Board, white, black, max_plies: int = 200,
             adjudicate=adjudicate_draw, on_move=None, draw_value: float = 0.0):
    """Play from ``board`` (a copy) until the game ends or ``max_plies`` more plies.

    ``white`` / ``black`` are players (``choose_move(board)``). ``on_move(board,
    player)`` is called after each ``choose_move``, before the move is pushed (the
    self-play recorder). Returns ``(final board, result, termination)``.
    """
    if draw_value not in _DRAW_RESULT:
        raise ValueError(f"draw_value must be 0 (chess) or -1 (White must mate), not {draw_value}")
    board = as_board(board).copy()
    for plies in range(max_plies + 1):
        over = game_result(board, draw_value)
        if over is not None:
            return board, over[0], over[1]
        if plies == max_plies:
            break
        player = white if board.turn == chess.WHITE else black
        move = player.choose_move(board)
        if on_move is not None:
            on_move(board, player)
        board.push(move)
    result = _DRAW_RESULT[draw_value] if adjudicate is adjudicate_draw else adjudicate(board)
    return board, result, f"adjudicated after {max_plies} plies"


def result_for(result: str, turn: chess.Color) -> float:
    """Game result from the point of view of ``turn``: +1 win, 0 draw, -1 loss."""
    if result == "1/2-1/2":
        return 0.0
    return 1.0 if (result == "1-0") == (turn == chess.WHITE) else -1.0


def self_play_game(net, start=None, simulations: int = 100, temperature_plies: int = 20,
                   max_plies: int = 200, adjudicate=adjudicate_draw, batch_size: int = 8,
                   draw_value: float = 0.0, seed: int = 0):
    """One self-play game: the same MCTS plays both sides (noise and temperature on).

    Returns a dict with ``records`` (one per move: ``fen``, ``legal`` policy indices,
    ``pi`` visit distribution over them, ``q`` the search's value of the position,
    ``turn`` and the result ``z`` for the side to move), ``result``, ``termination`` and
    the ``moves`` in UCI.
    """
    player = MCTSPlayer(net, simulations, temperature=1.0, temperature_plies=temperature_plies,
                        noise=True, batch_size=batch_size, draw_value=draw_value, seed=seed)
    records = []

    def record(board, _player):
        r = player.last_result
        records.append({"fen": board.fen(),
                        "legal": [move_to_index(m) for m in r.moves],
                        "pi": (r.visits / r.visits.sum()).round(4).tolist(),
                        "q": round(float(np.sum(r.visits * r.q) / max(r.visits.sum(), 1)), 4),
                        "turn": "w" if board.turn == chess.WHITE else "b"})

    start = chess.Board() if start is None else as_board(start)
    final, result, termination = play_out(start, player, player, max_plies, adjudicate, record,
                                          draw_value)
    for r in records:
        r["z"] = result_for(result, r["turn"] == "w")
    return {"records": records, "result": result, "termination": termination,
            "start": start.fen(), "moves": [m.uci() for m in final.move_stack[len(start.move_stack):]]}


class ReplayBuffer:
    """The latest ``capacity`` training samples (older games fall out first)."""

    def __init__(self, capacity: int = 20_000, rows=()):
        self.capacity = int(capacity)
        self.rows = list(rows)[-self.capacity:]

    def add(self, rows) -> None:
        self.rows.extend(rows)
        del self.rows[:-self.capacity]

    def __len__(self):
        return len(self.rows)

    def to_json(self) -> dict:
        return {"capacity": self.capacity, "rows": self.rows}

    @classmethod
    def from_json(cls, doc) -> "ReplayBuffer":
        return cls(doc["capacity"], doc["rows"])


# ---------------------------------------------------------------------- the arena gate

#: A challenger must score more than this against the best network to replace it.
GATE_SCORE = 0.55


def arena(net_a, net_b, starts, simulations: int = 50, max_plies: int = 120,
          adjudicate=adjudicate_draw, draw_value: float = 0.0, seed: int = 0,
          workers: int = 1) -> dict:
    """``net_a`` against ``net_b``: two games per start position, colours swapped.

    Both play greedy MCTS (no noise, most visited move). Returns wins/draws/losses
    and the score of ``net_a`` (win 1, draw 1/2). ``workers`` > 1 plays the games in
    that many processes (same results: every game has its own seeds).
    """
    jobs = [(net_a, net_b, fen, a_white, simulations, max_plies, adjudicate, draw_value,
             seed + 2 * i) for i, fen in enumerate(starts) for a_white in (True, False)]
    w = d = l = 0
    for z in parallel_map(_arena_game, jobs, workers):
        w, d, l = w + (z > 0), d + (z == 0), l + (z < 0)
    games = w + d + l
    return {"games": games, "wins": w, "draws": d, "losses": l,
            "score": (w + 0.5 * d) / games if games else 0.0}


def _arena_game(job) -> float:
    """One arena game; the result for ``net_a``."""
    net_a, net_b, fen, a_white, simulations, max_plies, adjudicate, draw_value, seed = job
    a = MCTSPlayer(net_a, simulations, draw_value=draw_value, seed=seed)
    b = MCTSPlayer(net_b, simulations, draw_value=draw_value, seed=seed + 1)
    _, result, _ = play_out(chess.Board(fen), *((a, b) if a_white else (b, a)),
                            max_plies, adjudicate, draw_value=draw_value)
    return result_for(result, chess.WHITE if a_white else chess.BLACK)


def parallel_map(function, jobs, workers: int = 1, on_result=None) -> list:
    """``[function(job) for job in jobs]``, in ``workers`` processes when > 1.

    Games are independent and each carries its own seed, so the results (in job
    order) are the same for any number of workers. Each process does its numpy work
    on one thread: two busy processes on two cores, not four threads fighting.
    ``on_result(index, result)`` is called as each result arrives (in job order), so a
    long run can save its finished work as it goes.
    """
    jobs = list(jobs)
    on_result = on_result or (lambda index, result: None)
    if workers <= 1 or len(jobs) <= 1:
        out = []
        for i, job in enumerate(jobs):
            out.append(function(job))
            on_result(i, out[-1])
        return out
    context = multiprocessing.get_context("spawn")   # the same on Linux, macOS, Windows
    saved = {k: os.environ.get(k) for k in _THREAD_VARIABLES}
    os.environ.update({k: "1" for k in _THREAD_VARIABLES})   # read by numpy in the workers
    try:
        with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context) as pool:
            out = []
            for i, result in enumerate(pool.map(function, jobs)):
                out.append(result)
                on_result(i, result)
            return out
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def gate(challenger, best, starts, threshold: float = GATE_SCORE, **kwargs):
    """(accepted, arena result): the challenger replaces the best only above ``threshold``."""
    res = arena(challenger, best, starts, **kwargs)
    return res["score"] > threshold, res


# ---------------------------------------------------------------------- endgame curriculum

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
        if board.is_valid() and game_result(board) is None:
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
        final, _, termination = play_out(chess.Board(fen), attacker, defender, 2 * max_moves)
        mated = termination == "checkmate" and final.turn == chess.BLACK
        per_start.append((len(final.move_stack) + 1) // 2 if mated else None)
    mated = [m for m in per_start if m is not None]
    return {"mate_rate": len(mated) / len(starts),
            "moves_to_mate": float(np.mean(mated)) if mated else None,
            "per_start": per_start}


# ---------------------------------------------------------------------- the training loop

#: Settings of one self-play training run (saved in its state file).
DEFAULTS = {
    "endgame": {"piece": "Q", "games": 16, "simulations": 64, "max_plies": 60,
                "temperature_plies": 8, "epochs": 4, "batch_size": 64, "lr": 2e-3,
                "c": 1e-4, "buffer": 6000, "gate_starts": 6, "gate_simulations": 32,
                "test_starts": 24, "test_simulations": 48, "test_max_moves": 25,
                "channels": 32, "blocks": 1, "adjudicate": "draw", "draw_value": -1.0},
    # full game: the gate plays 20 games at 100 simulations (at 32, two of ten
    # challengers got through that then scored 0.35 against the best at 300); "anchor"
    # mixes that many Stockfish-labelled game positions into every training pass, so
    # self-play refines the bootstrapped network instead of overwriting it (0: off)
    "full": {"games": 8, "simulations": 64, "max_plies": 160, "temperature_plies": 16,
             "epochs": 2, "batch_size": 64, "lr": 5e-4, "c": 1e-4, "buffer": 20000,
             "gate_starts": 10, "gate_simulations": 100, "gate_max_plies": 160,
             "adjudicate": "material", "draw_value": 0.0, "anchor": 0, "value_target": "z",
             "player": "latest", "starts": "initial", "workers": 1},
}
_ADJUDICATE = {"draw": adjudicate_draw, "material": adjudicate_material}


def _copy_net(net):
    twin = PolicyValueNet(net.channels, net.blocks, net.policy_k, name=net.name)
    for (_, dst, _), (_, src, _) in zip(twin.parameters(), net.parameters()):
        dst[...] = src
    for dst, src in zip(twin.leaves(), net.leaves()):
        if hasattr(src, "running_mean"):
            dst.running_mean, dst.running_var = src.running_mean.copy(), src.running_var.copy()
    return twin.eval()


def _opening_starts(count: int, seed: int, plies: int = 4) -> list[str]:
    """Start positions after a few seeded random plies (different arena games)."""
    rng = random.Random(f"openings:{seed}")
    fens = []
    for _ in range(count):
        board = chess.Board()
        for _ in range(plies):
            board.push(rng.choice(list(board.legal_moves)))
        fens.append(board.fen())
    return fens


def train_selfplay(workdir, kind: str = "endgame", iterations: int = 5,
                   max_minutes: float | None = None, initial=None, progress=print, **overrides):
    """AlphaZero's loop, resumable: self-play with the latest net (the trainee; with
    ``player="best"`` the gated best plays, as in AlphaGo Zero), train the trainee on
    the replay buffer, gate it against the best (it replaces the best only above 55%),
    measure both on the test set, save everything.

    ``workdir`` holds ``state.json`` (settings, finished iterations, learning curve,
    replay buffer), ``best.json`` and ``trainee.json``; calling again continues from
    there until ``iterations`` are done, stopping early after ``max_minutes``.
    ``kind`` is "endgame" (K+Q vs K from random starts; mate rate on a fixed test set
    is the curve) or "full" (the whole game from the initial position; start from a
    bootstrapped network ``initial``).
    """
    if kind not in DEFAULTS:
        raise ValueError(f"kind must be one of {sorted(DEFAULTS)}, not {kind!r}")
    workdir = Path(workdir)
    state_path = workdir / "state.json"
    if state_path.exists():
        state = read_json(state_path, "self-play state")
        best = load_policy_value(workdir / "best.json")
        trainee = load_policy_value(workdir / "trainee.json")
    else:
        cfg = {**DEFAULTS[kind], **overrides, "kind": kind, "seed": overrides.get("seed", 0)}
        if initial is None:
            best = PolicyValueNet(cfg.get("channels", 32), cfg.get("blocks", 2),
                                  seed=cfg["seed"], name=f"{kind} self-play net")
        else:
            best = initial if isinstance(initial, PolicyValueNet) else load_policy_value(initial)
        trainee = _copy_net(best)
        state = {"config": cfg, "iteration": 0, "curve": [], "buffer": {"capacity": cfg["buffer"],
                                                                         "rows": []}}
    cfg = state["config"]
    buffer = ReplayBuffer.from_json(state["buffer"])
    adjudicate = _ADJUDICATE[cfg["adjudicate"]]
    seed = cfg["seed"]
    anchor = []
    if kind == "endgame":
        test = mixed_endgame_starts(cfg["test_starts"], cfg["piece"], seed=10_000 + seed)
        gate_starts = mixed_endgame_starts(cfg["gate_starts"], cfg["piece"], seed=20_000 + seed)
    else:
        test = None
        gate_starts = _opening_starts(cfg["gate_starts"], seed)
        if cfg.get("anchor"):
            anchor = _anchor_rows(cfg["anchor"])

    def measure(net):
        if test is None:
            return {}
        return mate_test(net, test, cfg["test_simulations"], cfg["test_max_moves"])

    def save():
        save_policy_value(best, workdir / "best.json", kind=kind, iterations=state["iteration"])
        save_policy_value(trainee, workdir / "trainee.json", kind=kind,
                          iterations=state["iteration"])
        state["buffer"] = buffer.to_json()
        write_json_atomic(state_path, state)

    clock = time.perf_counter()
    if not state["curve"]:
        first = measure(best)
        state["curve"].append({"iteration": 0, **first, "accepted": True, "trainee": first})
        progress(f"iteration 0: {_summary(state['curve'][-1])}")
        save()
    while state["iteration"] < iterations:
        if max_minutes is not None and time.perf_counter() - clock > 60 * max_minutes:
            progress(f"stopping after {max_minutes} minutes; run again to continue")
            break
        it = state["iteration"] + 1
        t0 = time.perf_counter()
        rng = random.Random(f"selfplay:{seed}:{it}")
        if kind == "endgame":    # easy starts mixed in: a third of each level
            starts = [endgame_starts(1, cfg["piece"], rng.randrange(10**9), level=g % 3)[0]
                      for g in range(cfg["games"])]
        elif cfg.get("starts") == "records":   # every other game from a recorded game
            found = record_starts(cfg["games"] // 2, seed=rng.randrange(10**9))
            starts = [found[g // 2] if g % 2 and g // 2 < len(found) else None
                      for g in range(cfg["games"])]
        else:
            starts = [None] * cfg["games"]
        results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
        plies = []
        player_net = best if cfg.get("player") == "best" else trainee
        jobs = [(player_net, start, cfg["simulations"], cfg["temperature_plies"],
                 cfg["max_plies"], adjudicate, cfg["draw_value"], rng.randrange(10**9))
                for start in starts]
        for game in parallel_map(_self_play_job, jobs, cfg.get("workers", 1)):
            buffer.add(game["records"])
            results[game["result"]] += 1
            plies.append(len(game["moves"]))
        rows = buffer.rows
        if cfg.get("value_target", "z") == "zq":
            # the value learns the mean of the game's result and the search's own value
            # of the position: one game's result is a noisy verdict on every move of it
            rows = [{**r, "z": 0.5 * (r["z"] + r["q"])} if "q" in r else r for r in rows]
        mixed = rows + (rng.sample(anchor, min(len(anchor), len(buffer))) if anchor else [])
        losses = train_epochs(trainee, mixed, Adam(cfg["lr"]), cfg["epochs"],
                              cfg["batch_size"], cfg["c"], seed=rng.randrange(10**9),
                              augment=True, mirror_colours=cfg["draw_value"] == 0.0)
        accepted, match = gate(trainee, best, gate_starts, simulations=cfg["gate_simulations"],
                               max_plies=cfg.get("gate_max_plies", cfg["max_plies"]),
                               adjudicate=adjudicate, draw_value=cfg["draw_value"], seed=it,
                               workers=cfg.get("workers", 1))
        if accepted:
            best = _copy_net(trainee)
        row = {"iteration": it, "selfplay": results, "mean_plies": float(np.mean(plies)),
               "samples": len(buffer), "loss": losses[-1], "gate": match,
               "accepted": accepted, **measure(best),
               "trainee": measure(trainee), "seconds": round(time.perf_counter() - t0, 1)}
        state["curve"].append(row)
        state["iteration"] = it
        save()
        progress(f"iteration {it}: {_summary(row)}")
    return state


def _self_play_job(job) -> dict:
    net, start, simulations, temperature_plies, max_plies, adjudicate, draw_value, seed = job
    return self_play_game(net, start, simulations, temperature_plies, max_plies, adjudicate,
                          draw_value=draw_value, seed=seed)


def record_starts(count: int, seed: int = 0, plies=(8, 40), records=None) -> list[str]:
    """Positions from game records, each after a seeded random number of plies: self-play
    then also meets the middlegames that games from the initial position rarely reach.
    ``records`` defaults to the shipped games the bootstrap trained on (the first nine
    tenths)."""
    if records is None:
        records = shipped_game_split()[0]
    if not any(len(list(g.mainline_moves())) >= plies[0] + 10 for g in records):
        raise ValueError(f"no game record has the {plies[0] + 10} plies a start needs")
    rng = random.Random(f"record starts:{seed}")
    fens = []
    while len(fens) < count:
        moves = list(records[rng.randrange(len(records))].mainline_moves())
        if len(moves) < plies[0] + 10:
            continue
        board = chess.Board()
        for move in moves[:rng.randint(plies[0], min(plies[1], len(moves) - 10))]:
            board.push(move)
        fens.append(board.fen())
    return fens


def split_games(records) -> tuple[list, list]:
    """(training games, held-out games): the first nine tenths and the last tenth. The
    bootstrap trains on the first part and measures on the second; self-play starts
    and anchor positions come from the first part only."""
    cut = max(1, len(records) * 9 // 10)
    return records[:cut], records[cut:]


@functools.lru_cache(maxsize=1)
def shipped_game_split() -> tuple[list, list]:
    """``split_games`` of the shipped game records (read once per process)."""
    from .data import DEFAULT_GAMES, read_games

    return split_games(read_games(DEFAULT_GAMES))


def _anchor_rows(count: int) -> list[dict]:
    """Up to ``count`` Stockfish-labelled positions from the shipped games the bootstrap
    trained on, with the moves played and the labels as targets."""
    rows = game_samples(shipped_game_split()[0], 1, stockfish_labels(), labelled_only=True)
    return random.Random(0).sample(rows, min(count, len(rows)))


def _summary(row) -> str:
    parts = []
    for who, r in (("best", row), ("latest", row.get("trainee", {}))):
        if "mate_rate" in r:
            mtm = r["moves_to_mate"]
            parts.append(f"{who}: mate rate {r['mate_rate']:.2f}, moves to mate "
                         f"{'-' if mtm is None else f'{mtm:.1f}'}")
    if "gate" in row:
        parts.append(f"gate score {row['gate']['score']:.2f} "
                     f"({'accepted' if row['accepted'] else 'rejected'})")
    if "loss" in row:
        parts.append(f"loss {row['loss']['total']:.3f}")
    if "seconds" in row:
        parts.append(f"{row['seconds']:.0f} s")
    return ", ".join(parts)


# ---------------------------------------------------------------------- supervised bootstrap

def stockfish_labels() -> dict:
    """``{position_key: cp from White's side}`` of every position in data/positions.npz."""
    from .data import DEFAULT_DATASET, load_dataset, position_key

    ds = load_dataset(DEFAULT_DATASET)
    return {position_key(f): int(cp) for f, cp in zip(ds.fen.tolist(), ds.cp.tolist())}


def game_samples(games, every: int = 1, labels=None, scale: float = 400.0,
                 labelled_only: bool = False) -> list[dict]:
    """Training rows from game records: the policy target is the move played, the value
    target the game's result for the side to move, or ``tanh(cp / scale)`` of a
    Stockfish label when ``labels`` (``{position_key: cp from White's side}``) has one.
    ``labelled_only`` keeps only the positions that have a label: a game's result says
    little about its opening moves, a Stockfish score says something about each position.
    """
    from .data import position_key

    rows = []
    for game in games:
        result = game.headers.get("Result", "*")
        if result not in ("1-0", "0-1", "1/2-1/2"):
            continue
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            cp = labels.get(position_key(board.fen())) if labels else None
            if ply % every == 0 and (cp is not None or not labelled_only):
                legal = [move_to_index(m) for m in board.generate_legal_moves()]
                played = legal.index(move_to_index(move))
                pi = [0.0] * len(legal)
                pi[played] = 1.0
                white = board.turn == chess.WHITE
                z = (result_for(result, board.turn) if cp is None
                     else math.tanh((cp if white else -cp) / scale))
                rows.append({"fen": board.fen(), "legal": legal, "pi": pi, "z": z})
            board.push(move)
    return rows


def bootstrap(out, pgn=None, games: int = 400, every: int = 2, epochs: int = 3,
              channels: int = 32, blocks: int = 2, lr: float = 1e-3, batch_size: int = 64,
              c: float = 1e-4, seed: int = 0, labelled_only: bool = False, progress=print):
    """Supervised start for the full game: learn the moves and results of game records.

    Resumable: after each epoch the network is saved to ``out`` with the number of
    epochs done; calling again continues with the next epoch.
    """
    from .data import DEFAULT_DATASET, DEFAULT_GAMES, read_games

    out = Path(out)
    pgn = Path(pgn or DEFAULT_GAMES)
    records = read_games(pgn, limit=games)
    labels = stockfish_labels() if DEFAULT_DATASET.exists() else None
    # the last tenth of the games is held out to measure move-prediction accuracy
    train_games, test_games = split_games(records)
    train_rows = game_samples(train_games, every, labels, labelled_only=labelled_only)
    test_rows = game_samples(test_games, every, labels, labelled_only=labelled_only)
    if out.exists():
        net = load_policy_value(out)
        done = net.training_notes.get("epochs", 0)
        history = net.training_notes.get("history", [])
    else:
        net, done, history = PolicyValueNet(channels, blocks, seed=seed,
                                            name="bootstrapped policy-value net"), 0, []
    progress(f"{len(train_rows)} training positions from {len(train_games)} games, {len(test_rows)} "
             f"held out; Stockfish labels: {'yes' if labels else 'no (game results)'}")
    for epoch in range(done, epochs):
        # a fresh Adam per epoch keeps a resumed run identical to an uninterrupted one
        # the step shrinks by a quarter each epoch: big steps first, fine ones at the end
        epoch_lr = lr * 0.75 ** epoch
        # every position also under a random allowed symmetry, and half of them with the
        # colours swapped: the board is not flipped for Black in the 9 planes, so without
        # this the net learns two games, one per colour, from half the data each
        loss = train_epochs(net, train_rows, Adam(epoch_lr), 1, batch_size, c, seed=seed + epoch,
                            augment=True, mirror_colours=True)[0]
        accuracy, value_mse = held_out_scores(net, test_rows)
        history.append({"epoch": epoch + 1, "lr": epoch_lr, **loss,
                        "held_out_move_accuracy": accuracy, "held_out_value_mse": value_mse})
        save_policy_value(net, out, epochs=epoch + 1, history=history, games=len(records),
                          pgn=pgn.name, every=every, labelled_only=labelled_only,
                          value_target="stockfish cp" if labels else "game result")
        progress(f"epoch {epoch + 1}: loss {loss['total']:.3f} (policy {loss['policy']:.3f}, "
                 f"value {loss['value']:.3f}), held-out move accuracy {accuracy:.3f}, "
                 f"value mse {value_mse:.3f}")
    return net


def held_out_scores(net, rows, batch: int = 256) -> tuple[float, float]:
    """(how often the network's top move is the move played, mean (z - v)^2)."""
    hits, squared = 0, 0.0
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        logits, value = net.predict(planes9_batch([chess.Board(r["fen"]) for r in part]))
        pi, mask = policy_targets(part)
        hits += int(np.sum(np.argmax(np.where(mask, logits, -np.inf), 1) == np.argmax(pi, 1)))
        squared += float(np.sum((np.array([r["z"] for r in part]) - value.reshape(-1)) ** 2))
    return hits / max(len(rows), 1), squared / max(len(rows), 1)


# ---------------------------------------------------------------------- command line

def register_cli(subparsers) -> None:
    p = subparsers.add_parser("selfplay", help="AlphaZero-style self-play training "
                              "(endgame curriculum or full game), resumable")
    p.add_argument("kind", choices=sorted(DEFAULTS))
    p.add_argument("--workdir", required=True, help="folder for state.json, best.json, "
                   "trainee.json (run again to continue)")
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--max-minutes", type=float, default=None,
                   help="stop after the iteration that passes this time")
    p.add_argument("--initial", default=None, help="start from this network (full game)")
    p.add_argument("--games", type=int, default=None, help="self-play games per iteration")
    p.add_argument("--simulations", type=int, default=None, help="per move in self-play")
    p.add_argument("--gate-starts", type=int, default=None,
                   help="arena openings (each played with both colours) for the 55%% gate")
    p.add_argument("--anchor", type=int, default=None,
                   help="full game: Stockfish-labelled positions mixed into every training pass")
    p.add_argument("--value-target", choices=["z", "zq"], default=None,
                   help="full game: the value learns the result z (AlphaZero) or the mean "
                        "of z and the search's value q")
    p.add_argument("--player", choices=["latest", "best"], default=None,
                   help="which network plays the self-play games: the one in training "
                        "(AlphaZero) or the gated best (AlphaGo Zero)")
    p.add_argument("--starts", choices=["initial", "records"], default=None,
                   help="full game: every game from the initial position, or every other "
                        "one from a position of the shipped game records")
    p.add_argument("--workers", type=int, default=None,
                   help="processes for the self-play and gate games (e.g. 2 on 2 cores)")
    p.add_argument("--lr", type=float, default=None, help="Adam step size")
    p.add_argument("--epochs", type=int, default=None, help="passes over the buffer per iteration")
    p.add_argument("--buffer", type=int, default=None, help="replay buffer capacity (positions)")
    p.add_argument("--piece", choices=["Q", "R"], default=None,
                   help="endgame: the strong side's extra piece (K+Q vs K or K+R vs K)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_selfplay)
    b = subparsers.add_parser("bootstrap", help="supervised start of the full-game "
                              "policy-value net from the shipped game records")
    b.add_argument("--out", required=True, help="network file (JSON); resumes if it exists")
    b.add_argument("--pgn", default=None, help="game records (default: the shipped games)")
    b.add_argument("--games", type=int, default=400)
    b.add_argument("--every", type=int, default=2, help="keep every k-th position")
    b.add_argument("--epochs", type=int, default=3)
    b.add_argument("--channels", type=int, default=32)
    b.add_argument("--blocks", type=int, default=2)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--labelled-only", action="store_true",
                   help="keep only positions with a Stockfish label in data/positions.npz")
    b.set_defaults(func=_cmd_bootstrap)


def _check_positive(args, names):
    """Counts and sizes of 0 (or less) cannot train anything: one line, before any work."""
    for name in names:
        value = getattr(args, name, None)
        if value is not None and not value > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {value}")


def _cmd_selfplay(args):
    overrides = {k: v for k, v in (("games", args.games), ("simulations", args.simulations),
                                   ("piece", args.piece), ("gate_starts", args.gate_starts),
                                   ("anchor", args.anchor), ("value_target", args.value_target),
                                   ("player", args.player), ("starts", args.starts),
                                   ("workers", args.workers), ("lr", args.lr),
                                   ("epochs", args.epochs), ("buffer", args.buffer))
                 if v is not None}
    if args.piece and args.kind != "endgame":
        raise ValueError("--piece only applies to the endgame curriculum (selfplay endgame)")
    if args.kind == "endgame":
        full_only = [flag for flag, v in (("--initial", args.initial), ("--starts", args.starts),
                                          ("--anchor", args.anchor),
                                          ("--value-target", args.value_target)) if v is not None]
        if full_only:
            raise ValueError(f"{', '.join(full_only)} only apply to the full game "
                             f"(selfplay full); the endgame curriculum starts from scratch")
    _check_positive(args, ("iterations", "games", "simulations", "gate_starts", "workers",
                           "epochs", "buffer", "lr", "max_minutes"))
    if args.anchor is not None and args.anchor < 0:
        raise ValueError(f"--anchor cannot be negative, got {args.anchor}")
    check_writable_dir(args.workdir, "--workdir folder")   # before the first game
    train_selfplay(args.workdir, args.kind, args.iterations, args.max_minutes,
                   initial=args.initial, progress=lambda s: print(s, flush=True),
                   seed=args.seed, **overrides)


def _cmd_bootstrap(args):
    _check_positive(args, ("games", "every", "epochs", "channels", "blocks"))
    check_writable(args.out, "network file")               # before the first epoch
    bootstrap(args.out, args.pgn, args.games, args.every, args.epochs, args.channels,
              args.blocks, seed=args.seed, labelled_only=args.labelled_only,
              progress=lambda s: print(s, flush=True))
