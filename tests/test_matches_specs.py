"""specs: a player spec is read and written in one place."""
import math

import pytest

from chesslab.matches import specs
from chesslab.matches.specs import (EXAMPLES, MAX_DEPTH, SEARCH_ALGORITHMS, STOCKFISH_SKILL, PlayerSpec,
                                    format_spec, max_depth, parse_spec, stockfish_spec)


@pytest.mark.parametrize("text", ["random", "material:3", "pst@1s", "cnn:3@1s", "ann64:2",
                                  "mcts:300", "mcts@0.5s", "stockfish:1350",
                                  "stockfish:skill=3@0.25s", "minimax:3", "policy"])
def test_a_spec_reads_and_writes_back_the_same(text):
    assert str(parse_spec(text)) == text
    assert parse_spec(f"  {text.upper()} ") == parse_spec(text)


def test_the_parts_of_a_spec():
    spec = parse_spec("cnn:3@1.5s")
    assert (spec.name, spec.arg, spec.seconds, spec.number, spec.algorithm) == (
        "cnn", "3", 1.5, 3, "full")
    assert parse_spec("alphabeta:4").algorithm == "alphabeta"
    assert parse_spec("mcts:50").algorithm is None and parse_spec("random").number is None
    assert format_spec("pst", 3, 1.0) == "pst:3@1s" and format_spec("pst", None, None) == "pst"
    assert max_depth("minimax") == MAX_DEPTH["minimax"] < max_depth("pst") == MAX_DEPTH["full"]


@pytest.mark.parametrize("text, message", [
    ("pst:", "cannot read"), ("3pst", "cannot read"), ("pst@xs", "seconds like @1s"),
    ("pst@0s", "positive"), ("pst@infs", "positive"), ("pst@nans", "positive"),
    ("pst:two", None)])
def test_what_cannot_be_read_says_why(text, message):
    if message is None:
        with pytest.raises(ValueError, match="whole number"):
            parse_spec(text).number
        return
    with pytest.raises(ValueError, match=message):
        parse_spec(text)


def test_a_spec_is_text():
    with pytest.raises(TypeError, match="a text such as 'pst:3'"):
        parse_spec(3)
    assert parse_spec(PlayerSpec("pst", "2")) == PlayerSpec("pst", "2")


def test_stockfish_spec_names_the_level():
    assert stockfish_spec() == f"stockfish:skill={STOCKFISH_SKILL}"
    assert stockfish_spec(skill=0) == "stockfish:skill=0"
    assert stockfish_spec(elo=1500) == "stockfish:1500"
    assert stockfish_spec(elo=2000, seconds=1) == "stockfish:2000@1s"
    assert stockfish_spec(skill=20, seconds=0.25) == "stockfish:skill=20@0.25s"
    with pytest.raises(ValueError, match="not both"):
        stockfish_spec(skill=3, elo=1500)
    with pytest.raises(TypeError, match="whole number"):
        stockfish_spec(skill=2.5)
    with pytest.raises(ValueError, match="positive time"):
        stockfish_spec(seconds=0)
    assert not math.isnan(parse_spec(stockfish_spec(elo=1500, seconds=2)).seconds)


@pytest.mark.parametrize("name", ["random", *SEARCH_ALGORITHMS, "mcts", "policy", "stockfish"])
def test_every_player_that_is_not_an_evaluator_is_named_in_the_docs_and_examples(name):
    assert f"``{name}``" in specs.__doc__
    assert name in EXAMPLES and parse_spec(name).name == name
