"""A fair ANN vs CNN comparison (``results net-comparison``): every compared net trained
with one recipe on the same positions, each until early stopping, with several seeds.

The shipped nets cannot answer "is the CNN better than the ANN?": each was trained with
its own epoch cap, and the slow ones stopped at their cap while still improving. Here
every run gets the same fixed set of training positions (a seeded subset of the training
split, the same for every net and seed), the same recipe switches, batch size, learning
rate schedule and early-stopping patience, and an epoch cap meant never to be reached
(the result records whether one was). Each trained net is saved under
``data/models/comparison/`` (the shipped models are not touched) and measured on the
test split: statically, and after a depth-1 search on a seeded sample, whose per-position
scores are stored so that ``verdict`` can put the difference beside its noise (the spread
between seeds and a bootstrap over test games).

The run is resumable: the results file is rewritten after every finished net, and a
rerun trains only the (net, seed) pairs it lacks.
"""
from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from chesslab.base.files import MODELS_DIR, file_lock, read_json, write_json_atomic
from chesslab.base.parallel import parallel_map
from chesslab.datasets.positions import Dataset
from chesslab.experiments.store import result_path, stamp
from chesslab.nn import load_model
from chesslab.search.searcher import search
from chesslab.training.measure import CLIP_CP, evaluate_on, metrics
from chesslab.training.pipeline import (NETS, TrainConfig, build_net, count_parameters,
                                        encode_positions, evaluator_for, fit, load,
                                        recipe_rows, save, split)
from chesslab.evaluators.neural import target_kind
from chesslab.training.recipe import RECIPE, network_view, training_positions

#: The compared nets, in the order they are trained (the thesis's two layer types on
#: the 14 planes first, then on the thesis's 64 numbers, then the tutorial's conv and
#: residual nets).
COMPARED = ("ann", "cnn", "ann64", "cnn64", "conv", "residual")
#: Training seeds (weights and shuffling); the training positions do not depend on them.
SEEDS = (0, 1, 2)
#: Training positions drawn from the training split (before the recipe's quiet leaves
#: and flips), the same for every run.
TRAIN_POSITIONS = 50_000
#: Test positions scored after a depth-1 search (seeded, the same for every run).
SAMPLE = 1000
#: The one recipe: the shipped recipe's switches, one batch size and schedule, early
#: stopping after ``patience`` epochs without a better validation loss, and a cap of
#: epochs no run is meant to reach.
RECIPE_CONFIG = TrainConfig(**RECIPE, epochs=200, batch_size=256, patience=6, lr_patience=2)
#: Where the trained nets go (not data/models itself: the shipped ones stay).
COMPARISON_MODELS = MODELS_DIR / "comparison"
#: Bootstrap resamples of the test games.
RESAMPLES = 2000


def run_key(net: str, seed: int) -> str:
    return f"{net}@{seed}"


def fixed_subset(train: Dataset, config: TrainConfig, positions: int, dataset: Dataset,
                 seed: int = 0) -> Dataset:
    """The training positions of every run: those the recipe keeps (the extra plies only
    if it asks for them, no search leaves unless it asks), then a seeded draw of
    ``positions`` of them, independent of the training seed."""
    train = recipe_rows(train, config, dataset)
    rows = np.arange(len(train))
    if positions < len(rows):
        rows = np.sort(np.random.default_rng(seed).choice(rows, positions, replace=False))
    return train.subset(rows)


def search_scores(evaluator, boards) -> np.ndarray:
    """``search(board, evaluator, depth=1).score`` of each board, in centipawns from
    White's side (how a search uses an evaluation)."""
    return np.array([search(b, evaluator, depth=1).score for b in boards], dtype=float)


def _recipe_record(config: TrainConfig, train_positions: int, subset_size: int,
                   sample: int) -> dict:
    return {"config": {k: v for k, v in asdict(config).items() if k != "seed"},
            "train_positions_asked": train_positions, "train_positions": subset_size,
            "subset_seed": 0, "search_sample": sample, "search_depth": 1,
            "validation": "the whole validation split, prepared like the training positions",
            "fairness": "every net and seed: the same training positions, the same recipe "
                        "switches, batch size, learning-rate schedule, early stopping and "
                        "epoch cap; only the seed (weights, shuffling) changes"}


def _start(out: Path, recipe: dict, dataset_info: dict, sample_info: dict,
           command: str | None) -> dict:
    """The stored comparison to resume, or a new one; a stored one made with another
    recipe or dataset is refused rather than mixed with this one."""
    if out.exists():
        data = read_json(out, "net comparison")
        if data.get("recipe") != recipe or data.get("dataset") != dataset_info:
            raise ValueError(f"{out} holds a comparison made with another recipe or dataset; "
                             f"give another --out, or delete it to start again")
        return data
    return {"what": "the compared nets, each trained with the same recipe on the same "
                    "positions until early stopping; test metrics static and after a "
                    "depth-1 search", "recipe": recipe, "dataset": dataset_info,
            "sample": sample_info, "runs": {}, "command": command, **stamp()}


def _prepared(dataset, train_positions: int, sample: int, config: TrainConfig) -> dict:
    """What every run shares (the split, the fixed training subset, the search sample and
    the recipe's training examples), made once per process."""
    key = (None if dataset is None else id(dataset), train_positions, sample, repr(config))
    if _PREPARED.get("key") != key:
        _PREPARED.clear()
        data = dataset if dataset is not None else load()
        train, val, test = split(data)
        subset = fixed_subset(train, config, train_positions, data)
        rows = np.sort(np.random.default_rng(0).choice(len(test), min(sample, len(test)),
                                                       replace=False))
        _PREPARED.update(key=key, dataset=data, train=train, val=val, test=test,
                         subset=subset, rows=rows, part=test.subset(rows))
    return _PREPARED


_PREPARED: dict = {}


def _examples(shared: dict, config: TrainConfig, encoding: str, say) -> tuple:
    """The encoded training and validation examples of ``encoding`` (the last one kept)."""
    if "positions" not in shared:
        start = time.perf_counter()
        shared["positions"] = training_positions(shared["subset"], config.quiet,
                                                 config.mirror, config.flip)
        shared["val_positions"] = training_positions(shared["val"], config.quiet)
        say(f"{len(shared['subset']):,} training positions -> "
            f"{len(shared['positions'][1]):,} examples, "
            f"{len(shared['val_positions'][1]):,} validation "
            f"({time.perf_counter() - start:.0f} s)", flush=True)
    if shared.get("encoding") != encoding:
        b, cp = network_view(*shared["positions"], config.perspective)
        vb, vcp = network_view(*shared["val_positions"], config.perspective)
        shared["encoding"] = encoding
        shared["encoded"] = ((encode_positions(b, encoding), cp),
                             (encode_positions(vb, encoding), vcp))
    return shared["encoded"]


def _train_run(job) -> dict:
    """Train one (net, seed), save it and measure it; its entry of the comparison."""
    name, seed, dataset, train_positions, sample, config, models_dir, out_name, progress = job
    say = print if progress else (lambda *a, **k: None)
    shared = _prepared(dataset, train_positions, sample, config)
    model, encoding = build_net(name, seed)
    run = replace(config, seed=seed)
    train_xy, val_xy = _examples(shared, run, encoding, say)
    kind = target_kind(model, run.target)
    began = time.perf_counter()
    history = fit(model, train_xy, val_xy, run, progress=False, kind=kind)
    seconds = time.perf_counter() - began
    evaluator = evaluator_for(name, model, encoding, kind, run.perspective)
    scores = search_scores(evaluator, shared["part"].boards())
    path = save(model, Path(models_dir) / f"{name}_seed{seed}.json", encoding, kind,
                evaluator=name, perspective=run.perspective,
                parameters=count_parameters(model),
                training={"config": asdict(run), "seconds": round(seconds, 1),
                          "data": {"train_positions": len(shared["subset"]),
                                   "train_examples": len(train_xy[1]),
                                   "comparison": out_name}},
                history=history.to_dict())
    return {"net": name, "seed": seed, "encoding": encoding,
            "parameters": count_parameters(load_model(path)),
            "model_file": f"{Path(models_dir).name}/{path.name}",
            "epochs": len(history.epoch), "best_epoch": history.best_epoch,
            "stop_reason": history.stop_reason,
            "reached_cap": len(history.epoch) >= run.epochs and
            history.stop_reason.startswith("maximum"),
            "train_examples": len(train_xy[1]), "seconds": round(seconds, 1),
            "train_loss": history.train_loss, "val_loss": history.val_loss,
            "val_mae_cp": history.val_mae_cp, "val_accuracy": history.val_accuracy,
            "lr": history.lr,
            "test_static": evaluate_on(evaluator, shared["test"]),
            "test_depth1": metrics(scores, shared["part"].cp),
            "depth1_scores": np.round(scores).astype(int).tolist()}


def measure_net_comparison(nets=COMPARED, seeds=SEEDS, train_positions: int = TRAIN_POSITIONS,
                           sample: int = SAMPLE, config: TrainConfig = RECIPE_CONFIG,
                           dataset: Dataset | None = None, out=None, models_dir=None,
                           workers: int = 1, progress: bool = True,
                           command: str | None = None) -> dict:
    """Train every (net, seed) of ``nets`` x ``seeds`` with ``config`` on the same
    ``train_positions`` training positions, ``workers`` runs at a time (each run is
    seeded on its own, so the number of workers changes no result); save each net to
    ``models_dir`` and the comparison to ``out`` as each one finishes; a rerun skips the
    pairs already stored."""
    for name in nets:
        if name not in NETS:
            raise ValueError(f"unknown network {name!r}; choose from {', '.join(NETS)}")
    out = Path(out or result_path("net_comparison"))
    models_dir = Path(models_dir or COMPARISON_MODELS)
    shared = _prepared(dataset, train_positions, sample, config)
    part = shared["part"]
    recipe = _recipe_record(config, train_positions, len(shared["subset"]), len(part))
    dataset_info = {"positions": len(shared["dataset"]),
                    "train_split": len(shared["train"]),
                    "validation": len(shared["val"]), "test": len(shared["test"]),
                    "depth": shared["dataset"].metadata.get("depth")}
    sample_info = {"rows": shared["rows"].tolist(), "game_id": part.game_id.tolist(),
                   "cp": np.asarray(part.cp).tolist()}
    data = _start(out, recipe, dataset_info, sample_info, command)
    todo = [(n, s) for s in seeds for n in nets if run_key(n, s) not in data["runs"]]
    jobs = [(n, s, dataset, train_positions, sample, config, str(models_dir), out.name,
             progress) for n, s in todo]

    def keep(_index, entry):
        data["runs"][run_key(entry["net"], entry["seed"])] = entry
        data["no_run_reached_cap"] = not any(r["reached_cap"] for r in data["runs"].values())
        with file_lock(out):         # the file as it is now: another run's nets are kept
            stored = _start(out, recipe, dataset_info, sample_info, command) \
                if out.exists() else data
            stored["runs"][run_key(entry["net"], entry["seed"])] = entry
            stored["no_run_reached_cap"] = not any(r["reached_cap"]
                                                   for r in stored["runs"].values())
            write_json_atomic(out, stored, indent=1)
        if progress:
            print(f"{run_key(entry['net'], entry['seed']):9s} {entry['parameters']:7,d} "
                  f"parameters, {entry['epochs']} epochs (best {entry['best_epoch']}, "
                  f"{entry['stop_reason']}), {entry['seconds']:.0f} s; depth-1 test MAE "
                  f"{entry['test_depth1']['mae_cp']:.1f} cp", flush=True)
    parallel_map(_train_run, jobs, workers, on_result=keep, ordered=False)  # save each at once
    return data


# ---------------------------------------------------------------- reading it

def runs_of(data: dict, net: str) -> list:
    """The stored runs of ``net``, by seed."""
    return sorted((r for r in data["runs"].values() if r["net"] == net),
                  key=lambda r: r["seed"])


def _errors(data: dict, net: str) -> np.ndarray:
    """Per test position, the depth-1 absolute error (clipped like the MAE) averaged
    over the seeds of ``net``."""
    true = np.clip(np.asarray(data["sample"]["cp"], dtype=float), -CLIP_CP, CLIP_CP)
    errors = [np.abs(np.clip(np.asarray(r["depth1_scores"], dtype=float), -CLIP_CP, CLIP_CP)
                     - true) for r in runs_of(data, net)]
    return np.mean(errors, axis=0)


def bootstrap_difference(errors_a, errors_b, groups, resamples: int = RESAMPLES,
                         seed: int = 0):
    """95% interval of mean(errors_a) - mean(errors_b), resampling whole groups (test
    games: positions of one game are not independent)."""
    groups = np.asarray(groups)
    ids, index = np.unique(groups, return_inverse=True)
    diff = np.asarray(errors_a, dtype=float) - np.asarray(errors_b, dtype=float)
    sums = np.bincount(index, weights=diff, minlength=len(ids))
    counts = np.bincount(index, minlength=len(ids))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(ids), size=(resamples, len(ids)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def verdict(data: dict, a: str = "ann", b: str = "cnn") -> dict:
    """Is ``b`` better than ``a`` after a depth-1 search (test MAE)? The difference of
    the seed means, the spread between seeds, a 95% bootstrap interval over test games,
    and the answer they support: a net is called better only when the interval excludes
    zero and the difference is larger than either net's spread between seeds."""
    ra, rb = runs_of(data, a), runs_of(data, b)
    if not ra or not rb:
        raise ValueError(f"the comparison holds no run of {a if not ra else b}; run "
                         f"`python -m chesslab results net-comparison`")
    mae_a = [r["test_depth1"]["mae_cp"] for r in ra]
    mae_b = [r["test_depth1"]["mae_cp"] for r in rb]
    diff = float(np.mean(mae_a) - np.mean(mae_b))        # > 0: b has the smaller error
    spread = max(np.ptp(mae_a), np.ptp(mae_b))
    low, high = bootstrap_difference(_errors(data, a), _errors(data, b),
                                     data["sample"]["game_id"])
    clear = (low > 0 or high < 0) and abs(diff) > spread
    better = (b if diff > 0 else a) if clear else None
    lower, higher = (b, a) if diff > 0 else (a, b)
    if better:
        text = f"{better} is better: its depth-1 test error is {abs(diff):.1f} cp lower"
    elif round(abs(diff), 1) == 0:
        text = "neither is measurably better: their errors differ by less than 0.1 cp"
    else:                        # name the lower error in words: a signed number misleads
        text = (f"neither is measurably better: {lower}'s error is {abs(diff):.1f} cp lower "
                f"than {higher}'s, within the noise")
    return {"a": a, "b": b, "mae_a": mae_a, "mae_b": mae_b, "difference": diff,
            "seed_spread": float(spread), "interval": (low, high), "better": better,
            "seeds": (len(ra), len(rb)), "text": text}


def format_verdict(v: dict) -> str:
    """The verdict with the numbers it rests on."""
    (low, high), (sa, sb) = v["interval"], v["seeds"]
    return (f"{v['a']} vs {v['b']}: depth-1 test MAE {np.mean(v['mae_a']):.1f} vs "
            f"{np.mean(v['mae_b']):.1f} cp (mean of {sa} and {sb} seeds); {v['a']} minus "
            f"{v['b']}: {v['difference']:+.1f} cp, 95% bootstrap interval over test games "
            f"{low:+.1f} to {high:+.1f}, largest spread between seeds {v['seed_spread']:.1f} "
            f"cp -> {v['text']}")
