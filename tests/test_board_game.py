"""board.game: the one play loop: it records the game, asks each player on a copy, ends by
the rules, adjudicates at the move cap or when both sides agree, and names bad inputs."""
from types import SimpleNamespace

import chess
import pytest

from chesslab.board.game import Player, play_game
from chesslab.board.rules import adjudicate_draw, adjudicate_material, resign_verdict
from chesslab.matches.players import make_player

# White to move with 99 half-moves without capture or pawn move: python-chess's
# claim_draw=True calls this a draw already (any quiet move reaches 100), yet Ra8 mates.
MATE_AT_99 = "7k/8/6K1/8/8/8/8/R7 w - - 99 100"


def test_play_game_plays_the_mate_instead_of_scoring_a_draw():
    game = play_game(make_player("material:1"), make_player("random"),
                     start=chess.Board(MATE_AT_99))
    assert game.headers["Result"] == "1-0"
    assert game.headers["Termination"] == "checkmate"
    assert game.end().board().halfmove_clock == 100


class Scripted(Player):
    """Plays the given UCI moves in turn, reporting a fixed search score."""

    def __init__(self, name, moves, score=None):
        super().__init__(name)
        self.moves, self.score, self.seen = list(moves), score, []

    def choose_move(self, board):
        self.seen.append(board.fen())
        board.push(chess.Move.null())          # a player may scribble on its copy
        self.last_result = SimpleNamespace(score=self.score)
        return chess.Move.from_uci(self.moves.pop(0))


def test_play_records_the_game_and_calls_on_move_before_each_move():
    start = chess.Board()
    start.push_san("e4")
    white = Scripted("w", ["g1f3", "f3g1"])
    black = Scripted("b", ["e7e5", "b8c6"])
    calls = []
    game = play_game(white, black, start, max_plies=4,
                on_move=lambda board, move, player: calls.append((board.fen(), move, player)))
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5", "g1f3", "b8c6", "f3g1"]
    assert start.move_stack == [chess.Move.from_uci("e2e4")]   # the start is not changed
    assert [player for _, _, player in calls] == [black, white, black, white]
    assert calls[0][0] == start.fen() and calls[1][1] == chess.Move.from_uci("g1f3")
    assert black.seen[0] == start.fen()
    assert dict(game.headers) | {"Date": "-"} == {
        "Event": "?", "Site": "?", "Date": "-", "Round": "?", "White": "w", "Black": "b",
        "Result": "1/2-1/2", "Termination": "move cap", "PlyCount": "5"}


def test_the_move_cap_is_adjudicated_as_asked():
    queen_up = "4k3/8/8/8/8/8/3QK3/8 w - - 0 1"
    shuffle = ["e2e3", "e8f8", "e3e2", "f8e8"]
    for adjudicate, result in ((adjudicate_draw, "1/2-1/2"), (adjudicate_material, "1-0")):
        game = play_game(Scripted("w", shuffle[::2]), Scripted("b", shuffle[1::2]), queen_up,
                    max_plies=4, adjudicate=adjudicate)
        assert (game.headers["Result"], game.headers["Termination"]) == (result, "move cap")
    assert adjudicate_material(chess.Board("4k3/8/8/8/8/8/3PK3/8 w - - 0 1")) == "1/2-1/2"
    game = play_game(Scripted("w", []), Scripted("b", []), queen_up, max_plies=0)
    assert game.headers["PlyCount"] == "0" and game.headers["Termination"] == "move cap"


def test_the_resign_rule_needs_both_sides_to_agree():
    assert resign_verdict([600, 700, 550, 900], 500) == (
        "1-0", "adjudicated: both engines see White 500+ cp ahead")
    assert resign_verdict([-600, -700, -550, -900], 500)[0] == "0-1"
    assert resign_verdict([600, 700, 450, 900], 500) is None      # one side disagrees
    assert resign_verdict([600, 700, None, 900], 500) is None     # one reported nothing
    assert resign_verdict([600, 700, 900], 500) is None           # too few plies
    assert resign_verdict([600] * 4, None) is None                # the rule is off
    shuffle = ["e2e3", "e8f8", "e3e2", "f8e8"] * 2
    game = play_game(Scripted("w", shuffle[::2], 900), Scripted("b", shuffle[1::2], 900),
                "4k3/8/8/8/8/8/3QK3/8 w - - 0 1", resign_cp=500, resign_plies=3)
    assert game.headers["Result"] == "1-0" and game.headers["PlyCount"] == "3"


def test_play_names_bad_inputs():
    with pytest.raises(TypeError, match="a game needs players .* as black"):
        play_game(make_player("random"), "random")
    with pytest.raises(ValueError, match="start is not a FEN"):
        play_game(make_player("random"), make_player("random"), "not a fen")
    with pytest.raises(ValueError, match="max_plies .* at least 0, got -1"):
        play_game(make_player("random"), make_player("random"), max_plies=-1)
    with pytest.raises(ValueError, match="w chose the illegal move e2e5"):
        play_game(Scripted("w", ["e2e5"]), Scripted("b", []))


def test_play_names_a_bad_opening():
    random_ = make_player("random")
    with pytest.raises(ValueError) as info:
        play_game(random_, random_, opening="xyz")
    assert str(info.value) == ("opening 'xyz': 'xyz' is not a move in UCI notation "
                               "(from-square, to-square, promotion: e2e4, e7e8q)")
    with pytest.raises(ValueError) as info:
        play_game(random_, random_, opening="e2e4 e7e5 e2e4")
    after = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert str(info.value) == (f"opening 'e2e4 e7e5 e2e4': e2e4 is illegal in {after}; "
                               f"each move must be legal after the ones before it")
    with pytest.raises(TypeError, match=r"opening must be UCI moves in one string "
                                        r"\(e.g. 'e2e4 e7e5'\), not list"):
        play_game(random_, random_, opening=["e2e4"])
    game = play_game(Scripted("w", []), Scripted("b", []), opening="e2e4 e7e5", max_plies=0)
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5"]
    assert game.headers["Opening"] == "e2e4 e7e5"


class BoardGuard(Player):
    """Wraps a player; fails if the board it was handed changed or a move was illegal."""

    def __init__(self, inner):
        super().__init__(inner.name, inner.seed)
        self.inner = inner

    def choose_move(self, board):
        fen, stack = board.fen(), list(board.move_stack)
        move = self.inner.choose_move(board)
        assert (board.fen(), list(board.move_stack)) == (fen, stack)
        assert move in board.legal_moves
        return move


def test_200_seeded_random_vs_engine_games_are_legal():
    ends = set()
    for seed in range(200):
        engine = BoardGuard(make_player("alphabeta:1", seed=seed))
        rand = BoardGuard(make_player("random", seed=seed))
        white, black = (engine, rand) if seed % 2 else (rand, engine)
        game = play_game(white, black, max_plies=40)
        board = game.end().board()  # replaying the PGN checks every move again
        assert len(board.move_stack) <= 40
        ends.add(game.headers["Termination"])
    assert "move cap" in ends and "checkmate" in ends


def test_full_search_mates_random_and_pgn_names_players():
    game = play_game(make_player("material:2", seed=3), make_player("random", seed=3))
    assert game.headers["Result"] == "1-0"
    assert game.headers["Termination"] == "checkmate"
    assert (game.headers["White"], game.headers["Black"]) == ("material:2", "random")


def test_claimable_draws_and_move_cap_are_adjudicated():
    # Kings only: insufficient material ends the game at once.
    game = play_game(make_player("random"), make_player("random"),
                     start=chess.Board("8/8/3k4/8/8/3K4/8/8 w - - 0 1"))
    assert (game.headers["Result"], game.headers["Termination"]) == (
        "1/2-1/2", "insufficient material")
    game = play_game(make_player("random"), make_player("random"), max_plies=6)
    assert game.headers["Termination"] == "move cap" and game.headers["Result"] == "1/2-1/2"
    # Knights shuffling back and forth: the threefold repetition ends the game once it
    # has happened (the start position for the third time), not a move earlier.

    class Shuffler(Player):
        def choose_move(self, board):
            for uci in ("g1f3", "f3g1", "g8f6", "f6g8"):
                move = chess.Move.from_uci(uci)
                if move in board.legal_moves:
                    return move
    game = play_game(Shuffler("w"), Shuffler("b"))
    assert game.headers["Termination"] == "threefold repetition"
    assert game.headers["PlyCount"] == "8" and game.end().board().is_repetition(3)


def test_illegal_move_is_reported():
    class Cheater(Player):
        def choose_move(self, board):
            return chess.Move.from_uci("e2e5")
    with pytest.raises(ValueError, match="cheater chose the illegal move e2e5"):
        play_game(Cheater("cheater"), make_player("random"))


def test_a_decided_game_is_adjudicated_only_when_both_engines_agree():
    queen_up = chess.Board("4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
    game = play_game(make_player("material:1"), make_player("material:1", seed=1),
                     start=queen_up, resign_cp=500)
    assert game.headers["Result"] == "1-0"
    assert game.headers["Termination"].startswith("adjudicated: both engines see White")
    assert len(list(game.mainline_moves())) == 4          # four plies of agreement
    # off by default: the same game goes on (here to the move cap)
    game = play_game(make_player("material:1"), make_player("material:1", seed=1),
                     start=queen_up, max_plies=6)
    assert game.headers["Termination"] in ("move cap", "checkmate")
    # a player that reports no score (random) never agrees to anything
    game = play_game(make_player("material:1"), make_player("random"), start=queen_up,
                     resign_cp=500, max_plies=6)
    assert not game.headers["Termination"].startswith("adjudicated")


def test_the_resign_rule_accepts_players_whose_result_has_no_score():
    """A player whose last result has no centipawn score (a student's) never agrees.
    (MCTS players report one: tests/test_search_mcts.py plays their resigned games.)"""
    class Scoreless(Player):
        def choose_move(self, board):
            self.last_result = SimpleNamespace(move=None)          # no score
            return next(iter(board.legal_moves))
    queen_up = chess.Board("4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
    game = play_game(make_player("material:1"), Scoreless("scoreless"), start=queen_up,
                     resign_cp=500, max_plies=6)
    assert not game.headers["Termination"].startswith("adjudicated")
    assert len(list(game.mainline_moves())) <= 6
