"""MCTS: visit counts, noise only at the root, legal moves only, mates, value signs,
draws (the same rule as chesslab.board.rules.outcome), tree reuse, the player spec."""
import chess
import numpy as np
import pytest

from chesslab.board.encoding import legal_indices, move_to_index, planes9_batch
import random

from chesslab.board.rules import outcome
from chesslab.matches.players import mcts_player
from chesslab.search.mcts import (LOSS_VALUE, MCTS, MCTSNode, MCTSPlayer, MCTSResult, best_index,
                                  pick_move, terminal_value, visit_policy)
from chesslab.base.files import MODELS_DIR
from chesslab.board.game import play_game
from chesslab.board.scores import MATE, mate_in
from chesslab.evaluators.neural import target_to_cp
from chesslab.evaluators.policy_value import load_policy_value
from chesslab.search.result import SearchResult
from chesslab.search import mcts as mcts_module
from chesslab.matches.players import make_player
from chesslab.evaluators.policy_value import PolicyValueNet, save_policy_value

MATE_WHITE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"      # Ra8#
MATE_BLACK = "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"      # Ra1#


@pytest.fixture(scope="module")
def net():
    return PolicyValueNet(8, 1, policy_k=8, seed=0).eval()


def _walk(node, board):
    """Every expanded node with its board."""
    yield node, board
    for move, child in zip(node.moves, node.children):
        if child is not None and child.expanded:
            b = board.copy()
            b.push(move)
            yield from _walk(child, b)


@pytest.mark.parametrize("batch_size", [1, 8])
def test_root_visits_sum_to_the_simulations(net, batch_size):
    mcts = MCTS(net, simulations=60, batch_size=batch_size)
    root = mcts.search(chess.Board())
    assert root.N.sum() == 60
    assert np.all(root.W <= root.N + 1e-9)          # no virtual loss left behind
    if batch_size > 1:
        assert mcts.network_calls < 61              # several leaves per call


def test_noise_only_at_the_root_and_once_per_search(net):
    board = chess.Board()
    mcts = MCTS(net, simulations=80, seed=3)
    root = mcts.search(board, noise=True)
    assert mcts.noise_draws == 1
    raw_priors, _ = net.evaluate(planes9_batch([board]), [legal_indices(board)])
    np.testing.assert_allclose(root.prior, raw_priors[0])        # stored priors stay clean
    assert not np.allclose(mcts._root_prior, root.prior)          # the search used noisy ones
    for node, b in _walk(root, board):
        if node is not root:                                      # no noise below the root
            priors, _ = net.evaluate(planes9_batch([b]), [legal_indices(b)])
            np.testing.assert_allclose(node.prior, priors[0], rtol=1e-5)
    mcts.search(board, noise=False)
    assert mcts.noise_draws == 1


def test_only_legal_moves_get_priors_and_visits(net):
    board = chess.Board("r3k2r/pPp2ppp/8/3pP3/8/8/P4PPP/R3K2R w KQkq d6 0 1")
    root = MCTS(net, simulations=100).search(board)
    for node, b in _walk(root, board):
        assert set(node.moves) == set(b.legal_moves)
        assert np.isclose(node.prior.sum(), 1) and len(node.prior) == len(node.moves)
    p = visit_policy(root, 1.0)
    assert np.isclose(p.sum(), 1) and len(p) == len(list(board.legal_moves))


@pytest.mark.parametrize("fen, san", [(MATE_WHITE, "Ra8#"), (MATE_BLACK, "Ra1#")])
def test_mate_in_one_found_with_few_simulations(net, fen, san):
    board = chess.Board(fen)
    player = MCTSPlayer(net, simulations=40)
    move = player.choose_move(board)
    assert board.san(move) == san
    assert player.last_result.value == 1.0          # mate scored exactly, for the mover


def test_value_sign_for_both_colours():
    # a "network" that says: the side to move is better by 0.5
    def optimist(planes, legal):
        return [np.full(len(i), 1.0 / len(i)) for i in legal], np.full(len(legal), 0.5)

    for fen in (chess.STARTING_FEN, chess.STARTING_FEN.replace(" w ", " b ")):
        # 20 simulations, 20 moves: each child once (an unvisited move has Q = 0 > -0.5)
        root = MCTS(optimist, simulations=20).search(chess.Board(fen))
        assert np.all(root.N == 1)
        # every child is good for the opponent, so bad for the player choosing it
        np.testing.assert_allclose(root.q(), -0.5)
        # one more simulation goes two plies deep: +0.5 comes back up as +0.5
        mcts = MCTS(optimist, simulations=21)
        root = mcts.search(chess.Board(fen))
        assert sorted(root.q())[-1] == 0.0                      # (-0.5 + 0.5) / 2
    white_mated = chess.Board("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1")
    black_to_move_mated = chess.Board("6k1/5ppp/8/8/8/8/5PPP/r5K1 w - - 0 1")
    assert terminal_value(white_mated) == -1.0
    assert terminal_value(black_to_move_mated) == -1.0


def test_draws_score_zero():
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    bare_kings = chess.Board("8/8/4k3/8/8/4K3/8/8 w - - 0 1")
    assert terminal_value(stalemate) == 0.0 and terminal_value(bare_kings) == 0.0
    assert terminal_value(stalemate, draw_value=-1.0) == 1.0    # Black stalemated: good for Black
    repeated = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        repeated.push_uci(uci)
    assert terminal_value(repeated) == 0.0
    stalemating = move_to_index(chess.Move.from_uci("b1b6"))

    def likes_b6(planes, legal):      # priors that push the search into Qb6 (stalemate)
        priors = [np.where(i == stalemating, 10.0, 1.0) for i in legal]
        return [p / p.sum() for p in priors], np.full(len(legal), 0.3)

    board = chess.Board("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1")
    for draw_value in (0.0, -1.0):
        root = MCTS(likes_b6, simulations=30, draw_value=draw_value).search(board)
        a = root.moves.index(chess.Move.from_uci("b1b6"))
        assert root.N[a] > 0 and root.q()[a] == draw_value


def test_the_leaf_rule_is_chesslab_game_outcome():
    """The search's fast test of a new leaf agrees with ``terminal_value`` (which asks
    ``chesslab.board.rules.outcome``) on every position of random games, both draw values:
    mates, stalemates, bare kings, repetitions and the 50-move rule included."""
    rng = random.Random(7)
    seen = set()
    shuffle = [chess.Move.from_uci(u) for u in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2]
    for game in range(60):
        board = chess.Board("8/8/4k3/8/8/4K3/4R3/8 w - - 96 80" if game % 3 == 0
                            else chess.STARTING_FEN)
        script = shuffle if game % 3 == 1 else []     # knights out and back: threefold
        for ply in range(300):
            moves = list(board.generate_legal_moves())
            for draw_value in (0.0, -1.0):
                fast = MCTS(draw_value=draw_value)._leaf_value(board, moves)
                assert fast == terminal_value(board, draw_value), board.fen()
            ended = outcome(board)
            if ended is not None:
                seen.add(ended.termination)
                break
            board.push(script[ply] if ply < len(script) else rng.choice(moves))
    assert {chess.Termination.THREEFOLD_REPETITION, chess.Termination.FIFTY_MOVES,
            chess.Termination.INSUFFICIENT_MATERIAL} <= seen


def test_tree_reuse_after_a_move(net):
    board = chess.Board()
    mcts = MCTS(net, simulations=50)
    root = mcts.search(board)
    a = int(np.argmax(root.N))
    child, kept = root.children[a], root.N[a]
    board.push(root.moves[a])
    new_root = mcts.search(board)
    assert new_root is child
    assert new_root.N.sum() == kept - 1 + 50        # the child's old visits, plus the new ones
    other = chess.Board("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1")
    assert mcts.search(other, simulations=5) is not child


def _node(visits, values, children=None):
    node = MCTSNode()
    node.expand(list(chess.Board().legal_moves)[:len(visits)], np.full(len(visits), 0.1))
    node.N[:], node.W[:] = visits, values
    if children:
        node.children = children
    return node


def test_temperature():
    root = _node([1.0, 3.0, 6.0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(visit_policy(root, 1.0), [0.1, 0.3, 0.6])
    np.testing.assert_allclose(visit_policy(root, 0), [0, 0, 1])
    hot = visit_policy(root, 2.0)
    assert hot[0] > 0.1 and hot[2] < 0.6


def test_equal_visits_go_to_the_better_mean_value_then_to_the_first_move():
    """One fixed rule, no random draw: the same tree gives the same move everywhere."""
    assert best_index(_node([4, 6, 6, 6], [4.0, 1.2, 3.0, -6.0])) == 2      # Q 0.5 > 0.2
    assert best_index(_node([4, 6, 6, 6], [4.0, 3.0, 3.0 + 1e-13, 3.0])) == 1   # a near-tie
    lost = MCTSNode()
    lost.terminal = LOSS_VALUE                   # the opponent is mated after move 0
    proven = _node([1, 6, 2], [1.0, 2.0, 0.0], children=[lost, None, None])
    assert best_index(proven) == 0               # a proven win beats more visits
    tied = _node([5, 5], [1.0, 1.0])
    np.testing.assert_allclose(visit_policy(tied, 0), [1, 0])
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert pick_move(tied, 0.0, rng) == tied.moves[0] and rng.bit_generator.state == state


def test_a_move_proven_lost_is_never_chosen_while_another_is_not():
    won = MCTSNode()
    won.terminal = -LOSS_VALUE                    # the opponent mates after move 0
    refuted = _node([9, 4, 4], [3.0, 0.0, 2.0], children=[won, None, None])
    assert best_index(refuted) == 2               # most visits, but proven lost: skipped
    np.testing.assert_allclose(visit_policy(refuted, 0), [0, 0, 1])
    assert pick_move(refuted, 0.0, np.random.default_rng(0)) == refuted.moves[2]
    assert best_index(_node([9, 4], [3.0, 0.0], children=[won, won])) == 0   # all lost
    lost = MCTSNode()
    lost.terminal = LOSS_VALUE
    assert best_index(_node([9, 4, 1], [3.0, 0.0, 0.0], children=[won, None, lost])) == 2


def test_a_real_search_that_proved_its_most_visited_move_lost_plays_another():
    """Scholar's mate threatened: the bootstrapped network's 100 simulations spend the
    most visits on ...Nf6, reach Qxf7# after it and so prove it lost. The player used to
    play it all the same (the most visited move); now the best move not proven lost."""
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3")
    player = MCTSPlayer(load_policy_value(MODELS_DIR / "policy_value_bootstrap.json"), 100,
                        seed=0)
    move = player.choose_move(board)
    root = player.mcts.root
    nf6 = root.moves.index(chess.Move.from_uci("g8f6"))
    assert root.lost_moves()[nf6] and root.N[nf6] == root.N.max()     # the trap is there
    assert not root.lost_moves()[root.moves.index(move)]
    assert player.last_result.pv[0] == move
    board.push(move)
    for reply in list(board.legal_moves):                # and it stops the mate
        board.push(reply)
        assert not board.is_checkmate()
        board.pop()


@pytest.mark.parametrize("fen, score", [
    (MATE_WHITE, MATE - 1), (MATE_BLACK, -(MATE - 1)),          # the mover mates at once
    ("8/8/8/8/8/8/5K1k/3Q4 b - - 0 1", MATE - 2),               # every Black move is mated
    ("8/8/8/k1K5/8/8/1Q6/8 b - - 0 1", MATE - 2)])
def test_a_proven_result_is_reported_as_a_mate_score(fen, score):
    player = MCTSPlayer(None, simulations=3000, batch_size=1)
    player.choose_move(chess.Board(fen))
    assert player.last_result.score == score
    assert mate_in(score) == (1 if score > 0 else -1)


def test_an_mcts_player_in_a_lost_position_reports_a_losing_score():
    """White's centipawns as a search reports them, from the played move's Q."""
    lost = chess.Board("4k3/pppp4/8/8/8/8/PPPPQ3/4K2R b K - 0 1")      # Black, a queen and a rook down
    for board, sign in ((lost, 1), (lost.mirror(), -1)):
        player = make_player("mcts:100")
        player.choose_move(board)
        result = player.last_result
        assert sign * result.score >= 1000                 # the resign rule's default margin
        assert result.score == pytest.approx(-sign * player.net.value_to_cp(result.value))


def test_an_mcts_game_in_a_hopeless_position_ends_by_the_resign_rule():
    """Both sides report a score now, so the resign rule ends the game as it ends an
    alpha-beta game (an MCTS player once reported none and games were played out)."""
    # a queen and a rook up, no quick mate (a queen up is not 1000 cp to a network whose
    # value learned Lichess's scale: it gave its score late, and games went on)
    hopeless = "8/ppk5/2p5/8/8/8/5PPP/3RQ1K1 w - - 0 1"
    for white, black in (("pst:1", "mcts:50"), ("mcts:50", "pst:1")):
        game = play_game(make_player(white), make_player(black, seed=1), start=hopeless,
                         resign_cp=1000, max_plies=60)
        assert game.headers["Result"] == "1-0"
        assert game.headers["Termination"] == "adjudicated: both engines see White 1000+ cp ahead"
        assert game.headers["PlyCount"] == "4"


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_the_reported_line_starts_with_the_move_played(net, temperature):
    """With 3 simulations most root moves tie; the line must still begin with the move
    the player chose (it once started with another of the tied moves)."""
    rng = random.Random(5)
    for _ in range(12):
        board = chess.Board()
        for _ in range(rng.randrange(0, 30)):
            if board.is_game_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        if board.is_game_over():
            continue
        player = MCTSPlayer(net, simulations=3, temperature=temperature,
                            temperature_plies=200, seed=rng.randrange(100))
        move = player.choose_move(board)
        assert player.last_result.pv[0] == move
        assert board.is_legal(move)


def test_a_search_without_elapsed_time_reports_zero_nodes_per_second_as_alpha_beta_does():
    result = MCTSResult(chess.Move.from_uci("e2e4"), [], np.zeros(0), np.zeros(0), 0.0, 10, 0.0)
    assert result.nps == 0.0 == SearchResult(None, 0, 0, 10, [], seconds=0.0).nps


def test_mcts_player_spec(tmp_path, net, monkeypatch):
    path = tmp_path / "pv.json"
    save_policy_value(net, path)
    monkeypatch.setattr(mcts_module, "DEFAULT_MODEL", path)
    spec_player = make_player("mcts:12", seed=2)
    assert isinstance(spec_player, MCTSPlayer) and spec_player.name == "mcts:12"
    assert spec_player.choose_move(chess.Board()) in chess.Board().legal_moves
    player = mcts_player(12, model=path, seed=1)
    move = player.choose_move(chess.Board())
    assert move in chess.Board().legal_moves and player.last_result.nodes == 12
    with pytest.raises(FileNotFoundError, match="train supervised"):
        mcts_player(12, model=tmp_path / "missing.json")
    with pytest.raises(ValueError, match="game is over"):
        player.choose_move(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))


@pytest.mark.parametrize("fen", ["6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
                                 "8/8/8/k1K5/8/8/1Q6/8 w - - 0 1"])
def test_a_mate_in_the_tree_proves_the_root_and_is_played(fen):
    """A mate found by a simulation proves the root won: the search stops early and the
    player plays the mating move, whatever the visit counts say."""
    board = chess.Board(fen)
    player = MCTSPlayer(None, simulations=2000, batch_size=1)
    move = player.choose_move(board)
    board.push(move)
    assert board.is_checkmate()
    assert player.mcts.root.terminal == 1.0
    assert player.last_result.nodes < 2000


def test_a_proof_ends_the_batch_and_every_simulation_counted_backs_up():
    """Once a simulation proves the root, the batch stops: the simulations counted are
    the ones backed up (the visits), not empty walks from a proven root."""
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")      # Ra8# mates
    mate = move_to_index(chess.Move.from_uci("a1a8"))

    def likes_the_mate(planes, legal):                  # the first simulation takes Ra8#
        priors = [np.where(idx == mate, 10.0, 1.0) for idx in legal]
        return [p / p.sum() for p in priors], np.zeros(len(legal))

    player = MCTSPlayer(None, simulations=100, batch_size=8, seed=0)
    player.mcts.evaluate = likes_the_mate
    assert board.san(player.choose_move(board)) == "Ra8#"
    result = player.last_result
    assert result.nodes == int(result.visits.sum()) < 8
    assert result.nodes == 1                           # the first batch's first leaf
    assert "(value +1.00, 1 simulation):" in result.describe(board)   # not "1 simulations"


@pytest.mark.parametrize("fen", ["8/8/8/8/8/8/5K1k/3Q4 b - - 0 1", "8/8/8/k1K5/8/8/1Q6/8 b - - 0 1"])
def test_a_position_where_every_move_is_mated_is_proven_lost(fen):
    board = chess.Board(fen)
    mcts = MCTS(simulations=3000, batch_size=1)
    root = mcts.search(board)
    assert root.terminal == -1.0
    assert all(child is not None and child.terminal == 1.0 for child in root.children)
    # without the proofs the same search runs every simulation and proves nothing
    plain = MCTS(simulations=300, batch_size=1, solve=False).search(board)
    assert plain.terminal is None and plain.N.sum() == 300


def test_first_play_urgency_counts_an_untried_move_below_the_node_value():
    node = mcts_module.MCTSNode()
    node.expand(["a", "b", "c"], [0.2, 0.3, 0.5])
    node.N[:] = [4, 0, 0]
    node.W[:] = [2.0, 0, 0]                     # value 0.5 so far
    np.testing.assert_allclose(node.q(node.value() - 0.3), [0.5, 0.2, 0.2])
    mcts = MCTS(fpu_reduction=0.3)
    # the tried move (Q 0.5) against untried ones at 0.2: PUCT's U decides between them
    assert mcts._select(node, node.prior) == mcts_module.puct_select(
        np.array([0.5, 0.2, 0.2]), node.N, node.prior, mcts.c_puct)
    assert MCTS(fpu_reduction=0.3)._select(node, node.prior, root=True) == mcts_module.puct_select(
        node.q(), node.N, node.prior, mcts.c_puct)


def test_the_course_mcts_player_uses_the_tuned_first_play_urgency_and_self_play_does_not():
    player = make_player("mcts:10")
    assert player.mcts.fpu_reduction == mcts_module.PLAY_FPU_REDUCTION > 0
    assert MCTSPlayer(None, 10).mcts.fpu_reduction == 0.0       # the plain algorithm


def test_the_policy_player_plays_the_networks_top_legal_move(tmp_path):
    net = PolicyValueNet(8, 1, policy_k=8, seed=3, planes="mover").eval()
    path = tmp_path / "pv.json"
    save_policy_value(net, path)
    player = make_player("policy", model=path)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    for _ in range(6):                       # both colours: the mover view flips Black
        moves, priors, _ = net.policy(board)
        move = player.choose_move(board)
        assert move == moves[int(np.argmax(priors))] and move in board.legal_moves
        board.push(move)
    with pytest.raises(ValueError, match="no simulations or time"):
        make_player("policy:3", model=path)


def test_a_side_to_move_network_in_mcts_gives_black_the_mirror_of_whites_priors():
    net = PolicyValueNet(8, 1, policy_k=8, seed=4, planes="mover").eval()
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    mirrored = board.mirror()
    root_w = MCTS(net, simulations=1).search(board)
    root_b = MCTS(net, simulations=1).search(mirrored)
    image = {chess.Move(m.from_square ^ 56, m.to_square ^ 56, m.promotion): p
             for m, p in zip(root_w.moves, root_w.prior)}
    np.testing.assert_allclose([image[m] for m in root_b.moves], root_b.prior, rtol=1e-5)
