"""widgets.mcts_explorer: the MCTS explorer steps, runs and goes back (headless: the
widgets without a browser; tests/browser drives one)."""
import pytest

pytest.importorskip("ipywidgets")
from chesslab.widgets import mcts_explorer  # noqa: E402

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def test_mcts_explorer_steps_runs_and_goes_back():
    shown = mcts_explorer.explore_mcts(ITALIAN, simulations=30, net="uniform")
    assert shown.done == 0 and "press Step" in shown.path_view.value
    shown.step()
    assert shown.done == 1 and "simulation 1" in shown.path_view.value
    assert "expanded:" in shown.path_view.value and "the network" in shown.path_view.value
    boxes = shown.tree.value.count("<rect")
    shown.run(9)
    assert shown.done == 10 and shown.recorder.root.N.sum() == 10
    assert shown.tree.value.count("<rect") > boxes                # the tree grew
    shown.back()
    assert shown.done == 9 and shown.recorder.root.N.sum() == 9
    shown.run_to_end()
    assert shown.done == 30 and "N=" in shown.bars.value
    shown.depth.value = 1
    assert shown.tree.value.count("<rect") <= 2 + mcts_explorer.LEVEL_WIDTH   # + the last path
    with pytest.raises(ValueError, match="'uniform'"):
        mcts_explorer.explore_mcts(ITALIAN, net="random")
