"""The results table of the evaluators (``results evaluators``): each one on the same
test split, statically and inside a depth-1 search, with what its training cost."""
from __future__ import annotations

from pathlib import Path

from chesslab.base.files import MODELS_DIR, read_json
from chesslab.datasets.positions import Dataset
from chesslab.evaluators.registry import EVALUATORS, load_evaluator
from chesslab.training.measure import (CLIP_CP, SEARCH_SAMPLE, SIGN_MARGIN_CP, evaluate_on,
                                       search_metrics)
from chesslab.training.pipeline import NETS, load, split

#: The rows of the results table: the registry's evaluators marked ``in_table``.
TABLE_ROWS = tuple(name for name, entry in EVALUATORS.items() if entry.in_table)


def results_table(names=TABLE_ROWS,
                  dataset: Dataset | None = None, models_dir=MODELS_DIR) -> dict:
    """Validation and test metrics of each evaluator on the same split of ``dataset``,
    with the parameter count and training time the model files record."""
    dataset = dataset if dataset is not None else load()
    _, val, test = split(dataset)
    rows = []
    for name in names:
        path = Path(models_dir) / f"{name}.json"
        if name in NETS:
            evaluator = load_evaluator(name, model=path)
            meta = read_json(path, "model file")["chesslab"]
            extra = {"parameters": meta["parameters"],
                     "train_seconds": meta["training"]["seconds"],
                     "epochs": len(meta["history"]["epoch"]),
                     "train_positions": meta["training"]["data"].get("train_positions"),
                     "encoding": meta["encoding"],
                     "recipe": {k: meta["training"]["config"].get(k, default) for k, default
                                in (("perspective", "white"), ("target", "tanh"),
                                    ("quiet", False), ("mirror", False),
                                    ("flip", False), ("extra_plies", False),
                                    ("leaves", False))}}
        else:
            evaluator, extra = load_evaluator(name), {"parameters": 0, "train_seconds": 0}
        rows.append({"evaluator": name, "validation": evaluate_on(evaluator, val),
                     "test": evaluate_on(evaluator, test),
                     "search_depth1": search_metrics(evaluator, test), **extra})
    return {"rows": rows, "dataset": {"positions": len(dataset), "validation": len(val),
                                      "test": len(test), **dataset.metadata},
            "clip_cp": CLIP_CP, "sign_margin_cp": SIGN_MARGIN_CP,
            "search_sample": f"{SEARCH_SAMPLE} test positions (seed 0), search(board, "
                             f"evaluator, depth=1).score with quiescence"}


def format_table(table: dict) -> str:
    """The results as a Markdown table: the depth-1 search first (how an evaluation is
    used), then the static evaluation of the whole test split."""
    lines = ["| evaluator | depth-1 MAE (cp) | depth-1 r | depth-1 sign acc | White / Black "
             "to move MAE | static test MAE | static r | static sign acc | parameters | "
             "training (s) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in table["rows"]:
        t, s = r["test"], r.get("search_depth1")
        searched = (f"{s['all']['mae_cp']:.0f} | {s['all']['correlation']:.3f} | "
                    f"{s['all']['sign_accuracy']:.3f} | {s['white_to_move']['mae_cp']:.0f} / "
                    f"{s['black_to_move']['mae_cp']:.0f}") if s else "- | - | - | -"
        lines.append(f"| {r['evaluator']} | {searched} | {t['mae_cp']:.0f} | "
                     f"{t['correlation']:.3f} | {t['sign_accuracy']:.3f} | "
                     f"{r['parameters']:,} | {r['train_seconds']:.1f} |")
    return "\n".join(lines)
