"""figures.training: diagrams and listings are read from real models, curves from history."""
import numpy as np

from chesslab import nn
from chesslab.training import recipe
from chesslab.training import pipeline
from chesslab.figures import training as ft


def test_cnn_diagram_shapes_are_the_models_real_shapes():
    model = nn.thesis_cnn()
    boxes = ft.network_boxes(model)
    real = [tuple(shape) for layer, shape in model.shapes() if not isinstance(layer, nn.Flatten)]
    assert [shape for _, _, shape in boxes[1:]] == real
    assert [kind for kind, _, _ in boxes] == ["Input", "Conv", "Pool", "Activ", "Conv", "Pool",
                                              "Activ", "Full"]
    assert boxes[1][1].endswith("13 kernels 3x3") and boxes[4][1].endswith("10 kernels 3x3")
    # a different CNN gives a different diagram: the figure reads the model, not a constant
    other = nn.CNN((1, 8, 8), name="other")
    other.add(nn.Conv2D(1, 4, 3))
    other.add_output_layer(1)
    assert [s for _, _, s in ft.network_boxes(other)] == [(1, 8, 8), (4, 6, 6), (1,)]


def test_model_listing_is_the_saved_file():
    text = ft.model_listing(ft._small_ann())
    assert '"name": "NN 1"' in text
    assert '"inputWeights": [[0.1], [0.4]]' in text and '"bias1": [0.2]' in text
    assert '"bias2": [0.3]' in text


def test_plot_history_draws_loss_and_accuracy():
    h = pipeline.History()
    for e in (1, 2, 3):
        h.append(epoch=e, train_loss=1 / e, val_loss=1.2 / e, val_accuracy=0.5 + e / 10,
                 val_mae_cp=300 / e, lr=1e-3, seconds=e)
    h.best_epoch = 3
    fig = ft.plot_history(h, "ANN")
    loss_ax, acc_ax = fig.axes
    assert len(loss_ax.lines) == 3 and loss_ax.get_title() == "ANN loss"   # 2 curves + best
    np.testing.assert_allclose(acc_ax.lines[0].get_ydata(), [0.6, 0.7, 0.8])


def test_plot_recipe_ticks_only_the_measured_steps_in_recipe_order():
    steps = [label for label, _ in recipe.RECIPE_STEPS]
    def row(i):
        mae = {"all": 100.0 - 10 * i, "white_to_move": 90.0, "black_to_move": 110.0}
        return {"net": "ann", "step": steps[i],
                "search_depth1": {k: {"mae_cp": v} for k, v in mae.items()}}
    rows = [row(2), row(0)]
    ax = ft.plot_recipe({"rows": rows})
    all_line = ax.lines[0]
    assert list(all_line.get_xdata()) == [1, 0] and list(all_line.get_ydata()) == [80.0, 100.0]
    assert len(ax.lines) == 3
    assert [t.get_text() for t in ax.get_xticklabels()] == [steps[0], steps[2]]


def test_residual_block_figure_is_drawn_from_the_block():
    from chesslab.figures import training as ft
    from chesslab.nn import Residual
    block = Residual(8, kernel_size=3)
    texts = [t.get_text() for t in ft.residual_block_figure(block).axes[0].texts]
    assert any(t.startswith("Conv2D\n(8 -> 8") for t in texts)
    assert sum(t.startswith("BatchNorm") for t in texts) == 2
    assert "+" in texts and any("skip connection" in t for t in texts)
    assert any(t.startswith(repr(block)) for t in texts)


def test_comparison_curves_draw_every_seed_of_each_net():
    def run(net, seed, epochs, best):
        loss = list(np.linspace(0.05, 0.02, epochs))
        return {"net": net, "seed": seed, "epochs": epochs, "best_epoch": best,
                "train_loss": loss, "val_loss": [x + 0.01 for x in loss], "parameters": 10,
                "stop_reason": "early stopping: no better val loss for 6 epochs"}
    data = {"recipe": {"train_positions": 1000},
            "runs": {"ann64@0": run("ann64", 0, 9, 3), "ann64@1": run("ann64", 1, 12, 6),
                     "cnn64@0": run("cnn64", 0, 20, 14)}}
    fig = ft.comparison_curves_figure(data)
    left, right = fig.axes
    assert [len(line.get_xdata()) for line in left.lines] == [9, 9, 1, 12, 12, 1]
    assert len(right.lines) == 3 and "early stopping" in right.get_title()
    assert right.lines[2].get_xdata()[0] == 14          # the best epoch is marked
    try:
        ft.comparison_curves_figure(data, ("ann", "cnn"))
    except ValueError as exc:
        assert "no run of ann, cnn" in str(exc)
    else:
        raise AssertionError("a comparison without the nets drew a figure")


def test_comparison_errors_sort_the_nets_by_mean_error_with_a_dot_per_seed():
    def run(net, seed, mae, parameters):
        return {"net": net, "seed": seed, "parameters": parameters,
                "test_depth1": {"mae_cp": mae}}
    data = {"recipe": {"train_positions": 1000},
            "runs": {"ann@0": run("ann", 0, 130.0, 50), "ann@1": run("ann", 1, 126.0, 50),
                     "conv@0": run("conv", 0, 110.0, 900), "cnn@0": run("cnn", 0, 120.0, 7),
                     "cnn@1": run("cnn", 1, 122.0, 7), "cnn@2": run("cnn", 2, 118.0, 7)}}
    ax = ft.comparison_errors_figure(data).axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert [label.split()[0] for label in labels] == ["conv", "cnn", "ann"]   # lowest first
    assert "900 param." in labels[0]
    assert [bar.get_height() for bar in ax.patches] == [110.0, 120.0, 128.0]
    assert [list(line.get_ydata()) for line in ax.lines] == [[110.0], [120.0, 122.0, 118.0],
                                                            [130.0, 126.0]]
    try:
        ft.comparison_errors_figure(data, ("ann", "residual"))
    except ValueError as exc:
        assert "no run of residual" in str(exc)
    else:
        raise AssertionError("a comparison without the net drew a figure")
