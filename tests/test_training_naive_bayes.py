"""training.naive_bayes: the positions the chapter samples from games, the split by game,
the training data read from a PGN file."""
import io

import chess
import chess.pgn
import numpy as np
import pytest

from chesslab.datasets.records import read_games, sample_plies
from chesslab.evaluators.features import FEATURE_NAMES
from chesslab.training import naive_bayes


SCHOLAR = """[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

[Result "*"]

1. d4 d5 *

[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6
8. Ng1 Ng8 1/2-1/2
"""


def test_sampled_positions_follow_the_chapters_rule():
    stream = io.StringIO(SCHOLAR)
    games = [chess.pgn.read_game(stream) for _ in range(3)]
    boards, labels, game_ids, plies = naive_bayes.sampled_positions(games)
    # 7 plies: 6 (the last quarter, even) and 7 (the end); the unfinished game is
    # skipped; 16 plies: 6, 12 (first 75%), 14, 16.
    assert plies.tolist() == sample_plies(7) + sample_plies(16) == [6, 7, 6, 12, 14, 16]
    assert labels.tolist() == ["1-0"] * 2 + ["1/2-1/2"] * 4
    assert game_ids.tolist() == [0, 0, 2, 2, 2, 2]
    assert boards[1].is_checkmate() and boards[1].move_stack == []


def test_train_test_rows_split_by_game():
    game_ids = np.repeat(np.arange(20), 5)
    train_rows, test_rows = naive_bayes.train_test_rows(game_ids, 0.25, seed=3)
    assert not set(game_ids[train_rows]) & set(game_ids[test_rows])
    assert len(test_rows) == 25


def test_training_data_reads_only_the_first_games(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(SCHOLAR)
    assert [g.headers["Result"] for g in read_games(path, limit=2)] == ["1-0", "*"]
    X, labels, game_ids, plies = naive_bayes.load_training_data(path, max_games=1)
    assert X.shape == (2, len(FEATURE_NAMES)) and labels.tolist() == ["1-0", "1-0"]
    assert X[:, 0].tolist() == [0, 100]  # after Qxf7# White is up the f7 pawn
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_games(tmp_path / "missing.pgn", limit=1)
