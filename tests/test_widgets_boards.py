"""The clickable board on top of the game controller (no browser: tests/browser has one)."""
import chess
import pytest

from chesslab.widgets.controller import GameController, draw_sides
from scripted_players import FirstMove, Gate

PROMOTE_FEN = "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1"


@pytest.fixture
def boards():
    return pytest.importorskip("chesslab.widgets.boards")


def classes(game, square):
    return set(game.squares[chess.parse_square(square)]._dom_classes)


def test_widget_board_shows_pieces_marks_and_moves(boards):
    game = boards.ChessGame(GameController())
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


def test_widget_promotion_picker(boards):
    game = boards.ChessGame(GameController(fen=PROMOTE_FEN))
    assert game.promotion.layout.display == "none"
    game.click("e7")
    game.click("e8")
    assert game.promotion.layout.display == "flex"
    game.promotion_buttons[3].click()                                   # the knight
    assert game.controller.san_moves() == ["e8=N"] and game.promotion.layout.display == "none"


def test_widget_ignores_clicks_while_the_ai_thinks(boards):
    ai = Gate()
    game = boards.ChessGame(GameController("human", ai))
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


def test_widget_ai_vs_ai_moves_only_on_step_or_play(boards):
    game = boards.ChessGame(GameController(FirstMove(), FirstMove(), max_plies=6),
                                   mode="watch", delay=0)
    assert game.controller.ply == 0 and game.watch_row.layout.display == "flex"
    game.step()
    game.wait(5)
    assert game.controller.ply == 1
    game.play()
    game.wait(10)
    assert game.controller.over.reason == "adjudication after 6 plies" and not game.thinking
    assert "ChessGame(watch: White first, Black first)" == repr(game)


def test_widget_ai_opens_when_you_play_black(boards):
    game = boards.ChessGame(GameController(FirstMove(), "human"))
    assert game.wait(5) and game.controller.san_moves() == ["a3"]
    assert game.grid.children[1] is game.squares[chess.H1]             # Black at the bottom
    assert game.watch_row.layout.display == "none"


def test_widget_shows_an_ai_error_on_the_status_line(boards):
    class Broken:
        def choose_move(self, board):
            raise FileNotFoundError("model file missing")

    game = boards.ChessGame(GameController("human", Broken()))
    game.click("e2")
    game.click("e4")
    game.wait(5)
    assert "model file missing" in game.status.value and not game.thinking


# ---------------------------------------------------------------- real players
def test_play_vs_ai_with_real_players(boards):
    game = boards.play_vs_ai(ai="random", seed=3)
    assert repr(game) == "ChessGame(play: White you, Black AI)"
    game.click("d2")
    game.click("d4")
    assert game.wait(10) and game.controller.ply == 2
    match = boards.ai_vs_ai("random", "material:1", seed=5)
    white, black = draw_sides("random", "material:1", 5)
    assert match.controller.names == {chess.WHITE: white, chess.BLACK: black}
    assert f"White {white}" in match.note.value


def test_extra_controls_wait_while_the_ai_thinks(boards):
    ai = Gate()
    controls = pytest.importorskip("chesslab.widgets.controls")
    level = controls.StockfishLevel(lambda spec: None)
    game = boards.ChessGame(GameController("human", ai), controls=[level])
    assert level in game.children[1].children[1].children and not level.level.disabled
    game.click("e2")
    game.click("e4")
    assert ai.started.wait(5) and level.level.disabled and level.by.disabled
    assert game.set_player(chess.BLACK, "random") is False              # refused while busy
    ai.gate.set()
    assert game.wait(5) and not level.level.disabled
    assert game.set_player(chess.BLACK, "material:1") is True
    assert game.controller.names[chess.BLACK] == "material:1"
    side = game.sides[chess.BLACK]
    assert (side.name.value, side.depth.value, side.spec()) == ("material", 1, "material:1")
    assert game.set_player(chess.BLACK, "nonsense:1") is False
    assert "nonsense" in game.status.value and game.controller.names[chess.BLACK] == "material:1"


def test_play_vs_stockfish_without_stockfish_says_how_to_install(boards, monkeypatch,
                                                                tmp_path):
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(tmp_path / "no-stockfish-here"))
    shown = boards.play_vs_stockfish(skill=1)
    assert "chesslab-no-stockfish" in shown._dom_classes
    assert "apt-get install stockfish" in shown.value and "brew install stockfish" in shown.value
    with pytest.raises(ValueError, match="not both"):                  # a wrong call still fails
        boards.play_vs_stockfish(skill=1, elo=1500)


@pytest.mark.stockfish
def test_play_vs_stockfish_at_a_chosen_level(boards):
    from chesslab.base.stockfish import find_stockfish
    if find_stockfish(required=False) is None:
        pytest.skip("Stockfish is not installed (apt-get install -y stockfish)")
    game = boards.play_vs_stockfish(skill=0)
    try:
        assert repr(game) == "ChessGame(stockfish: White you, Black stockfish:skill=0)"
        assert "chesslab-mode-stockfish" in game._dom_classes and "skill level 0-20" in game.note.value
        game.click("e2")
        game.click("e4")
        assert game.wait(10) and game.controller.ply == 2 and "Why" in game.explain.value
        game.level.by.value = "elo"
        low = game.level.level.min
        assert game.controller.names[chess.BLACK] == f"stockfish:{low}"
        game.level.level.value = 2000
        assert game.controller.names[chess.BLACK] == "stockfish:2000"
        assert game.sides[chess.BLACK].name.value == "stockfish:2000"
        game.click("d2")
        game.click("d4")
        assert game.wait(10) and game.controller.last_decision.player == "stockfish:2000"
    finally:
        game.controller.players[chess.BLACK].close()
    black = boards.play_vs_stockfish(elo=1500, human="black")
    try:
        assert black.wait(10) and black.controller.ply == 1              # Stockfish opens
        assert black.grid.children[1] is black.squares[chess.H1] and black.level.by.value == "elo"
    finally:
        black.controller.players[chess.WHITE].close()
