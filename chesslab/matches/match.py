"""Games and matches between players: rules, scores, an Elo estimate, PGN.

``play_game`` ends a game by ``chesslab.board.game.outcome``: checkmate, stalemate,
insufficient material, the 75-move rule and fivefold repetition end a game by
themselves; a threefold repetition or 50-move draw ends it once it has happened (never
one the side to move could only claim with its next move). A game still going
after ``max_plies`` half-moves (default 400) is stopped and adjudicated a draw,
recorded in the PGN as ``Termination "move cap"`` so it can never hide as a win.

Long engine matches may also adjudicate a decided game, as engine testers do: with
``resign_cp=C`` a game ends once the engines' own searches agreed for ``resign_plies``
half-moves in a row (both sides' last moves) that one side is at least C centipawns
ahead (``Termination "adjudicated: ..."``). Off by default.

``match`` plays N games, alternating colours, each pair of games from the same
opening (a set of varied, balanced openings), and reports the score with a 95%
(Wilson) confidence interval and the Elo difference it implies.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import chess
import chess.pgn
from tqdm.auto import tqdm

from chesslab.base.files import atomic_path, check_writable
from chesslab.board.game import Player, check_max_plies, play
from chesslab.matches.players import EngineStopped, make_player

#: Short, varied, roughly balanced openings (UCI moves) so games differ.
OPENINGS = (
    "e2e4 e7e5", "d2d4 d7d5", "c2c4 e7e5", "e2e4 c7c5", "g1f3 d7d5", "e2e4 e7e6",
    "d2d4 g8f6", "e2e4 c7c6", "c2c4 g8f6", "d2d4 f7f5", "e2e4 d7d6", "b1c3 e7e5",
    "g2g3 d7d5", "e2e4 g8f6", "d2d4 e7e6", "f2f4 d7d5",
)


def play_game(white: Player, black: Player, opening: str | None = None,
              board: chess.Board | None = None, max_plies: int = 400,
              round_: str = "-", resign_cp: float | None = None,
              resign_plies: int = 4) -> chess.pgn.Game:
    """One game (``chesslab.board.game.play``) after the UCI moves of ``opening``; returns a
    PGN game whose headers name the players' specs, the round and the end."""
    check_max_plies(max_plies)
    if board is not None and not isinstance(board, chess.Board):
        raise TypeError(f"board must be a chess.Board, not {type(board).__name__}")
    board = board.copy() if board is not None else chess.Board()
    for uci in (opening or "").split():
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            raise ValueError(f"opening move {uci} is illegal in {board.fen()}")
        board.push(move)
    game = play(white, black, board, max_plies=max_plies, resign_cp=resign_cp,
                resign_plies=resign_plies)
    game.headers.update(Event="chesslab match", Site="chesslab", Round=str(round_))
    if opening:
        game.headers["Opening"] = opening
    return game


@dataclass
class MatchResult:
    """Result of ``player_a`` against ``player_b`` (wins/draws/losses are a's)."""

    player_a: str
    player_b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    games: list = field(default_factory=list, repr=False)

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, points: float) -> None:
        """Count one game by player a's points (1, 1/2 or 0)."""
        if points == 1.0:
            self.wins += 1
        elif points == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    @property
    def score(self) -> float:
        """Points per game for player a: win 1, draw 1/2."""
        return (self.wins + 0.5 * self.draws) / self.n if self.n else float("nan")

    def score_interval(self, z: float = 1.96):
        """95% confidence interval of the score (Wilson: sensible even at 0/4 or 4/4)."""
        return wilson_interval(self.wins + 0.5 * self.draws, self.n, z)

    @property
    def elo(self) -> float:
        """Elo difference implied by the score (+inf for a clean sweep)."""
        return elo_difference(self.score)

    @property
    def elo_error(self) -> float:
        """Half the width of the Elo interval from ``score_interval`` (inf if open)."""
        low, high = self.score_interval()
        return (elo_difference(high) - elo_difference(low)) / 2

    def summary(self) -> str:
        low, high = self.score_interval()
        elo = f"{self.elo + 0.0:+.0f}"  # + 0.0: no "-0" for an even score
        if math.isfinite(self.elo_error):
            elo += f" +- {self.elo_error:.0f}"
        elif self.elo > 0:       # a clean sweep: no upper end, the interval gives the lower
            elo += f" (every game won: at least {elo_difference(low):+.0f} at 95%)"
        elif self.elo < 0:
            elo += f" (every game lost: at most {elo_difference(high):+.0f} at 95%)"
        return (f"{self.player_a} vs {self.player_b}: +{self.wins} ={self.draws} "
                f"-{self.losses}  score {self.score:.3f} (95% CI {low:.2f}-{high:.2f})"
                f"  Elo {elo}")


def wilson_interval(points: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a score of ``points`` out of ``games``.

    The plain "p +- z * standard error" interval collapses to 0.00-0.00 after 0 of 4 and
    can leave [0, 1]; Wilson's asks which true scores would make the observed one
    unsurprising, so 0 of 4 gives 0.00-0.49. A draw counts as half a point.
    """
    if games <= 0:
        return (float("nan"), float("nan"))
    p, z2 = points / games, z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z / (1 + z2 / games) * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_difference(score: float) -> float:
    """The Elo gap at which the stronger side is expected to score ``score``."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def match(player_a, player_b, games: int = 20, openings=OPENINGS, seed: int = 0,
          max_plies: int = 400, progress: bool = True, pgn_path=None,
          resign_cp: float | None = None) -> MatchResult:
    """``games`` games a vs b: colours alternate, each opening is played from both sides.

    Players may be specs (made here with ``seed`` and closed at the end) or players.
    The PGN destination is checked before the first game; if a game fails (an engine
    dies, Ctrl-C), the games already finished are still written to ``pgn_path`` and
    kept on the exception as ``exc.match_result``.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"a match needs at least 1 game, got games={games!r}")
    check_max_plies(max_plies)
    if pgn_path is not None:
        check_writable(pgn_path, "PGN file")
    made = [p for p in (player_a, player_b) if not isinstance(p, Player)]
    a = make_player(player_a, seed=seed)
    try:
        b = make_player(player_b, seed=seed + 1)
    except BaseException:
        if player_a in made:
            a.close()
        raise
    result = MatchResult(a.name, b.name)
    try:
        for i in tqdm(range(games), desc=f"{a.name} vs {b.name}", disable=not progress):
            opening = openings[(i // 2) % len(openings)] if openings else None
            white, black = (a, b) if i % 2 == 0 else (b, a)
            game = play_game(white, black, opening=opening, max_plies=max_plies,
                             round_=str(i + 1), resign_cp=resign_cp)
            points = {"1-0": 1.0, "0-1": 0.0}.get(game.headers["Result"], 0.5)
            result.add(points if white is a else 1.0 - points)
            result.games.append(game)
    except BaseException as exc:
        # Keep what was played: the finished games go to the PGN file and on the error.
        exc.match_result = result
        if pgn_path is not None and result.games:
            save_pgn(result.games, pgn_path)
            exc.add_note(f"the {len(result.games)} finished game(s) were saved to {pgn_path}")
        if isinstance(exc, EngineStopped):
            kept = (f"the {len(result.games)} finished game(s) were saved to {pgn_path}"
                    if pgn_path is not None and result.games else
                    f"{len(result.games)} game(s) had finished")
            stopped = EngineStopped(f"game {len(result.games) + 1} of {a.name} vs "
                                    f"{b.name} stopped: {exc}; {kept}")
            stopped.match_result = result
            raise stopped from exc
        raise
    finally:
        for spec, player in ((player_a, a), (player_b, b)):
            if spec in made:
                player.close()
    if pgn_path is not None:
        save_pgn(result.games, pgn_path)
    return result


def save_pgn(games, path):
    """Write games to one PGN file (atomically)."""
    with atomic_path(path, suffix=".pgn.tmp") as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            for game in games:
                print(game, file=fh, end="\n\n")
    return path
