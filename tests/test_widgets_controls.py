"""widgets.controls: the side selectors, Stockfish's level row and their specs."""
import chess
import pytest

controls = pytest.importorskip("chesslab.widgets.controls")   # needs ipywidgets
from chesslab.matches.specs import MAX_DEPTH  # noqa: E402


def test_side_selector_builds_specs():
    assert controls.split_spec("cnn:3@1s") == ("cnn", 3, 1.0)
    assert controls.split_spec("pst@0.5s") == ("pst", None, 0.5)
    assert controls.split_spec("stockfish:1350") == ("stockfish:1350", None, 0.0)
    seen = []
    side = controls.SideSelector(chess.BLACK, "pst@1s", ["pst", "material"], seen.append)
    deepest = max(MAX_DEPTH.values())
    assert side.spec() == f"pst:{deepest}@1s"            # time-limited: depth at its maximum
    side.seconds.value = 0
    side.depth.value = 2
    assert side.spec() == "pst:2" and seen[-1] is side
    side.name.value = "material"
    side.depth.value = 9
    assert side.spec() == "material:9"
    side.name.options = [*side.name.options, "minimax"]
    side.name.value = "minimax"                          # make_player caps minimax lower
    assert side.depth.max == MAX_DEPTH["minimax"] and side.spec() == f"minimax:{MAX_DEPTH['minimax']}"
    side.name.value = "human"
    assert side.spec() == "human"
    assert controls.split_spec("mcts:100") == ("mcts:100", None, 0.0)


# ---------------------------------------------------------------- Stockfish at a level
def test_stockfish_level_row_builds_specs():
    seen = []
    level = controls.StockfishLevel(seen.append, skill=2, elo_range=(1320, 3190))
    assert level.spec() == "stockfish:skill=2" and (level.level.min, level.level.max) == (0, 20)
    level.level.value = 5
    assert seen == ["stockfish:skill=5"]
    level.by.value = "elo"                                # the slider takes the engine's range
    assert (level.level.min, level.level.max, level.level.value) == (1320, 3190, 1320)
    assert seen[-1] == "stockfish:1320"
    level.level.value = 2000
    level.by.value = "skill"                              # each mode keeps its own value
    assert seen[-2:] == ["stockfish:2000", "stockfish:skill=5"] and len(seen) == 4
    level.by.value = "elo"
    assert seen[-1] == "stockfish:2000"
    timed = controls.StockfishLevel(seen.append, elo=1500, seconds=1)
    assert timed.spec() == "stockfish:1500@1s" and timed.by.value == "elo"


def test_side_selector_shows_depth_and_time_only_for_a_search():
    side = controls.SideSelector(chess.WHITE, "human", ["random", "pst", "stockfish:1350"],
                                       lambda _s: None)
    assert side.depth.layout.visibility == "hidden" and not side.takes_depth()
    side.name.value = "pst"
    assert side.depth.layout.visibility == side.seconds.layout.visibility == "visible"
    for name in ("random", "stockfish:1350"):
        side.name.value = name
        assert side.seconds.layout.visibility == "hidden" and side.spec() == name
