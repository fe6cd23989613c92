"""Seeded fuzz of whole games: every player kind, odd start positions, odd move caps.

    nice python bench/fuzz_games.py [--games 300] [--seed 0] [--hang-seconds 30]

Game k draws (from its own seeded generator) two player specs, a start position (the
initial one, an odd FEN from ``ODD_STARTS``, a position after repeated moves, or a
random walk), a move cap and, in a third of the games, the resign rule (300 cp), and
plays ``chesslab.board.game.play_game``. It counts:

* **illegal moves**: a player answered with a move that is not legal, or changed the
  board it was handed;
* **crashes**: any other exception while making the players or playing the game;
* **hangs**: one move took longer than ``--hang-seconds`` (the move is interrupted; on
  Windows, which has no timer signal, it is counted when it ends);
* **wrong results**: the PGN's Result/Termination disagree with ``chesslab.board.rules.outcome``
  of the final board (or, for an unfinished game, it was not stopped exactly at the
  move cap as a draw, or adjudicated for the side its searches did not favour), or the
  PGN does not round-trip: written with ``matches.match.save_pgn`` and read back with
  ``datasets.records.read_games``, every game must come back with the same headers, moves
  and final position.

Fast settings (search depth 1-2, MCTS with 8 simulations, Stockfish at 10 ms a move)
keep the run to a few minutes. Exit status 1 if any count is not zero.

A robustness check, not a measurement: it writes no results file (measured results come
from ``python -m chesslab results ...``), and it stays in bench/ beside the speed
benchmarks because, like them, it is run by hand, for minutes, outside the test suite.
"""
from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

import chess

from chesslab.board.game import play_game
from chesslab.matches.match import save_pgn
from chesslab.datasets.records import read_games
from chesslab.board.rules import TERMINATION, outcome
from chesslab.matches.players import Player, make_player
from chesslab.base.stockfish import find_stockfish

#: Player kinds, at fast settings: every kind make_player knows.
FAST_PLAYERS = [
    "random", "minimax:1", "alphabeta:2", "material:2", "pst:2", "pst@0.05s", "ann:1",
    "cnn:1", "conv:1", "residual:1", "nnue:2", "nnue@0.05s", "linear:2", "bayes:1",
    "mcts:8", "mcts@0.05s",
]
STOCKFISH_PLAYERS = ["stockfish:skill=0@0.01s", "stockfish:1350@0.01s"]
#: Players slow enough (numpy forward passes per node) to get shorter games.
SLOW = {"conv:1", "residual:1", "mcts:8", "mcts@0.05s", "bayes:1"}

#: Legal but unusual starts: finished games, rule edges, promotions, castling, en passant.
ODD_STARTS = {
    "fools mate (over)": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "stalemate (over)": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "bare kings (over)": "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
    "K+B v K (over)": "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",
    "50-move rule happened": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 100 80",
    "mate on the 100th half-move": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80",
    "clock at 149 (over)": "8/8/8/4k3/8/8/2R5/4K3 w - - 149 200",
    "en passant": "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "promotions both sides": "8/1P4k1/8/8/8/8/6p1/K7 w - - 0 1",
    "underpromotion race": "1n5k/P7/8/8/8/8/p7/1N5K b - - 0 1",
    "castling both ways": "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "castling through check": "r3k2r/8/8/8/1q6/8/8/R3K2R w KQkq - 0 1",
    "black first": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "in check, one reply": "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
    "KQ v K": "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1",
    "KR v K": "8/8/8/3k4/8/8/8/R3K3 w Q - 0 1",
    "many queens": "QQQ1k3/8/8/8/8/8/8/4K3 b - - 0 1",
    "pawn endgame": "8/pp3k2/8/8/8/8/PP3K2/8 w - - 0 40",
    "same-colour bishops (over)": "8/8/3bk3/8/8/2B5/4K3/8 w - - 0 1",
}
#: Starts reached by moves (so a repetition can be in the history).
MOVE_STARTS = {
    "twofold repetition": "g1f3 g8f6 f3g1 f6g8",
    "threefold repetition (over)": "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8",
}
CAPS = [1, 2, 7, 40, 80, 160]


class Illegal(Exception):
    pass


class Hang(Exception):
    pass


class Guard(Player):
    """Wraps a player: a time limit per move, the board left alone, the move legal."""

    def __init__(self, inner, hang_seconds):
        super().__init__(inner.name, inner.seed)
        self.inner, self.hang_seconds = inner, hang_seconds

    def choose_move(self, board):
        fen, stack = board.fen(), list(board.move_stack)
        if not INTERRUPTS:                 # Windows: a slow move is seen when it ends
            start = time.perf_counter()
            move = self.inner.choose_move(board)
            if time.perf_counter() - start > self.hang_seconds:
                raise Hang("a move took too long")
        else:
            signal.setitimer(signal.ITIMER_REAL, self.hang_seconds)
            try:
                move = self.inner.choose_move(board)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        if (board.fen(), list(board.move_stack)) != (fen, stack):
            raise Illegal(f"{self.name} changed the board it was given ({fen})")
        if not isinstance(move, chess.Move) or move not in board.legal_moves:
            raise Illegal(f"{self.name} chose {move} in {fen}")
        self.last_result = getattr(self.inner, "last_result", None)   # for the resign rule
        return move

    def close(self):
        self.inner.close()


#: Whether a move can be interrupted by a timer signal (POSIX; not Windows).
INTERRUPTS = hasattr(signal, "setitimer")


def _on_alarm(signum, frame):
    raise Hang("a move took too long")


def draw_game(k: int, seed: int, players: list):
    """Game k's players, start and move cap, from its own generator."""
    rng = random.Random(f"fuzz:{seed}:{k}")
    white, black = rng.choice(players), rng.choice(players)
    kind = rng.random()
    board = chess.Board()
    if kind < 0.45:
        name = rng.choice(sorted(ODD_STARTS))
        board = chess.Board(ODD_STARTS[name])
    elif kind < 0.55:
        name = rng.choice(sorted(MOVE_STARTS))
        for uci in MOVE_STARTS[name].split():
            board.push_uci(uci)
    elif kind < 0.8:
        name = "random walk"
        for _ in range(rng.randrange(1, 120)):
            moves = list(board.legal_moves)
            if not moves or outcome(board) is not None:
                break
            board.push(rng.choice(moves))
    else:
        name = "initial position"
    cap = rng.choice(CAPS)
    if {white, black} & SLOW:
        cap = min(cap, 40)
    resign_cp = rng.choice([None, None, 300])        # a third of the games may adjudicate
    return white, black, board, name, cap, resign_cp


def check_result(game, start: chess.Board, cap: int, resign_cp=None) -> str | None:
    """What is wrong with a finished game's PGN (None if nothing)."""
    board = game.end().board()
    ended = outcome(board)
    played = len(board.move_stack) - len(start.move_stack)
    termination = game.headers["Termination"]
    if termination.startswith("adjudicated"):
        side = {"1-0": "White", "0-1": "Black"}.get(game.headers["Result"])
        if resign_cp is None or ended is not None or side is None or \
                f"see {side} {resign_cp:g}+" not in termination:
            return (f"adjudicated {game.headers['Result']} / {termination} (resign_cp "
                    f"{resign_cp}, final board {ended})")
    elif ended is not None:
        want = (ended.result(), TERMINATION[ended.termination])
        got = (game.headers["Result"], game.headers["Termination"])
        if got != want:
            return f"PGN says {got}, the final board says {want}"
    elif (game.headers["Result"], game.headers["Termination"], played) != ("1/2-1/2",
                                                                          "move cap", cap):
        return (f"unfinished after {played} plies (cap {cap}) but PGN says "
                f"{game.headers['Result']} / {game.headers['Termination']}")
    if played > cap:
        return f"{played} plies played, more than the cap {cap}"
    return None


def round_trip_problems(games, folder: Path) -> list:
    """Games that do not come back the same through save_pgn + read_games."""
    path = save_pgn(games, folder / "fuzz.pgn")
    back = read_games(path)
    if len(back) != len(games):
        return [f"wrote {len(games)} games, read back {len(back)}"]
    problems = []
    for k, (a, b) in enumerate(zip(games, back)):
        if (dict(a.headers) != dict(b.headers)
                or list(a.mainline_moves()) != list(b.mainline_moves())
                or a.end().board().fen() != b.end().board().fen()):
            problems.append(f"game {k}: {a.headers['White']} vs {a.headers['Black']} "
                            f"does not round-trip")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-seconds", type=float, default=30.0)
    parser.add_argument("--verbose", action="store_true", help="one line per game")
    args = parser.parse_args(argv)
    players = FAST_PLAYERS + (STOCKFISH_PLAYERS if find_stockfish(required=False) else [])
    if len(players) == len(FAST_PLAYERS):
        print("Stockfish not found: fuzzing without the Stockfish players")
    if INTERRUPTS:
        signal.signal(signal.SIGALRM, _on_alarm)
    counts = dict(illegal=0, crashes=0, hangs=0, wrong=0)
    notes, finished, ends, kinds = [], [], {}, {}
    start_time = time.perf_counter()
    for k in range(args.games):
        white_spec, black_spec, board, start_name, cap, resign_cp = draw_game(k, args.seed,
                                                                              players)
        made, label = [], (f"game {k}: {white_spec} vs {black_spec} from {start_name} cap "
                           f"{cap} resign {resign_cp}")
        try:
            for spec, offset in ((white_spec, 0), (black_spec, 1)):
                made.append(Guard(make_player(spec, seed=args.seed * 10_000 + 2 * k + offset),
                                  args.hang_seconds))
            game = play_game(made[0], made[1], start=board, max_plies=cap, round_=str(k),
                             resign_cp=resign_cp)
        except Illegal as exc:
            counts["illegal"] += 1
            notes.append(f"ILLEGAL {label}: {exc}")
            continue
        except Hang:
            counts["hangs"] += 1
            notes.append(f"HANG {label}")
            continue
        except Exception as exc:  # noqa: BLE001 - counting crashes is the point
            counts["crashes"] += 1
            notes.append(f"CRASH {label}: {type(exc).__name__}: {exc}\n"
                         + "".join(traceback.format_exc(limit=-3)))
            continue
        finally:
            for player in made:
                player.close()
        problem = check_result(game, board, cap, resign_cp)
        if problem:
            counts["wrong"] += 1
            notes.append(f"WRONG {label}: {problem}")
        finished.append(game)
        ends[game.headers["Termination"]] = ends.get(game.headers["Termination"], 0) + 1
        for spec in (white_spec, black_spec):
            kinds[spec] = kinds.get(spec, 0) + 1
        if args.verbose:
            print(f"{label}: {game.headers['Result']} ({game.headers['Termination']}, "
                  f"{game.headers['PlyCount']} plies)", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        trips = round_trip_problems(finished, Path(folder)) if finished else []
    counts["wrong"] += len(trips)
    notes += [f"WRONG (round trip) {t}" for t in trips]
    seconds = time.perf_counter() - start_time
    for note in notes:
        print(note)
    print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
    print("player appearances: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"games {args.games}, illegal moves {counts['illegal']}, crashes "
          f"{counts['crashes']}, hangs {counts['hangs']}, wrong results {counts['wrong']}, "
          f"seconds {seconds:.0f}")
    return 1 if any(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
