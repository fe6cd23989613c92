"""The clickable board on top of the game controller (no browser: tests/browser has one)."""
import chess
import pytest

from chesslab.play import GameController, draw_sides
from scripted_players import FirstMove, Gate

PROMOTE_FEN = "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1"


@pytest.fixture
def widget_module():
    return pytest.importorskip("chesslab.play_widget")


def classes(game, square):
    return set(game.squares[chess.parse_square(square)]._dom_classes)


def test_widget_board_shows_pieces_marks_and_moves(widget_module):
    game = widget_module.ChessGame(GameController())
    assert repr(game) == "ChessGame(play: White you, Black you)"
    assert {"chesslab-sq", "chesslab-sq-e2", "chesslab-light", "chesslab-white-piece"} <= classes(game, "e2")
    assert "chesslab-dark" in classes(game, "a1") and "chesslab-black-piece" in classes(game, "e8")
    game.click("e2")
    assert "chesslab-selected" in classes(game, "e2") and "chesslab-target" in classes(game, "e4")
    game.click("e4")
    assert game.squares[chess.E2].description.strip() == ""
    assert game.squares[chess.E4].description.startswith("\u265f")
    assert "chesslab-last" in classes(game, "e2") and "1. e4" in game.moves.value
    assert game.grid.children[1] is game.squares[chess.A8]            # White at the bottom
    game.flip()
    assert game.grid.children[1] is game.squares[chess.H1]
    game.toggle_pgn()
    assert game.pgn.layout.display == "flex" and "1. e4" in game.pgn.value


def test_widget_promotion_picker(widget_module):
    game = widget_module.ChessGame(GameController(fen=PROMOTE_FEN))
    assert game.promotion.layout.display == "none"
    game.click("e7")
    game.click("e8")
    assert game.promotion.layout.display == "flex"
    game.promotion_buttons[3].click()                                   # the knight
    assert game.controller.san_moves() == ["e8=N"] and game.promotion.layout.display == "none"


def test_widget_ignores_clicks_while_the_ai_thinks(widget_module):
    ai = Gate()
    game = widget_module.ChessGame(GameController("human", ai))
    game.click("e2")
    game.click("e4")
    assert ai.started.wait(5) and game.thinking
    assert "thinking" in game.status.value and game.new_button.disabled
    assert game.click("d2") == "ignored" and game.controller.ply == 1
    game.undo()
    assert game.controller.ply == 1                                     # refused while busy
    ai.gate.set()
    assert game.wait(5) and not game.thinking
    assert game.controller.move_text() == "1. e4 a5" and "Why a5?" in game.explain.value
    assert "a5" in game.explain.value and "<svg" in game.explain.value
    game.undo()
    assert game.controller.ply == 0


def test_widget_ai_vs_ai_moves_only_on_step_or_play(widget_module):
    game = widget_module.ChessGame(GameController(FirstMove(), FirstMove(), max_plies=6),
                                   mode="watch", delay=0)
    assert game.controller.ply == 0 and game.watch_row.layout.display == "flex"
    game.step()
    game.wait(5)
    assert game.controller.ply == 1
    game.play()
    game.wait(10)
    assert game.controller.over.reason == "adjudication after 6 plies" and not game.thinking
    assert "ChessGame(watch: White first, Black first)" == repr(game)


def test_widget_ai_opens_when_you_play_black(widget_module):
    game = widget_module.ChessGame(GameController(FirstMove(), "human"))
    assert game.wait(5) and game.controller.san_moves() == ["a3"]
    assert game.grid.children[1] is game.squares[chess.H1]             # Black at the bottom
    assert game.watch_row.layout.display == "none"


def test_widget_shows_an_ai_error_on_the_status_line(widget_module):
    class Broken:
        def choose_move(self, board):
            raise FileNotFoundError("model file missing")

    game = widget_module.ChessGame(GameController("human", Broken()))
    game.click("e2")
    game.click("e4")
    game.wait(5)
    assert "model file missing" in game.status.value and not game.thinking


# ---------------------------------------------------------------- real players
def test_play_vs_ai_with_real_players(widget_module):
    game = widget_module.play_vs_ai(ai="random", seed=3)
    assert repr(game) == "ChessGame(play: White you, Black AI)"
    game.click("d2")
    game.click("d4")
    assert game.wait(10) and game.controller.ply == 2
    match = widget_module.ai_vs_ai("random", "material:1", seed=5)
    white, black = draw_sides("random", "material:1", 5)
    assert match.controller.names == {chess.WHITE: white, chess.BLACK: black}
    assert f"White {white}" in match.note.value


def test_side_selector_builds_specs(widget_module):
    assert widget_module.split_spec("cnn:3@1s") == ("cnn", 3, 1.0)
    assert widget_module.split_spec("pst@0.5s") == ("pst", None, 0.5)
    assert widget_module.split_spec("stockfish:1350") == ("stockfish:1350", None, 0.0)
    seen = []
    side = widget_module._SideSelector(chess.BLACK, "pst@1s", ["pst", "material"], seen.append)
    assert side.spec() == "pst:8@1s"                     # time-limited: depth at its maximum
    side.seconds.value = 0
    side.depth.value = 2
    assert side.spec() == "pst:2" and seen[-1] is side
    side.name.value = "human"
    assert side.spec() == "human"
