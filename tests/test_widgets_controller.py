"""The game controller behind the notebook board (pure logic, no widgets)."""
import io
from types import SimpleNamespace

import chess
import chess.pgn
import pytest

from chesslab.widgets import controller
from chesslab.widgets.controller import CANDIDATES, GameController, GameOver, draw_sides, side_player
from chesslab.matches.specs import stockfish_spec
from scripted_players import FirstMove

FOOLS_MATE = ["f3", "e5", "g4"]           # then Qh4#


def names(squares):
    return sorted(chess.square_name(s) for s in squares)


# ---------------------------------------------------------------- clicks
def test_first_click_selects_and_lists_legal_targets():
    game = GameController()
    assert game.click("e2") == "selected"
    assert game.selected == chess.E2 and names(game.targets) == ["e3", "e4"]
    assert game.click("g1") == "selected"          # another own piece: reselect
    assert names(game.targets) == ["f3", "h3"]
    assert game.click(chess.G1) == "deselected"     # the same square again
    assert game.selected is None and game.targets == set()


@pytest.mark.parametrize("square", ["e4", "e7", "a1", "d1"])
def test_clicks_on_empty_enemy_or_stuck_pieces_are_ignored(square):
    game = GameController()
    assert game.click(square) == "ignored"
    assert game.selected is None and game.board.fen() == chess.STARTING_FEN


def test_illegal_target_is_ignored_and_keeps_the_selection():
    game = GameController()
    game.click("g1")
    assert game.click("g4") == "ignored"
    assert game.click("e7") == "ignored"            # an enemy piece it cannot reach
    assert game.selected == chess.G1 and game.board.fen() == chess.STARTING_FEN


def test_second_click_moves_and_the_turn_passes():
    game = GameController()
    game.click("e2")
    assert game.click("e4") == "moved"
    assert game.board.peek() == chess.Move.from_uci("e2e4") and game.board.turn == chess.BLACK
    assert game.selected is None
    assert game.click("e7") == "selected"            # human vs human: Black clicks now


def test_clicks_are_ignored_when_the_ai_is_to_move_or_the_game_is_over():
    game = GameController("human", FirstMove())
    game.play("e4")
    assert game.ai_to_move and not game.human_to_move
    assert game.click("e7") == "ignored" and game.click("d2") == "ignored"
    over = GameController()
    for san in FOOLS_MATE + ["Qh4#"]:
        over.play(san)
    assert over.click("e2") == "ignored" and over.click("e1") == "ignored"


@pytest.mark.parametrize("bad", ["z9", "e", 64, -1, None])
def test_bad_squares_name_the_problem(bad):
    with pytest.raises(ValueError, match="not a square"):
        GameController().click(bad)


# ---------------------------------------------------------------- promotion
PROMOTE_FEN = "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1"


@pytest.mark.parametrize("target, piece, san", [("e8", "n", "e8=N"), ("d8", chess.ROOK, "exd8=R+"),
                                                ("e8", "queen", "e8=Q+")])
def test_promotion_waits_for_the_choice(target, piece, san):
    game = GameController(fen=PROMOTE_FEN)
    game.click("e7")
    assert names(game.targets) == ["d8", "e8"]
    assert game.click(target) == "promotion"
    assert game.pending_promotion == (chess.E7, chess.parse_square(target))
    assert game.board.fen() == PROMOTE_FEN                 # nothing played yet
    assert game.click("a1") == "ignored"                   # the picker must answer first
    assert "promotion" in game.status()
    assert game.promote(piece) == "moved"
    assert game.san_moves() == [san] and game.pending_promotion is None


def test_promotion_can_be_cancelled_and_bad_choices_are_refused():
    game = GameController(fen=PROMOTE_FEN)
    with pytest.raises(ValueError, match="no promotion is waiting"):
        game.promote("q")
    game.click("e7")
    game.click("e8")
    for bad in ("k", "p", chess.KING, ""):
        with pytest.raises(ValueError, match="queen, rook, bishop or knight"):
            game.promote(bad)
    game.cancel_promotion()
    assert game.pending_promotion is None and game.board.fen() == PROMOTE_FEN
    assert game.click("e7") == "selected"


# ---------------------------------------------------------------- the AI and undo
def test_think_reads_the_decision_without_touching_the_board():
    ai = FirstMove()
    game = GameController("human", ai)
    game.play("e4")
    fen = game.board.fen()
    decision = game.think()
    assert game.board.fen() == fen and game.ply == 1
    assert decision.move == chess.Move.from_uci("a7a5") and decision.san == "a5"
    assert decision.color == chess.BLACK and decision.player == "first"
    assert (decision.score, decision.depth, decision.nodes) == (-25.0, 2, 99)
    assert [(san, score) for _, san, score in decision.candidates] == [("a5", -25.0), ("h6", 40.0)]
    assert decision.pv_san == ["a5", "a3"] and decision.pv[0] == decision.move
    assert "first played a5" in decision.summary() and "depth 2" in decision.summary()
    assert "<svg" in decision.svg()
    assert game.apply(decision) and game.last_decision is decision
    assert game.move_text() == "1. e4 a5"


def test_a_stale_search_result_is_not_shown_as_the_reason():
    class Plain:
        last_result = SimpleNamespace(move=chess.Move.from_uci("a2a3"), score=1, depth=9,
                                      nodes=1, pv=[], root_moves=[])

        def choose_move(self, board):
            return chess.Move.from_uci("h7h6")

    game = GameController("human", Plain())
    game.play("e4")
    decision = game.ai_move()
    assert decision.san == "h6" and decision.score is None and decision.depth is None
    assert decision.pv_san == ["h6"] and decision.candidates == []


def test_an_illegal_ai_move_is_reported():
    class Cheat:
        def choose_move(self, board):
            return chess.Move.from_uci("e7e4")

    game = GameController("human", Cheat())
    game.play("e4")
    with pytest.raises(RuntimeError, match="not legal"):
        game.think()
    with pytest.raises(RuntimeError, match="not an AI's turn"):
        GameController().think()


def test_a_decision_for_an_old_position_is_not_applied():
    game = GameController("human", FirstMove())
    game.play("e4")
    decision = game.think()
    game.undo()                                 # the user took the move back meanwhile
    assert not game.apply(decision) and game.ply == 0


def test_undo_takes_back_the_ai_reply_and_your_move():
    game = GameController("human", FirstMove())
    assert game.undo() == 0
    game.play("e4")
    game.ai_move()
    game.play("d4")
    game.ai_move()
    assert game.ply == 4
    assert game.undo() == 2 and game.move_text() == "1. e4 a5" and game.human_to_move
    assert game.last_decision.san == "a5"
    assert game.undo() == 2 and game.ply == 0 and game.last_decision is None


def test_undo_after_your_mating_move_takes_back_only_that_move():
    game = GameController("human", FirstMove(), fen="6k1/5ppp/8/8/8/8/8/K3R3 w - - 0 1")
    game.play("Re8#")
    assert game.over.reason == "checkmate"
    assert game.undo() == 1 and game.over is None and game.human_to_move


@pytest.mark.parametrize("white, black", [("human", "human"), (FirstMove(), FirstMove())])
def test_undo_without_exactly_one_human_takes_back_one_move(white, black):
    game = GameController(white, black)
    game.play("e4")
    game.play("e5")
    assert game.undo() == 1 and game.san_moves() == ["e4"]


def test_undo_as_black_keeps_your_side_to_move():
    game = GameController(FirstMove(), "human")
    assert game.orientation == chess.BLACK
    game.ai_move()
    game.play("e5")
    game.ai_move()
    assert game.undo() == 2 and game.ply == 1 and game.human_to_move


# ---------------------------------------------------------------- how games end
def _finish(fen=None, moves=()):
    game = GameController(fen=fen)
    for move in moves:
        game.play(move)
    return game


@pytest.mark.parametrize("game, reason, result", [
    (lambda: _finish(moves=FOOLS_MATE + ["Qh4#"]), "checkmate", "0-1"),
    (lambda: _finish("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", ["Qf7"]), "stalemate", "1/2-1/2"),
    (lambda: _finish(moves=["Nf3", "Nf6", "Ng1", "Ng8"] * 2), "threefold repetition", "1/2-1/2"),
    (lambda: _finish("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80", ["Ra2"]), "fifty-move rule", "1/2-1/2"),
    (lambda: _finish("4k3/8/8/8/8/8/3r4/4KB2 w - - 0 1", ["Kxd2"]), "insufficient material",
     "1/2-1/2"),
])
def test_each_rule_that_ends_a_game(game, reason, result):
    game = game()
    assert game.over == GameOver(result, reason, game.over.winner)
    assert reason in game.over.text().lower() and result in game.over.text()
    assert not game.human_to_move and not game.ai_to_move
    with pytest.raises(ValueError, match="the game is over"):
        game.play(next(iter(game.board.legal_moves), chess.Move.null()))


def test_the_game_goes_on_just_before_each_rule():
    assert _finish(moves=["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]).over is None
    assert _finish("4k3/8/8/8/8/8/4P3/R3K3 w - - 98 80", ["Ra2"]).over is None
    assert _finish("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80", ["e4"]).over is None   # pawn move resets


def test_resignation_and_adjudication():
    game = GameController()
    game.play("e4")
    end = game.resign()                                    # Black, to move, resigns
    assert end == GameOver("1-0", "resignation", chess.WHITE) and game.over is end
    assert game.click("e7") == "ignored" and "Resignation: White wins" in game.status()
    game.new_game()
    assert game.over is None and game.ply == 0
    assert game.adjudicate("1/2-1/2", "agreed draw").text() == "Draw by agreed draw (1/2-1/2)"
    with pytest.raises(ValueError, match="result must be one of"):
        game.adjudicate("2-0")
    limited = GameController(FirstMove(), FirstMove(), max_plies=4)
    for _ in range(4):
        assert limited.ai_to_move
        limited.ai_move()
    assert limited.over.reason == "adjudication after 4 plies" and not limited.ai_to_move


# ---------------------------------------------------------------- records
def test_move_list_and_pgn_round_trip():
    game = GameController("human", FirstMove())
    game.play("f3")
    game.ai_move()
    game.set_player(chess.BLACK, "human")
    for san in ["g4", "e5", "h3", "Qh4#"]:
        game.play(san)
    assert game.san_moves() == ["f3", "a5", "g4", "e5", "h3", "Qh4#"]
    assert game.move_rows() == ["1. f3 a5", "2. g4 e5", "3. h3 Qh4#"]
    parsed = chess.pgn.read_game(io.StringIO(game.pgn()))
    assert [m.uci() for m in parsed.mainline_moves()] == [m.uci() for m in game.board.move_stack]
    assert parsed.headers["White"] == "human" and parsed.headers["Black"] == "human"
    assert parsed.headers["Result"] == game.over.result
    assert parsed.headers["Termination"] == game.over.reason


def test_a_game_from_a_fen_numbers_its_moves_and_records_the_fen():
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    game = GameController(fen=fen)
    for san in ["e5", "Nf3", "Nc6"]:
        game.play(san)
    assert game.move_rows() == ["1... e5", "2. Nf3 Nc6"]
    assert game.move_text() == "1...e5 2. Nf3 Nc6"
    parsed = chess.pgn.read_game(io.StringIO(game.pgn()))
    assert parsed.headers["FEN"] == fen and parsed.headers["Result"] == "*"
    game.new_game()
    assert game.board.fen() == fen and game.move_rows() == []


def test_play_accepts_san_uci_and_names_illegal_moves():
    game = GameController()
    assert game.play("e2e4") == chess.Move.from_uci("e2e4")
    assert game.play("Nf6") == chess.Move.from_uci("g8f6")
    with pytest.raises(ValueError, match="not a legal move here.*legal moves:"):
        game.play("Ke3")
    with pytest.raises(ValueError, match="not a legal move"):
        game.play(chess.Move.from_uci("e4e6"))
    with pytest.raises(ValueError, match="not a valid FEN"):
        game.new_game("not a fen")


def test_square_marks_show_selection_targets_last_move_and_check():
    game = _finish(moves=["e4", "f5", "d4", "g5"])
    game.click("d1")
    marks = game.square_marks()
    assert marks[chess.D1] == {"selected"} and marks[chess.G5] == {"last"}
    assert marks[chess.H5] == {"target"} and marks[chess.E8] == set()
    assert {chess.square_name(s) for s, m in marks.items() if "target" in m} == {
        "d2", "d3", "e2", "f3", "g4", "h5"}
    game.click("h5")
    marks = game.square_marks()
    assert marks[chess.E8] == {"check"} and marks[chess.H5] == {"last"}
    assert "checkmate" in game.status().lower()


def test_flip_and_orientation_follow_the_human():
    assert GameController().orientation == chess.WHITE
    assert GameController(FirstMove(), "human").orientation == chess.BLACK
    game = GameController()
    assert game.flip() == chess.BLACK and game.flip() == chess.WHITE


def test_sides_are_drawn_at_random_but_seeded():
    draws = {seed: draw_sides("a", "b", seed) for seed in range(20)}
    assert set(draws.values()) == {("a", "b"), ("b", "a")}
    assert all(draw_sides("a", "b", seed) == draws[seed] for seed in range(20))


def test_the_default_ai_falls_back_when_no_cnn_is_trained(monkeypatch, tmp_path):
    assert controller.default_ai() == (controller.THESIS_AI, None)          # the shipped cnn.json
    import chesslab.evaluators.registry as ev
    monkeypatch.setattr(ev, "MODELS_DIR", tmp_path)
    spec, note = controller.default_ai()
    assert spec == controller.FALLBACK_AI and "cnn.json" in note and controller.THESIS_AI in note


def test_controller_wrong_inputs_are_named_errors():
    game = GameController()
    with pytest.raises(TypeError, match="play\\(\\) takes a chess.Move.*not int 12"):
        game.play(12)
    with pytest.raises(ValueError, match="max_plies must be a whole number of at least 1"):
        GameController("random", "random", max_plies=0)
    game = GameController(fen="8/P6k/8/8/8/8/8/K7 w - - 0 1")
    assert game.click("a7") == "selected" and game.click("a8") == "promotion"
    with pytest.raises(ValueError, match="promote to a queen, rook, bishop or knight.*'x'"):
        game.promote("x")
    assert game.promote("n") == "moved" and game.board.piece_at(chess.A8).symbol() == "N"


# ---------------------------------------------------------------- Stockfish at a level
@pytest.mark.stockfish
def test_stockfish_plays_at_the_chosen_level():
    if not controller.is_available("stockfish"):
        pytest.skip("Stockfish is not installed (apt-get install -y stockfish)")
    game = GameController("human", stockfish_spec(skill=0))
    try:
        assert game.players[chess.BLACK].engine.options["Skill Level"].max == 20
        game.play("e4")
        decision = game.ai_move()
        assert game.ply == 2 and decision.player == "stockfish:skill=0"
        game.set_player(chess.BLACK, stockfish_spec(elo=1500))     # the old engine quits
        assert game.names[chess.BLACK] == "stockfish:1500"
        game.play("d4")
        assert game.ai_move().player == "stockfish:1500" and game.ply == 4
        with pytest.raises(ValueError, match="skill levels are 0-20"):
            game.set_player(chess.BLACK, "stockfish:skill=21")
    finally:
        for player in game.players.values():
            if player is not None:
                player.close()


def test_a_search_player_of_the_boards_scores_its_best_candidates_exactly():
    # the explanation panel lists CANDIDATES moves: the search must keep that many exact
    player = side_player("pst:2")
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    move = player.choose_move(board)
    scored = player.last_result.root_moves
    assert len(scored) >= CANDIDATES and scored[0][0] == move
    assert [s for _, s in scored] == sorted((s for _, s in scored), reverse=True)
