"""experiments.tournament: the score matrix is each side's score and skips empty pairs."""
from chesslab.experiments import tournament


def test_score_matrix_is_each_sides_score_and_skips_empty_pairs():
    players, matrix = tournament.score_matrix({
        "players": ["a", "b", "c"],
        "pairs": {"a vs b": {"wins": 1, "draws": 2, "losses": 1},
                  "b vs c": {"wins": 0, "draws": 0, "losses": 0}}})
    assert players == ["a", "b", "c"]
    assert matrix[0][1] == 0.5 and matrix[1][0] == 0.5
    assert matrix[1][2] is None and matrix[0][2] is None and matrix[0][0] is None
