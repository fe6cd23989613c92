"""Unusual positions through every engine layer: impossible positions are refused with
the reason, positions without a move end clearly, draws by rule that still have moves
are played (a GUI asks for a move there), and nothing changes the board it is given."""
import threading
import time

import chess
import pytest

from chesslab.board.encoding import as_board
from chesslab.board.game import play_game
from chesslab.board.rules import check_position, position_problems
from chesslab.board.scores import MATE
from chesslab.evaluators.policy_value import PolicyValueNet
from chesslab.evaluators.registry import load_evaluator
from chesslab.matches.players import PolicyPlayer, RandomPlayer, SearchPlayer
from chesslab.matches.thinking import Limits, thinker_for
from chesslab.matches.uci import UciEngine
from chesslab.search.mcts import MCTS, MCTSPlayer
from chesslab.search.searcher import search
from chesslab.search.tree import GameTree

#: Impossible positions python-chess parses (and even generates moves in), with a word
#: of the reason each must be refused with.
IMPOSSIBLE = [
    ("4k3/8/8/8/4R3/8/4r3/4K3 w - - 0 1", "not to move is in check"),   # both in check
    ("4k3/8/8/8/8/8/8/4RK2 w - - 0 1", "not to move is in check"),
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"),
    ("8/8/8/8/8/8/8/4K3 w - - 0 1", "Black has no king"),
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "more than one king"),
    ("4k3/8/8/8/8/PPPPPPPP/PPPPPPPP/QQQQK3 w - - 0 1", "more than 8 pawns"),
    ("bnrbkrqn/pppppppp/8/8/8/8/PPPPPPPP/BNRBKRQN w KQkq - 0 1", "Chess960"),
]
MATED = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
#: Drawn by rule, with legal moves: 50 moves, a dead position.
DRAWN_WITH_MOVES = ["8/8/8/3k4/8/8/4R3/4K3 w - - 100 150", "8/8/8/4k3/8/8/8/4K3 b - - 0 1"]


def threefold():
    board = chess.Board()
    for uci in "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8".split():
        board.push_uci(uci)
    assert board.is_repetition(3)
    return board


def tiny_net():
    return PolicyValueNet(8, 1, policy_k=8, seed=0, planes="mover").eval()


def players():
    return [RandomPlayer(seed=1), SearchPlayer("pst", depth=2), SearchPlayer("material", 1,
            algorithm="minimax"), MCTSPlayer(None, 8), MCTSPlayer(tiny_net(), 8),
            PolicyPlayer(tiny_net())]


@pytest.mark.parametrize("fen, reason", IMPOSSIBLE)
def test_impossible_positions_are_refused_by_every_layer_with_the_reason(fen, reason):
    board = chess.Board(fen)
    assert reason in "; ".join(position_problems(board))
    with pytest.raises(ValueError, match=reason):
        check_position(board)
    with pytest.raises(ValueError, match=reason):
        as_board(fen)
    for player in players():
        with pytest.raises(ValueError, match=reason):
            player.choose_move(board)
    with pytest.raises(ValueError, match=reason):
        search(board, "material", 1)
    with pytest.raises(ValueError, match=reason):
        MCTS(simulations=4).search(board)
    with pytest.raises(ValueError, match=reason):
        play_game(RandomPlayer(), RandomPlayer(), start=fen)
    assert board.fen() == chess.Board(fen).fen()


def test_a_chess960_board_is_played_by_its_own_rules():
    board = chess.Board("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", chess960=True)
    assert not position_problems(board)
    for player in players():
        assert board.is_legal(player.choose_move(board))


@pytest.mark.parametrize("fen", [MATED, STALEMATE])
def test_no_legal_move_is_a_clear_game_over(fen):
    board = chess.Board(fen)
    for player in players():
        with pytest.raises(ValueError, match="game is over"):
            player.choose_move(board)
    assert search(board, "material", 2).move is None


@pytest.mark.parametrize("board", [threefold()] + [chess.Board(f) for f in DRAWN_WITH_MOVES],
                         ids=["threefold", "fifty moves", "kings only"])
def test_a_draw_by_rule_with_moves_left_is_played_by_every_player(board):
    """The players' own choice, not a stand-in: a GUI asks for a move there (a
    repetition or the 50-move rule draws only when claimed)."""
    before = (board.fen(), list(board.move_stack))
    for player in players():
        assert board.is_legal(player.choose_move(board))
    assert (board.fen(), list(board.move_stack)) == before


def test_the_uci_engine_plays_its_players_move_in_a_claimable_draw():
    lines = []
    uci = UciEngine("random", write=lines.append)
    uci.handle("position startpos moves g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8")
    uci.handle("go")
    uci.halt()
    assert [line for line in lines if line.startswith("info string")] == []
    assert len([line for line in lines if line.startswith("bestmove ")]) == 1
    mcts = thinker_for(MCTSPlayer(None, 8))
    move = mcts.think(threefold(), Limits(nodes=8), threading.Event(),
                      lambda line: None)
    assert move in threefold().legal_moves


def test_the_uci_engine_names_what_is_wrong_with_a_fen():
    lines = []
    uci = UciEngine("random", write=lines.append)
    uci.handle("position fen bnrbkrqn/pppppppp/8/8/8/8/PPPPPPPP/BNRBKRQN w HFhf - 0 1")
    uci.handle("position fen 4k3/8/8/8/8/8/8/4RK2 w - - 0 1")
    said = [line for line in lines if line.startswith("info string")]
    assert len(said) == 2 and "Chess960" in said[0] and "HFhf" in said[0]
    assert "not to move is in check" in said[1]
    assert uci.board == chess.Board()                  # the position is unchanged


#: Nine queens a side: captures and checks everywhere, so that even a depth-1 search with
#: quiescence does not end in any time a game has.
QUEENS = "3Q1q1Q/5Q1q/kq2qQ2/2q5/4QQ2/K4Q2/1Qq1qq2/4qQ2 w - - 0 1"


def answered_within(func, seconds=120.0):
    """func()'s value, or a failure if it has not returned after ``seconds`` (a guard
    against a search that never ends, not a measurement)."""
    box = {}
    worker = threading.Thread(target=lambda: box.setdefault("value", func()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the search did not answer"
    return box["value"]


def uci_lines_until_bestmove(lines, seconds=120.0):
    """The lines a UciEngine wrote into ``lines`` once one is its bestmove (a failure if
    none comes within ``seconds``)."""
    def bestmove():
        while not any(line.startswith("bestmove") for line in lines):
            time.sleep(0.01)
        return lines
    return answered_within(bestmove, seconds)


def test_a_time_limit_ends_even_a_first_iteration_that_would_never_end():
    board = chess.Board(QUEENS)
    result = answered_within(lambda: search(board, "material", time_limit=0.2))
    assert board.is_legal(result.move) and result.pv == [result.move]
    assert result.depth == 0                       # not even depth 1 was finished
    assert board.fen() == QUEENS
    player = SearchPlayer("pst", time_limit=0.2)
    assert board.is_legal(answered_within(lambda: player.choose_move(board)))


def test_a_tiny_time_limit_still_completes_a_normal_first_iteration():
    """Only a first iteration that overruns ``FIRST_ITERATION_SECONDS`` is cut short: a
    millisecond (``go movetime`` below the move overhead) still searches depth 1."""
    kiwipete = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    full = search(kiwipete, "pst", depth=1)
    quick = search(kiwipete, "pst", time_limit=0.001)
    assert (quick.depth, quick.move, quick.score) == (1, full.move, full.score)
    lines = []
    uci = UciEngine("pst", write=lines.append)        # reads its clock every 64 positions
    uci.handle("position fen " + kiwipete.fen())
    uci.handle("go movetime 1")
    said = uci_lines_until_bestmove(lines, 60.0)
    assert {line.split()[2] for line in said if line.startswith("info depth")} == {"1"}
    uci.halt()


def test_stop_ends_a_first_iteration_that_would_never_end():
    lines = []
    uci = UciEngine("pst", write=lines.append)
    uci.handle("position fen " + QUEENS)
    uci.handle("go infinite")
    threading.Timer(0.2, uci.handle, args=("stop",)).start()
    best = [line for line in uci_lines_until_bestmove(lines) if line.startswith("bestmove")]
    assert len(best) == 1 and chess.Board(QUEENS).is_legal(chess.Move.from_uci(best[0].split()[1]))
    uci.halt()


@pytest.mark.parametrize("spec", ["pst", "pst:2"])
def test_go_depth_0_searches_one_ply_not_forever(spec):
    """A depth below 1 means the least search, not "no depth given" (which searched
    until stop, past the spec's own depth)."""
    lines = []
    uci = UciEngine(spec, write=lines.append)
    uci.handle("position startpos")
    uci.handle("go depth 0")
    said = uci_lines_until_bestmove(lines, 60.0)
    assert {line.split()[2] for line in said if line.startswith("info depth")} == {"1"}
    uci.halt()


def test_stockfish_elo_0_is_asked_for_not_replaced_by_the_default(monkeypatch):
    import chesslab.matches.players as players_module
    asked = {}
    monkeypatch.setattr(players_module, "StockfishPlayer",
                        lambda **kwargs: asked.update(kwargs))
    players_module.make_player("stockfish:0")
    assert asked["elo"] == 0                     # Stockfish then names its own range
    players_module.make_player("stockfish")
    assert asked["elo"] == 1350


def test_a_movetime_at_or_below_the_overhead_still_leaves_half_of_it():
    """``go movetime 100`` with the default 100 ms overhead left a player one millisecond:
    a network or a student's function never answered in it and its first legal move was
    played instead; the overhead now takes at most half."""
    uci = UciEngine("random", write=lambda line: None)
    for movetime, seconds in ((100, 0.05), (30, 0.015), (0, 0.0005), (-5, 0.0005),
                              (1000, 0.9)):
        limits, problems = uci.limits(["movetime", str(movetime)])
        assert limits.seconds == pytest.approx(seconds) and not problems


@pytest.mark.parametrize("fen, value", [(MATED, -MATE), (STALEMATE, 0)])
def test_the_teaching_tree_at_a_finished_game_has_no_move_to_choose(fen, value):
    tree = GameTree(chess.Board(fen), load_evaluator("material"), depth=2)
    assert tree.alphabeta() == (None, 1)
    move, path = tree.minimax()
    assert move is None and path == [tree.root] and tree.root.value == value


def test_mcts_keeps_its_tree_only_for_the_same_game():
    """A tree grown where a line repeats the game's positions (a draw there) is not
    reused for the same FEN reached without that history: the search of a board does
    not depend on the boards searched before it."""
    game = chess.Board()
    for uci in "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6".split():
        game.push_uci(uci)                  # f3g1 f6g8 would now repeat the start thrice
    fen_only = chess.Board(game.fen())

    def visits(boards):
        player = MCTSPlayer(None, 200, seed=0, draw_value=-1.0)   # a draw is White's loss
        for board in boards:
            player.choose_move(board)
        return player.last_result.visits.tolist()

    assert visits([game, fen_only]) == visits([fen_only])
    kept = MCTSPlayer(None, 200, seed=0)
    kept.choose_move(game)
    after = game.copy()
    after.push_uci("f3g1")
    after.push_uci("f6g8")
    assert kept.mcts._reused_root(after) is not None    # two plies on in the same game
