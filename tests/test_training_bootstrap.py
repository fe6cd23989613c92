"""chesslab.training.bootstrap: the supervised start of the policy-value network from game records
(the code that trained the shipped network): training rows, the held-out split, a
resumable run."""
import io
import math

import chess
import chess.pgn
import numpy as np
import pytest

from chesslab.training import bootstrap as bootstrap_module
from chesslab.training.bootstrap import bootstrap, game_samples, split_games
from chesslab.datasets.positions import position_key
from chesslab.board.encoding import move_to_index

SCHOLARS_MATE = '[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'
UNFINISHED = '[Result "*"]\n\n1. d4 d5 *\n'


def read(text):
    return chess.pgn.read_game(io.StringIO(text))


def test_rows_learn_the_move_played_and_the_result_for_the_side_to_move():
    rows = game_samples([read(SCHOLARS_MATE), read(UNFINISHED)])
    game = read(SCHOLARS_MATE)
    moves = list(game.mainline_moves())
    assert len(rows) == len(moves) == 7                   # the unfinished game gives nothing
    board = game.board()
    for row, move in zip(rows, moves):
        assert row["fen"] == board.fen()
        assert row["legal"] == [move_to_index(m) for m in board.generate_legal_moves()]
        assert row["pi"][row["legal"].index(move_to_index(move))] == 1.0 and sum(row["pi"]) == 1
        assert row["z"] == (1.0 if board.turn == chess.WHITE else -1.0)   # White won
        board.push(move)
    assert [r["fen"] for r in game_samples([game], every=3)] == [rows[i]["fen"] for i in (0, 3, 6)]


def test_a_stockfish_label_replaces_the_result_as_value_target():
    game = read(SCHOLARS_MATE)
    after_e4 = game.next().board()                        # Black to move
    labels = {position_key(after_e4.fen()): 200}          # White's view
    rows = game_samples([game], labels=labels)
    assert rows[1]["z"] == pytest.approx(math.tanh(-200 / 400))   # Black's view
    assert rows[0]["z"] == 1.0                                    # no label: the result
    only = game_samples([game], labels=labels, labelled_only=True)
    assert [r["fen"] for r in only] == [after_e4.fen()]


def test_the_last_tenth_of_the_games_is_held_out():
    assert split_games(list(range(20))) == (list(range(18)), [18, 19])
    assert split_games([1]) == ([1], [])


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path, monkeypatch):
    monkeypatch.setattr(bootstrap_module, "DEFAULT_DATASET", tmp_path / "none.npz")  # no labels
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join([SCHOLARS_MATE] * 9 + ['[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n']))
    settings = dict(pgn=pgn, games=10, every=1, channels=4, blocks=1, batch_size=8,
                    progress=lambda line: None)
    whole = bootstrap(tmp_path / "whole.json", epochs=2, **settings)
    half = bootstrap(tmp_path / "part.json", epochs=1, **settings)
    half = [p.copy() for _, p, _ in half.parameters()]
    resumed = bootstrap(tmp_path / "part.json", epochs=2, **settings)
    weights = [(a, b, c) for (_, a, _), (_, b, _), c in
               zip(whole.parameters(), resumed.parameters(), half)]
    for a, b, _ in weights:
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, c) for a, _, c in weights)   # the second epoch learned
    notes = bootstrap_module.load_policy_value(tmp_path / "part.json").training_notes
    assert notes["epochs"] == 2 and [h["epoch"] for h in notes["history"]] == [1, 2]
    assert notes["value_target"] == "game result"
