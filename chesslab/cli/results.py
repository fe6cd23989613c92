"""``python -m chesslab results ...``: the measured results in data/results, one command each."""
from __future__ import annotations

import argparse
import inspect
import time

from chesslab.training import naive_bayes as nb_training
from chesslab.experiments import naive_bayes as nb_results
from chesslab.experiments import net_comparison
from chesslab.experiments import evaluators
from chesslab.experiments import ladder
from chesslab.experiments import matches
from chesslab.experiments import mcts_losses
from chesslab.experiments import move_quality
from chesslab.experiments import network_steps
from chesslab.experiments import recipe
from chesslab.experiments import search_cost
from chesslab.experiments import store
from chesslab.experiments import tournament
from chesslab.training import pipeline
from chesslab.cli.common import (COUNT, defaults_from, endings, game_sample_args, model_path,
                                 fraction, on_off, positive, workers_args, write_result)
from chesslab.base.files import check_writable, write_json_atomic
from chesslab.matches.clock import clock_text
from chesslab.matches.event import rate_ladder, rerate_ladder
from chesslab.matches.rating import INTERVAL_KEY, PRIOR, format_elo
from chesslab.matches.tournament import table_standings


def _results_out(args, name: str):
    """--out, else data/results/NAME.json; checked before any work."""
    out = args.out or store.result_path(name)
    check_writable(out, "results file")
    return out


def _results_evaluators(args):
    out = _results_out(args, "evaluators")
    table = evaluators.results_table(args.names, pipeline.load(args.data), args.models)
    write_json_atomic(out, table, indent=1)
    print(evaluators.format_table(table))


def _results_depth_cost(args):
    out = _results_out(args, "depth_cost")
    data = search_cost.measure_depth_cost(depths=tuple(range(1, args.max_depth + 1)),
                                      evaluator=args.evaluator, progress=not args.quiet)
    for row in data["rows"]:
        print(f"{row['algorithm']:10s} depth {row['depth']}  {row['nodes']:9d} nodes  "
              f"{row['seconds']:8.3f} s")
    return write_result(out, data)


def _results_tournament(args):
    out = _results_out(args, "tournament")
    data = tournament.measure_round_robin(args.players, games=args.games, seed=args.seed,
                                          max_plies=args.max_plies, progress=not args.quiet)
    for row in table_standings(data):
        low, high = row[INTERVAL_KEY]
        print(f"{row['player']:12s} score {row['score']:.2f} ({low:.2f}-{high:.2f})  "
              f"Elo {format_elo(row, signed=True)}")
    print(f"Elo of mean 0 ({PRIOR}); a zero or full score: its one-sided 95% bound")
    return write_result(out, data)


def _print_ladder(data, out):
    """A stored ladder's standings: Elo with its 95% interval, or a bound; what it is."""
    for row in data["standings"]:
        low, high = row[INTERVAL_KEY]
        e_low, e_high = row["elo95"]
        band = "" if None in (e_low, e_high) or e_low == e_high else \
            f" ({e_low:.0f} to {e_high:.0f})"
        print(f"{row['player']:22s} {row['points']:>5g}/{row['games']:<3d} "
              f"score {row['score']:.2f} ({low:.2f}-{high:.2f})  Elo {format_elo(row)}{band}")
    print(data["what"])
    print(f"written to {out}")


def _results_ladder(args):
    out = _results_out(args, "ladder_anchor" if args.tc is None else f"ladder_anchor_{args.tc}")
    if args.rerate:
        return _print_ladder(rerate_ladder(out), out)
    given = {k: getattr(args, k) for k in ("ladder", "games", "max_plies", "seed")
             if getattr(args, k) is not None}
    _print_ladder(rate_ladder(workers=args.workers, path=out, progress=not args.quiet,
                              command=args.command_line, time_control=args.tc, **given), out)


def _results_every_ladder(args):
    if args.tc is not None and args.seconds is not None:
        raise ValueError(f"--seconds {args.seconds:g} and --tc {args.tc} together: on a "
                         f"clock each player spends the time its clock gives; give one")
    out = args.out or ladder.ladder_path(args.tc)
    check_writable(out, "results file")
    if args.rerate:
        return _print_ladder(rerate_ladder(out, "python -m chesslab results ladder"), out)
    seconds = {} if args.seconds is None else {"seconds": args.seconds}
    _print_ladder(ladder.rate_every_player(
        games=args.games, anchor_elos=args.anchor_elos, evaluators=args.evaluators,
        workers=args.workers, seed=args.seed, max_plies=args.max_plies, path=out,
        progress=not args.quiet, command=args.command_line, time_control=args.tc,
        players=args.players, **seconds), out)


def _results_match(args):
    out = _results_out(args, "matches")
    entry = matches.record_long_match(args.a, args.b, args.games, args.workers, args.seed,
                                      args.max_plies,
                                      None if args.resign_cp <= 0 else args.resign_cp, out,
                                      args.tc, command=args.command_line,
                                      a_model=args.a_model, b_model=args.b_model)
    print(entry["summary"] + (f"  on a {entry['time_control']} clock"
                              if entry.get("time_control") else ""))
    print(endings(e for e, n in entry["endings"].items() for _ in range(n)))
    resumed = (f" for the {entry['games'] - entry['games_resumed']} games played now "
               f"({entry['games_resumed']} read back from the checkpoint)"
               if entry["games_resumed"] else "")
    print(f"{entry['seconds']:.0f} s{resumed}; written to {out}")


def _results_rerate_matches(args):
    paths = args.files or store.match_results_files()
    for path in paths:
        changes = store.rerate_results_file(path, write=not args.check)
        held = len(list(store.match_records(store.read_json(path, "results file"))))
        print(f"{path}: " + (f"{len(changes)} of {held} match record(s) "
                             + ("stale" if args.check else "rerated") + ": "
                             + "; ".join(f"{w} {', '.join(f)}" for w, f in changes)
                             if changes else f"{held} match record(s), none stale"))


def _results_recipe(args):
    out = _results_out(args, "recipe")
    recipe.measure_recipe(args.nets, sample=args.sample, out=out, command=args.command_line)
    print(f"written to {out}")


def _results_bayes(args):
    out = _results_out(args, "bayes_comparison")
    start = time.perf_counter()
    sample = nb_training.game_sample(args.pgn, args.test_fraction, args.seed)
    print(f"{len(sample.X)} positions (features in {time.perf_counter() - start:.1f} s); "
          f"train {sample.info['train_positions']}, test {sample.info['test_positions']}")
    data = {**nb_results.measure(sample), "command": args.command_line}
    print(f"{'model':76s} {'accuracy':>8s} {'log-loss':>8s}")
    for row in data["table"]:
        print(f"{row['model']:76s} {row['accuracy']:8.3f} {row['log_loss']:8.3f}")
    for row in data["drop_one"]:
        print(f"NB without {row['feature']:65s} {row['accuracy']:8.3f} {row['log_loss']:8.3f}")
    return write_result(out, data)


def _results_bayes_matches(args):
    out = _results_out(args, "bayes_matches")
    data = matches.bayes_matches(args.player, args.opponents, args.games, args.chunk,
                                 args.max_plies, args.workers)
    for opponent, entry in data["matches"].items():
        s = entry["summary"]
        print(f"{args.player} vs {opponent}: +{s['wins']} ={s['draws']} -{s['losses']} in "
              f"{s['games']} games, score {s['score']:.3f}")
    return write_result(out, {**data, "command": args.command_line})


def _results_mcts_matches(args):
    out = _results_out(args, "mcts_matches")
    matches.mcts_matches(args.player, args.opponents, args.games, args.max_plies, args.seed,
                         args.network, args.workers, out, describe=args.describe)
    print(f"written to {out}")


def _results_mcts_tuning(args):
    out = _results_out(args, "mcts_tuning")
    move_quality.mcts_tuning(args.simulations, args.c_puct, args.fpu, args.positions,
                             args.network, out, describe=args.describe,
                             settle=tuple(args.settle), seconds=args.seconds,
                             positions_file=args.positions_file)
    print(f"written to {out}")


def _results_mcts_losses(args):
    out = _results_out(args, "mcts_losses")
    doc = mcts_losses.mcts_losses(args.player, args.opponent, args.matches, args.drop,
                                  args.depth, out)
    print(f"{len(doc['positions'])} positions before moves that gave away more than "
          f"{doc['drop']} in {doc['lost_games']} lost games; written to {out}")


def _results_network_steps(args):
    out = _results_out(args, "network_steps")
    steps = [network_steps.parse_step(text) for text in args.step]   # all checked first
    network_steps.network_steps(steps, args.simulations, args.opponent, args.games,
                                args.positions, args.max_plies, args.seed, args.workers, out,
                                command=args.command_line)
    print(f"written to {out}")


def _results_head_to_head(args):
    out = _results_out(args, "mcts_head_to_head")
    entry = matches.mcts_head_to_head(args.a, args.b, args.simulations, args.games,
                                      args.max_plies, args.workers, args.seed,
                                      time_per_move=args.time_per_move)
    store.record_match(entry, out, matches.HEAD_TO_HEAD_KEY)
    print(entry["summary"], f"({entry['seconds']:.0f} s)")
    print(f"written to {out}")


def _results_net_comparison(args):
    out = _results_out(args, "net_comparison")
    data = net_comparison.measure_net_comparison(args.nets, args.seeds, args.train_positions,
                                                 args.sample, out=out, workers=args.workers,
                                                 command=args.command_line)
    for a, b in (("ann", "cnn"), ("ann64", "cnn64"), ("conv", "residual")):
        if net_comparison.runs_of(data, a) and net_comparison.runs_of(data, b):
            print(net_comparison.format_verdict(net_comparison.verdict(data, a, b)))
    print(f"written to {out}")


#: The --tc option of every command that plays on a clock (``tc_args``).
TC = ("a clock for each side instead of a time per move, e.g. 60+0.6 (seconds per game + "
      "increment per move: where Stockfish calibrates UCI_Elo); no player spec may then "
      "have its own @Ns")


def time_control(text: str) -> str:
    """argparse type: a clock such as ``60+0.6``, as stored (``clock.clock_text``); the
    one message for a text it cannot read."""
    try:
        return clock_text(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def tc_args(p):
    """``--tc SECONDS+INC``: the clock option of ``match``, ``results match``, ``results
    ladder`` and ``results event-ladder``, read and checked by ``time_control``."""
    p.add_argument("--tc", metavar="SECONDS+INC", type=time_control, default=None,
                   help=TC)

#: The --rerate option of both ladders.
RERATE = ("rate the stored ladder (--out) again from its per-pair results, playing no "
          "game (after a change in how ratings are fitted or printed)")


def opponents_args(q, function):
    """One player against a list of opponents, a number of games each (``function``'s
    defaults)."""
    q.add_argument("--player", help="player spec")
    q.add_argument("--opponents", nargs="+", help="player specs")
    q.add_argument("--games", type=COUNT, help="per opponent")
    defaults_from(q, function)


def add_results(sub):
    p = sub.add_parser("results", help="measure the results the figures and notebooks read "
                                       "(data/results)")
    which = p.add_subparsers(dest="which", metavar="WHICH", required=True)
    max_plies = dict(type=COUNT, help="adjudicate a draw after this many half-moves")

    q = which.add_parser("evaluators", help="the results table of the evaluators")
    q.add_argument("names", nargs="*",
                   help="evaluators (default: every row of the table in the registry)")
    q.add_argument("--data", help="dataset .npz (default: data/positions.npz)")
    q.add_argument("--models", help="folder of the model files")
    q.add_argument("--out",
                   help="where to write the table (default: data/results/evaluators.json)")
    defaults_from(q, evaluators.results_table, models="models_dir")
    q.set_defaults(func=_results_evaluators)

    q = which.add_parser("depth-cost", help="nodes and seconds vs depth (minimax, alpha-beta, "
                                            "full)")
    q.add_argument("--max-depth", type=COUNT, help="measure depths 1 to this")
    q.add_argument("--evaluator", help="the evaluation at the leaves")
    q.add_argument("--quiet", action="store_true")
    q.add_argument("--out", help="default: data/results/depth_cost.json")
    defaults_from(q, search_cost.measure_depth_cost)
    q.set_defaults(func=_results_depth_cost, max_depth=max(
        inspect.signature(search_cost.measure_depth_cost).parameters["depths"].default))

    q = which.add_parser("tournament", help="round robin between evaluators")
    q.add_argument("--players", nargs="+", help="player specs")
    q.add_argument("--games", type=COUNT, help="games per pair")
    q.add_argument("--max-plies", **max_plies)
    q.add_argument("--seed", type=int)
    q.add_argument("--quiet", action="store_true")
    q.add_argument("--out", help="default: data/results/tournament.json")
    defaults_from(q, tournament.measure_round_robin)
    q.set_defaults(func=_results_tournament)

    q = which.add_parser("ladder", help="one Elo scale for every player at one time control, "
                                        "anchored on Stockfish's UCI_Elo levels "
                                        "(data/results/ladder.json), resumable")
    seconds = inspect.signature(ladder.rate_every_player).parameters["seconds"].default
    q.add_argument("--seconds", type=float, help=f"time per move of every searching player "
                                                 f"(default {seconds:g})")
    tc_args(q)
    q.add_argument("--players", nargs="+", metavar="SPEC",
                   help="the rated players (default: random, policy, each of --evaluators, "
                        "mcts)")
    q.add_argument("--games", type=COUNT, help="games per pair")
    q.add_argument("--anchor-elos", type=int, nargs="+", metavar="ELO",
                   help="Stockfish's UCI_Elo levels held fixed")
    q.add_argument("--evaluators", nargs="+", help="the registry's evaluators on the ladder")
    q.add_argument("--max-plies", **max_plies)
    q.add_argument("--seed", type=int)
    workers_args(q, 1)
    q.add_argument("--quiet", action="store_true")
    q.add_argument("--out", help="default: data/results/ladder.json (with --tc: "
                                 "ladder_SECONDS+INC.json)")
    q.add_argument("--rerate", action="store_true", help=RERATE)
    defaults_from(q, ladder.rate_every_player, tc="time_control")
    q.set_defaults(func=_results_every_ladder, seconds=None)   # None: not given

    q = which.add_parser("event-ladder", help="the class event's ladder Elo, anchored on "
                                              "Stockfish (data/results/ladder_anchor.json), "
                                              "resumable")
    q.add_argument("--ladder", nargs="+", default=None, metavar="SPEC",
                   help="the ladder's players (default: event.LADDER)")
    q.add_argument("--games", type=COUNT, default=None, help="games per pair")
    q.add_argument("--max-plies", default=None, **max_plies)
    q.add_argument("--seed", type=int, default=None)
    workers_args(q, 1)
    q.add_argument("--quiet", action="store_true")
    tc_args(q)
    q.add_argument("--out", default=None, help="default: data/results/ladder_anchor.json "
                                               "(with --tc: ladder_anchor_SECONDS+INC.json)")
    q.add_argument("--rerate", action="store_true", help=RERATE)
    q.set_defaults(func=_results_ladder)

    q = which.add_parser("match", help="a long match from held-out openings, in parallel, "
                                       "resumable")
    q.add_argument("--a", required=True, help="player spec, e.g. nnue@1s")
    q.add_argument("--b", required=True, help="player spec, e.g. pst@1s")
    for side in ("a", "b"):
        q.add_argument(f"--{side}-model", type=model_path,
                       help=f"the model file player {side} reads instead of the shipped one "
                            f"(a candidate network; its digest is recorded)")
    q.add_argument("--games", type=COUNT, help="an even number")
    workers_args(q, 2)
    q.add_argument("--max-plies", **max_plies)
    q.add_argument("--resign-cp", type=float,
                   help="adjudicate a win once both engines' searches see one side this "
                        "far ahead for 4 half-moves (0 turns it off)")
    q.add_argument("--seed", type=int)
    tc_args(q)
    q.add_argument("--out",
                   help="the file the match is added to (default: data/results/matches.json)")
    defaults_from(q, matches.record_long_match, tc="time_control")
    q.set_defaults(func=_results_match)

    q = which.add_parser("recipe", help="train with each recipe step added in turn")
    q.add_argument("--nets", nargs="+", help="the networks trained at each step")
    q.add_argument("--sample", type=COUNT, help="test positions searched per network")
    q.add_argument("--out", help="default: data/results/recipe.json (written after each "
                                 "net; a rerun trains only the rows it lacks)")
    defaults_from(q, recipe.measure_recipe, nets="names")
    q.set_defaults(func=_results_recipe)

    q = which.add_parser("bayes", help="Naive Bayes against simple baselines, on the test "
                                       "games")
    game_sample_args(q)
    q.add_argument("--out", help="default: data/results/bayes_comparison.json")
    q.set_defaults(func=_results_bayes)

    q = which.add_parser("bayes-matches", help="the Naive Bayes engine against random, "
                                               "material and pst, resumable")
    q.add_argument("--chunk", type=COUNT, help="games per resumable chunk (even)")
    q.add_argument("--max-plies", **max_plies)
    workers_args(q, 1, "chunks played at once")
    q.add_argument("--out", help="default: data/results/bayes_matches.json")
    opponents_args(q, matches.bayes_matches)
    q.set_defaults(func=_results_bayes_matches)

    q = which.add_parser("mcts-matches", help="an MCTS player against the classic players, "
                                              "one pairing at a time, resumable")
    q.add_argument("--max-plies", **max_plies)
    q.add_argument("--seed", type=int)
    q.add_argument("--network", help="policy-value network file (default: the shipped one)")
    q.add_argument("--describe", help="how the network was made, stored beside its results")
    workers_args(q, 1, "pairings played at once")
    q.add_argument("--out", help="default: data/results/mcts_matches.json")
    opponents_args(q, matches.mcts_matches)
    q.set_defaults(func=_results_mcts_matches)

    q = which.add_parser("mcts-tuning", help="MCTS settings (c_puct, first-play urgency) on "
                                             "held-out labelled positions, resumable")
    q.add_argument("--simulations", type=COUNT, help="per move")
    q.add_argument("--c-puct", type=float, nargs="+", help="exploration constants to try")
    q.add_argument("--fpu", type=float, nargs="+", help="first-play urgency reductions to try")
    q.add_argument("--settle", type=on_off, nargs="+", metavar="on|off",
                   help="leaf values where the captures stop: off, on, or both (off on)")
    q.add_argument("--seconds", type=positive, help="time per move instead of --simulations "
                                                 "(equal time: measure on an idle machine)")
    q.add_argument("--positions", type=COUNT, help="held-out positions")
    q.add_argument("--positions-file", help="ask these labelled positions instead (results mcts-losses)")
    q.add_argument("--network", help="policy-value network file (default: the shipped one)")
    q.add_argument("--describe", help="how the network was made, stored beside its results")
    q.add_argument("--out", help="default: data/results/mcts_tuning.json")
    defaults_from(q, move_quality.mcts_tuning)
    q.set_defaults(func=_results_mcts_tuning)

    q = which.add_parser("mcts-losses", help="the positions before a player's worst moves in "
                                             "the games it lost, labelled by Stockfish")
    q.add_argument("--player", help="the player as its match record names it")
    q.add_argument("--opponent", help="its opponent in that record")
    q.add_argument("--matches", help="results file holding the match (default: data/results/matches.json)")
    q.add_argument("--drop", type=fraction, help="expected score a move must give away")
    q.add_argument("--depth", type=COUNT, help="Stockfish's depth")
    q.add_argument("--out", help="default: data/results/mcts_losses.json")
    defaults_from(q, mcts_losses.mcts_losses)
    q.set_defaults(func=_results_mcts_losses)

    q = which.add_parser("network-steps", help="what each step of a policy-value network's "
                                               "making bought: move quality and a match")
    q.add_argument("--step", action="append", required=True, metavar="NAME=FILE",
                   help="a step's name and its network file, in order (repeat the option)")
    q.add_argument("--simulations", type=COUNT, help="MCTS simulations per move")
    q.add_argument("--opponent", help="player spec of the fixed opponent")
    q.add_argument("--games", type=COUNT, help="an even number")
    q.add_argument("--positions", type=COUNT, help="held-out positions for move quality")
    q.add_argument("--max-plies", **max_plies)
    q.add_argument("--seed", type=int)
    workers_args(q, 1, "networks measured at once")
    q.add_argument("--out", help="default: data/results/network_steps.json")
    defaults_from(q, network_steps.network_steps)
    q.set_defaults(func=_results_network_steps)

    q = which.add_parser("mcts-head-to-head", help="two policy-value networks, MCTS at the "
                                                   "same simulations or time, resumable")
    q.add_argument("--a", required=True, type=model_path,
                   help="network file of the first player")
    q.add_argument("--b", required=True, type=model_path,
                   help="network file of the second player")
    budget = q.add_mutually_exclusive_group()
    budget.add_argument("--simulations", type=COUNT, help="MCTS simulations per move")
    budget.add_argument("--seconds", dest="time_per_move", type=float,
                        help="seconds per move instead (a fair test of networks of "
                             "different sizes)")
    q.add_argument("--games", type=COUNT, help="an even number")
    q.add_argument("--max-plies", **max_plies)
    workers_args(q, 2)
    q.add_argument("--seed", type=int)
    q.add_argument("--out", help="default: data/results/mcts_head_to_head.json")
    defaults_from(q, matches.mcts_head_to_head)
    q.set_defaults(func=_results_head_to_head)

    q = which.add_parser("rerate-matches", help="recompute every stored match record's "
                         "score, Wilson interval, Elo and summary from its wins, draws and "
                         "losses, playing no game (after a change in how they are computed)")
    q.add_argument("files", nargs="*", help="results files (default: every file of "
                                            "data/results holding match records)")
    q.add_argument("--check", action="store_true",
                   help="only list the stale records; write nothing")
    q.set_defaults(func=_results_rerate_matches)

    q = which.add_parser("net-comparison", help="the compared nets (ANN vs CNN) trained "
                                                "alike, each to early stopping, resumable")
    q.add_argument("--nets", nargs="+", choices=pipeline.NETS, metavar="NAME",
                   help="networks to compare")
    q.add_argument("--seeds", type=int, nargs="+", help="training seeds of each net")
    q.add_argument("--train-positions", type=COUNT,
                   help="training positions, the same for every net")
    q.add_argument("--sample", type=COUNT, help="test positions searched at depth 1")
    workers_args(q, 1)
    q.add_argument("--out", help="default: data/results/net_comparison.json")
    defaults_from(q, net_comparison.measure_net_comparison)
    q.set_defaults(func=_results_net_comparison)
