"""``python -m chesslab data {games, label, extend, leaves, build, random-positions,
info}``: training data."""
from __future__ import annotations

import argparse
import json

from chesslab.cli.common import (COUNT, at_least, check_outputs, defaults_from, fraction,
                                 model_path, workers_args)
from chesslab.datasets.positions import (DEFAULT_DATASET, RANDOM_POSITIONS_FILE, build_dataset,
                                         describe, extend_with_game_plies, load_dataset,
                                         read_random_positions, save_dataset,
                                         write_random_positions)
from chesslab.datasets.policy_labels import label_policy_shards
from chesslab.datasets.records import generate_games
from chesslab.training.leaves import extend_with_leaves


def _data_games(args):
    check_outputs(args, out_games="PGN file")
    path = generate_games(args.count, args.out_games, args.seed, args.nodes, args.workers,
                          max_plies=args.max_plies)
    print(f"wrote {args.count} games to {path}")


def _data_label(args):
    check_outputs(args, out="dataset file", cache="label cache")
    dataset = build_dataset(args.pgn, args.random, args.depth, args.every, args.workers,
                            args.seed, cache=args.cache)
    save_dataset(dataset, args.out)
    print(json.dumps(describe(dataset), indent=1))


def _grow_dataset(args, grow, what: str):
    """Load --data, add rows with ``grow(dataset)``, save to --out (default: --data)."""
    args.out = args.out or args.data or str(DEFAULT_DATASET)
    check_outputs(args, out="dataset file", cache="label cache")
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
        dataset, args.evaluators, args.roots, args.rate, args.search_depth,
        args.depth, args.workers, args.seed, cache=args.cache, model=args.model),
        "search leaves")


def _data_build(args):
    check_outputs(args, out_games="PGN file", out="dataset file", cache="label cache")
    _data_games(args)
    args.pgn = [args.out_games]
    _data_label(args)
    if args.extra_depth:
        extend = argparse.Namespace(**vars(args))
        extend.data, extend.pgn, extend.depth = args.out, args.out_games, args.extra_depth
        extend.cache = args.cache and f"{args.cache}.d{args.extra_depth}.npz"
        _data_extend(extend)


def _data_policy_labels(args):
    done = label_policy_shards(load_dataset(args.data), args.out, args.depth, args.multipv,
                               args.seed, args.shard, args.limit, args.workers,
                               progress=not args.quiet)
    print(f"{done} positions labelled into {args.out}")


def _data_random_positions(args):
    check_outputs(args, out="random positions file")
    path = write_random_positions(args.out, args.count, args.seed, args.max_plies,
                                  args.workers)
    meta = read_random_positions(path)["metadata"]
    print(f"wrote {meta['count']} random positions (seed {meta['seed']}, max_plies "
          f"{meta['max_plies']}, sha256 {meta['sha256'][:12]}) to {path}")


def _data_info(args):
    print(json.dumps(describe(load_dataset(args.path)), indent=1))


def add_data(sub):
    data = sub.add_parser("data", help="make training data (games, labels)")
    actions = data.add_subparsers(dest="action", metavar="ACTION", required=True)

    def game_args(p, flag):
        p.add_argument("--count", type=COUNT, help="games to play")
        p.add_argument("--nodes", type=COUNT, help="Stockfish nodes per move")
        p.add_argument("--max-plies", type=COUNT,
                       help="adjudicate a draw after this many plies")
        p.add_argument(flag, dest="out_games", help="PGN file to write (.pgn.gz is gzipped)")

    def label_args(p):
        p.add_argument("--random", type=at_least(0), help="random positions")
        p.add_argument("--depth", type=COUNT, help="Stockfish search depth")
        p.add_argument("--every", type=at_least(0),
                       help="also take every k-th ply of each game (0: the chapter's "
                            "sample only)")
        p.add_argument("--out", help=".npz file to write")
        cache_arg(p)

    def cache_arg(p):
        p.add_argument("--cache",
                       help="label cache (.npz): saved as labels come, reused on a rerun")

    def grow_args(p, depth_help):
        """A command that adds labelled rows to a dataset file."""
        p.add_argument("--data", default=str(DEFAULT_DATASET), help="dataset .npz")
        p.add_argument("--out", help=".npz file to write (default: --data)")
        p.add_argument("--depth", type=COUNT, help=depth_help)
        cache_arg(p)
        common(p)

    def common(p):
        workers_args(p, 2, "one engine each")
        p.add_argument("--seed", type=int)

    p = actions.add_parser("games", help="Stockfish self-play games at mixed strengths")
    game_args(p, "--out")
    common(p)
    defaults_from(p, generate_games, out_games="path")
    p.set_defaults(func=_data_games)
    p = actions.add_parser("label", help="label game and random positions with Stockfish")
    p.add_argument("--pgn", nargs="+", help="PGN files")
    label_args(p)
    common(p)
    defaults_from(p, build_dataset, pgn="pgn_paths", random="n_random")
    defaults_from(p, save_dataset, out="path")
    p.set_defaults(func=_data_label)
    p = actions.add_parser("extend", help="add every ply of the training games, labelled "
                                          "at a lower depth")
    grow_args(p, "Stockfish depth of the new labels")
    p.add_argument("--pgn", help="the PGN the dataset was built from")
    defaults_from(p, extend_with_game_plies, pgn="pgn_path")
    p.set_defaults(func=_data_extend)
    p = actions.add_parser("leaves", help="add the leaves of real searches from training "
                                          "positions, labelled (run again after retraining)")
    grow_args(p, "Stockfish depth of the labels")
    p.add_argument("--evaluators", type=lambda text: tuple(text.split(",")),
                   help="the evaluators whose searches are sampled, in turn (comma-separated)")
    p.add_argument("--roots", type=COUNT, help="training game positions to search from")
    p.add_argument("--rate", type=fraction, help="the share of each search's leaves kept")
    p.add_argument("--search-depth", type=COUNT, help="depth of those searches")
    p.add_argument("--model", type=model_path,
                   help="the network file the evaluator of --evaluators that reads one "
                        "searches with, e.g. one you retrained with train nets --out "
                        "(default: its file in the models folder)")
    defaults_from(p, extend_with_leaves)
    p.set_defaults(func=_data_leaves)
    p = actions.add_parser("build", help="regenerate the shipped games and dataset")
    game_args(p, "--out-games")
    label_args(p)
    p.add_argument("--extra-depth", type=at_least(0),
                   help="then add every ply of the training games at this depth (0: no)")
    common(p)
    # a later call wins where two steps share a name: --depth is the labels', --max-plies
    # the games'
    defaults_from(p, extend_with_game_plies, extra_depth="depth")
    defaults_from(p, build_dataset, random="n_random")
    defaults_from(p, save_dataset, out="path")
    defaults_from(p, generate_games, out_games="path")
    p.set_defaults(func=_data_build)
    p = actions.add_parser("policy-labels", help="Stockfish's best moves and win/draw/loss "
                                                 "for the policy-value net, shard by shard")
    p.add_argument("--data", default=str(DEFAULT_DATASET), help="dataset .npz")
    p.add_argument("--out", help="folder of the shards")
    p.add_argument("--depth", type=COUNT, help="Stockfish depth")
    p.add_argument("--multipv", type=COUNT, help="best moves scored per position")
    p.add_argument("--shard", type=COUNT, help="positions per resumable shard")
    p.add_argument("--limit", type=COUNT, help="label only the first N positions of the order")
    p.add_argument("--seed", type=int, help="of the order of the positions")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    workers_args(p, 1, "one engine each")
    defaults_from(p, label_policy_shards, out="folder")
    p.set_defaults(func=_data_policy_labels)
    p = actions.add_parser("random-positions", help="store the random positions the "
                                                    "notebooks read (random_positions)")
    p.add_argument("--count", type=COUNT, help="positions to store")
    p.add_argument("--max-plies", type=COUNT, help="walks are 0 to max-plies - 1 plies long")
    p.add_argument("--out", help=f".npz file to write (default: {RANDOM_POSITIONS_FILE})")
    p.add_argument("--seed", type=int, help="of the walks' generators")
    workers_args(p, 1, "walking at once")
    defaults_from(p, write_random_positions, out="path")
    p.set_defaults(func=_data_random_positions)
    p = actions.add_parser("info", help="summarise a dataset file")
    p.add_argument("path", nargs="?", default=None)
    p.set_defaults(func=_data_info)
