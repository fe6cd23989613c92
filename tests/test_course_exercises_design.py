"""course.exercises.design: the checkers of notebook 02's design: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import hashlib
import random

import chess
import numpy as np
import pytest

from chesslab.course.exercises.design import (check_material_design, design_inputs, MATERIAL_BAR,
                                              positions_digest)
from chesslab.board.scores import material_balance
from chesslab.course.checking import seeded_boards


def stub(*args):
    raise NotImplementedError("your code here")


@pytest.fixture(scope="module")
def material_task():
    boards = seeded_boards(2000, 21)
    return boards, np.array([material_balance(b) / 1000 for b in boards])


def test_a_good_design_passes_and_the_thesis_design_is_far_from_the_bar(material_task, capsys):
    boards, y = material_task
    good = {"inputs": "pieces", "topology": [768, 1], "activation": "sigmoid", "lr": 0.01,
            "epochs": 30, "batch": 32}
    result = check_material_design(lambda: good, boards, y)
    said = capsys.readouterr().out
    assert result.ok and "passed" in said
    assert "1,600 training and 400 validation positions" in said    # 80% of 2000 boards
    # the digest names the validation positions: notebook 02's split, FENs one a line
    val = np.random.default_rng(1).permutation(2000)[1600:]
    fens = "\n".join(boards[i].fen() for i in val)
    assert f"validation FEN digest {hashlib.sha256(fens.encode()).hexdigest()[:12]}" in said
    assert result.digest != positions_digest(boards[:400])          # other positions, other digest
    thesis = {"inputs": "thesis", "topology": [64, 64, 64, 1], "activation": "sigmoid",
              "lr": 0.001, "epochs": 20, "batch": 32}
    result = check_material_design(lambda: thesis, boards, y)
    assert not result.ok and min(result.errors) > MATERIAL_BAR
    assert "times it" in capsys.readouterr().out


def test_an_undertrained_design_is_told_so(material_task):
    """The right idea at too small a learning rate: the line shows the training error,
    and that it is above the bar (undertrained), not only that validation failed."""
    boards, y = material_task
    slow = {"inputs": "pieces", "topology": [768, 1], "activation": "sigmoid", "lr": 0.001,
            "epochs": 30, "batch": 32}
    result = check_material_design(lambda: slow, boards, y, seeds=(0,), show=False)
    assert not result.ok and min(result.training_errors) > MATERIAL_BAR
    assert "undertrained (training error " in str(result) and "above the bar" in str(result)


def test_a_design_that_breaks_the_rules_or_is_not_written(material_task, capsys):
    boards, y = material_task
    base = {"inputs": "pieces", "topology": [768, 1], "lr": 0.01, "epochs": 30}
    for change, said in (({"epochs": 200}, "at most 30 epochs"),
                         ({"inputs": "material"}, "inputs must be one of"),
                         ({"topology": [64, 1]}, "must start with 768"),
                         ({"topology": [768, 200, 1]}, "the budget is"),
                         ({"batch": 4}, "a batch of at least 16")):
        result = check_material_design(lambda: {**base, **change}, boards, y,
                                                 show=False)
        assert not result.ok and said in result.first_failure, said
    assert not check_material_design(stub, boards, y).attempted
    assert "my_material_design: not attempted yet" in capsys.readouterr().out


def test_design_inputs_have_the_sizes_the_rules_name():
    boards = [chess.Board()]
    assert [design_inputs(boards, k).shape[1] for k in ("thesis", "planes14", "pieces")] == \
        [64, 896, 768]
    assert random.Random(0)          # the module seeds nothing globally
