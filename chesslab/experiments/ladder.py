"""One Elo scale for every player of the course (``python -m chesslab results ladder``).

Every kind of player meets every other at one time control: random, the network's
policy alone, each evaluator of the registry searching, MCTS, and Stockfish limited to
a few ``UCI_Elo`` levels. Those Stockfish players are the anchors: each is held at its
``UCI_Elo`` and the others' ratings follow from the games (``bradley_terry``), so a
rating here reads like a rating against Stockfish's idea of human club strength, at
this time control on this machine.
"""
from __future__ import annotations

import math

from chesslab.base.files import RESULTS_DIR, write_json_atomic
from chesslab.evaluators.registry import EVALUATORS
from chesslab.matches.event import rate_ladder
from chesslab.matches.players import is_available, model_tag
from chesslab.matches.specs import format_spec

#: The stored ladder.
LADDER_PATH = RESULTS_DIR / "ladder.json"
#: Stockfish's strength limits used as anchors (its lowest, and two above).
ANCHOR_ELOS = (1350, 1600, 1900)
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
    anchors = {format_spec("stockfish", elo, seconds): float(elo) for elo in anchor_elos}
    return [p for p in players if is_available(p)], anchors


def rate_every_player(seconds: float = 0.2, games: int = 4, anchor_elos=ANCHOR_ELOS,
                      evaluators=LADDER_EVALUATORS, workers=1, seed: int = 0,
                      max_plies: int = 160, path=LADDER_PATH, progress: bool = True,
                      command: str | None = None) -> dict:
    """Play the round robin (anchors do not meet each other), rate, store in ``path``.
    Resumable: the games played so far are kept beside ``path`` until it is written."""
    players, anchors = ladder_specs(seconds, anchor_elos, evaluators)
    data = rate_ladder(players, games, workers, seed, max_plies, path, progress, command,
                       anchors=anchors, extra={"seconds_per_move": seconds,
                                               "models": _models(players)})
    for row in data["standings"]:
        row["elo95"] = elo_interval(row["player"], data["ratings"], data["pairs"],
                                    anchors)
    write_json_atomic(path, data, indent=1)
    return data


def _models(players) -> dict:
    """{player: digest of its model file}: which trained networks these ratings are of."""
    return {p: tag for p in players if (tag := model_tag(p)) is not None}


def elo_interval(player, ratings: dict, pairs: dict, anchors=(), z: float = 1.96):
    """A 95% interval of one rating, the others held at theirs: the rating's standard
    error is the inverse square root of the information its games carry,
    ``sum n p (1 - p)`` over its opponents (p: its expected score), in Elo units.
    An anchor's interval is its rating."""
    if player in anchors:
        return [ratings[player], ratings[player]]
    information = 0.0
    for key, (w, d, l) in pairs.items():
        a, b = key.split(" vs ")
        if player not in (a, b):
            continue
        other = b if player == a else a
        p = 1 / (1 + 10 ** ((ratings[other] - ratings[player]) / 400))
        information += (w + d + l) * p * (1 - p)
    if information <= 0:
        return [None, None]
    se = 400 / math.log(10) / math.sqrt(information)
    return [round(ratings[player] - z * se, 1), round(ratings[player] + z * se, 1)]
