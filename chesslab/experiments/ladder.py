"""One Elo scale for every player of the course (``python -m chesslab results ladder``).

Every kind of player meets every other at one time control: random, the network's
policy alone, each evaluator of the registry searching, MCTS, and Stockfish limited to
a few ``UCI_Elo`` levels. Those Stockfish players are the anchors: each is held at its
``UCI_Elo`` and the others' ratings follow from the games, rated by the course's one
ladder (``event.rate_ladder``: the class event's ladder holds the same anchors with the
same prior). Stockfish calibrates ``UCI_Elo`` at one time control, not at a fraction of
a second a move, so the scale is nominal: a rating here reads like one against
Stockfish's idea of club strength, at this time control on this machine.
"""
from __future__ import annotations

from chesslab.base.files import RESULTS_DIR
from chesslab.evaluators.registry import EVALUATORS
from chesslab.matches.event import ANCHOR_ELOS, anchor_specs, rate_ladder
from chesslab.matches.players import is_available, model_tag
from chesslab.matches.specs import format_spec

#: The stored ladder.
LADDER_PATH = RESULTS_DIR / "ladder.json"
#: The registry's evaluators on the ladder: one of each idea (hand-written, learned
#: tables, the thesis's two networks, Naive Bayes); the tutorial's nets and the variants
#: can be added with ``evaluators=``, at the cost of more games.
LADDER_EVALUATORS = tuple(n for n in ("material", "pst", "nnue", "ann", "cnn", "bayes")
                          if n in EVALUATORS)


def ladder_specs(seconds: float = 0.2, anchor_elos=ANCHOR_ELOS,
                 evaluators=LADDER_EVALUATORS) -> tuple[list, dict]:
    """``(players, anchors)``: every player that can play here at ``seconds`` a move,
    and ``{stockfish spec: its UCI_Elo}``. Random and the policy need no time."""
    players = ["random", "policy",
               *(format_spec(name, None, seconds) for name in evaluators),
               format_spec("mcts", None, seconds)]
    return [p for p in players if is_available(p)], anchor_specs(seconds, anchor_elos)


def rate_every_player(seconds: float = 0.2, games: int = 4, anchor_elos=ANCHOR_ELOS,
                      evaluators=LADDER_EVALUATORS, workers=1, seed: int = 0,
                      max_plies: int = 160, path=LADDER_PATH, progress: bool = True,
                      command: str | None = None) -> dict:
    """Play the round robin (anchors do not meet each other), rate, store in ``path``.
    Resumable: the games played so far are kept beside ``path`` until it is written."""
    players, anchors = ladder_specs(seconds, anchor_elos, evaluators)
    return rate_ladder(players, games, workers, seed, max_plies, path, progress, command,
                       anchors=anchors, extra={"seconds_per_move": seconds,
                                               "models": _models(players)})


def _models(players) -> dict:
    """{player: digest of its model file}: which trained networks these ratings are of."""
    return {p: tag for p in players if (tag := model_tag(p)) is not None}
