"""A match between two players: games from both sides of each opening, a score, PGN.

Each game is ``chesslab.board.game.play_game`` (the rules of
``chesslab.board.rules``: a game still going after ``max_plies`` half-moves is
adjudicated a draw, and long engine matches may use the resign rule, ``resign_cp``).

``match`` plays N games, alternating colours, each pair of games from the same
opening (a set of varied, balanced openings), and reports the score with a 95%
(Wilson) confidence interval and the Elo difference it implies.

On a clock (``time_control="60+0.6"``) each side plays on its own (``play_game``'s
clock), seated by ``matches.clock`` as every runner on a clock is: Stockfish gets both
clocks itself, the searching players and MCTS spend what the UCI engine's time
management gives them, any other player simply moves, its time counted. A spec with
its own time per move (``nnue@1s``) is refused on a clock: one or the other.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import chess
import chess.pgn
from tqdm.auto import tqdm

from chesslab.base.files import atomic_path, check_writable
from chesslab.board.game import Player, play_game
from chesslab.board.rules import check_max_plies, points
from chesslab.matches.clock import clock_text, seat_on_clock
from chesslab.matches.rating import INTERVAL_KEY, elo_difference, wilson_interval
from chesslab.matches.players import EngineStopped, make_player

#: Short, varied, roughly balanced openings (UCI moves) so games differ.
OPENINGS = (
    "e2e4 e7e5", "d2d4 d7d5", "c2c4 e7e5", "e2e4 c7c5", "g1f3 d7d5", "e2e4 e7e6",
    "d2d4 g8f6", "e2e4 c7c6", "c2c4 g8f6", "d2d4 f7f5", "e2e4 d7d6", "b1c3 e7e5",
    "g2g3 d7d5", "e2e4 g8f6", "d2d4 e7e6", "f2f4 d7d5",
)


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

    def record(self) -> dict:
        """This match as every results file stores one: players ``a`` and ``b``, a's
        wins, draws and losses, score, 95% interval, Elo (None where infinite) and the
        one-line summary. ``read_record`` reads older spellings."""
        low, high = self.score_interval()
        finite = lambda x: round(x, 1) if math.isfinite(x) else None  # noqa: E731
        return {"a": self.player_a, "b": self.player_b, "games": self.n, "wins": self.wins,
                "draws": self.draws, "losses": self.losses,
                "score": round(self.score, 4) if self.n else None,
                INTERVAL_KEY: [round(low, 4), round(high, 4)] if self.n else None,
                "elo": finite(self.elo) if self.n else None,
                "elo_error": finite(self.elo_error) if self.n else None,
                "summary": self.summary()}

    @classmethod
    def from_record(cls, entry: dict) -> "MatchResult":
        """The result a stored record counts (its summary recomputed from the counts)."""
        entry = read_record(entry)
        return cls(entry.get("a", "a"), entry.get("b", "b"), int(entry["wins"]),
                   int(entry["draws"]), int(entry["losses"]))

    def summary(self) -> str:
        low, high = self.score_interval()
        elo = f"{self.elo + 0.0:+.0f}"  # + 0.0: no "-0" for an even score
        if math.isfinite(self.elo) and math.isfinite(self.elo_error):
            elo += f" +- {self.elo_error:.0f}"
        elif self.elo > 0:       # a clean sweep: no upper end, the interval gives the lower
            elo += (f" (every game won: at least {elo_difference(low):+.0f}, the lower end "
                    f"of the 95% interval)")
        elif self.elo < 0:
            elo += (f" (every game lost: at most {elo_difference(high):+.0f}, the upper end "
                    f"of the 95% interval)")
        return (f"{self.player_a} vs {self.player_b}: +{self.wins} ={self.draws} "
                f"-{self.losses}  score {self.score:.3f} (95% CI {low:.2f}-{high:.2f})"
                f"  Elo {elo}")


#: Older names of a match record's fields, as files written before one schema hold them.
_LEGACY_KEYS = {"player": "a", "opponent": "b", "score_95": INTERVAL_KEY}

#: An older interval field of a different kind: the normal interval (score +- 1.96
#: standard deviations of the per-game scores over the square root of the games), not
#: Wilson's. ``read_record`` replaces it by the Wilson interval of the record's counts.
_NORMAL_INTERVAL_KEY = "ci95"


def read_record(entry: dict) -> dict:
    """A stored match record in today's field names (a, b, interval95, ...) and with the
    current rule's derived fields, whatever version of chesslab wrote it: a score,
    interval, Elo or summary its wins, draws and losses no longer give is recomputed
    (``rerated_record``; ``interval95`` is always Wilson's interval), and an old normal
    interval (``ci95``, a different interval under a look-alike name) is dropped."""
    out = dict(entry)
    for old, new in _LEGACY_KEYS.items():
        if old in out and new not in out:
            out[new] = out.pop(old)
    if _NORMAL_INTERVAL_KEY in out:
        missing = [k for k in ("wins", "draws", "losses") if type(out.get(k)) is not int]
        if missing and INTERVAL_KEY in out:
            del out[_NORMAL_INTERVAL_KEY]
        elif missing:
            raise ValueError(f"match record {out.get('a')!r} vs {out.get('b')!r} has an "
                             f"old normal interval ({_NORMAL_INTERVAL_KEY}="
                             f"{out[_NORMAL_INTERVAL_KEY]}) but no {', '.join(missing)}: its "
                             f"Wilson interval cannot be computed; replay the match or add "
                             f"its counts")
    return rerated_record(out)


#: The fields of a match record computed from its wins, draws and losses
#: (``MatchResult.record``).
DERIVED_FIELDS = ("score", INTERVAL_KEY, "elo", "elo_error", "summary")
#: Older fields of the score's interval (``ci95``: the normal one; ``score_95``: an older
#: name); a rerated record has ``interval95`` in their place.
LEGACY_INTERVALS = (_NORMAL_INTERVAL_KEY, "score_95")
#: How far a stored number may sit from the recomputed one and still agree: the rounding
#: ``MatchResult.record`` applies (older records kept every digit).
_TOLERANCE = {"score": 5e-5, INTERVAL_KEY: 5e-5, "elo": 0.05, "elo_error": 0.05}


def is_match_record(obj) -> bool:
    """Whether ``obj`` is a stored match: whole wins, draws and losses and at least one
    field derived from them (a table of counts alone, such as a tournament's pairs, is
    not)."""
    return (isinstance(obj, dict)
            and all(type(obj.get(k)) is int for k in ("wins", "draws", "losses"))
            and any(k in obj for k in DERIVED_FIELDS + LEGACY_INTERVALS))


def _counted(record: dict) -> MatchResult:
    wins, draws, losses = (record[k] for k in ("wins", "draws", "losses"))
    games = record.get("games")
    if type(games) is int and games != wins + draws + losses:
        raise ValueError(f"match record {_names(record)!r} has games={games} but "
                         f"+{wins} ={draws} -{losses}: its counts disagree, so nothing can be "
                         f"derived from them; replay the match or correct its counts")
    a, b = _players(record)
    return MatchResult(a, b, wins, draws, losses)


def _names(record: dict) -> str:
    """The players as the stored summary names them (the text before the counts; some
    files name the setting there too), else "a vs b"."""
    counts = f": +{record['wins']} ={record['draws']} -{record['losses']}  "
    summary = record.get("summary")
    if isinstance(summary, str) and counts in summary:
        return summary.split(counts, 1)[0]
    return " vs ".join(_players(record))


def _players(record: dict) -> tuple[str, str]:
    return (str(record.get("a", record.get("player", "a"))),
            str(record.get("b", record.get("opponent", "b"))))


def _derived(record: dict) -> dict:
    """The derived fields of ``record`` by the current rule, its summary naming the
    players as the stored one does."""
    result = _counted(record)
    current = {k: v for k, v in result.record().items() if k in DERIVED_FIELDS}
    own = f"{result.player_a} vs {result.player_b}"
    current["summary"] = _names(record) + current["summary"][len(own):]
    return current


def _agrees(key: str, stored, current) -> bool:
    if key not in _TOLERANCE or stored is None or current is None:
        return stored == current
    if key == INTERVAL_KEY:
        return (isinstance(stored, (list, tuple)) and len(stored) == 2
                and all(_agrees("score", s, c) for s, c in zip(stored, current)))
    return (isinstance(stored, (int, float)) and not isinstance(stored, bool)
            and abs(stored - current) <= _TOLERANCE[key] + 1e-9)


def stale_fields(record: dict) -> list[str]:
    """The stored fields of a match record that its counts no longer give by the current
    rule (beyond the rounding ``MatchResult.record`` applies): a normal interval stored as
    Wilson's, a summary in an older format, any legacy interval field (``ci95``)."""
    current = _derived(record)
    return ([k for k in DERIVED_FIELDS
             if k in record and not _agrees(k, record[k], current[k])]
            + [k for k in LEGACY_INTERVALS if k in record])


def rerated_record(record: dict) -> dict:
    """``record`` with each stale field (``stale_fields``) recomputed from its counts, in its
    place; a legacy interval becomes ``interval95``. Every other field, and a record
    with nothing stale, is returned unchanged."""
    if not is_match_record(record):
        return record
    stale = stale_fields(record)
    if not stale:
        return record
    current, out = _derived(record), {}
    for key, value in record.items():
        if key in LEGACY_INTERVALS:
            if INTERVAL_KEY not in record and INTERVAL_KEY not in out:
                out[INTERVAL_KEY] = current[INTERVAL_KEY]
        else:
            out[key] = current[key] if key in stale else value
    return out


def match(player_a, player_b, games: int = 20, openings=OPENINGS, seed: int = 0,
          max_plies: int = 400, progress: bool = True, pgn_path=None,
          resign_cp: float | None = None, time_control: str | None = None,
          stop=None) -> MatchResult:
    """``games`` games a vs b: colours alternate, each opening is played from both sides.

    Players may be specs (made here with ``seed`` and closed at the end) or players.
    ``time_control``: a clock for each side, ``"60+0.6"`` (seconds per game + increment
    per move; ``matches.clock.on_clock`` says how each player spends it), instead of each
    player's own time or depth per move. The PGN destination is checked before the first
    game; if a game fails (an engine dies, Ctrl-C), the games already finished are still
    written to ``pgn_path`` and kept on the exception as ``exc.match_result``.
    ``stop(result) -> bool``, asked after each game: True ends the match there, with
    the games played so far (a grader whose verdict the remaining games cannot change).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"a match needs at least 1 game, got games={games!r}")
    check_max_plies(max_plies)
    time_control = clock_text(time_control, (player_a, player_b))
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
        (pa, pb), clock = seat_on_clock((a, b), time_control)
        for i in tqdm(range(games), desc=f"{a.name} vs {b.name}", disable=not progress):
            opening = openings[(i // 2) % len(openings)] if openings else None
            white, black = (pa, pb) if i % 2 == 0 else (pb, pa)
            game = play_game(white, black, opening=opening, max_plies=max_plies,
                             round_=str(i + 1), resign_cp=resign_cp, clock=clock)
            result.add(points(game.headers["Result"], chess.WHITE if white is pa else chess.BLACK))
            result.games.append(game)
            if stop is not None and i + 1 < games and stop(result):
                break
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
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:   # the same bytes on Windows
            for game in games:
                print(game, file=fh, end="\n\n")
    return path
