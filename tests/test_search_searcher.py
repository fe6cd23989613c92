"""Minimax, alpha-beta and the full search: same answers, mates, draws, switches."""
import random

import chess
import pytest

from chesslab.evaluators.handwritten import MaterialEvaluator, PSTEvaluator
from chesslab.matches.players import make_player
from chesslab.board.scores import MATE
from chesslab.search.searcher import SWITCHES, Searcher, search

MATERIAL, PST = MaterialEvaluator(), PSTEvaluator()
MIDDLEGAMES = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "2r3k1/pp3ppp/2n1b3/3p4/3P4/2PB1N2/P4PPP/R5K1 w - - 0 20",
    "8/5pk1/6p1/3R4/5P2/6P1/r5KP/8 w - - 0 40",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
]
MATE_IN_1 = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
MATE_IN_2 = "4kb1r/p2n1ppp/4q3/4p1B1/4P3/1Q6/PPP2PPP/2KR4 w k - 1 17"  # Qb8+ Nxb8 Rd8#


@pytest.mark.parametrize("fen", MIDDLEGAMES)
@pytest.mark.parametrize("evaluator", [MATERIAL, PST])
def test_alphabeta_returns_exactly_minimax_score(fen, evaluator):
    board = chess.Board(fen)
    minimax = search(board, evaluator, depth=2, algorithm="minimax")
    plain = search(board, evaluator, depth=2, algorithm="alphabeta")
    ordered = search(board, evaluator, depth=2, algorithm="alphabeta", ordering=True,
                     killers=True)
    assert plain.score == ordered.score == minimax.score
    assert plain.nodes < minimax.nodes
    # Minimax knows every root score; the best one is the answer.
    assert minimax.root_moves[0][1] == minimax.score
    assert len(minimax.root_moves) == board.legal_moves.count()


@pytest.mark.slow
def test_alphabeta_equals_minimax_at_depth_3():
    board = chess.Board(MIDDLEGAMES[0])
    assert (search(board, PST, depth=3, algorithm="alphabeta").score
            == search(board, PST, depth=3, algorithm="minimax").score)


@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta", "full"])
def test_mate_in_one(algorithm):
    result = search(chess.Board(MATE_IN_1), MATERIAL, depth=2, algorithm=algorithm)
    assert result.move == chess.Move.from_uci("h5f7")
    assert result.score == MATE - 1 and result.mate_in == 1


@pytest.mark.parametrize("algorithm", ["alphabeta", "full"])
def test_mate_in_two_and_black_mates_are_negative(algorithm):
    board = chess.Board(MATE_IN_2)
    result = search(board, PST, depth=4, algorithm=algorithm)
    assert result.move == chess.Move.from_uci("b3b8")
    assert result.mate_in == 2 and len(result.pv) == 3
    assert board.fen() == MATE_IN_2  # the caller's board is untouched
    mirrored = search(board.mirror(), PST, depth=4, algorithm=algorithm)
    assert mirrored.score == -result.score and mirrored.mate_in == -2


def test_prefers_the_faster_mate():
    # Ra8 mates at once; slower mates exist too (the king has no escape).
    board = chess.Board("7k/6pp/8/8/8/8/5Q2/R5K1 w - - 0 1")
    result = search(board, MATERIAL, depth=4)
    assert result.mate_in == 1 and board.is_checkmate() is False
    board.push(result.move)
    assert board.is_checkmate()


def test_stalemate_is_a_draw_and_avoided_when_winning():
    stalemated = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    result = search(stalemated, MATERIAL, depth=3)
    assert result.move is None and result.score == 0
    # White must not play Qf7 (stalemate); with a queen up it should keep winning.
    board = chess.Board("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    result = search(board, PST, depth=3)
    board.push(result.move)
    assert not board.is_stalemate()
    assert result.score > 500


def test_repetition_scores_as_draw():
    # A position that has occurred before in the game scores 0 when reached again.
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    for uci in ("a1a2", "e8d8", "a2a1", "d8e8", "a1a2", "e8d8"):
        board.push(chess.Move.from_uci(uci))
    result = search(board, MATERIAL, depth=2, algorithm="minimax")
    scores = dict(result.root_moves)
    assert scores[chess.Move.from_uci("a2a1")] == 0  # Black can repeat with ...Ke8
    assert scores[chess.Move.from_uci("a2a3")] == 500
    assert result.score == 500 and result.move != chess.Move.from_uci("a2a1")


def test_full_search_is_pruned_hard_and_agrees_on_quiet_scores():
    board = chess.Board(MIDDLEGAMES[1])
    minimax = search(board, PST, depth=3, algorithm="minimax")
    full = search(board, PST, depth=3, quiescence=False, check_extension=False,
                  null_move=False, reductions=False, futility=False)
    assert full.nodes < minimax.nodes / 5
    assert full.score == minimax.score


def test_quiescence_sees_the_recapture():
    # Qxd5?? wins a pawn at depth 1 but the queen is lost to ...Rxd5 (a defended pawn).
    board = chess.Board("3r2k1/5ppp/8/3p4/8/8/5PPP/3Q2K1 w - - 0 1")
    flat = search(board, MATERIAL, depth=1, algorithm="alphabeta")
    deep = search(board, MATERIAL, depth=1)
    assert flat.move == chess.Move.from_uci("d1d5")
    assert deep.move != chess.Move.from_uci("d1d5")


def test_time_limit_and_ties_broken_by_seed():
    board = chess.Board()
    result = search(board, PST, time_limit=0.2)
    assert result.depth >= 1 and result.move in board.legal_moves
    kiwipete = chess.Board(MIDDLEGAMES[4])
    for seconds in (0.05, 0.15, 0.3):  # interrupted in the middle of an iteration
        result = search(kiwipete, PST, time_limit=seconds)
        assert result.move in kiwipete.legal_moves and result.pv[0] == result.move
    assert kiwipete.fen() == MIDDLEGAMES[4] and not kiwipete.move_stack
    moves = {search(board, MATERIAL, depth=1, rng=random.Random(s)).move for s in range(8)}
    assert len(moves) > 1  # all 20 first moves tie under material: seeds differ


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="unknown algorithm"):
        search(chess.Board(), MATERIAL, depth=2, algorithm="negascout")
    with pytest.raises(ValueError, match="depth must be at least 1"):
        search(chess.Board(), MATERIAL, depth=0)
    with pytest.raises(TypeError, match="chess.Board"):
        search("not a board", MATERIAL, depth=1)
    with pytest.raises(TypeError, match="unknown switch razoring; the switches are ordering"):
        search(chess.Board(), MATERIAL, depth=1, razoring=True)


@pytest.mark.parametrize("kwargs, message", [
    (dict(depth="abc"), "depth must be a whole number of plies"),
    (dict(depth=2.5), "depth must be a whole number"),
    (dict(time_limit="1s"), "time_limit must be seconds"),
    (dict(time_limit=float("nan")), "time_limit must be positive"),
    (dict(node_limit=0), "node_limit must be a positive whole number")])
def test_senseless_depth_or_time_is_a_named_error(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        search(chess.Board(), MaterialEvaluator(), **kwargs)


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_each_switch_alone_keeps_the_search_right(switch):
    board = chess.Board(MATE_IN_2)
    flipped = not getattr(Searcher(PST), switch)
    result = search(board, PST, depth=4, **{switch: flipped})
    assert result.move == chess.Move.from_uci("b3b8") and result.mate_in == 2
    assert board.fen() == MATE_IN_2


@pytest.mark.parametrize("switch", ["pvs", "aspiration", "futility", "tt"])
def test_minimax_refuses_the_pruning_switches(switch):
    with pytest.raises(ValueError, match=f"minimax is the plain algorithm: no {switch}"):
        search(chess.Board(), MATERIAL, depth=1, algorithm="minimax", **{switch: True})


@pytest.mark.parametrize("fen", MIDDLEGAMES)
def test_null_windows_and_aspiration_do_not_change_the_value(fen):
    # Without what changes values (TT cutoffs, null move, reductions, futility,
    # quiescence, extensions), PVS and aspiration windows return exactly what plain
    # alpha-beta returns: they only search some moves twice.
    board = chess.Board(fen)
    exact = dict(tt=False, null_move=False, reductions=False, futility=False,
                 quiescence=False, check_extension=False)
    plain = search(board, PST, depth=3, algorithm="alphabeta").score
    for pvs in (False, True):
        for aspiration in (False, True):
            result = search(board, PST, depth=3, pvs=pvs, aspiration=aspiration, **exact)
            assert result.score == plain


def test_node_limit_is_a_budget_that_gives_the_same_answer_twice():
    board = chess.Board(MIDDLEGAMES[4])
    a = search(board, PST, node_limit=3000)
    b = search(board, PST, node_limit=3000)
    assert (a.move, a.score, a.depth, a.nodes) == (b.move, b.score, b.depth, b.nodes)
    assert 1500 < a.nodes < 3000 + 1024  # the clock is read every 1024 nodes
    assert a.move in board.legal_moves


def test_quiescence_answers_a_check_instead_of_standing_pat():
    # Nxf7+ takes a pawn with check and forks the rook: the king must step aside, then
    # Nxd8. At depth 1 both replies lie beyond the horizon. A quiescence that stands
    # pat in check (check extensions off) sees only the pawn; one that searches the
    # evasions sees the rook fall.
    board = chess.Board("3r3k/5ppp/8/4N3/8/8/5PPP/6K1 w - - 0 1")
    blind = search(board, MATERIAL, depth=1, check_extension=False)
    seen = search(board, MATERIAL, depth=1)
    assert seen.move == chess.Move.from_uci("e5f7") and seen.score == 400  # N+3P v 2P
    assert blind.score < 0                                           # N+3P v R+2P


def test_a_player_keeps_its_transposition_table_and_history_between_moves():
    board = chess.Board(MIDDLEGAMES[1])
    player = make_player("pst:3")
    player.choose_move(board)
    first = dict(player.searcher.table.entries)
    history = dict(player.searcher.orderer.history)
    assert first and history
    board.push(player.last_result.move)
    board.push(next(iter(board.legal_moves)))
    player.choose_move(board)
    kept = player.searcher.table.entries
    assert len(kept) > len(first) and all(key in kept for key in list(first)[:50])
    # Without keep_tt each search starts from an empty table.
    fresh = Searcher(PST, keep_tt=False)
    fresh.search(chess.Board(MIDDLEGAMES[1]), depth=2)
    assert fresh.table and len(fresh.table) < len(first)
    fresh.search(chess.Board(MIDDLEGAMES[0]), depth=2)
    assert all(key not in fresh.table.entries for key in first)
