"""The command line, ``python -m chesslab COMMAND ...``: every command in one place.

    data     {games, label, extend, build, info}     training data (Stockfish games, labels)
    train    {nets, bayes, bootstrap, selfplay}       models into data/models
    results  {evaluators, depth-cost, tournament, match, recipe,
              bayes, bayes-matches, mcts-matches, mcts-head-to-head}   data/results/*.json
    match    --white SPEC --black SPEC --games N     a match, with a score and an Elo estimate
    bestmove --fen FEN --player SPEC                 one search, its move and its line
    figures  [--out DIR] [--only NAME ...]           every figure of figures/

Each command parses its options, checks what it can before any work (numbers that make
no sense, files that cannot be written) and calls plain functions of the modules that
do the work. Errors are one line on stderr and exit status 2.

Older spellings still work and are not shown in the help: ``train NAME`` is
``train nets NAME``, ``selfplay`` is ``train selfplay``, ``bootstrap`` is
``train bootstrap`` and ``evaluate-models`` is ``results evaluators`` (the README, the
notebooks and the results files that record the command that made them may name them).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import chess

from chesslab import bayes, measure, results, training
from chesslab.arena import match
from chesslab.bootstrap import bootstrap
from chesslab.data import (DEFAULT_DATASET, build_dataset, describe, extend_with_game_plies,
                           load_dataset, save_dataset)
from chesslab.encoding import as_board
from chesslab.figures import make_figures
from chesslab.files import MODELS_DIR, check_writable, check_writable_dir, write_json_atomic
from chesslab.games import DEFAULT_GAMES, generate_games
from chesslab.leaves import extend_with_leaves
from chesslab.players import EngineStopped, make_player
from chesslab.selfplay import DEFAULTS as SELFPLAY_DEFAULTS
from chesslab.selfplay import check_settings, train_selfplay
from chesslab.tournament import standings

#: The subcommands of ``train``.
TRAIN_COMMANDS = ("nets", "bayes", "bootstrap", "selfplay")
#: Old spellings -> new ones (``train NAME`` -> ``train nets NAME`` is handled apart).
ALIASES = {"selfplay": ("train", "selfplay"), "bootstrap": ("train", "bootstrap"),
           "evaluate-models": ("results", "evaluators")}


class _Parser(argparse.ArgumentParser):
    """A bad command line is one error line like any other, not a usage dump."""

    def error(self, message):
        raise ValueError(f"{message} (see {self.prog} --help)")


def _at_least(least: int):
    """argparse type: a whole number of at least ``least``."""
    def whole_number(text):
        value = int(text)
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value
    return whole_number


def _positive(text):
    """argparse type: a number above 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value:g}")
    return value


def _fraction(text):
    """argparse type: a number strictly between 0 and 1."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value:g}")
    return value


COUNT = _at_least(1)


def _writable(args, **what):
    """Fail before any work if an output file cannot be written: ``flag="what"``."""
    for flag, name in what.items():
        if getattr(args, flag, None):
            check_writable(getattr(args, flag), name)


def _endings(terminations) -> str:
    counts = {}
    for ending in terminations:
        counts[ending] = counts.get(ending, 0) + 1
    return "endings: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def _write_result(path, data) -> int:
    path = write_json_atomic(path, data, indent=1)
    print(f"written to {path}")
    return 0


# ---------------------------------------------------------------- data
def _data_games(args):
    _writable(args, out_games="PGN file")
    path = generate_games(args.count, args.out_games, args.seed, args.nodes, args.workers,
                          max_plies=args.max_plies)
    print(f"wrote {args.count} games to {path}")


def _data_label(args):
    _writable(args, out="dataset file", cache="label cache")
    dataset = build_dataset(args.pgn, args.random, args.depth, args.every, args.workers,
                            args.seed, cache=args.cache)
    save_dataset(dataset, args.out)
    print(json.dumps(describe(dataset), indent=1))


def _grow_dataset(args, grow, what: str):
    """Load --data, add rows with ``grow(dataset)``, save to --out (default: --data)."""
    args.out = args.out or args.data or str(DEFAULT_DATASET)
    _writable(args, out="dataset file", cache="label cache")
    dataset = load_dataset(args.data)
    before = len(dataset)
    dataset = grow(dataset)
    save_dataset(dataset, args.out)
    print(f"added {len(dataset) - before} {what} labelled at depth {args.depth}")
    print(json.dumps(describe(dataset), indent=1))


def _data_extend(args):
    _grow_dataset(args, lambda dataset: extend_with_game_plies(
        dataset, args.pgn, args.depth, args.workers, args.seed, cache=args.cache), "positions")


def _data_leaves(args):
    _grow_dataset(args, lambda dataset: extend_with_leaves(
        dataset, args.evaluators.split(","), args.roots, args.rate, args.search_depth,
        args.depth, args.workers, args.seed, cache=args.cache), "search leaves")


def _data_build(args):
    _writable(args, out_games="PGN file", out="dataset file", cache="label cache")
    _data_games(args)
    args.pgn = [args.out_games]
    _data_label(args)
    if args.extra_depth:
        extend = argparse.Namespace(**vars(args))
        extend.data, extend.pgn, extend.depth = args.out, args.out_games, args.extra_depth
        extend.cache = args.cache and f"{args.cache}.d{args.extra_depth}.npz"
        _data_extend(extend)


def _data_info(args):
    print(json.dumps(describe(load_dataset(args.path)), indent=1))


def _add_data(sub):
    data = sub.add_parser("data", help="make training data (games, labels)")
    actions = data.add_subparsers(dest="action", metavar="ACTION", required=True)

    def game_args(p, flag):
        p.add_argument("--count", type=COUNT, default=5000, help="games to play")
        p.add_argument("--nodes", type=COUNT, default=1000, help="Stockfish nodes per move")
        p.add_argument("--max-plies", type=COUNT, default=300,
                       help="adjudicate a draw after this many plies")
        p.add_argument(flag, dest="out_games", default=str(DEFAULT_GAMES),
                       help="PGN file to write (.pgn.gz is gzipped)")

    def label_args(p):
        p.add_argument("--random", type=_at_least(0), default=100_000,
                       help="random positions")
        p.add_argument("--depth", type=COUNT, default=10, help="Stockfish search depth")
        p.add_argument("--every", type=_at_least(0), default=8,
                       help="also take every k-th ply of each game (0: the chapter's "
                            "sample only)")
        p.add_argument("--out", default=str(DEFAULT_DATASET), help=".npz file to write")
        cache_arg(p)

    def cache_arg(p):
        p.add_argument("--cache", default=None,
                       help="label cache (.npz): saved as labels come, reused on a rerun")

    def common(p):
        p.add_argument("--workers", type=COUNT, default=2, help="processes (one engine each)")
        p.add_argument("--seed", type=int, default=0)

    p = actions.add_parser("games", help="Stockfish self-play games at mixed strengths")
    game_args(p, "--out")
    common(p)
    p.set_defaults(func=_data_games)
    p = actions.add_parser("label", help="label game and random positions with Stockfish")
    p.add_argument("--pgn", nargs="+", default=[str(DEFAULT_GAMES)], help="PGN files")
    label_args(p)
    common(p)
    p.set_defaults(func=_data_label)
    p = actions.add_parser("extend", help="add every ply of the training games, labelled "
                                          "at a lower depth")
    p.add_argument("--data", default=None, help="dataset .npz (default: data/positions.npz)")
    p.add_argument("--pgn", default=str(DEFAULT_GAMES),
                   help="the PGN the dataset was built from")
    p.add_argument("--depth", type=COUNT, default=8, help="Stockfish depth of the new labels")
    p.add_argument("--out", default=None, help=".npz file to write (default: --data)")
    cache_arg(p)
    common(p)
    p.set_defaults(func=_data_extend)
    p = actions.add_parser("leaves", help="add the leaves of real searches from training "
                                          "positions, labelled (run again after retraining)")
    p.add_argument("--data", default=None, help="dataset .npz (default: data/positions.npz)")
    p.add_argument("--out", default=None, help=".npz file to write (default: --data)")
    p.add_argument("--evaluators", default="nnue,pst",
                   help="the evaluators whose searches are sampled, in turn (comma-separated)")
    p.add_argument("--roots", type=COUNT, default=3000,
                   help="training game positions to search from")
    p.add_argument("--rate", type=_fraction, default=0.03,
                   help="the share of each search's leaves kept")
    p.add_argument("--search-depth", type=COUNT, default=3, help="depth of those searches")
    p.add_argument("--depth", type=COUNT, default=8, help="Stockfish depth of the labels")
    cache_arg(p)
    common(p)
    p.set_defaults(func=_data_leaves)
    p = actions.add_parser("build", help="regenerate the shipped games and dataset")
    game_args(p, "--out-games")
    label_args(p)
    p.add_argument("--extra-depth", type=_at_least(0), default=8,
                   help="then add every ply of the training games at this depth (0: no)")
    common(p)
    p.set_defaults(func=_data_build)
    p = actions.add_parser("info", help="summarise a dataset file")
    p.add_argument("path", nargs="?", default=None)
    p.set_defaults(func=_data_info)


# ---------------------------------------------------------------- train
def _train_nets(args):
    names = list(training.NETS) if "all" in args.names else list(dict.fromkeys(args.names))
    check_writable_dir(args.out, "--out folder")          # before the training, not after
    overrides = {key: getattr(args, key) for key in
                 ("epochs", "batch_size", "lr", "max_train", "patience")
                 if getattr(args, key) is not None}
    for result, path in training.train_and_save(names, args.data, args.out, args.full,
                                                not args.quiet, **overrides):
        print(f"{result.summary()}; wrote {path}")


def _train_bayes(args):
    _writable(args, out="model file")
    sample = bayes.game_sample(args.pgn, args.test_fraction, args.seed)
    path = bayes.train_shipped(sample, args.out, command=args.command_line)
    print(f"{len(sample.X)} positions from {sample.info['train_games']} training and "
          f"{sample.info['test_games']} test games; trained on "
          f"{sample.info['train_positions']}; wrote {path}")


def _train_bootstrap(args):
    _writable(args, out="network file")                    # before the first epoch
    bootstrap(args.out, args.pgn, args.games, args.every, args.epochs, args.channels,
              args.blocks, seed=args.seed, labelled_only=args.labelled_only,
              progress=lambda s: print(s, flush=True))


def _train_selfplay(args):
    overrides = {k: getattr(args, k) for k in
                 ("games", "simulations", "piece", "gate_starts", "anchor", "value_target",
                  "player", "starts", "workers", "lr", "epochs", "buffer")
                 if getattr(args, k) is not None}
    check_settings(args.kind, args.initial, **overrides)
    check_writable_dir(args.workdir, "--workdir folder")   # before the first game
    train_selfplay(args.workdir, args.kind, args.iterations, args.max_minutes,
                   initial=args.initial, progress=lambda s: print(s, flush=True),
                   seed=args.seed, **overrides)


def _game_sample_args(p):
    """The options of ``bayes.game_sample``: which games, and how they are split."""
    p.add_argument("--pgn", default=str(DEFAULT_GAMES), help="game records")
    p.add_argument("--seed", type=int, default=0, help="of the split by game")
    p.add_argument("--test-fraction", type=_fraction, default=0.2,
                   help="games held out (not trained on)")


def _add_train(sub):
    train = sub.add_parser("train", help="train models into data/models (nets, bayes, "
                                         "bootstrap, selfplay)")
    kinds = train.add_subparsers(dest="kind_of_model", metavar="WHAT", required=True)

    p = kinds.add_parser("nets", help="train evaluation networks (the thesis pipeline)")
    p.add_argument("names", nargs="+", choices=[*training.NETS, "all"], metavar="NAME",
                   help=f"one or more of {', '.join(training.NETS)}, or all")
    p.add_argument("--data", default=None, help="dataset .npz (default: data/positions.npz)")
    p.add_argument("--out", default=str(MODELS_DIR), help="folder for NAME.json")
    p.add_argument("--full", action="store_true", help="the long run (many more epochs)")
    p.add_argument("--epochs", type=COUNT, default=None)
    p.add_argument("--batch-size", type=COUNT, default=None)
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--patience", type=COUNT, default=None)
    p.add_argument("--max-train", type=COUNT, default=None,
                   help="train on this many training positions only")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_train_nets)

    p = kinds.add_parser("bayes", help="the Naive Bayes model (data/models/bayes.json) from "
                                       "the game records")
    _game_sample_args(p)
    p.add_argument("--out", default=str(bayes.MODEL_PATH), help="model file to write")
    p.set_defaults(func=_train_bayes)

    p = kinds.add_parser("bootstrap", help="supervised start of the full-game policy-value "
                                           "net from the shipped game records")
    p.add_argument("--out", required=True, help="network file (JSON); resumes if it exists")
    p.add_argument("--pgn", default=None, help="game records (default: the shipped games)")
    p.add_argument("--games", type=COUNT, default=400)
    p.add_argument("--every", type=COUNT, default=2, help="keep every k-th position")
    p.add_argument("--epochs", type=COUNT, default=3)
    p.add_argument("--channels", type=COUNT, default=32)
    p.add_argument("--blocks", type=COUNT, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--labelled-only", action="store_true",
                   help="keep only positions with a Stockfish label in data/positions.npz")
    p.set_defaults(func=_train_bootstrap)

    p = kinds.add_parser("selfplay", help="AlphaZero-style self-play training (endgame "
                                          "curriculum or full game), resumable")
    p.add_argument("kind", choices=sorted(SELFPLAY_DEFAULTS))
    p.add_argument("--workdir", required=True, help="folder for state.json, best.json, "
                   "trainee.json (run again to continue)")
    p.add_argument("--iterations", type=COUNT, default=5)
    p.add_argument("--max-minutes", type=_positive, default=None,
                   help="stop after the iteration that passes this time")
    p.add_argument("--initial", default=None, help="start from this network (full game)")
    p.add_argument("--games", type=COUNT, default=None, help="self-play games per iteration")
    p.add_argument("--simulations", type=COUNT, default=None, help="per move in self-play")
    p.add_argument("--gate-starts", type=COUNT, default=None,
                   help="arena openings (each played with both colours) for the 55%% gate")
    p.add_argument("--anchor", type=_at_least(0), default=None,
                   help="full game: Stockfish-labelled positions mixed into every training "
                        "pass")
    p.add_argument("--value-target", choices=["z", "zq"], default=None,
                   help="full game: the value learns the result z (AlphaZero) or the mean "
                        "of z and the search's value q")
    p.add_argument("--player", choices=["latest", "best"], default=None,
                   help="which network plays the self-play games: the one in training "
                        "(AlphaZero) or the gated best (AlphaGo Zero)")
    p.add_argument("--starts", choices=["initial", "records"], default=None,
                   help="full game: every game from the initial position, or every other "
                        "one from a position of the shipped game records")
    p.add_argument("--workers", type=COUNT, default=None,
                   help="processes for the self-play and gate games (e.g. 2 on 2 cores)")
    p.add_argument("--lr", type=_positive, default=None, help="Adam step size")
    p.add_argument("--epochs", type=COUNT, default=None,
                   help="passes over the buffer per iteration")
    p.add_argument("--buffer", type=COUNT, default=None,
                   help="replay buffer capacity (positions)")
    p.add_argument("--piece", choices=["Q", "R"], default=None,
                   help="endgame: the strong side's extra piece (K+Q vs K or K+R vs K)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_train_selfplay)


# ---------------------------------------------------------------- results
def _results_out(args, name: str):
    """--out, else data/results/NAME.json; checked before any work."""
    out = args.out or results.result_path(name)
    check_writable(out, "results file")
    return out


def _results_evaluators(args):
    out = _results_out(args, "evaluators")
    table = training.results_table(args.names, training.load(args.data), args.models)
    write_json_atomic(out, table, indent=1)
    print(training.format_table(table))


def _results_depth_cost(args):
    data = results.measure_depth_cost(depths=tuple(range(1, args.max_depth + 1)),
                                      evaluator=args.evaluator, progress=not args.quiet)
    for row in data["rows"]:
        print(f"{row['algorithm']:10s} depth {row['depth']}  {row['nodes']:9d} nodes  "
              f"{row['seconds']:8.3f} s")
    return _write_result(results.result_path("depth_cost"), data)


def _results_tournament(args):
    data = results.run_tournament(args.players, games=args.games, seed=args.seed,
                                  max_plies=args.max_plies, progress=not args.quiet)
    for row in standings(data):
        low, high = row["interval95"]
        print(f"{row['player']:12s} score {row['score']:.2f} ({low:.2f}-{high:.2f})  "
              f"Elo {row['elo']:+.0f}")
    return _write_result(results.result_path("tournament"), data)


def _results_match(args):
    entry = results.record_long_match(args.a, args.b, args.games, args.workers, args.seed,
                                      args.max_plies,
                                      None if args.resign_cp <= 0 else args.resign_cp)
    print(entry["summary"])
    print(_endings(e for e, n in entry["endings"].items() for _ in range(n)))
    print(f"{entry['seconds']:.0f} s; written to {results.result_path('matches')}")


def _results_recipe(args):
    return _write_result(results.result_path("recipe"),
                         results.measure_recipe(args.nets, sample=args.sample))


def _results_bayes(args):
    out = _results_out(args, "bayes_comparison")
    start = time.perf_counter()
    sample = bayes.game_sample(args.pgn, args.test_fraction, args.seed)
    print(f"{len(sample.X)} positions (features in {time.perf_counter() - start:.1f} s); "
          f"train {sample.info['train_positions']}, test {sample.info['test_positions']}")
    data = {**bayes.measure(sample), "command": args.command_line}
    print(f"{'model':76s} {'accuracy':>8s} {'log-loss':>8s}")
    for row in data["table"]:
        print(f"{row['model']:76s} {row['accuracy']:8.3f} {row['log_loss']:8.3f}")
    for row in data["drop_one"]:
        print(f"NB without {row['feature']:65s} {row['accuracy']:8.3f} {row['log_loss']:8.3f}")
    return _write_result(out, data)


def _results_bayes_matches(args):
    out = _results_out(args, "bayes_matches")
    data = results.bayes_matches(args.player, args.opponents, args.games, args.chunk,
                                 args.max_plies, args.workers)
    for opponent, entry in data["matches"].items():
        s = entry["summary"]
        print(f"{args.player} vs {opponent}: +{s['wins']} ={s['draws']} -{s['losses']} in "
              f"{s['games']} games, score {s['score']:.3f}")
    return _write_result(out, {**data, "command": args.command_line})


def _results_mcts_matches(args):
    out = _results_out(args, "mcts_matches")
    results.mcts_matches(args.player, args.opponents, args.games, args.max_plies, args.seed,
                         args.network, args.workers, out)
    print(f"written to {out}")


def _results_head_to_head(args):
    out = _results_out(args, "mcts_head_to_head")
    entry = results.mcts_head_to_head(args.a, args.b, args.simulations, args.games,
                                      args.max_plies, args.workers, args.seed)
    results.record_match(entry, out, results.HEAD_TO_HEAD_KEY)
    print(entry["summary"], f"({entry['seconds']:.0f} s)")
    print(f"written to {out}")


def _add_results(sub):
    p = sub.add_parser("results", help="measure the results the figures and notebooks read "
                                       "(data/results)")
    which = p.add_subparsers(dest="which", metavar="WHICH", required=True)
    max_plies = dict(type=COUNT, help="adjudicate a draw after this many half-moves")

    q = which.add_parser("evaluators", help="the results table of the evaluators")
    q.add_argument("names", nargs="*", default=list(training.TABLE_ROWS),
                   help="evaluators (default: every row of the table in the registry)")
    q.add_argument("--data", default=None, help="dataset .npz (default: data/positions.npz)")
    q.add_argument("--models", default=str(MODELS_DIR), help="folder of the model files")
    q.add_argument("--out", default=None,
                   help="where to write the table (default: data/results/evaluators.json)")
    q.set_defaults(func=_results_evaluators)

    q = which.add_parser("depth-cost", help="nodes and seconds vs depth (minimax, alpha-beta, "
                                            "full)")
    q.add_argument("--max-depth", type=COUNT, default=4)
    q.add_argument("--evaluator", default="material")
    q.add_argument("--quiet", action="store_true")
    q.set_defaults(func=_results_depth_cost)

    q = which.add_parser("tournament", help="round robin between evaluators")
    q.add_argument("--players", nargs="+", default=list(results.TOURNAMENT_PLAYERS))
    q.add_argument("--games", type=COUNT, default=4, help="games per pair (default 4)")
    q.add_argument("--max-plies", default=300, **max_plies)
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--quiet", action="store_true")
    q.set_defaults(func=_results_tournament)

    q = which.add_parser("match", help="a long match from held-out openings, in parallel, "
                                       "resumable")
    q.add_argument("--a", required=True, help="player spec, e.g. nnue@1s")
    q.add_argument("--b", required=True, help="player spec, e.g. pst@1s")
    q.add_argument("--games", type=COUNT, default=100, help="an even number (default 100)")
    q.add_argument("--workers", type=COUNT, default=2, help="games played at once")
    q.add_argument("--max-plies", default=300, **max_plies)
    q.add_argument("--resign-cp", type=float, default=1000,
                   help="adjudicate a win once both engines' searches see one side this "
                        "far ahead for 4 half-moves (default 1000; 0 turns it off)")
    q.add_argument("--seed", type=int, default=0)
    q.set_defaults(func=_results_match)

    q = which.add_parser("recipe", help="train with each recipe step added in turn")
    q.add_argument("--nets", nargs="+", default=list(results.RECIPE_NETS))
    q.add_argument("--sample", type=COUNT, default=measure.SEARCH_SAMPLE,
                   help=f"test positions searched per network (default "
                        f"{measure.SEARCH_SAMPLE})")
    q.set_defaults(func=_results_recipe)

    q = which.add_parser("bayes", help="Naive Bayes against simple baselines, on the test "
                                       "games")
    _game_sample_args(q)
    q.add_argument("--out", default=None,
                   help="default: data/results/bayes_comparison.json")
    q.set_defaults(func=_results_bayes)

    q = which.add_parser("bayes-matches", help="the Naive Bayes engine against random, "
                                               "material and pst, resumable")
    q.add_argument("--player", default="bayes:3")
    q.add_argument("--opponents", nargs="+", default=["random", "material:3", "pst:3"])
    q.add_argument("--games", type=COUNT, default=40, help="per opponent (default 40)")
    q.add_argument("--chunk", type=COUNT, default=4, help="games per resumable chunk (even)")
    q.add_argument("--max-plies", default=400, **max_plies)
    q.add_argument("--workers", type=COUNT, default=1, help="chunks played at once")
    q.add_argument("--out", default=None, help="default: data/results/bayes_matches.json")
    q.set_defaults(func=_results_bayes_matches)

    q = which.add_parser("mcts-matches", help="an MCTS player against the classic players, "
                                              "one pairing at a time, resumable")
    q.add_argument("--player", default="mcts:300")
    q.add_argument("--opponents", nargs="+", default=["random", "material:2", "pst:3"])
    q.add_argument("--games", type=COUNT, default=20, help="per opponent (default 20)")
    q.add_argument("--max-plies", default=200, **max_plies)
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--network", default=None,
                   help="policy-value network file (default: the shipped one)")
    q.add_argument("--workers", type=COUNT, default=1, help="pairings played at once")
    q.add_argument("--out", default=None, help="default: data/results/mcts_matches.json")
    q.set_defaults(func=_results_mcts_matches)

    q = which.add_parser("mcts-head-to-head", help="two policy-value networks, MCTS at the "
                                                   "same simulations, resumable")
    q.add_argument("--a", required=True, help="network file of the first player")
    q.add_argument("--b", required=True, help="network file of the second player")
    q.add_argument("--simulations", type=COUNT, default=300)
    q.add_argument("--games", type=COUNT, default=64, help="an even number (default 64)")
    q.add_argument("--max-plies", default=200, **max_plies)
    q.add_argument("--workers", type=COUNT, default=2)
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--out", default=None,
                   help="default: data/results/mcts_head_to_head.json")
    q.set_defaults(func=_results_head_to_head)


# ---------------------------------------------------------------- match, bestmove, figures
def _match(args):
    result = match(args.white, args.black, games=args.games, seed=args.seed,
                   max_plies=args.max_plies, progress=not args.quiet, pgn_path=args.pgn)
    print(result.summary())
    print(_endings(game.headers["Termination"] for game in result.games))


def _bestmove(args):
    board = as_board(args.fen)
    with make_player(args.player) as player:
        move = player.choose_move(board)
        result = player.last_result
    print(f"bestmove {move.uci()}" if result is None else result.describe(board))


def _figures(args):
    check_writable_dir(args.out, "--out folder")
    start = time.perf_counter()
    report = make_figures(args.out, args.only, progress=not args.quiet)
    for name, status in report:
        print(f"{name:22s} {status}")
    made = sum(status == "ok" for _, status in report)
    print(f"{made} figure(s) written to {args.out}/ (PNG + SVG) in "
          f"{time.perf_counter() - start:.1f} s")
    return 0 if made == len(report) else 1


def _add_play(sub):
    p = sub.add_parser("match", help="play a match between two players")
    p.add_argument("--white", required=True, help="player spec, e.g. pst:3")
    p.add_argument("--black", required=True, help="player spec, e.g. random")
    p.add_argument("--games", type=COUNT, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-plies", type=COUNT, default=400)
    p.add_argument("--pgn", help="write the games to this PGN file")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_match)

    p = sub.add_parser("bestmove", help="search one position and print the answer")
    p.add_argument("--fen", default=chess.STARTING_FEN)
    p.add_argument("--player", default="pst@1s", help="search player spec, e.g. pst@1s")
    p.set_defaults(func=_bestmove)

    p = sub.add_parser("figures", help="draw the thesis figures into figures/")
    p.add_argument("--out", default="figures", help="output folder (default: figures)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these figures")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_figures)


# ---------------------------------------------------------------- the parser
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m chesslab",
                     description="chesslab: build, train and play chess AIs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (_add_data, _add_train, _add_results, _add_play):
        add(sub)
    return parser


def new_spelling(argv) -> list:
    """``argv`` with an old spelling of a command replaced by the new one."""
    argv = list(argv)
    if argv and argv[0] in ALIASES:
        return [*ALIASES[argv[0]], *argv[1:]]
    if argv[:1] == ["train"] and len(argv) > 1 and argv[1] not in TRAIN_COMMANDS \
            and not argv[1].startswith("-"):
        return ["train", "nets", *argv[1:]]                # train NAME ... (before: nets)
    return argv


def main(argv=None) -> int:
    argv = new_spelling(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 1
        args.command_line = " ".join(["python -m chesslab", *argv])
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, TypeError, EngineStopped) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
