"""chesslab players as UCI engines, driven by python-chess's own UCI client.

The protocol in this process (``UciEngine.handle``) for what needs no timing; the real
command (``python -m chesslab uci SPEC``) through ``chess.engine.SimpleEngine`` for the
handshake, analysis, ``go infinite``/``stop``, a player file and a game on a clock.
"""
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import chess.engine
import pytest

from needs_stockfish import needs_stockfish
from chesslab.base.stockfish import quit_engine, start_engine
from chesslab.cli.uci import main as console_main
from chesslab.matches.thinking import Limits, ReportingSearcher, score_text, thinker_for
from chesslab.matches.timecontrol import (DEFAULT_OVERHEAD, HORIZON, MAX_FRACTION,
                                          MIN_MOVE_TIME, parse_time_control, time_budget)
from chesslab.matches.uci import UciEngine
from chesslab.evaluators.registry import load_evaluator
from chesslab.matches.players import make_player
from chesslab.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-m", "chesslab", "uci"]
STOP_BOUND = 1.0       # seconds; a generous bound (measured: tens of milliseconds)

HANGS = '''NAME = "hangs"
def choose_move(board):
    while True:
        pass
'''
SLEEPS = '''import time
NAME = "sleeps"
def choose_move(board):
    time.sleep(30)             # (not a busy loop: the test's own process goes on)
    return next(iter(board.legal_moves))
'''
CHATTY = '''import chess
NAME = "chatty"
def choose_move(board):
    print("bestmove a1a1 thinking out loud")     # must not reach the GUI
    return sorted(board.legal_moves, key=chess.Move.uci)[0]
'''


def engine(spec, **kwargs):
    return chess.engine.SimpleEngine.popen_uci(COMMAND + [spec], cwd=ROOT, timeout=60,
                                               **kwargs)


class Collect:
    """A write function that keeps the lines, and waits for one."""

    def __init__(self):
        self.lines, self.event = [], threading.Event()

    def __call__(self, line):
        self.lines.append(line)
        self.event.set()

    def wait_for(self, prefix, timeout=30.0):
        end = time.time() + timeout
        while time.time() < end:
            found = [line for line in self.lines if line.startswith(prefix)]
            if found:
                return found
            time.sleep(0.01)
        raise AssertionError(f"no {prefix!r} in {self.lines}")


# ---------------------------------------------------------------- time management
def test_the_share_of_the_clock_keeps_an_overhead_a_move_and_most_of_it():
    def share(*args, **kwargs):
        return time_budget(*args, **kwargs).share
    assert share(10, 0.1) == pytest.approx(10 / HORIZON + 0.08 - DEFAULT_OVERHEAD)
    assert share(60, 0.6) > share(60, 0) > share(10, 0)
    assert share(10, 0, movestogo=1) == pytest.approx(MAX_FRACTION * (10 - DEFAULT_OVERHEAD))
    assert share(10, 0, movestogo=5) == pytest.approx(10 / 5 - DEFAULT_OVERHEAD)
    assert share(0.05, 0.0) == MIN_MOVE_TIME                # below the overhead
    for remaining in (0.2, 1, 5, 30, 300):                   # never half the clock
        assert share(remaining, 0.1) <= max(MAX_FRACTION * remaining, MIN_MOVE_TIME)
    with pytest.raises(ValueError, match="movestogo"):
        time_budget(10, 0, movestogo=0)
    with pytest.raises(TypeError, match="remaining"):
        time_budget("10")
    assert parse_time_control("60+0.6") == (60.0, 0.6)
    assert parse_time_control(" 300 ") == (300.0, 0.0)
    with pytest.raises(ValueError, match="60\\+0.6"):
        parse_time_control("1 minute")


def test_go_limits_come_from_the_side_to_moves_clock():
    """The limits a game on a clock gives (ClockPlayer: the thinker's clock_limits of
    time_budget), from the clock of the side to move; a player that just moves: the share."""
    uci = UciEngine("random", write=Collect())
    limits, problems = uci.limits("wtime 10000 btime 2000 winc 100 binc 50".split())
    expected = uci.thinker.clock_limits(time_budget(10, 0.1))
    assert (limits.seconds, limits.optimum) == (expected.seconds, expected.optimum) \
        == (time_budget(10, 0.1).share, None) and not problems
    uci.handle("position startpos moves e2e4")
    limits, _ = uci.limits("wtime 10000 btime 2000 winc 100 binc 50 movestogo 4".split())
    assert limits.seconds == pytest.approx(time_budget(2, 0.05, 4).share, abs=1e-9)
    limits, _ = uci.limits("btime 20000 movetime 300".split())      # movetime caps it
    assert limits.seconds == pytest.approx(0.3 - DEFAULT_OVERHEAD, abs=1e-9)
    limits, problems = uci.limits("movetime 500 depth 3 nodes x infinite".split())
    assert limits.infinite and limits.seconds is None and limits.depth is None
    assert problems == ["go: nodes needs a whole number, not 'x'; ignored"]



def test_on_a_clock_the_search_gets_the_optimum_and_maximum_and_mcts_the_share(monkeypatch):
    """go wtime ...: an alpha-beta player's search starts no iteration after the budget's
    optimum and abandons one at its maximum, as in a game on a clock; a movetime still
    caps it (no iteration after half of it); MCTS stops at the share."""
    budget = time_budget(60, 0.0)
    assert budget.optimum != budget.maximum / 2 and budget.maximum != budget.share
    monkeypatch.setattr(time, "perf_counter", lambda: 1000.0)   # no time passes
    uci = UciEngine("pst", write=Collect())
    searcher, seen = uci.thinker.player.searcher, []
    search = searcher.search

    def recorded(board, depth, seconds, rng, nodes=None):
        seen.append((seconds, searcher.optimum))
        return search(board, 1, seconds, rng, nodes)

    monkeypatch.setattr(searcher, "search", recorded)
    for words, expected in (("wtime 60000 btime 1000", (budget.maximum, budget.optimum)),
                            ("wtime 60000 movetime 500", (0.4, 0.2))):
        limits, problems = uci.limits(words.split())
        move = uci.thinker.think(uci.board, limits, threading.Event(), lambda line: None)
        assert move in uci.board.legal_moves and not problems
        assert seen[-1] == pytest.approx(expected, abs=1e-9)
    mcts = UciEngine("mcts:64", write=Collect())
    limits, _ = mcts.limits("wtime 60000 btime 1000".split())
    assert type(mcts.thinker).__name__ == "MCTSThinker"
    assert (limits.seconds, limits.optimum) == (budget.share, None)


# ---------------------------------------------------------------- the searcher's hooks
def test_the_reporting_searcher_searches_exactly_as_the_searcher():
    """Same moves, scores, lines and node counts at fixed depths on the bench positions."""
    lines = (ROOT / "bench" / "positions.epd").read_text().splitlines()[:8]
    evaluator = load_evaluator("pst")
    for line in lines:
        board, _ = chess.Board.from_epd(line)
        for depth in (1, 2, 3):
            plain = Searcher(evaluator).search(board, depth)
            seen = []
            hooked = ReportingSearcher(evaluator)
            hooked.on_iteration = lambda b, d, exact, n, s: seen.append((d, n))
            result = hooked.search(board, depth)
            assert (result.move, result.score, result.nodes, result.pv) == \
                (plain.move, plain.score, plain.nodes, plain.pv), (line, depth)
            assert [d for d, _ in seen] == list(range(1, depth + 1))
            assert seen[-1][1] == plain.nodes


def test_scores_are_written_as_uci_wants():
    assert score_text(35.4) == "cp 35"
    assert score_text(100_000 - 3) == "mate 2"       # side to move mates in 2
    assert score_text(-(100_000 - 2)) == "mate -1"
    assert score_text(float("inf")) == "mate 1"


def test_stop_ends_an_infinite_search_with_the_best_move_so_far():
    out = Collect()
    uci = UciEngine("pst", write=out)
    uci.handle("position startpos moves e2e4")
    uci.handle("go infinite")
    out.wait_for("info depth 3")
    assert not [line for line in out.lines if line.startswith("bestmove")]
    uci.handle("stop")
    best = out.wait_for("bestmove")[0].split()[1]
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(best) in board.legal_moves
    uci.halt()


def test_options_change_the_player_and_its_lines():
    out = Collect()
    uci = UciEngine("pst:2", write=out)
    uci.handle("setoption name MultiPV value 2")
    uci.handle("go depth 2")
    assert out.wait_for("bestmove") and uci.thinker.player.searcher.multipv == 2
    assert any(" multipv 2 " in line for line in out.lines)
    uci.handle("setoption name Move Overhead value 250")
    assert uci.overhead == 0.25
    uci.handle("setoption name Player value random")
    uci.handle("ucinewgame")
    uci.handle("position startpos moves e2e4")
    out.lines.clear()
    uci.handle("go")
    best = out.wait_for("bestmove")[0].split()[1]
    assert uci.spec == "random" and type(uci.thinker.player).__name__ == "RandomPlayer"
    assert chess.Move.from_uci(best) in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    uci.halt()


def test_a_slow_player_is_replaced_by_a_legal_move_on_time(tmp_path):
    path = tmp_path / "sleeps.py"
    path.write_text(SLEEPS)
    out = Collect()
    uci = UciEngine(str(path), write=out)
    uci.handle("go movetime 300")
    best = out.wait_for("bestmove", timeout=10)[0].split()[1]
    assert chess.Move.from_uci(best) in chess.Board().legal_moves
    assert any("did not answer within" in line for line in out.lines)


# ---------------------------------------------------------------- the real command
@pytest.fixture(scope="module")
def pst():
    with engine("pst") as e:
        yield e


def test_handshake_names_the_player_and_its_options(pst):
    assert pst.id["name"] == "chesslab pst"
    assert {"Player", "MultiPV", "Move Overhead"} <= set(pst.options)
    assert pst.options["MultiPV"].max >= 2
    pst.ping()                                           # isready -> readyok


def test_analysis_reports_each_iteration(pst):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3")
    depths = []
    with pst.analysis(board, chess.engine.Limit(depth=4)) as analysis:
        for info in analysis:
            if "depth" in info:
                depths.append(info["depth"])
                assert info["nodes"] > 0 and "time" in info and "nps" in info
                assert isinstance(info["score"].relative, chess.engine.Cp)
                line = board.copy()
                for move in info["pv"]:                   # python-chess checks legality too
                    assert move in line.legal_moves
                    line.push(move)
        best = analysis.wait()
    assert sorted(set(depths)) == [1, 2, 3, 4] == depths[:4]  # (4 again: a tie's line)
    assert best.move in board.legal_moves


def test_multipv_gives_several_lines(pst):
    infos = pst.analyse(chess.Board(), chess.engine.Limit(depth=2), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    assert len({info["pv"][0] for info in infos}) == 3
    assert infos[0]["score"].relative >= infos[2]["score"].relative


def test_go_infinite_until_stop_answers_quickly(pst):
    board = chess.Board()
    with pst.analysis(board) as analysis:
        time.sleep(1.0)
        start = time.perf_counter()
        analysis.stop()
        best = analysis.wait()
        latency = time.perf_counter() - start
    assert best.move in board.legal_moves
    assert latency < STOP_BOUND, latency


def test_a_mate_is_reported_as_mate(pst):
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")     # Ra8#
    info = pst.analyse(board, chess.engine.Limit(depth=3))
    assert info["score"].relative == chess.engine.Mate(1)
    assert info["pv"][0] == chess.Move.from_uci("a1a8")


def test_a_player_file_is_an_engine_and_its_prints_stay_off_the_pipe(tmp_path):
    path = tmp_path / "chatty.py"
    path.write_text(CHATTY)
    with engine(str(path)) as e:
        assert e.id["name"] == "chesslab chatty"              # the file's NAME
        board = chess.Board()
        for _ in range(4):
            result = e.play(board, chess.engine.Limit(time=1.0))
            assert result.move == sorted(board.legal_moves, key=chess.Move.uci)[0]
            board.push(result.move)


def test_mcts_reports_visits_and_a_score():
    board = chess.Board()
    with engine("mcts") as e:
        info = e.analyse(board, chess.engine.Limit(nodes=64))
    assert info["nodes"] >= 64 and isinstance(info["score"].relative, chess.engine.Cp)
    assert info["pv"] and info["pv"][0] in board.legal_moves


def _raw(args, lines, wait=60):
    data = b"\n".join(line if isinstance(line, bytes) else line.encode() for line in lines)
    run = subprocess.run(COMMAND + args, input=data + b"\n", capture_output=True, cwd=ROOT,
                         timeout=wait)
    run.stdout, run.stderr = run.stdout.decode(), run.stderr.decode()
    return run


def test_garbage_is_named_and_the_engine_keeps_answering():
    run = _raw(["pst"], ["uci", "", "hello world", b"\xff\xfe not utf-8",
                         "position fen not a fen", "position startpos moves e2e4 e2e4",
                         "position", "go depth x",
                         "setoption name MultiPV value 99", "setoption name Player value nosuch",
                         "setoption Hash", "setoption name Hash value 16", "isready",
                         "position startpos moves e2e4", "go depth 2", "isready", "quit"])
    out = run.stdout.splitlines()
    strings = " | ".join(line for line in out if line.startswith("info string"))
    for named in ("unknown command 'hello'", "unknown command '\ufffd\ufffd'", "fen",
                  "'e2e4' is not legal", "position", "depth needs a whole number, not 'x'",
                  "MultiPV is 1-", "nosuch", "setoption name NAME", "no option 'hash'"):
        assert named in strings, named
    assert out.count("readyok") == 2 and run.returncode == 0
    best = [line.split()[1] for line in out if line.startswith("bestmove")]
    after = chess.Board()
    after.push_uci("e2e4")           # where the bad move list stopped, and the last position
    assert len(best) == 2 and all(chess.Move.from_uci(m) in after.legal_moves for m in best)


def test_a_player_that_never_answers_still_moves_and_quits(tmp_path):
    path = tmp_path / "hangs.py"
    path.write_text(HANGS)
    run = _raw([str(path)], ["go movetime 300", "isready", "quit"])
    best = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("bestmove")]
    assert len(best) == 1 and chess.Move.from_uci(best[0]) in chess.Board().legal_moves
    assert "info string hangs " in run.stdout and "readyok" in run.stdout
    assert run.returncode == 0


def test_a_spec_that_cannot_be_made_says_so_and_another_plays():
    run = _raw(["nosuchplayer"], ["uci", "isready", "quit"])
    assert "cannot make player 'nosuchplayer'" in run.stderr
    assert "id name chesslab pst" in run.stdout and "uciok" in run.stdout
    assert "info string cannot make player 'nosuchplayer'" in run.stdout
    assert run.returncode == 0


def test_the_console_script_is_the_same_engine(monkeypatch):
    """``chesslab-uci`` (pyproject's script) reads its spec from the command line."""
    seen = []
    monkeypatch.setattr("chesslab.cli.uci.serve", seen.append)
    console_main(["pst@1s"])
    console_main([])
    console_main(["--player=players/anna.py"])            # lichess-bot's engine_options
    assert seen == ["pst@1s", "nnue", "players/anna.py"]


def test_thinkers_fit_their_players():
    assert type(thinker_for(make_player("pst:2"))).__name__ == "SearchThinker"
    assert type(thinker_for(make_player("random"))).__name__ == "WorkerThinker"
    assert Limits().given() is False and Limits(infinite=True).given()


def test_the_thinker_reports_the_players_result():
    """MCTSThinker keeps what it played as the player's last_result (a game on a clock
    reads its score for the resign rule) and prints that score, from Black's side here."""
    board = chess.Board("4k3/pppp4/8/8/8/8/PPPPQ3/4K2R b K - 0 1")
    player = make_player("mcts:64")
    lines = []
    move = thinker_for(player).think(board, Limits(nodes=64), threading.Event(), lines.append)
    r = player.last_result
    assert r.move == move and r.pv[0] == move and r.score >= 1000
    assert f"score cp {-round(r.score)}" in lines[-1]


# ---------------------------------------------------------------- a game on a clock
@pytest.mark.slow
@pytest.mark.stockfish
@needs_stockfish
def test_a_game_on_a_clock_against_stockfish_never_flags():
    """10+0.1 each, our clock charged with the time each move really took (the pipe
    included); Stockfish at its weakest so the game is a game."""
    base, inc = 10.0, 0.1
    clocks = {chess.WHITE: base, chess.BLACK: base}
    ours = engine("nnue")
    stockfish = start_engine()
    try:
        stockfish.configure({"UCI_LimitStrength": True,
                             "UCI_Elo": stockfish.options["UCI_Elo"].min, "Threads": 1})
        board, lowest = chess.Board(), base
        while board.outcome(claim_draw=True) is None and board.ply() < 160:
            player = ours if board.turn == chess.WHITE else stockfish
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], white_inc=inc,
                                       black_clock=clocks[chess.BLACK], black_inc=inc)
            start = time.perf_counter()
            move = player.play(board, limit).move
            clocks[board.turn] -= time.perf_counter() - start
            if board.turn == chess.WHITE:
                lowest = min(lowest, clocks[chess.WHITE])
                assert clocks[chess.WHITE] > 0, f"flagged at ply {board.ply()}"
            clocks[board.turn] += inc
            assert move in board.legal_moves
            board.push(move)
    finally:
        ours.quit()
        quit_engine(stockfish)
    print(f"plies {board.ply()}, lowest clock {lowest:.2f} s")
    assert board.ply() >= 20
