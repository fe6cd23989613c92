"""The class event on a Dask cluster gives the standings of one local worker."""
import pytest

from chesslab.matches import event
from tournament_players import write_class

distributed = pytest.importorskip(
    "distributed", reason="Dask distributed is not installed (python -m pip install -r "
                          "requirements-teacher.txt)")


def test_a_local_dask_cluster_gives_the_same_standings_as_one_worker(tmp_path):
    folder = write_class(tmp_path / "class", ["first.py", "chatty.py", "raises.py"])
    settings = dict(format="gauntlet", games=2, move_time=0.5, ladder=["random", "material:1"],
                    max_plies=30, seed=3, progress=False, anchors_path=tmp_path / "none.json")
    alone = event.run_tournament(folder, workers=1, **settings)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as client:
        spread = event.run_tournament(folder, workers=client.get_executor(), **settings)
    assert spread["standings"] == alone["standings"]
    assert spread["games"] == alone["games"]
    assert {f["player"] for f in spread["faults"]} == {"raises"}
