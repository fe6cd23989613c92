"""The search ideas in a few lines each: the versions the notebooks print.

The real searcher (``chesslab.search.searcher``, ``search(board, evaluator, ...)``) is
one routine with every improvement as a switch; it changes when it gets faster. These
functions stay small and readable, and ``tests/test_search_teaching.py`` checks that they give
the real searcher's values. They take a ``chess.Board`` and an evaluator object
(``evaluator.evaluate(board)``: centipawns from White's view, +-inf for a checkmate) and
return negamax scores: good for the side to move, a mate ``ply`` half-moves away scored
``MATE - ply`` (``chesslab.board.scores``).
"""
from __future__ import annotations

import math

import chess

from chesslab.board.rules import draw_by_rule
from chesslab.board.scores import mate_value, white_to_side
from chesslab.search.mcts import MCTSNode, puct_select, terminal_value


def static(board: chess.Board, evaluator, ply: int = 0) -> float:
    """The evaluator's verdict for the side to move (a leaf of the search)."""
    return white_to_side(evaluator.evaluate(board), board.turn, ply)


def negamax(board: chess.Board, evaluator, depth: int, ply: int = 0) -> float:
    """Plain minimax, written once for both sides: my best is minus my opponent's best.

    The teaching version of ``search(..., algorithm="minimax")``; the real search adds
    repetitions, a principal variation, node counts, a clock and the switches of the
    full search.
    """
    if ply > 0 and draw_by_rule(board):
        return 0
    if depth == 0:
        return static(board, evaluator, ply)
    best = -math.inf
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -negamax(board, evaluator, depth - 1, ply + 1))
        board.pop()
    if best == -math.inf:                    # no legal move: mated, or stalemate
        return mate_value(ply) if board.is_check() else 0
    return best


def alphabeta(board: chess.Board, evaluator, depth: int, alpha: float = -math.inf,
              beta: float = math.inf, ply: int = 0, quiescence: bool = False) -> float:
    """Negamax that skips what cannot matter: exactly minimax's value, fewer positions.

    A child gets the window (-beta, -alpha); once a move reaches beta the opponent will
    avoid this position, so the other moves are not searched (a cutoff). With
    ``quiescence`` the leaves are scored by ``quiesce`` instead of the static score.
    The teaching version of ``search(..., algorithm="alphabeta")``; the real one adds
    what ``negamax`` lists, move ordering and the rest of the full search's switches.
    """
    if ply > 0 and draw_by_rule(board):
        return 0
    if depth == 0:
        if quiescence:
            return quiesce(board, evaluator, alpha, beta, ply)
        return static(board, evaluator, ply)
    best = -math.inf
    for move in board.legal_moves:
        board.push(move)
        score = -alphabeta(board, evaluator, depth - 1, -beta, -alpha, ply + 1, quiescence)
        board.pop()
        best = max(best, score)
        alpha = max(alpha, score)
        if alpha >= beta:
            break                            # cutoff
    if best == -math.inf:
        return mate_value(ply) if board.is_check() else 0
    return best


def quiesce(board: chess.Board, evaluator, alpha: float = -math.inf,
            beta: float = math.inf, ply: int = 0) -> float:
    """Search captures until the position is quiet; the side to move may "stand pat".

    At the horizon a plain search scores a position in the middle of an exchange. Here
    the side to move either keeps the static score (it need not capture) or tries each
    capture, and the opponent does the same. The teaching version of
    ``Searcher._quiesce``; the real one answers checks (mate detection), orders the
    captures (most valuable victim first) and skips captures that lose material or
    cannot reach alpha.
    """
    stand = static(board, evaluator, ply)
    if stand >= beta:
        return stand
    best, alpha = stand, max(alpha, stand)
    for move in board.generate_legal_captures():
        board.push(move)
        score = -quiesce(board, evaluator, -beta, -alpha, ply + 1)
        board.pop()
        best = max(best, score)
        alpha = max(alpha, score)
        if alpha >= beta:
            break
    return best


def backup(path, value: float) -> None:
    """MCTS's backup: add a leaf's ``value`` to every move on the way up, sign flipped
    at each ply (a good position for one player is a bad one for the other).

    ``path`` lists ``(node, a)`` from the root down: move ``a`` of ``node`` was taken;
    a node keeps visit counts ``N`` and value sums ``W`` per move. ``value`` is for the
    side to move at the leaf. The teaching version of ``MCTS._backup`` in
    ``chesslab.search.mcts``; the real one also takes back the "virtual loss" that lets
    several simulations run in one network call.
    """
    for node, a in reversed(path):
        value = -value                       # now: for the player who chose move a
        node.N[a] += 1
        node.W[a] += value


def simulation(root: MCTSNode, board: chess.Board, net, c_puct: float = 1.5) -> float:
    """One MCTS simulation, its four steps in order; returns the leaf's value.

    ``root`` is the tree's root (an ``MCTSNode``, expanded: ``expand_root``) and
    ``board`` its position (pushed and popped back, unchanged at the end); ``net`` is a
    policy-value network (``net.policy(board)`` gives the legal moves, their priors and
    the value for the side to move). The teaching version of one simulation of
    ``MCTS.search``; the real one (``MCTS._run_batch``) adds a batch of simulations per
    network call, with virtual losses to spread them and a cut when two meet at one leaf,
    exact results that climb the tree, root noise and first-play urgency.
    chesslab's tests check that N simulations build the same tree as
    ``MCTS(net, batch_size=1, solve=False)``.
    """
    node, path = root, []
    # 1. select: from the root, follow the largest Q + U until a position never expanded
    while node.expanded:
        a = puct_select(node.q(), node.N, node.prior, c_puct)
        if node.children[a] is None:
            node.children[a] = MCTSNode()
        path.append((node, a))
        board.push(node.moves[a])
        node = node.children[a]
    value = terminal_value(board)            # a finished game is scored exactly
    if value is None:
        # 2. expand: the new position gets its legal moves and their priors;
        # 3. evaluate: the same network call gives its value (no random rollout)
        moves, priors, value = net.policy(board)
        node.expand(moves, priors)
    # 4. back up: the value climbs the path, its sign flipped at every ply
    backup(path, value)
    for _ in path:
        board.pop()
    return value


def expand_root(board: chess.Board, net) -> MCTSNode:
    """A search tree's root: the position's legal moves and the network's priors."""
    root = MCTSNode()
    moves, priors, _ = net.policy(board)
    root.expand(moves, priors)
    return root


def alphabeta_minmax(node, children, leaf_value, maximising, alpha: float = -math.inf,
                     beta: float = math.inf, log: list | None = None) -> float:
    """Alpha-beta in its textbook min/max form, on any explicit tree: minimax's value of
    ``node`` if it lies inside the window (alpha, beta), else a bound (all a parent needs).

    ``alpha`` is what the maximising side is already sure of, ``beta`` what the
    minimising side is sure of. A maximising node raises alpha with each child's value,
    a minimising node lowers beta; once alpha >= beta the opponent will never let play
    reach this node, so its other children are skipped (a cutoff). A value at or below
    the alpha it was entered with is an ``upper`` bound (the node is worth at most
    that), one at or above beta a ``lower`` bound, one in between ``exact``.

    ``children(node)`` lists a node's children (none: a leaf, scored ``leaf_value(node)``)
    and ``maximising(node)`` says whose turn it is. ``log``, if given, receives one dict
    per visited node in visiting order: ``node``, the ``window`` it was entered with,
    ``max``, and on return its ``value`` and ``bound``. The game tree of notebook 06
    (``GameTree.alphabeta``) and the textbook tree of numbers (``alphabeta_trace``) are
    searched by this one function.
    """
    entry = {"node": node, "window": (alpha, beta), "max": maximising(node)}
    if log is not None:
        log.append(entry)
    below = children(node)
    if not below:
        entry.update(value=leaf_value(node), bound="exact")
        return entry["value"]
    best = -math.inf if entry["max"] else math.inf
    for child in below:
        value = alphabeta_minmax(child, children, leaf_value, maximising, alpha, beta, log)
        if entry["max"]:
            best, alpha = max(best, value), max(alpha, value)
        else:
            best, beta = min(best, value), min(beta, value)
        if alpha >= beta:
            break                            # cutoff
    low, high = entry["window"]
    entry.update(value=best, bound="upper" if best <= low else
                 "lower" if best >= high else "exact")
    return best


def alphabeta_trace(tree, alpha: float = -math.inf, beta: float = math.inf,
                    maximise: bool = True, path: tuple = ()) -> list[dict]:
    """``alphabeta_minmax`` on a textbook tree of nested lists (a number is a leaf, the
    root maximises), node by node: each visited node's ``path`` (child indices from the
    root), the ``window`` it was entered with, ``max``, its ``value`` and ``bound``.
    Children never visited are left out; the first entry is the root.
    """
    def children(node):
        where, subtree, turn = node
        if not isinstance(subtree, (list, tuple)):
            return []
        return [(where + (i,), child, not turn) for i, child in enumerate(subtree)]

    log = []
    alphabeta_minmax((path, tree, maximise), children, lambda node: node[1],
                     lambda node: node[2], alpha, beta, log)
    return [{"path": e["node"][0], "window": e["window"], "max": e["max"],
             "value": e["value"], "bound": e["bound"]} for e in log]
