"""One Elo scale for every player of the course (``python -m chesslab results ladder``).

Every kind of player meets every other at one time control: random, the network's
policy alone, each evaluator of the registry searching, MCTS, and Stockfish limited to
a few ``UCI_Elo`` levels. Those Stockfish players are the anchors: each is held at its
``UCI_Elo`` and the others' ratings follow from the games, rated by the course's one
ladder (``event.rate_ladder``: the class event's ladder holds the same anchors with the
same prior). Stockfish calibrates ``UCI_Elo`` at one time control, not at a fraction of
a second a move, so the scale is nominal: a rating here reads like one against
Stockfish's idea of club strength, at this time control on this machine. A ladder on a
clock (``time_control="60+0.6"``, Stockfish's own calibration) is stored apart
(``ladder_path``), each side on its own clock.
"""
from __future__ import annotations

from chesslab.base.files import RESULTS_DIR
from chesslab.board.game import format_time_control
from chesslab.evaluators.registry import EVALUATORS
from chesslab.experiments.store import engine_stamp
from chesslab.matches.event import ANCHOR_ELOS, anchor_specs, rate_ladder
from chesslab.matches.players import is_available, model_tag
from chesslab.matches.specs import format_spec
from chesslab.matches.timecontrol import parse_time_control

#: The stored ladder.
LADDER_PATH = RESULTS_DIR / "ladder.json"
#: The registry's evaluators on the ladder: one of each idea (hand-written, learned
#: tables, the thesis's ANN and CNN layers reading the tutorial's 14 planes, Naive
#: Bayes); the tutorial's nets and the variants
#: can be added with ``evaluators=``, at the cost of more games.
LADDER_EVALUATORS = tuple(n for n in ("material", "pst", "nnue", "ann", "cnn", "bayes")
                          if n in EVALUATORS)


def ladder_specs(seconds: float | None = 0.2, anchor_elos=ANCHOR_ELOS,
                 evaluators=LADDER_EVALUATORS, players=None) -> tuple[list, dict]:
    """``(players, anchors)``: every player that can play here at ``seconds`` a move
    (None: no time of their own, for a clock), and ``{stockfish spec: its UCI_Elo}``.
    Random and the policy need no time. ``players``: these specs instead of random,
    the policy, each of ``evaluators`` and MCTS."""
    if players is None:
        players = ["random", "policy",
                   *(format_spec(name, None, seconds) for name in evaluators),
                   format_spec("mcts", None, seconds)]
    return [p for p in players if is_available(p)], anchor_specs(seconds, anchor_elos)


def ladder_path(time_control: str | None = None):
    """Where a ladder is stored: ladder.json, or ladder_60+0.6.json on a clock."""
    if time_control is None:
        return LADDER_PATH
    return RESULTS_DIR / f"ladder_{format_time_control(*parse_time_control(time_control))}.json"


def rate_every_player(seconds: float = 0.2, games: int = 4, anchor_elos=ANCHOR_ELOS,
                      evaluators=LADDER_EVALUATORS, workers=1, seed: int = 0,
                      max_plies: int = 160, path=None, progress: bool = True,
                      command: str | None = None, time_control: str | None = None,
                      players=None) -> dict:
    """Play the round robin (anchors do not meet each other), rate, store in ``path``
    (default ``ladder_path(time_control)``). Resumable: the games played so far are kept
    beside ``path`` until it is written. ``time_control`` (``"60+0.6"``): every game on
    that clock, and ``seconds`` is not used; ``players``: see ``ladder_specs``."""
    if time_control is not None:
        seconds = None
    players, anchors = ladder_specs(seconds, anchor_elos, evaluators, players)
    return rate_ladder(players, games, workers, seed, max_plies,
                       path or ladder_path(time_control), progress, command,
                       anchors=anchors, extra={"seconds_per_move": seconds,
                                               "models": _models(players),
                                               **engine_stamp(anchors)},
                       time_control=time_control)


def _models(players) -> dict:
    """{player: digest of its model file}: which trained networks these ratings are of."""
    return {p: tag for p in players if (tag := model_tag(p)) is not None}
