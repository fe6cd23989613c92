"""scores: one convention for mates, from the evaluator to the search to the screen."""
import math

import chess
import pytest

from chesslab.board import scores
from chesslab.evaluators.registry import load_evaluator
from chesslab.search.searcher import search

FOOLS_MATE = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"      # Ra8#


def test_an_evaluator_scores_checkmate_as_infinity_from_whites_view():
    assert scores.checkmate_score(chess.Board(FOOLS_MATE)) == -math.inf
    assert scores.checkmate_score(chess.Board(MATE_IN_ONE)) is None
    for name in ("material", "pst"):
        assert load_evaluator(name).evaluate(chess.Board(FOOLS_MATE)) == -math.inf


def test_a_search_scores_a_mate_by_its_distance_and_display_reads_both():
    result = search(chess.Board(MATE_IN_ONE), "material", depth=2)
    assert result.score == scores.MATE - 1
    assert scores.mate_in(result.score) == 1 == result.mate_in
    assert scores.mate_in(-(scores.MATE - 4)) == -2
    for cp in (result.score, math.inf, -math.inf, scores.result_score("0-1")):
        assert scores.is_mate_score(cp)
    assert [scores.format_score(cp) for cp in (math.inf, -math.inf)] == ["+M", "-M"]
    assert scores.format_score(scores.result_score("0-1")) == "-M0"
    assert scores.mate_in(math.inf) is None and scores.mate_in(900) is None
    assert not scores.is_mate_score(None) and not scores.is_mate_score(scores.MATE_THRESHOLD - 1)
    assert scores.format_score(result.score) == "+M1"
    assert scores.format_score(-(scores.MATE - 4), unit="cp") == "-M2"
    assert result.describe().split("  ")[1] == "score +M1"


def test_a_score_is_written_one_way_in_pawns_or_centipawns():
    assert scores.format_score(35) == "+0.35" and scores.format_score(-120.0) == "-1.20"
    assert scores.format_score(35, unit="cp") == "+35" and scores.format_score(-0.2, unit="cp") == "+0"
    assert scores.format_score(0.2, unit="cp") == "+0" and scores.format_score(None) == "?"
    with pytest.raises(ValueError, match="unit"):
        scores.format_score(35, unit="pawn")


@pytest.mark.parametrize("result, cp", [("1-0", scores.MATE), ("0-1", -scores.MATE),
                                        ("1/2-1/2", 0), ("*", 0)])
def test_a_finished_game_scores_mate_now_or_zero(result, cp):
    assert scores.result_score(result) == cp


def test_training_labels_use_their_own_smaller_mate_scale():
    # labels are stored as int16, so their mates must fit far below the search's MATE
    assert scores.LABEL_MATE_CP < 2 ** 15 - 1 < scores.MATE_THRESHOLD
    assert not scores.is_mate_score(scores.LABEL_MATE_CP)


def test_an_evaluators_infinity_becomes_a_mate_score_for_the_side_to_move():
    from chesslab.board.scores import MATE, mate_value, white_to_side
    assert white_to_side(float("inf"), chess.WHITE, 3) == MATE - 3
    assert white_to_side(float("inf"), chess.BLACK, 3) == -(MATE - 3) == mate_value(3)
    assert white_to_side(120.0, chess.BLACK, 5) == -120.0
    assert mate_value(1) < mate_value(4) < 0          # being mated later is less bad
