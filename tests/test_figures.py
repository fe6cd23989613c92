"""Figures: each function draws, the CNN diagram follows the model, output is reproducible."""
import hashlib

import chess
import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from chesslab import figures, nn  # noqa: E402
from chesslab.__main__ import main  # noqa: E402


@pytest.mark.parametrize("name", list(figures.figure_registry()))
def test_every_registered_figure_draws(name):
    try:
        fig = figures.figure_registry()[name][0]()
    except FileNotFoundError as exc:          # results not computed yet: says which command
        assert "python -m chesslab" in str(exc)
        pytest.skip(str(exc))
    assert isinstance(fig, matplotlib.figure.Figure) and fig.axes
    plt.close(fig)


def test_cnn_diagram_shapes_are_the_models_real_shapes():
    model = nn.thesis_cnn()
    boxes = figures.network_boxes(model)
    real = [tuple(shape) for layer, shape in model.shapes() if not isinstance(layer, nn.Flatten)]
    assert [shape for _, _, shape in boxes[1:]] == real
    assert [kind for kind, _, _ in boxes] == ["Input", "Conv", "Pool", "Activ", "Conv", "Pool",
                                              "Activ", "Full"]
    assert boxes[1][1].endswith("13 kernels 3x3") and boxes[4][1].endswith("10 kernels 3x3")
    # a different CNN gives a different diagram: the figure reads the model, not a constant
    other = nn.CNN((1, 8, 8), name="other")
    other.add(nn.Conv2D(1, 4, 3))
    other.add_output_layer(1)
    assert [s for _, _, s in figures.network_boxes(other)] == [(1, 8, 8), (4, 6, 6), (1,)]


def test_model_listing_is_the_saved_file():
    text = figures.model_listing(figures._small_ann())
    assert '"name": "NN 1"' in text
    assert '"inputWeights": [[0.1], [0.4]]' in text and '"bias1": [0.2]' in text
    assert '"bias2": [0.3]' in text


def test_draw_board_array_rejects_wrong_shapes():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="8x8"):
        figures.draw_board_array(ax, [[1, 2], [3, 4]])
    plt.close(fig)


def test_cli_output_is_byte_identical_twice(tmp_path, capsys):
    only = ["piece_table", "cnn_structure"]
    digests = []
    for run in range(2):
        out = tmp_path / f"run{run}"
        assert main(["figures", "--out", str(out), "--only", *only, "--quiet"]) == 0
        digests.append({p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                        for p in sorted(out.iterdir())})
    assert len(digests[0]) == 4 and digests[0] == digests[1]
    assert main(["figures", "--out", str(tmp_path), "--only", "nonsense"]) == 2
    assert "unknown figure" in capsys.readouterr().err
