"""The clock: when iterative deepening stops, and which limits make sense."""
import pytest

from chesslab.search.clock import Clock, OutOfTime, check_limits


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


@pytest.mark.parametrize("kwargs, error", [
    (dict(depth=True), TypeError), (dict(time_limit=0), ValueError),
    (dict(node_limit=2.0), ValueError)])
def test_check_limits(kwargs, error):
    with pytest.raises(error):
        check_limits(**kwargs)
    check_limits(depth=3, time_limit=0.5, node_limit=100)
