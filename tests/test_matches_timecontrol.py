"""Time management on a clock: the share, the optimum and the maximum of one move
(matches.timecontrol.time_budget) for given clocks, and the optimum handed to the
search by its thinker; no timing is measured."""
import threading

import chess
import pytest

from chesslab.matches.players import make_player
from chesslab.matches.thinking import Limits, thinker_for
from chesslab.matches.timecontrol import (DEFAULT_OVERHEAD, HORIZON, INCREMENT_SHARE,
                                          MAX_FRACTION, MAXIMUM_SCALE, MIN_MOVE_TIME,
                                          OPTIMUM_SCALE, time_budget)
from chesslab.search.searcher import Searcher


def test_a_full_clock_gives_an_optimum_below_the_share_and_a_maximum_a_few_shares_above():
    usable = 60 - DEFAULT_OVERHEAD
    share = 60 / HORIZON + INCREMENT_SHARE * 0.6 - DEFAULT_OVERHEAD
    budget = time_budget(60, 0.6)
    assert budget.share == pytest.approx(share)
    assert budget.optimum == pytest.approx(OPTIMUM_SCALE * share)
    assert budget.maximum == pytest.approx(MAXIMUM_SCALE * share)
    assert budget.optimum < budget.share < budget.maximum < MAX_FRACTION * usable


def test_near_the_end_of_the_clock_the_maximum_is_a_fraction_of_what_is_left():
    usable = 1.0 - DEFAULT_OVERHEAD           # 1 s left at 60+0.6: the increment dominates
    budget = time_budget(1.0, 0.6)
    assert budget.maximum == pytest.approx(MAX_FRACTION * usable)
    assert budget.share == pytest.approx(1.0 / HORIZON + INCREMENT_SHARE * 0.6
                                         - DEFAULT_OVERHEAD)
    assert budget.share < budget.maximum
    assert budget.optimum == pytest.approx(budget.maximum / 2)   # the one-number rule


@pytest.mark.parametrize("increment", [0.0, 0.1, 0.6, 2.0])
@pytest.mark.parametrize("movestogo", [None, 1, 2, 5, 40])
def test_never_above_the_safe_fraction_and_the_optimum_leaves_room(increment, movestogo):
    for remaining in (0.05, 0.2, 0.5, 1, 3, 5, 10, 20, 60, 300, 3600):
        budget = time_budget(remaining, increment, movestogo)
        safe = max(MAX_FRACTION * (remaining - DEFAULT_OVERHEAD), MIN_MOVE_TIME)
        assert budget.maximum <= safe + 1e-12, (remaining, budget)
        assert budget.share <= budget.maximum
        assert 0 < budget.optimum <= budget.maximum / 2
        assert budget.optimum <= budget.share


def test_less_time_left_means_less_time_for_the_move():
    budgets = [time_budget(r, 0.6) for r in (60, 20, 5, 1)]
    for field in ("share", "optimum", "maximum"):
        values = [getattr(b, field) for b in budgets]
        assert values == sorted(values, reverse=True), field


def test_movestogo_is_honoured():
    usable = 10 - DEFAULT_OVERHEAD
    five = time_budget(10, 0, movestogo=5)
    assert five.share == pytest.approx(10 / 5 - DEFAULT_OVERHEAD)   # an overhead a move
    assert five.optimum == pytest.approx(OPTIMUM_SCALE * five.share)
    assert five.maximum == pytest.approx(MAX_FRACTION * usable)      # 3 fifths is too much
    last = time_budget(10, 0, movestogo=1)                           # the last move before
    assert last.maximum == pytest.approx(MAX_FRACTION * usable)      # the control: still
    assert last.optimum == pytest.approx(last.maximum / 2)           # only half the clock
    assert time_budget(10, 0.1, movestogo=HORIZON + 10) == time_budget(10, 0.1)
    assert time_budget(10, 0.1, movestogo=10).optimum > time_budget(10, 0.1).optimum


@pytest.mark.parametrize("base, increment", [(10, 0.1), (1, 0.1), (60, 0.6), (180, 2)])
def test_a_long_game_on_the_increment_keeps_a_clock_above_zero(base, increment):
    """Each move spends its whole share plus a delay the search does not see (the pipe,
    a busy machine) of most of the overhead, and less than the increment: the clock
    settles above zero instead of sliding towards it."""
    delay = 0.6 * DEFAULT_OVERHEAD
    clock, lowest = float(base), float(base)
    for _ in range(400):
        clock += increment - (time_budget(clock, increment).share + delay)
        lowest = min(lowest, clock)
    assert lowest > 0.5 * HORIZON * (DEFAULT_OVERHEAD - delay), lowest


def test_bad_clocks_are_named():
    with pytest.raises(ValueError, match="movestogo"):
        time_budget(10, 0, movestogo=0)
    with pytest.raises(TypeError, match="remaining"):
        time_budget(float("nan"))
    with pytest.raises(ValueError, match="negative"):
        time_budget(10, -1)


@pytest.mark.parametrize("caps, expected", [
    ((None, None), "the clock's optimum"),
    ((None, 1.0), "half the spec's second"),          # nnue@1s in a GUI keeps its rule
])
def test_the_optimum_reaches_the_search_within_a_specs_own_seconds(caps, expected):
    thinker = thinker_for(make_player("pst"), caps)
    searcher, seen = thinker.player.searcher, []

    def spied(board, *limits):                        # what the search would be told
        seen.append(searcher.optimum)
        return Searcher(thinker.player.evaluator).search(board, 1)

    searcher.search = spied
    thinker.think(chess.Board(), Limits(seconds=30.0, optimum=10.0), threading.Event(),
                  lambda line: None)
    if expected == "half the spec's second":
        assert seen == [0.5]
    else:
        assert 0.5 < seen[0] <= 10.0                  # the optimum less the time gone
    assert searcher.optimum is None                    # not left for the next search
