"""What each step of the training recipe buys (``results recipe``)."""
from __future__ import annotations

from dataclasses import replace

from chesslab.datasets.positions import Dataset
from chesslab.evaluators.registry import EVALUATORS
from chesslab.experiments.store import stamp
from chesslab.training.measure import SEARCH_SAMPLE, search_metrics
from chesslab.training.pipeline import SHIPPED, evaluator_for, load, split, train_net
from chesslab.training.recipe import RECIPE_STEPS


#: The nets the recipe ablation trains by default (``results recipe``).
RECIPE_NETS = ("ann", "nnue")


def measure_recipe(names=RECIPE_NETS, dataset: Dataset | None = None,
                   sample: int = SEARCH_SAMPLE, progress: bool = True) -> dict:
    """Train each net once per recipe step (cumulative) and measure it as a search
    uses it (``search_metrics`` at depth 1 on the test split): what each step buys.

    Nets that only read the side to move's view (nnue, linear) start at that step.
    """
    dataset = dataset if dataset is not None else load()
    splits = split(dataset)
    cache, rows = {}, []
    for name in names:
        settings = dict(perspective="white", target="tanh", quiet=False, flip=False,
                        extra_plies=False, leaves=False)
        for label, change in RECIPE_STEPS:
            settings.update(change)
            only = EVALUATORS[name].perspective
            if only is not None and settings["perspective"] != only:
                continue
            config = replace(SHIPPED[name], **settings, mirror=False)
            result = train_net(name, dataset, config, False, splits, cache)
            model, kind = result.model, result.kind
            evaluator = evaluator_for(name, model, result.encoding, kind, config.perspective)
            searched = search_metrics(evaluator, splits[2], sample=sample)
            rows.append({"net": name, "step": label, "recipe": dict(settings),
                         "epochs": len(result.history.epoch),
                         "train_examples": result.train_examples,
                         "train_seconds": round(result.seconds, 1),
                         "static_test": result.test, "search_depth1": searched})
            if progress:
                s = searched["all"]
                print(f"{name:5s} {label:26s} depth-1 MAE {s['mae_cp']:6.1f}  r "
                      f"{s['correlation']:.3f}  sign {s['sign_accuracy']:.3f}  (White / "
                      f"Black to move {searched['white_to_move']['mae_cp']:.0f} / "
                      f"{searched['black_to_move']['mae_cp']:.0f})", flush=True)
    return {"what": "each recipe step added to the one above; depth-1 search metrics on "
                    f"{sample} test positions", "rows": rows,
            "dataset": {"positions": len(dataset), **dataset.metadata}, **stamp()}
