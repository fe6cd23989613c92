"""experiments.search_cost: alpha-beta finds minimax's scores with fewer nodes, depth by depth."""
from chesslab.experiments import search_cost

ENDGAME = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1"


def test_depth_cost_alphabeta_equals_minimax_with_fewer_nodes():
    data = search_cost.measure_depth_cost(depths=(1, 2), algorithms=("minimax", "alphabeta"),
                                      positions={"endgame": ENDGAME}, progress=False)
    rows = {(r["algorithm"], r["depth"]): r for r in data["rows"]}
    assert sorted(rows) == [("alphabeta", 1), ("alphabeta", 2), ("minimax", 1), ("minimax", 2)]
    for depth in (1, 2):
        assert rows["alphabeta", depth]["scores"] == rows["minimax", depth]["scores"]
    assert rows["alphabeta", 2]["nodes"] < rows["minimax", 2]["nodes"]
    assert rows["minimax", 1]["nodes"] < rows["minimax", 2]["nodes"]
    assert data["positions"] == {"endgame": ENDGAME} and data["evaluator"] == "material"
