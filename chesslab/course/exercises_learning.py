"""Checkers for the learning half of the course (notebooks 01-06): targets, layers, the
NNUE update, and one design exercise whose checker trains what the student chose.

Like every checker (see ``exercises``), each prints one line, returns a ``CheckResult``
and never raises on a wrong answer; notebooks import them from
``chesslab.course.exercises``.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import chess
import numpy as np

from chesslab import nn
from chesslab.board.encoding import planes14_batch, thesis_vectors
from chesslab.course.checking import CheckResult, close_arrays, run_cases
from chesslab.evaluators.neural import expected_score, target_to_cp
from chesslab.evaluators.nnue import NNUEEvaluator


# ------------------------------------------------------------ the win-probability target
def check_win_probability(to_score, to_cp, cases: int = 200, seed: int = 10,
                          show=True) -> CheckResult:
    """``to_score(cp) -> expected score`` (sigmoid(cp / 400)) and ``to_cp(p) -> cp``
    (its inverse), for numbers and numpy arrays, against ``neural.expected_score`` and
    ``neural.target_to_cp(p, "prob")``. Edge cases: 0, +-400, a mate (+-10,000)."""
    rng = np.random.default_rng(seed)
    fixed = [0.0, 400.0, -400.0, 10_000.0, -10_000.0, 100.0]
    cps = fixed + [float(v) for v in rng.normal(0, 600, cases - len(fixed) - 1)]
    settings = [("cp", cp) for cp in cps] + [("array", rng.normal(0, 600, 7))]

    def compare(setting):
        kind, cp = setting
        want = expected_score(cp)
        problem = close_arrays(to_score(np.copy(cp) if kind == "array" else cp), want,
                               "expected score", atol=1e-9)
        if problem:
            return f"{problem} for {np.round(cp, 1)} cp"
        if np.all(np.abs(np.asarray(cp)) > 3000):       # p rounds to 0 or 1: no way back
            return None
        back = target_to_cp(want, "prob")
        problem = close_arrays(to_cp(np.copy(want) if kind == "array" else float(want)), back,
                               "centipawns", atol=1e-4)
        return problem and f"{problem} back from p = {np.round(want, 6)}"
    return run_cases("win probability", settings, compare, show)


# ------------------------------------------------------------ the NNUE update
def _special_moves():
    """(board, move) pairs every NNUE update must get right."""
    pairs = []
    for fen, uci in (
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"),      # castling, all four
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8g8"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"),         # en passant, both sides
            ("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 2", "d4e3"),
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"),          # promotions
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n"),
            ("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q"),         # promotion with capture
            ("4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1", "b2a1r"),
            ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "d2d5")):        # a plain capture
        board = chess.Board(fen)
        pairs.append((board, chess.Move.from_uci(uci)))
    return pairs


def nnue_move_cases(count: int, seed: int):
    """``count`` (board, move) pairs: the special moves, then every move of seeded
    random games, a capture, a castling, an en passant or a promotion whenever one is
    legal there."""
    pairs, rng = _special_moves(), random.Random(seed)
    while len(pairs) < count:
        board = chess.Board()
        for _ in range(rng.randrange(20, 160)):
            moves = list(board.legal_moves)
            if not moves or len(pairs) >= count:
                break
            special = [m for m in moves if board.is_capture(m) or m.promotion
                       or board.is_castling(m)]
            move = rng.choice(special if special and rng.random() < 0.5 else moves)
            pairs.append((board.copy(), move))
            board.push(move)
    return pairs


def small_nnue(seed: int = 0) -> NNUEEvaluator:
    """A small random NNUE (its rows are random, so every wrong row shows)."""
    return NNUEEvaluator(nn.nnue_net(hidden=8, head=4, seed=seed))


def check_accumulator_update(fn, cases: int = 300, seed: int = 11, show=True) -> CheckResult:
    """``fn(evaluator, accumulator, board, move) -> accumulator after the move`` (board is
    the position before it), against ``evaluator.accumulator`` of the position after it
    computed from scratch: captures, castling, en passant and promotions included."""
    evaluator = small_nnue(seed)

    def compare(pair):
        board, move = pair
        after = board.copy()
        after.push(move)
        acc = evaluator.accumulator(board)
        mine = fn(evaluator, acc.copy(), board.copy(), move)
        problem = close_arrays(mine, evaluator.accumulator(after), "accumulator", atol=1e-9)
        return problem and f"{board.san(move)} ({move.uci()}) in {board.fen()}: {problem}"
    return run_cases("accumulator update", nnue_move_cases(cases, seed), compare, show)


# ------------------------------------------------------------ the residual block
def residual_blocks(cases: int, seed: int):
    """Random residual blocks in eval mode with random batch-norm statistics, and inputs."""
    rng = np.random.default_rng(seed)
    found = []
    for i in range(cases):
        channels, k = int(rng.integers(1, 5)), int(rng.choice([1, 3]))
        block = nn.Residual(channels, kernel_size=k, rng=np.random.default_rng(seed * 1000 + i),
                            dtype=np.float64)
        for bn in (block.layers[1], block.layers[4]):
            bn.params["gamma"][:] = rng.uniform(0.5, 2.0, channels)
            bn.params["beta"][:] = rng.normal(0, 0.5, channels)
            bn.running_mean = rng.normal(0, 0.5, channels)
            bn.running_var = rng.uniform(0.2, 3.0, channels)
        block.train(False)
        found.append((block, rng.normal(size=(int(rng.integers(1, 4)), channels, 8, 8))))
    return found


def check_residual_forward(fn, cases: int = 30, seed: int = 12, show=True) -> CheckResult:
    """``fn(x, block) -> output`` of a residual block in eval mode (conv, batch norm with
    the running statistics, ReLU, conv, batch norm, add the input, ReLU), against
    ``nn.Residual.forward``."""
    def compare(case):
        block, x = case
        want = block.forward(x)
        return close_arrays(fn(x.copy(), block), want,
                            f"output ({block.channels} channels, kernel {block.kernel_size}, "
                            f"batch {len(x)}) at")
    return run_cases("residual block", residual_blocks(cases, seed), compare, show)


# ------------------------------------------------------------ a design, measured
#: The inputs a design may choose: what the network is shown of a position.
DESIGN_INPUTS = ("thesis", "planes14", "pieces")
#: The material task's bar (validation mean squared error, in (pawns / 10)^2) and budget.
MATERIAL_BAR, MAX_EPOCHS, MAX_PARAMETERS = 0.02, 30, 100_000


def design_inputs(boards, inputs: str) -> np.ndarray:
    """The network's input: the thesis's 64 codes, the 14 planes, or the 12 piece planes."""
    if inputs == "thesis":
        return thesis_vectors(boards).astype(np.float32)
    planes = planes14_batch(boards)
    if inputs == "pieces":
        planes = planes[:, :12]
    return planes.reshape(len(boards), -1).astype(np.float32)


def train_design(design: dict, x_train, y_train, x_val, y_val, seed: int = 0) -> float:
    """Train the design's network (Adam, mean squared error, the notebook's loop) and
    return its validation error after the last epoch (no picking the best epoch)."""
    net = nn.ANN.from_topology(design["topology"], activation=design.get("activation", "sigmoid"),
                               seed=seed)
    optimizer, order = nn.Adam(lr=design.get("lr", 0.001)), np.random.default_rng(seed)
    batch = int(design.get("batch", 32))
    for _ in range(int(design.get("epochs", 10))):
        net.train()
        idx = order.permutation(len(x_train))
        for i in range(0, len(idx), batch):
            nn.train_step(net, optimizer, x_train[idx[i:i + batch]], y_train[idx[i:i + batch]])
    return float(nn.mse(net.predict(x_val), y_val)[0])


@dataclass
class DesignResult(CheckResult):
    """A design's verdict: the measured errors against the bar."""
    errors: tuple = ()
    bar: float = MATERIAL_BAR

    def __str__(self):
        if not self.attempted or self.first_failure:
            return super().__str__()
        worst = max(self.errors)
        said = ", ".join(f"{e:.4f}" for e in self.errors)
        if self.ok:
            return (f"material design: validation error {said} over {self.cases} seeds, "
                    f"under the bar of {self.bar}: passed")
        return (f"material design: validation error {said} over {self.cases} seeds; the "
                f"bar is {self.bar}, the worst seed is {worst / self.bar:.1f} times it")


def _design_problem(design):
    """What breaks the rules of the exercise, or None."""
    if not isinstance(design, dict):
        return "return a dict (inputs, topology, activation, lr, epochs, batch)"
    if design.get("inputs") not in DESIGN_INPUTS:
        return f"inputs must be one of {DESIGN_INPUTS}, got {design.get('inputs')!r}"
    if int(design.get("epochs", 10)) > MAX_EPOCHS:
        return f"at most {MAX_EPOCHS} epochs, got {design.get('epochs')}"
    return None


def check_material_design(make_design, boards, targets, seeds=(0, 1), bar: float = MATERIAL_BAR,
                          show=True) -> DesignResult:
    """``make_design() -> dict``: the input (one of ``DESIGN_INPUTS``), the topology, the
    activation, the learning rate, the epochs (at most ``MAX_EPOCHS``) and the batch size
    of a network that learns material. The checker trains it on 80% of ``boards``
    (``targets`` = material / 1000) once per seed and passes it when every seed's
    validation error after the last epoch is at most ``bar``."""
    def verdict(passed, problem=None, errors=(), attempted=True):
        result = DesignResult("material design", len(seeds), passed, problem, attempted,
                              tuple(errors), bar)
        if show:
            print(result)
        return result
    try:
        design = make_design()
    except NotImplementedError as exc:
        return verdict(0, f" ({exc})", attempted=False)
    except Exception as exc:                # noqa: BLE001  (the student's code)
        return verdict(0, f"raised {type(exc).__name__}: {exc}")
    problem = _design_problem(design)
    if problem is None:
        x = design_inputs(boards, design["inputs"])
        topology = list(design.get("topology", ()))
        try:
            if not topology or topology[0] != x.shape[1] or topology[-1] != 1:
                raise ValueError(f"the topology must start with {x.shape[1]} (the size of "
                                 f"{design['inputs']!r}) and end with 1, got {topology}")
            net = nn.ANN.from_topology(topology, activation=design.get("activation", "sigmoid"))
            if (size := sum(p.size for p in net.params.values())) > MAX_PARAMETERS:
                raise ValueError(f"{size:,} parameters, the budget is {MAX_PARAMETERS:,}")
        except ValueError as exc:
            problem = str(exc)
    if problem:
        return verdict(0, problem)
    y = np.asarray(targets, dtype=np.float32).reshape(-1, 1)
    order = np.random.default_rng(1).permutation(len(x))
    split = int(0.8 * len(x))
    train, val = order[:split], order[split:]
    errors = [train_design(design, x[train], y[train], x[val], y[val], seed) for seed in seeds]
    errors = [e if math.isfinite(e) else math.inf for e in errors]
    return verdict(sum(e <= bar for e in errors), None, errors)

