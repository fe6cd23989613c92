"""The clock: when iterative deepening stops, what an abandoned iteration leaves, and
which limits make sense. Time is faked (a clock that reads the searcher's node count),
so every assertion is exact."""
import chess
import pytest

import chesslab.search.clock as clock_module
from chesslab.evaluators.registry import load_evaluator
from chesslab.matches.thinking import ReportingSearcher
from chesslab.search.clock import Clock, OutOfTime, check_limits
from chesslab.search.searcher import Searcher

PST = load_evaluator("pst")
#: After 1.e4 e5 2.Nf3 Nc6: pst's best move is b1c3 at depth 4 and d2d4 at depth 5.
CHANGES_ITS_MIND = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


class FakeTime:
    """``time.perf_counter`` for ``search.clock``: set by hand, or one second per
    ``per_second`` positions of ``searcher``."""

    def __init__(self, now=0.0, searcher=None, per_second=1000):
        self.now, self.searcher, self.per_second = now, searcher, per_second

    def perf_counter(self):
        if self.searcher is not None:
            return self.searcher.nodes / self.per_second
        return self.now


@pytest.fixture
def fake_time(monkeypatch):
    def install(**kwargs):
        fake = FakeTime(**kwargs)
        monkeypatch.setattr(clock_module, "time", fake)
        return fake
    return install


def test_node_budget_stops_new_iterations_at_half_and_a_started_one_at_the_limit():
    clock = Clock(node_limit=1000)
    assert clock.start_iteration(1, 5000)          # the first always runs, unlimited
    clock.check(10**9)
    assert clock.start_iteration(2, 400)
    clock.check(999)
    with pytest.raises(OutOfTime):
        clock.check(1000)
    assert not clock.start_iteration(3, 600)


def test_time_limit_sets_a_deadline_from_the_start():
    clock = Clock(time_limit=1e-9)
    assert clock.start_iteration(1, 0)
    assert not clock.start_iteration(2, 0)         # half the time is already gone
    clock = Clock(time_limit=60)
    assert clock.start_iteration(2, 0) and clock.deadline == clock.start + 60
    clock.check(10**9)


def test_no_iteration_starts_after_the_optimum_and_a_started_one_ends_at_the_maximum(
        fake_time):
    now = fake_time()
    clock = Clock(time_limit=10.0, optimum=2.0)
    now.now = 1.9
    assert clock.start_iteration(2, 0) and clock.deadline == 10.0
    clock.check(0)
    now.now = 2.1
    assert not clock.start_iteration(3, 0)          # past the optimum, far from the maximum
    now.now = 9.9
    clock.check(0)                                   # the started one goes on
    now.now = 10.1
    with pytest.raises(OutOfTime):
        clock.check(0)


def test_without_an_optimum_it_is_half_the_time_limit(fake_time):
    now = fake_time()
    assert Clock(time_limit=3.0).optimum == 1.5
    assert Clock(time_limit=3.0, optimum=7.0).optimum == 3.0     # never past the limit
    assert Clock(node_limit=10).optimum is None
    clock = Clock(time_limit=3.0)
    now.now = 1.4
    assert clock.start_iteration(2, 0)
    now.now = 1.6
    assert not clock.start_iteration(3, 0)


def iterations(board, depth):
    """Positions searched by the end of each iteration of a fixed-depth search."""
    seen = {}
    searcher = ReportingSearcher(PST)
    searcher.on_iteration = lambda b, d, exact, nodes, s: seen.__setitem__(d, nodes)
    searcher.search(board, depth)
    return seen


def test_the_search_starts_no_iteration_after_the_optimum(fake_time):
    """A fake clock of a second per thousand positions: the optimum falls inside
    iteration 4, so 4 runs to its end (the maximum is far) and 5 never starts."""
    board = chess.Board(CHANGES_ITS_MIND)
    ends = iterations(board, 4)
    searcher = ReportingSearcher(PST)
    fake_time(searcher=searcher)
    searcher.optimum = (ends[3] + ends[4]) / 2 / 1000
    result = searcher.search(board, 30, 1000.0)
    fixed = Searcher(PST).search(board, 4)
    assert (result.depth, result.nodes, result.move) == (4, ends[4], fixed.move)
    assert result.nodes == fixed.nodes


def test_the_search_abandons_an_iteration_at_the_maximum(fake_time):
    board = chess.Board(CHANGES_ITS_MIND)
    ends = iterations(board, 5)
    searcher = ReportingSearcher(PST)
    fake_time(searcher=searcher)
    maximum = (ends[4] + ends[5]) / 2 / 1000
    searcher.optimum = ends[4] / 1000                 # iteration 5 just starts
    result = searcher.search(board, 30, maximum)
    assert result.depth == 5 and ends[4] < result.nodes < ends[5]
    assert 0 < result.nodes - 1000 * maximum <= 64     # the clock is read every 64


def test_an_abandoned_iteration_plays_a_later_root_move_that_beat_the_first():
    """Iteration 5 searches depth 4's best (b1c3) first, to the end, then finds d2d4
    better; cut short after that, the search plays d2d4 with its depth-5 score, as the
    whole iteration would, not depth 4's move."""
    board = chess.Board(CHANGES_ITS_MIND)

    class Watching(Searcher):
        def _merge_partial(self, partial, done):
            self.partial = partial
            return Searcher._merge_partial(partial, done)

    searcher = Watching(PST)
    cut = searcher.search(board, 5, node_limit=12288)
    four, five = Searcher(PST).search(board, 4), Searcher(PST).search(board, 5)
    assert four.move == chess.Move.from_uci("b1c3") != five.move
    depth, settled = searcher.partial
    assert depth == 5 and [m.uci() for _, m, _ in settled] == ["d2d4", "b1c3"]
    assert cut.depth == 5 and cut.nodes < five.nodes
    assert (cut.move, cut.score, cut.pv) == (five.move, five.score, five.pv)


@pytest.mark.parametrize("kwargs, error", [
    (dict(depth=True), TypeError), (dict(time_limit=0), ValueError),
    (dict(node_limit=2.0), ValueError)])
def test_check_limits(kwargs, error):
    with pytest.raises(error):
        check_limits(**kwargs)
    check_limits(depth=3, time_limit=0.5, node_limit=100)
