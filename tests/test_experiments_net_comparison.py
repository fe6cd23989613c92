"""net_comparison: every net trained with one recipe on the same positions, each to early
stopping, stored as it finishes, resumed without retraining; the verdict from the numbers."""
import json
from dataclasses import replace

import numpy as np
import pytest

from chesslab.experiments import net_comparison as nc
from chesslab.nn import load_model
from chesslab.training.pipeline import count_parameters
from material_data import tiny  # noqa: F401  (a fixture)

#: A recipe the tiny data stops early with, its cap far away.
TINY = replace(nc.RECIPE_CONFIG, batch_size=32, patience=2, lr_patience=1, lr=0.003)


@pytest.fixture(scope="module")
def compared(tiny, tmp_path_factory):
    folder = tmp_path_factory.mktemp("comparison")
    out, models = folder / "net_comparison.json", folder / "models"
    data = nc.measure_net_comparison(("ann", "cnn"), (0, 1), train_positions=150, sample=24,
                                     config=TINY, dataset=tiny, out=out, models_dir=models,
                                     progress=False, command="test")
    return data, out, models


def test_every_net_got_the_same_recipe_and_positions_and_stopped_early(compared):
    data, out, models = compared
    runs = data["runs"]
    assert sorted(runs) == ["ann@0", "ann@1", "cnn@0", "cnn@1"]
    assert data["recipe"]["train_positions"] == 150
    assert len({r["train_examples"] for r in runs.values()}) == 1     # the same examples
    for key, run in runs.items():
        doc = json.loads((models / f"{run['net']}_seed{run['seed']}.json").read_text(encoding="utf-8"))
        config = doc["chesslab"]["training"]["config"]
        assert {k: v for k, v in config.items() if k != "seed"} == data["recipe"]["config"]
        assert config["seed"] == run["seed"]
        assert run["stop_reason"].startswith("early stopping"), key
        assert not run["reached_cap"] and run["epochs"] < TINY.epochs
        assert run["epochs"] == len(run["val_loss"]) == len(run["train_loss"])
        assert 1 <= run["best_epoch"] <= run["epochs"] - TINY.patience + 1
        assert len(run["depth1_scores"]) == len(data["sample"]["cp"]) == 24
    assert data["no_run_reached_cap"] is True
    # sizes come from the model files; the two seeds of a net really differ
    ann = load_model(models / "ann_seed0.json")
    assert runs["ann@0"]["parameters"] == count_parameters(ann) == 61633
    assert runs["cnn@0"]["parameters"] == 2872
    assert runs["ann@0"]["val_loss"] != runs["ann@1"]["val_loss"]


def test_the_results_file_round_trips_and_a_rerun_trains_nothing(compared, tiny, monkeypatch):
    data, out, models = compared
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(json.dumps(data))
    monkeypatch.setattr(nc, "fit", lambda *a, **k: pytest.fail("retrained a stored net"))
    again = nc.measure_net_comparison(("ann", "cnn"), (0, 1), train_positions=150, sample=24,
                                      config=TINY, dataset=tiny, out=out, models_dir=models,
                                      progress=False)
    assert again == json.loads(out.read_text(encoding="utf-8"))


def test_resuming_trains_only_the_missing_nets(compared, tiny, tmp_path):
    data, out, models = compared
    partial = json.loads(out.read_text(encoding="utf-8"))
    del partial["runs"]["cnn@1"]
    path = tmp_path / "net_comparison.json"
    path.write_text(json.dumps(partial))
    trained = []
    real_fit = nc.fit

    def counting_fit(model, *args, **kwargs):
        trained.append(model.name)
        return real_fit(model, *args, **kwargs)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(nc, "fit", counting_fit)
    try:
        done = nc.measure_net_comparison(("ann", "cnn"), (0, 1), train_positions=150,
                                         sample=24, config=TINY, dataset=tiny, out=path,
                                         models_dir=tmp_path / "models", progress=False)
    finally:
        monkeypatch.undo()
    assert len(trained) == 1 and "CNN" in trained[0]
    assert sorted(done["runs"]) == sorted(data["runs"])
    assert done["runs"]["ann@0"] == data["runs"]["ann@0"]          # kept, not retrained
    # the same seed, positions and recipe train the same net again
    assert done["runs"]["cnn@1"]["val_loss"] == data["runs"]["cnn@1"]["val_loss"]


def test_another_recipe_is_refused_instead_of_mixed(compared, tiny):
    _, out, models = compared
    with pytest.raises(ValueError, match="another recipe"):
        nc.measure_net_comparison(("ann",), (0,), train_positions=100, sample=24,
                                  config=TINY, dataset=tiny, out=out, models_dir=models,
                                  progress=False)
    with pytest.raises(ValueError, match="unknown network 'mlp'"):
        nc.measure_net_comparison(("mlp",), dataset=tiny, out=out)


def test_verdict_follows_the_numbers():
    rng = np.random.default_rng(0)
    games = np.repeat(np.arange(50), 4)
    truth = rng.normal(0, 300, 200)

    def fake(noise_a, noise_b, seeds=2, same_draws=False):
        data = {"sample": {"cp": truth.tolist(), "game_id": games.tolist()}, "runs": {}}
        for net, noise in (("ann", noise_a), ("cnn", noise_b)):
            for seed in range(seeds):
                other = seeds - 1 - seed if same_draws else seed + 100       # the same errors, seeds swapped
                draw = np.random.default_rng(seed if net == "ann" else other)
                scores = truth + draw.normal(0, noise, 200)
                data["runs"][f"{net}@{seed}"] = {
                    "net": net, "seed": seed, "depth1_scores": scores.tolist(),
                    "test_depth1": {"mae_cp": float(np.mean(np.abs(scores - truth)))}}
        return data
    clear = nc.verdict(fake(200, 50))
    assert clear["better"] == "cnn" and clear["interval"][0] > 0
    assert clear["text"].startswith("cnn is better") and "cnn" in nc.format_verdict(clear)
    assert nc.verdict(fake(50, 200))["better"] == "ann"
    same = nc.verdict(fake(100, 100, same_draws=True))
    assert same["better"] is None and same["difference"] == pytest.approx(0)
    assert same["interval"][0] <= 0 <= same["interval"][1]
    assert same["text"] == "neither is measurably better: their errors differ by less than 0.1 cp"
    # inside the noise with a real difference: the words name whose error is lower
    close = nc.verdict(fake(105, 100))
    assert close["better"] is None and close["difference"] < 0      # ann's mean error lower
    assert close["text"] == (f"neither is measurably better: ann's error is "
                             f"{-close['difference']:.1f} cp lower than cnn's, within the noise")
    assert close["text"] in nc.format_verdict(close)
    with pytest.raises(ValueError, match="no run of cnn64"):
        nc.verdict(fake(1, 1), "ann", "cnn64")


def test_bootstrap_resamples_whole_games():
    # one game holds all the difference: resampling games (not positions) shows it
    errors_a, errors_b = np.zeros(100), np.zeros(100)
    errors_a[:10] = 100
    games = np.repeat(np.arange(10), 10)
    low, high = nc.bootstrap_difference(errors_a, errors_b, games)
    assert low == 0 and high > 20


def test_the_command_runs_the_comparison_with_its_defaults():
    from chesslab.cli import build_parser
    args = build_parser().parse_args(["results", "net-comparison"])
    assert (args.nets, args.seeds, args.train_positions, args.sample) == \
        (nc.COMPARED, nc.SEEDS, nc.TRAIN_POSITIONS, nc.SAMPLE)
    args = build_parser().parse_args(["results", "net-comparison", "--nets", "ann", "cnn64",
                                      "--seeds", "3", "--train-positions", "100"])
    assert (args.nets, args.seeds, args.train_positions) == (["ann", "cnn64"], [3], 100)


def test_two_workers_train_the_same_nets_as_one(compared, tiny, tmp_path):
    data, _, _ = compared
    done = nc.measure_net_comparison(("ann", "cnn"), (1,), train_positions=150, sample=24,
                                     config=TINY, dataset=tiny, out=tmp_path / "c.json",
                                     models_dir=tmp_path / "models", workers=2,
                                     progress=False)
    assert sorted(done["runs"]) == ["ann@1", "cnn@1"]
    for key in ("ann@1", "cnn@1"):
        for field in ("val_loss", "depth1_scores", "test_depth1", "epochs"):
            assert done["runs"][key][field] == data["runs"][key][field], (key, field)


def test_a_run_keeps_the_nets_another_run_stored_meanwhile(tiny, tmp_path, monkeypatch):
    out, trained = tmp_path / "net_comparison.json", []
    same = dict(train_positions=150, sample=24, config=TINY, dataset=tiny, out=out,
                models_dir=tmp_path / "models", progress=False)

    def train(job):                  # no training: when runs are stored is the point
        name, seed = job[:2]
        trained.append(nc.run_key(name, seed))
        if len(trained) == 1:        # meanwhile a second run trains another net
            nc.measure_net_comparison(("cnn",), (0,), **same)
        return {"net": name, "seed": seed, "reached_cap": False}
    monkeypatch.setattr(nc, "_train_run", train)
    nc.measure_net_comparison(("ann",), (0,), **same, command="first")
    runs = json.loads(out.read_text(encoding="utf-8"))["runs"]
    assert sorted(runs) == sorted(trained) == sorted([nc.run_key("ann", 0), nc.run_key("cnn", 0)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net_comparison.json"]
