"""What each step of the training recipe buys (``results recipe``).

The run is resumable: with ``out`` the results file is rewritten after every trained
net, and a rerun trains only the (net, step) rows it lacks.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from chesslab.base.files import file_lock, read_json, write_json_atomic
from chesslab.datasets.positions import Dataset
from chesslab.evaluators.registry import EVALUATORS
from chesslab.experiments.store import stamp
from chesslab.training.measure import SEARCH_SAMPLE, search_metrics
from chesslab.training.pipeline import SHIPPED, evaluator_for, load, split, train_net
from chesslab.training.recipe import RECIPE_STEPS


#: The nets the recipe ablation trains by default (``results recipe``).
RECIPE_NETS = ("ann", "linear")


def recipe_plan(names) -> list:
    """(net, step label, recipe settings) of every row, in the order they are trained:
    each net through the steps, each step's switch added to the ones above. Nets that
    only read the side to move's view (nnue, linear) start at that step."""
    plan = []
    for name in names:
        settings = dict(perspective="white", target="tanh", quiet=False, flip=False,
                        extra_plies=False, leaves=False)
        for label, change in RECIPE_STEPS:
            settings.update(change)
            only = EVALUATORS[name].perspective
            if only is None or settings["perspective"] == only:
                plan.append((name, label, dict(settings)))
    return plan


def _row_key(net: str, step: str, settings: dict) -> str:
    """One row's identity: its net, its step and the recipe settings it was trained with."""
    return json.dumps([net, step, settings], sort_keys=True)


def _start(out: Path | None, plan: list, dataset_info: dict, sample: int) -> dict:
    """The stored rows of ``out`` this run can reuse, by key; a stored file made with
    another dataset or sample, or holding rows this run would not make, is refused rather
    than mixed with this one."""
    if out is None or not Path(out).exists():
        return {}
    data = read_json(out, "recipe results")
    if data.get("dataset") != dataset_info or data.get("sample") != sample:
        raise ValueError(f"{out} holds recipe rows measured on another dataset or search "
                         f"sample (or by a version that did not record them); give another "
                         f"--out, or delete it to start again")
    stored = {_row_key(r["net"], r["step"], r["recipe"]): r for r in data.get("rows", [])}
    wanted = {_row_key(*entry) for entry in plan}
    foreign = [f"{r['net']} {r['step']!r}" for key, r in stored.items() if key not in wanted]
    if foreign:
        raise ValueError(f"{out} holds rows this run would not make ({', '.join(foreign)}: "
                         f"other nets or recipe settings); ask for the same --nets, give "
                         f"another --out, or delete it to start again")
    return stored


def measure_recipe(names=RECIPE_NETS, dataset: Dataset | None = None,
                   sample: int = SEARCH_SAMPLE, progress: bool = True, out=None,
                   command: str | None = None) -> dict:
    """Train each net once per recipe step (cumulative) and measure it as a search
    uses it (``search_metrics`` at depth 1 on the test split): what each step buys.

    With ``out``, the result is written there after every row, and a rerun reuses the
    stored rows (same net, step and recipe settings, same dataset and sample) instead of
    training them again.
    """
    for name in names:
        if name not in SHIPPED:
            raise ValueError(f"unknown network {name!r}; choose from {', '.join(SHIPPED)}")
    dataset = dataset if dataset is not None else load()
    dataset_info = json.loads(json.dumps({"positions": len(dataset), **dataset.metadata}))
    plan = recipe_plan(names)
    stored = _start(out, plan, dataset_info, sample)
    result = {"what": "each recipe step added to the one above; depth-1 search metrics on "
                      f"{sample} test positions", "rows": [], "sample": sample,
              "dataset": dataset_info, "command": command, **stamp()}
    have, keys = dict(stored), [_row_key(*entry) for entry in plan]
    splits, cache = None, {}
    for key, (name, label, settings) in zip(keys, plan):
        if key in have:
            continue
        splits = splits or split(dataset)
        have[key] = _measure_row(name, label, settings, dataset, splits, cache, sample)
        if progress:
            _say(have[key])
        if out is not None:           # the rows in plan order, whichever are done
            _store(out, plan, dataset_info, sample, have, keys, result)
    result["rows"] = [have[k] for k in keys]
    if out is not None:
        _store(out, plan, dataset_info, sample, have, keys, result)
    return result


def _store(out, plan, dataset_info, sample, have: dict, keys: list, result: dict) -> None:
    """Write ``result`` with the rows done, in plan order, under the file's lock, adding
    the rows another run of the same plan stored meanwhile (to ``have``)."""
    with file_lock(out):
        for key, row in _start(out, plan, dataset_info, sample).items():
            have.setdefault(key, row)
        write_json_atomic(out, {**result, "rows": [have[k] for k in keys if k in have]},
                          indent=1)


def _measure_row(name, label, settings, dataset, splits, cache, sample) -> dict:
    """Train ``name`` with the recipe ``settings`` and measure it after a depth-1 search."""
    config = replace(SHIPPED[name], **settings, mirror=False)
    result = train_net(name, dataset, config, False, splits, cache)
    evaluator = evaluator_for(name, result.model, result.encoding, result.kind,
                              config.perspective)
    searched = search_metrics(evaluator, splits[2], sample=sample)
    return {"net": name, "step": label, "recipe": dict(settings),
            "epochs": len(result.history.epoch),
            "train_examples": result.train_examples,
            "train_seconds": round(result.seconds, 1),
            "static_test": result.test, "search_depth1": searched}


def _say(row: dict) -> None:
    searched = row["search_depth1"]
    s = searched["all"]
    print(f"{row['net']:5s} {row['step']:26s} depth-1 MAE {s['mae_cp']:6.1f}  r "
          f"{s['correlation']:.3f}  sign {s['sign_accuracy']:.3f}  (White / "
          f"Black to move {searched['white_to_move']['mae_cp']:.0f} / "
          f"{searched['black_to_move']['mae_cp']:.0f})", flush=True)
