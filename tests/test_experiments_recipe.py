"""experiments.recipe: one net per recipe step, stored after each row, resumed without
retraining the stored rows; a stored file from another dataset or sample refused."""
import json
from dataclasses import replace

import pytest

from chesslab.experiments import recipe
from material_data import _material_dataset, tiny  # noqa: F401  (a fixture)

NETS = ("ann", "linear")
SAMPLE = 16
#: Three steps: the ann trains at each, the linear net (side to move only) from the second.
STEPS = recipe.RECIPE_STEPS[:3]
EXPECTED = [("ann", STEPS[0][0]), ("ann", STEPS[1][0]), ("ann", STEPS[2][0]),
            ("linear", STEPS[1][0]), ("linear", STEPS[2][0])]


@pytest.fixture(scope="module", autouse=True)
def short_recipe():
    """Three steps and a few epochs: the same code paths in seconds."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(recipe, "RECIPE_STEPS", STEPS)
        patch.setattr(recipe, "SHIPPED", {n: replace(recipe.SHIPPED[n], epochs=2,
                                                     batch_size=32) for n in NETS})
        yield


def _without_timings(value):
    """A row with its wall-clock fields removed (the only ones a rerun may change)."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items()
                if k not in ("seconds", "train_seconds")}
    return value


def _counting_train(monkeypatch, fail_on=None):
    """Patch the recipe's train function to count its calls (and raise on call fail_on)."""
    calls = []
    real = recipe.train_net

    def train(name, *args, **kwargs):
        calls.append(name)
        if len(calls) == fail_on:
            raise KeyboardInterrupt("stopped by the test")
        return real(name, *args, **kwargs)
    monkeypatch.setattr(recipe, "train_net", train)
    return calls


@pytest.fixture(scope="module")
def uninterrupted(tiny, tmp_path_factory):
    out = tmp_path_factory.mktemp("recipe") / "whole.json"
    data = recipe.measure_recipe(NETS, dataset=tiny, sample=SAMPLE, progress=False, out=out,
                                 command="python -m chesslab results recipe --nets ann linear")
    return data, out


def test_one_row_per_net_and_step_in_order_with_its_command(uninterrupted):
    data, out = uninterrupted
    assert [(r["net"], r["step"]) for r in data["rows"]] == EXPECTED
    assert json.loads(out.read_text(encoding="utf-8")) == data
    assert data["command"] == "python -m chesslab results recipe --nets ann linear"
    assert data["sample"] == SAMPLE and data["dataset"]["positions"] == 400
    # each step adds its switch to the ones above
    assert [r["recipe"]["perspective"] for r in data["rows"][:3]] == \
        ["white", "side_to_move", "side_to_move"]
    assert data["rows"][2]["recipe"]["target"] == "wdl"
    assert all(r["epochs"] >= 1 and r["search_depth1"]["all"]["mae_cp"] >= 0
               for r in data["rows"])


def test_a_stopped_run_resumes_to_the_same_rows(uninterrupted, tiny, tmp_path, monkeypatch):
    whole, _ = uninterrupted
    out = tmp_path / "resumed.json"
    calls = _counting_train(monkeypatch, fail_on=2)
    with pytest.raises(KeyboardInterrupt):
        recipe.measure_recipe(NETS, dataset=tiny, sample=SAMPLE, progress=False, out=out,
                              command="first")
    stored = json.loads(out.read_text(encoding="utf-8"))
    assert [(r["net"], r["step"]) for r in stored["rows"]] == EXPECTED[:1]

    calls = _counting_train(monkeypatch)
    data = recipe.measure_recipe(NETS, dataset=tiny, sample=SAMPLE, progress=False, out=out,
                                 command="second")
    assert len(calls) == len(EXPECTED) - 1                 # the stored row not retrained
    assert data["rows"][0] == stored["rows"][0]
    assert [_without_timings(r) for r in data["rows"]] == \
        [_without_timings(r) for r in whole["rows"]]
    assert json.loads(out.read_text(encoding="utf-8")) == data and data["command"] == "second"

    calls = _counting_train(monkeypatch)                   # complete: nothing to train
    again = recipe.measure_recipe(NETS, dataset=tiny, sample=SAMPLE, progress=False, out=out)
    assert calls == [] and again["rows"] == data["rows"]


def test_a_file_from_another_dataset_sample_or_nets_is_refused(uninterrupted, tiny):
    _, out = uninterrupted
    before = out.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="another dataset or search sample"):
        recipe.measure_recipe(NETS, dataset=tiny, sample=SAMPLE + 1, progress=False, out=out)
    other = _material_dataset(n=200, seed=5)
    with pytest.raises(ValueError, match="another dataset or search sample"):
        recipe.measure_recipe(NETS, dataset=other, sample=SAMPLE, progress=False, out=out)
    with pytest.raises(ValueError, match="rows this run would not make.*linear"):
        recipe.measure_recipe(("ann",), dataset=tiny, sample=SAMPLE, progress=False, out=out)
    assert out.read_text(encoding="utf-8") == before


def test_an_unknown_net_is_refused_by_name(tiny):
    with pytest.raises(ValueError, match="unknown network 'resnet'"):
        recipe.measure_recipe(("resnet",), dataset=tiny, progress=False)


def test_the_command_line_resumes_records_its_command_and_refuses_clearly(
        uninterrupted, tiny, tmp_path, monkeypatch, capsys):
    from chesslab.cli import main
    whole, stored = uninterrupted
    out = tmp_path / "recipe.json"
    out.write_text(stored.read_text(encoding="utf-8"))
    monkeypatch.setattr(recipe, "load", lambda: tiny)
    calls = _counting_train(monkeypatch)
    argv = ["results", "recipe", "--nets", *NETS, "--sample", str(SAMPLE), "--out", str(out)]
    assert main(argv) == 0 and calls == []                 # every row stored: none trained
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["command"] == "python -m chesslab " + " ".join(argv)
    assert data["rows"] == whole["rows"]
    argv[argv.index("--sample") + 1] = str(SAMPLE + 1)
    assert main(argv) == 2
    assert "another dataset or search sample" in capsys.readouterr().err


def test_a_run_keeps_the_rows_another_run_stored_meanwhile(tiny, tmp_path, monkeypatch):
    out, made = tmp_path / "recipe.json", []

    def measure(name, label, settings, *args):      # no training: when rows are stored is
        made.append((name, label))                  # the point
        if len(made) == 1:           # meanwhile a second run measures every step of the ann
            recipe.measure_recipe(("ann",), dataset=tiny, sample=SAMPLE, progress=False,
                                  out=out)
        elif len(made) == 5:
            raise KeyboardInterrupt("the first run is stopped")
        return {"net": name, "step": label, "recipe": settings}
    monkeypatch.setattr(recipe, "_measure_row", measure)
    with pytest.raises(KeyboardInterrupt):
        recipe.measure_recipe(NETS, dataset=tiny, sample=SAMPLE, progress=False, out=out)
    assert made == [EXPECTED[0], *EXPECTED[:3], EXPECTED[3]]   # the ann's steps not redone
    stored = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert [(r["net"], r["step"]) for r in stored] == EXPECTED[:3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["recipe.json"]
