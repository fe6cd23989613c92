"""widgets.explorer: the search explorer steps, goes back and shows why each node ended
(headless: the widgets without a browser; tests/browser drives one)."""
import pytest

pytest.importorskip("ipywidgets")
from chesslab.widgets import explorer  # noqa: E402

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
CAPTURES = "r1b1k2r/ppp2ppp/2n5/3qp3/1b1P4/2N2N2/PP3PPP/R1BQKB1R w KQkq - 0 8"


def test_search_explorer_steps_and_goes_back():
    shown = explorer.explore_search(ITALIAN, "material", depth=2, algorithm="alphabeta")
    record = shown.record
    assert shown.position == 1 and shown.visited == 1 and shown.current == 0
    assert shown.tree.value.count("<rect") == 1                   # the root alone
    shown.step()
    assert shown.visited == 2 and shown.current == record.root.children[0]
    assert shown.tree.value.count("<rect") == 2                   # the tree grew
    assert "positions visited 2/" in shown.status.value
    shown.step_over()                                             # the first move's subtree
    first = record.nodes[record.root.children[0]]
    assert shown.position == first.exit_step + 1 and "cut-off" not in shown.info.value
    assert "value on exit" in shown.info.value
    shown.back()
    assert shown.position == first.exit_step and shown.current == first.children[-1]
    shown.select(first.index)
    assert "being searched" in shown.info.value
    shown.run_to_end()
    assert shown.visited == len(record.nodes) and "why it ended" in shown.info.value
    cut = record.cutoffs()[0]
    shown.select(cut.index)
    assert "cut-off by" in shown.info.value and "pruned" in shown.info.value
    assert 'class="node-pruned"' in shown.tree.value and "<svg" in shown.board_view.value
    up = next(b for b in shown.node_buttons if b.layout.display != "none")
    up.click()                                                     # a node button selects
    assert shown.selected != cut.index
    assert shown.selected in [n.index for n in record.path(cut.index)]
    shown.restart()
    assert shown.position == 1


def test_search_explorer_takes_the_full_search_switches():
    plain = explorer.explore_search(CAPTURES, "pst", depth=2, algorithm="full")
    unordered = explorer.explore_search(CAPTURES, "pst", depth=2, algorithm="full",
                                        ordering=False)
    assert "ordering=False" in unordered.describe()
    assert len(plain.record.nodes) != len(unordered.record.nodes)
    assert plain.record.root.value == unordered.record.root.value
    deeper = explorer.explore_search(CAPTURES, "pst", depth=3, algorithm="full")
    deeper.run_to_end()
    for reason, shown in (("futility", "not searched"), ("stand pat", "stand pat"),
                          ("tt", "transposition table"), ("reverse futility", "far above")):
        node = next(n for n in deeper.record.nodes if n.reason == reason)
        deeper.select(node.index)
        assert shown in deeper.info.value
    with pytest.raises(ValueError, match="not a valid FEN"):
        explorer.explore_search("not a fen")
