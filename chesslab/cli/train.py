"""``python -m chesslab train {nets, bayes, bootstrap, supervised, recalibrate, selfplay}``:
models into data/models."""
from __future__ import annotations

from chesslab.training import naive_bayes as nb_training
from chesslab.training import pipeline
from chesslab.training.bootstrap import bootstrap
from chesslab.training.supervised import VALUE_TARGETS, recalibrate_file, train_supervised
from chesslab.cli.common import (COUNT, at_least, check_outputs, defaults_from, game_sample_args,
                                 model_path, positive, workers_args)
from chesslab.base.files import check_writable, check_writable_dir
from chesslab.datasets.policy_labels import POLICY_LABELS
from chesslab.datasets.positions import DEFAULT_DATASET
from chesslab.training.selfplay import DEFAULTS as SELFPLAY_DEFAULTS
from chesslab.training.selfplay import check_settings, train_selfplay


def _train_nets(args):
    names = list(pipeline.NETS) if "all" in args.names else list(dict.fromkeys(args.names))
    check_writable_dir(args.out, "--out folder")          # before the training, not after
    overrides = {key: getattr(args, key) for key in
                 ("epochs", "batch_size", "lr", "max_train", "patience", "weight_decay")
                 if getattr(args, key) is not None}
    for result, path in pipeline.train_and_save(names, args.data, args.out, args.full,
                                                not args.quiet, **overrides):
        print(f"{result.summary()}; wrote {path}")


def _train_bayes(args):
    check_outputs(args, out="model file")
    sample = nb_training.game_sample(args.pgn, args.test_fraction, args.seed)
    path = nb_training.train_shipped(sample, args.out, command=args.command_line)
    print(f"{len(sample.X)} positions from {sample.info['train_games']} training and "
          f"{sample.info['test_games']} test games; trained on "
          f"{sample.info['train_positions']}; wrote {path}")


def _train_bootstrap(args):
    check_outputs(args, out="network file")                    # before the first epoch
    bootstrap(args.out, args.pgn, args.games, args.every, args.epochs, args.channels,
              args.blocks, seed=args.seed, labelled_only=args.labelled_only,
              progress=lambda s: print(s, flush=True))


def _train_supervised(args):
    check_outputs(args, out="network file")
    train_supervised(args.out, args.labels, args.channels, args.blocks, args.epochs,
                     args.batch_size, args.lr, args.lr_decay, args.temperature, args.c,
                     args.save_every, args.held_out, args.seed,
                     None if args.no_value_data else args.value_data, args.init,
                     args.value_channels, args.value_target,
                     progress=lambda s: print(s, flush=True))


def _train_recalibrate(args):
    check_writable(args.out or args.net, "network file")    # before the slow part
    recalibrate_file(args.net, args.out, args.labels or POLICY_LABELS,
                     None if args.no_value_data else (args.value_data or DEFAULT_DATASET),
                     progress=lambda s: print(s, flush=True))


def _train_selfplay(args):
    overrides = {k: getattr(args, k) for k in
                 ("games", "simulations", "piece", "gate_starts", "anchor", "value_target",
                  "player", "starts", "lr", "epochs", "buffer", "seed")
                 if getattr(args, k) is not None}
    executor = None
    if isinstance(args.workers, int):
        overrides["workers"] = args.workers          # saved with the run's settings
    elif args.workers is not None:
        executor = args.workers                       # a cluster: used now, not saved
    check_settings(args.kind, args.initial, **overrides)
    check_writable_dir(args.workdir, "--workdir folder")   # before the first game
    train_selfplay(args.workdir, args.kind, args.iterations, args.max_minutes,
                   initial=args.initial, progress=lambda s: print(s, flush=True),
                   executor=executor, **overrides)


def add_train(sub):
    train = sub.add_parser("train", help="train models into data/models (nets, bayes, "
                                         "bootstrap, supervised, recalibrate, selfplay)")
    kinds = train.add_subparsers(dest="kind_of_model", metavar="WHAT", required=True)

    p = kinds.add_parser("nets", help="train evaluation networks (the thesis pipeline)")
    p.add_argument("names", nargs="+", choices=[*pipeline.NETS, "all"], metavar="NAME",
                   help=f"one or more of {', '.join(pipeline.NETS)}, or all")
    p.add_argument("--data", default=None, help="dataset .npz (default: the file named by the "
                   f"environment variable CHESSLAB_DATASET, else {DEFAULT_DATASET})")
    p.add_argument("--out", help="folder for NAME.json")
    p.add_argument("--full", action="store_true", help="the long run (many more epochs)")
    p.add_argument("--epochs", type=COUNT, default=None)
    p.add_argument("--batch-size", type=COUNT, default=None)
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--weight-decay", type=float, default=None,
                   help="AdamW's decoupled weight decay (0: plain Adam)")
    p.add_argument("--patience", type=COUNT, default=None)
    p.add_argument("--max-train", type=COUNT, default=None,
                   help="train on this many training positions only")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    defaults_from(p, pipeline.train_and_save)
    p.set_defaults(func=_train_nets)

    p = kinds.add_parser("bayes", help="the Naive Bayes model (data/models/bayes.json) from "
                                       "the game records")
    game_sample_args(p)
    p.add_argument("--out", help="model file to write")
    defaults_from(p, nb_training.train_shipped, out="path")
    p.set_defaults(func=_train_bayes)

    p = kinds.add_parser("bootstrap", help="supervised start of the full-game policy-value "
                                           "net from the shipped game records")
    p.add_argument("--out", required=True, help="network file (JSON); resumes if it exists")
    p.add_argument("--pgn", default=None, help="game records (default: the shipped games)")
    p.add_argument("--games", type=COUNT, help="game records to learn from")
    p.add_argument("--every", type=COUNT, help="keep every k-th position")
    p.add_argument("--epochs", type=COUNT, help="passes over the positions")
    p.add_argument("--channels", type=COUNT, help="of the residual tower")
    p.add_argument("--blocks", type=COUNT, help="residual blocks")
    p.add_argument("--seed", type=int)
    p.add_argument("--labelled-only", action="store_true",
                   help="keep only positions with a Stockfish label in data/positions.npz")
    defaults_from(p, bootstrap)
    p.set_defaults(func=_train_bootstrap)

    p = kinds.add_parser("supervised", help="the side-to-move policy-value network from "
                         "Stockfish's policy labels (data policy-labels); resumable")
    p.add_argument("--out", required=True, help="network file (continued if it exists)")
    p.add_argument("--labels", help="folder of policy-label shards (default: data/policy_labels)")
    p.add_argument("--value-data", help="labelled positions that also teach the value "
                                        "(default: data/positions.npz)")
    p.add_argument("--no-value-data", action="store_true", help="policy labels only")
    p.add_argument("--init", help="start from this network file's weights")
    p.add_argument("--value-target", dest="value_target", choices=VALUE_TARGETS,
                   help="what the value head learns: Stockfish's wins minus losses (wdl) or "
                        "the score on Lichess's win%% scale (cp)")
    for name in ("channels", "blocks", "value_channels", "epochs", "batch_size", "save_every",
                 "held_out", "seed"):
        p.add_argument("--" + name.replace("_", "-"), type=int)
    for name in ("lr", "lr_decay", "temperature", "c"):
        p.add_argument("--" + name.replace("_", "-"), type=float)
    defaults_from(p, train_supervised, value_target="value")
    p.set_defaults(func=_train_supervised)

    p = kinds.add_parser("recalibrate", help="a trained policy-value network's batch-norm "
                         "statistics recomputed with its final weights, measured before/after")
    p.add_argument("--net", required=True, type=model_path,
                   help="network file")
    p.add_argument("--out", help="where to write it (default: in place)")
    p.add_argument("--labels", help="folder of policy-label shards (default: data/policy_labels)")
    p.add_argument("--value-data", help="labelled positions mixed in as in training "
                                        "(default: data/positions.npz)")
    p.add_argument("--no-value-data", action="store_true", help="policy labels only")
    p.set_defaults(func=_train_recalibrate)

    p = kinds.add_parser("selfplay", help="AlphaZero-style self-play training (endgame "
                                          "curriculum or full game), resumable")
    p.add_argument("kind", choices=sorted(SELFPLAY_DEFAULTS))
    p.add_argument("--workdir", required=True, help="folder for state.json, best.json, "
                   "trainee.json (run again to continue)")
    p.add_argument("--iterations", type=COUNT, help="self-play, train, gate: how many times")
    p.add_argument("--max-minutes", type=positive, default=None,
                   help="stop after the iteration that passes this time")
    p.add_argument("--initial", default=None, type=model_path,
                   help="start from this network (full game)")
    p.add_argument("--games", type=COUNT, default=None, help="self-play games per iteration")
    p.add_argument("--simulations", type=COUNT, default=None, help="per move in self-play")
    p.add_argument("--gate-starts", type=COUNT, default=None,
                   help="arena openings (each played with both colours) for the 55%% gate")
    p.add_argument("--anchor", type=at_least(0), default=None,
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
    workers_args(p, None, "for the self-play and gate games (e.g. 2 on 2 cores)")
    p.add_argument("--lr", type=positive, default=None, help="Adam step size")
    p.add_argument("--epochs", type=COUNT, default=None,
                   help="passes over the buffer per iteration")
    p.add_argument("--buffer", type=COUNT, default=None,
                   help="replay buffer capacity (positions)")
    p.add_argument("--piece", choices=["Q", "R"], default=None,
                   help="endgame: the strong side's extra piece (K+Q vs K or K+R vs K)")
    p.add_argument("--seed", type=int, help="of the whole run")
    defaults_from(p, train_selfplay)
    p.set_defaults(func=_train_selfplay)
