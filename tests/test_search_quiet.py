"""Where the captures settle (chesslab.search.quiet) and MCTS reading its leaf values
there (MCTS(settle=True)): the line found, the position reached, the value backed up
with the right sign."""
import chess
import numpy as np
import pytest

from chesslab.board.scores import material_balance
from chesslab.search.mcts import MCTS, LOSS_VALUE
from chesslab.search.quiet import capture_line, quiet_leaf, settled

HANGING = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"      # Rxd5 wins a queen


def test_a_free_queen_is_taken_and_the_line_stops_there():
    board = chess.Board(HANGING)
    assert capture_line(board) == [chess.Move.from_uci("d2d5")]
    end, plies = settled(board)
    assert plies == 1 and end.fen().startswith("4k3/8/8/3R4/8/8/8/4K3 b")
    assert board.fen() == HANGING                       # the board asked is not changed


def test_no_gaining_capture_settles_where_it_is():
    # the rook can take a pawn defended by the king: the exchange loses a rook for a pawn
    board = chess.Board("4k3/4p3/8/8/8/8/4R3/4K3 w - - 0 1")
    assert capture_line(board) == []
    end, plies = settled(board)
    assert plies == 0 and end.fen() == board.fen()
    assert quiet_leaf(board).fen() == board.fen()


def test_an_exchange_is_played_out_to_its_end():
    # Rxd5 exd5: white wins a queen for a rook, black recaptures; then nothing gains
    board = chess.Board("4k3/8/4p3/3q4/8/8/3R4/4K3 w - - 0 1")
    assert [m.uci() for m in capture_line(board)] == ["d2d5", "e6d5"]
    end, plies = settled(board)
    assert plies == 2 and material_balance(end) == material_balance(board) + 900 - 500


class MaterialValue:
    """A stand-in network: uniform priors, value = material for the side to move
    (in units of 10 pawns), so a leaf's value says whether a piece hangs there."""

    def __init__(self):
        self.boards = 0

    def evaluate_boards(self, boards, move_lists):
        self.boards += len(boards)
        priors = [np.full(len(m), 1.0 / len(m)) for m in move_lists]
        values = np.array([self.value(b) for b in boards])
        return priors, values

    @staticmethod
    def value(board):
        m = material_balance(board) / 1000.0
        return m if board.turn == chess.WHITE else -m


@pytest.mark.parametrize("fen", [HANGING, "4k3/8/4p3/3q4/8/8/3R4/4K3 w - - 0 1",
                                 "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3"])
@pytest.mark.parametrize("settle", [False, True])
def test_each_leaf_backs_up_the_value_where_its_captures_stop(fen, settle):
    board = chess.Board(fen)
    net = MaterialValue()
    # a huge c_puct visits every root move once before any twice
    mcts = MCTS(net, simulations=len(list(board.legal_moves)), batch_size=1,
                settle=settle, c_puct=1e6)
    root = mcts.search(board)
    checked = 0
    for a, move in enumerate(root.moves):
        child = root.children[a]
        if root.N[a] != 1 or child is None or child.terminal is not None:
            continue
        after = board.copy()
        after.push(move)
        end, plies = settled(after) if settle else (after, 0)
        exact = mcts._leaf_value(end, list(end.legal_moves))
        value = exact if exact is not None else MaterialValue.value(end)
        expected = -(value if plies % 2 == 0 else -value)   # for the player who moved
        assert root.q()[a] == pytest.approx(expected), move.uci()
        checked += 1
    assert checked == sum(c is not None and c.terminal is None for c in root.children) >= 3


def test_settling_finds_that_a_queen_move_into_a_pawns_capture_loses_it():
    # Qd1-d5?? walks into exd5 (a pawn on e6): only the settled value sees the loss
    board = chess.Board("4k3/8/4p3/8/8/8/8/3QK3 w - - 0 1")
    move = chess.Move.from_uci("d1d5")
    q = {}
    for settle in (False, True):
        mcts = MCTS(MaterialValue(), simulations=len(list(board.legal_moves)), batch_size=1,
                    settle=settle, c_puct=1e6)
        root = mcts.search(board)
        a = root.moves.index(move)
        assert root.N[a] == 1
        q[settle] = root.q()[a]
    assert q[False] == pytest.approx(0.8) and q[True] == pytest.approx(-0.1)


def test_a_capture_line_ending_in_mate_backs_up_a_win():
    # scholar's mate on the board: a settled leaf that ends in mate is scored exactly
    board = chess.Board("r1bqkbnr/pppp1Qpp/2n5/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 3")
    assert board.is_checkmate()
    mcts = MCTS(MaterialValue(), settle=True)
    assert mcts._leaf_value(board, list(board.legal_moves)) == LOSS_VALUE
