"""The transposition table: which stored scores settle a node, mates stored from the node."""
from chesslab.search.transposition import TranspositionTable

MATE = 100000


def test_a_stored_score_settles_only_a_search_no_deeper_and_a_window_it_answers():
    tt = TranspositionTable(MATE - 1000)
    tt.store("exact", 3, 50, -100, 100, 0, "e2e4")       # inside the window: exact
    tt.store("lower", 3, 120, -100, 100, 0, "d2d4")      # reached beta: at least 120
    tt.store("upper", 3, -150, -100, 100, 0, None)       # below alpha: at most -150
    assert tt.probe("exact", 3, -500, 500, 0) == (50, "e2e4")
    assert tt.probe("exact", 4, -500, 500, 0) == (None, "e2e4")   # too shallow: move only
    assert tt.probe("lower", 2, -500, 110, 0) == (120, "d2d4")    # fails high again
    assert tt.probe("lower", 2, -500, 500, 0) == (None, "d2d4")   # the true score is unknown
    assert tt.probe("upper", 3, -140, 500, 0) == (-150, None)
    assert tt.probe("upper", 3, -200, 500, 0) == (None, None)
    assert tt.probe("missing", 1, -500, 500, 0) == (None, None)


def test_mate_scores_are_stored_from_the_node_and_the_table_is_bounded():
    tt = TranspositionTable(MATE - 1000, max_entries=2)
    # Found 3 plies from the root: mate 5 plies from there, 8 from the root.
    tt.store("mate", 5, MATE - 8, -MATE, MATE, 3, "h5f7")
    assert tt.probe("mate", 5, -MATE, MATE, 1) == (MATE - 6, "h5f7")   # met 1 ply deep
    tt.store("mated", 5, -(MATE - 8), -MATE, MATE, 3, None)
    assert tt.probe("mated", 5, -MATE, MATE, 5)[0] == -(MATE - 10)
    tt.store("third", 1, 0, -1, 1, 0, None)     # full: cleared, then stored
    assert len(tt) == 1 and tt.probe("third", 1, -1, 1, 0) == (0, None)
