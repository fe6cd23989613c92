"""leaves: what a search asks its evaluator about, sampled and added to a dataset."""
import json
import random
from dataclasses import replace

import chess
import numpy as np
import pytest

from chesslab.datasets import positions, records
from chesslab.cli import main
from chesslab.evaluators.registry import load_evaluator
from chesslab.base.files import MODELS_DIR, file_tag
from chesslab.training import leaves
from chesslab.training.leaves import LeafRecorder, search_leaves, with_leaves
from chesslab.search.searcher import search
from chesslab.training.pipeline import TrainConfig, train_net
from needs_stockfish import needs_stockfish


ROOTS = ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
         "8/5pk1/6p1/8/3R4/6P1/r4PK1/8 b - - 0 1",
         "r3k2r/ppp2ppp/2n1bn2/3qp3/3P4/2N1PN2/PP1B1PPP/R2QKB1R w KQkq - 0 9"]


def test_the_recorder_answers_as_its_evaluator_and_keeps_every_leaf_at_rate_one():
    pst = load_evaluator("pst")
    recorder = LeafRecorder(pst, 1.0, random.Random(0))
    board = chess.Board(ROOTS[0])
    assert search(board, recorder, depth=2).score == search(board, pst, depth=2).score
    assert len(recorder.fens) > 20
    for fen in recorder.fens:
        assert chess.Board(fen).is_valid()
    with pytest.raises(ValueError, match="rate"):
        LeafRecorder(pst, 0.0, random.Random(0))


def test_leaves_are_seeded_distinct_and_respect_the_exclusions():
    evaluators = [load_evaluator("pst"), load_evaluator("material")]
    fens, owners = search_leaves(ROOTS, evaluators, depth=2, rate=0.2, seed=3)
    again, _ = search_leaves(ROOTS, evaluators, depth=2, rate=0.2, seed=3)
    other, _ = search_leaves(ROOTS, evaluators, depth=2, rate=0.2, seed=4)
    assert fens == again and fens != other
    keys = [positions.position_key(f) for f in fens]
    assert len(set(keys)) == len(keys)
    assert set(owners.tolist()) == {0, 1, 2}
    fewer, _ = search_leaves(ROOTS, evaluators, depth=2, rate=0.2, seed=3,
                             exclude=set(keys[:10]))
    assert not set(keys[:10]) & {positions.position_key(f) for f in fewer}
    with pytest.raises(ValueError, match="evaluator"):
        search_leaves(ROOTS, [], depth=2)


def test_leaves_join_the_part_of_the_split_their_root_is_in():
    base = positions.make_dataset([{"fen": fen, "cp": 10 * i, "wdl": [500, 300, 200],
                               "source": "game", "game_id": i, "ply": 20 + i,
                               "result": "1-0", "sampled_by_rule": False}
                              for i, fen in enumerate(ROOTS * 4)], {"depth": 10})
    fens, owners = search_leaves([base.fen[0], base.fen[5]], [load_evaluator("pst")],
                                 depth=2, rate=0.3, seed=0)
    rows = np.array([0, 5])[owners]
    n = len(fens)
    grown = with_leaves(base, fens, rows, np.arange(n), np.tile([400, 400, 200], (n, 1)),
                        depth=8)
    assert len(grown) == len(base) + n
    assert (grown.source[len(base):] == "leaf").all()
    assert (grown.depth[len(base):] == 8).all() and (grown.depth[:len(base)] == 10).all()
    assert (grown.game_id[len(base):] == base.game_id[rows]).all()
    before = positions.split_by_game(base.game_id)
    after = positions.split_by_game(grown.game_id)
    for part_before, part_after in zip(before, after):
        assert set(part_before) <= set(part_after)         # the old rows stay in place
        for row in part_after[part_after >= len(base)]:
            assert rows[row - len(base)] in part_before   # a leaf sits beside its root
    with pytest.raises(ValueError, match="differ in number"):
        with_leaves(base, fens, rows[:-1], np.arange(n), np.zeros((n, 3)), depth=8)


@needs_stockfish
def test_data_leaves_grows_the_training_part_and_training_can_leave_them_out(tmp_path):
    game_file = records.generate_games(6, tmp_path / "g.pgn.gz", seed=3, nodes=50, max_plies=40,
                                progress=False)
    base = positions.build_dataset([game_file], n_random=4, depth=3, every=4, progress=False)
    path = positions.save_dataset(base, tmp_path / "d.npz")
    assert main(["data", "leaves", "--data", str(path), "--roots", "3", "--rate", "0.2",
                 "--search-depth", "1", "--depth", "2", "--evaluators", "pst,material",
                 "--workers", "1"]) == 0
    grown = positions.load_dataset(path)
    new = grown.subset(np.arange(len(base), len(grown)))
    assert len(new) > 0 and (new.source == "leaf").all() and (new.depth == 2).all()
    train_ids = set(base.split()[0].game_id.tolist())
    assert set(new.game_id.tolist()) <= train_ids
    for before, after in zip(base.split()[1:], grown.split()[1:]):
        assert sorted(before.fen.tolist()) == sorted(after.fen.tolist())
    run, = grown.metadata["leaves"]
    assert run["positions"] == len(new) and run["evaluators"] == {"pst": None, "material": None}
    # the switch: without it a net trains on exactly the positions it had before
    config = TrainConfig(epochs=1, extra_plies=True)
    seen = {}
    for leaves in (False, True):
        result = train_net("linear", grown, replace(config, leaves=leaves,
                                                    perspective="side_to_move"), False)
        seen[leaves] = result.train_examples
    assert seen[True] > seen[False]
    assert main(["data", "leaves", "--data", str(path), "--evaluators", "nosuch"]) == 2


def _games_file(path):
    rows = [{"fen": fen, "cp": 10 * i, "wdl": [500, 300, 200], "source": "game",
             "game_id": i, "ply": 20 + i, "result": "1-0", "sampled_by_rule": False}
            for i, fen in enumerate(ROOTS * 4)]
    return positions.save_dataset(positions.make_dataset(rows, {"depth": 10}), path)


def test_data_leaves_searches_with_the_network_file_given_by_model(tmp_path, monkeypatch):
    """--model reaches the search: the nnue that searches is the given file's, and the
    run's metadata carries that file's fingerprint, not the shipped one's."""
    network = json.loads((MODELS_DIR / "nnue.json").read_text(encoding="utf-8"))
    network["bias3"] = [b + 1.0 for b in network["bias3"]]       # another evaluation
    retrained = tmp_path / "my_models" / "nnue.json"
    retrained.parent.mkdir()
    retrained.write_text(json.dumps(network))
    searched = []

    def recording_search(roots, evaluators, *args, **kwargs):
        searched.extend(evaluators)
        return search_leaves(roots, evaluators, *args, **kwargs)

    def no_stockfish(fens, *args, **kwargs):
        return np.zeros(len(fens), dtype=np.int16), np.tile([0, 1000, 0], (len(fens), 1))
    monkeypatch.setattr(leaves, "search_leaves", recording_search)
    monkeypatch.setattr(leaves, "label_fens", no_stockfish)
    data = _games_file(tmp_path / "d.npz")
    assert main(["data", "leaves", "--data", str(data), "--roots", "2", "--rate", "0.5",
                 "--search-depth", "1", "--evaluators", "nnue,pst",
                 "--model", str(retrained)]) == 0
    board = chess.Board(ROOTS[0])
    nnue = searched[0]
    assert nnue.evaluate(board) == load_evaluator("nnue", retrained).evaluate(board)
    assert nnue.evaluate(board) != load_evaluator("nnue").evaluate(board)
    run, = positions.load_dataset(data).metadata["leaves"]
    assert run["evaluators"] == {"nnue": file_tag(retrained), "pst": None}
    assert file_tag(retrained) != file_tag(MODELS_DIR / "nnue.json")


def test_data_leaves_names_a_missing_model_file_before_any_work(tmp_path, capsys,
                                                                  monkeypatch):
    monkeypatch.setattr(leaves, "search_leaves", lambda *a, **k: pytest.fail("searched"))
    data = _games_file(tmp_path / "d.npz")
    missing = tmp_path / "my_models" / "nnue.json"
    assert main(["data", "leaves", "--data", str(data), "--model", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(missing) in err, err
    assert main(["data", "leaves", "--data", str(data), "--evaluators", "pst,material",
                 "--model", str(missing)]) == 2
    assert "none does" in capsys.readouterr().err
    assert "leaves" not in positions.load_dataset(data).metadata     # nothing written
