"""AlphaZero's self-play loop: games against itself, a replay buffer, the arena gate, training.

One iteration of ``train_selfplay``:

1. **self-play**: the network (with MCTS, Dirichlet noise and a temperature) plays
   games against itself; every move gives a training record: the position, the
   search's visit distribution ``pi`` (the policy target) and the game's result ``z``
   for the side to move (the value target);
2. **replay buffer**: the records join the latest ``buffer`` positions;
3. **training**: the trainee network learns from the buffer;
4. **the arena gate**: the trainee plays the best network from a set of starts (each
   with both colours) and replaces it only when it scores above 55%.

Two tasks: ``"endgame"``, a curriculum of K+Q (or K+R) vs K from random starts against
a fixed defender (``chesslab.training.endgames``), where a draw counts as White's failure (``draw_value=-1``) and the
mate rate on a fixed test set is the learning curve; ``"full"``, the whole game from a
bootstrapped network (``chesslab.training.bootstrap``). Every game is played by
``chesslab.board.game.play_game``; the games of an iteration go through
``chesslab.base.parallel.parallel_map`` (``workers``: processes or an executor).
"""
from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import chess
import numpy as np

from chesslab.training.bootstrap import game_samples, shipped_game_split, stockfish_labels
from chesslab.board.encoding import as_board, move_to_index
from chesslab.base.files import read_json, write_json_atomic
from chesslab.board.rules import adjudicate_draw, adjudicate_material, result_for
from chesslab.board.game import play_game
from chesslab.search.mcts import MCTSPlayer
from chesslab.training.endgames import endgame_starts, mate_test, mixed_endgame_starts
from chesslab.nn import Adam
from chesslab.base.parallel import parallel_map
from chesslab.evaluators.policy_value import PolicyValueNet, load_policy_value, save_policy_value, train_epochs

#: How a drawn game is scored: 0 = chess (a draw), -1 = the endgame task (White failed).
_DRAW_RESULT = {0.0: "1/2-1/2", -1.0: "0-1"}


def _check_draw_value(draw_value):
    if draw_value not in _DRAW_RESULT:
        raise ValueError(f"draw_value must be 0 (chess) or -1 (White must mate), not "
                         f"{draw_value!r}")


def scored_result(game, draw_value: float = 0.0) -> str:
    """The result of a played game for the task: with ``draw_value=-1`` (White must
    mate) a draw, by the rules or at the move cap, is scored "0-1"."""
    result = game.headers["Result"]
    return _DRAW_RESULT[draw_value] if result == "1/2-1/2" else result


def self_play_game(net, start=None, simulations: int = 100, temperature_plies: int = 20,
                   max_plies: int = 200, adjudicate=adjudicate_draw, batch_size: int = 8,
                   draw_value: float = 0.0, seed: int = 0):
    """One self-play game: the same MCTS plays both sides (noise and temperature on).

    Returns a dict with ``records`` (one per move: ``fen``, ``legal`` policy indices,
    ``pi`` visit distribution over them, ``q`` the search's value of the position,
    ``turn`` and the result ``z`` for the side to move), ``result``, ``termination`` and
    the ``moves`` in UCI.
    """
    _check_draw_value(draw_value)
    player = MCTSPlayer(net, simulations, temperature=1.0, temperature_plies=temperature_plies,
                        noise=True, batch_size=batch_size, draw_value=draw_value, seed=seed)
    records = []

    def record(board, _move, _player):
        r = player.last_result
        records.append({"fen": board.fen(),
                        "legal": [move_to_index(m) for m in r.moves],
                        "pi": (r.visits / r.visits.sum()).round(4).tolist(),
                        "q": round(float(np.sum(r.visits * r.q) / max(r.visits.sum(), 1)), 4),
                        "turn": "w" if board.turn == chess.WHITE else "b"})

    start = chess.Board() if start is None else as_board(start)
    game = play_game(player, player, start, max_plies, on_move=record, adjudicate=adjudicate)
    result = scored_result(game, draw_value)
    for r in records:
        r["z"] = result_for(result, r["turn"] == "w")
    final = game.end().board()
    return {"records": records, "result": result, "termination": game.headers["Termination"],
            "start": start.fen(), "moves": [m.uci() for m in final.move_stack[len(start.move_stack):]]}


class ReplayBuffer:
    """The latest ``capacity`` training samples (older games fall out first)."""

    def __init__(self, capacity: int = 20_000, rows=()):
        self.capacity = int(capacity)
        self.rows = list(rows)[-self.capacity:]

    def add(self, rows) -> None:
        self.rows.extend(rows)
        del self.rows[:-self.capacity]

    def __len__(self):
        return len(self.rows)

    def to_json(self) -> dict:
        return {"capacity": self.capacity, "rows": self.rows}

    @classmethod
    def from_json(cls, doc) -> "ReplayBuffer":
        return cls(doc["capacity"], doc["rows"])


# ---------------------------------------------------------------------- the arena gate

#: A challenger must score more than this against the best network to replace it.
GATE_SCORE = 0.55


def net_match(net_a, net_b, starts, simulations: int = 50, max_plies: int = 120,
              adjudicate=adjudicate_draw, draw_value: float = 0.0, seed: int = 0,
              workers=1) -> dict:
    """``net_a`` against ``net_b``: two games per start position, colours swapped.

    Both play greedy MCTS (no noise, most visited move). Returns wins/draws/losses
    and the score of ``net_a`` (win 1, draw 1/2). ``workers`` (processes, or an
    executor) plays the games in parallel (same results: every game has its own seeds).
    """
    _check_draw_value(draw_value)
    jobs = [(net_a, net_b, fen, a_white, simulations, max_plies, adjudicate, draw_value,
             seed + 2 * i) for i, fen in enumerate(starts) for a_white in (True, False)]
    w = d = l = 0
    for z in parallel_map(_net_match_game, jobs, workers):
        w, d, l = w + (z > 0), d + (z == 0), l + (z < 0)
    games = w + d + l
    return {"games": games, "wins": w, "draws": d, "losses": l,
            "score": (w + 0.5 * d) / games if games else 0.0}


def _net_match_game(job) -> float:
    """One game of ``net_match``; the result for ``net_a``."""
    net_a, net_b, fen, a_white, simulations, max_plies, adjudicate, draw_value, seed = job
    a = MCTSPlayer(net_a, simulations, draw_value=draw_value, seed=seed)
    b = MCTSPlayer(net_b, simulations, draw_value=draw_value, seed=seed + 1)
    game = play_game(*((a, b) if a_white else (b, a)), fen, max_plies, adjudicate=adjudicate)
    return result_for(scored_result(game, draw_value), chess.WHITE if a_white else chess.BLACK)


def gate(challenger, best, starts, threshold: float = GATE_SCORE, **kwargs):
    """(accepted, arena result): the challenger replaces the best only above ``threshold``."""
    res = net_match(challenger, best, starts, **kwargs)
    return res["score"] > threshold, res


# ---------------------------------------------------------------------- endgame curriculum


# ---------------------------------------------------------------------- the training loop

#: Settings of one self-play training run (saved in its state file).
@dataclass(frozen=True)
class SelfPlayConfig:
    """Settings of one self-play run (stored in its state.json), as ``TrainConfig`` is
    for the evaluation nets: one dataclass, one entry per task in ``DEFAULTS``."""
    kind: str = "endgame"             # "endgame" (K+Q or K+R vs K) or "full" (the game)
    seed: int = 0
    piece: str = "Q"                  # endgame: the strong side's extra piece
    games: int = 16                   # self-play games per iteration
    simulations: int = 64             # per move in self-play
    max_plies: int = 60
    temperature_plies: int = 8        # moves sampled by visit counts, then the best
    epochs: int = 4                   # passes over the buffer per iteration
    batch_size: int = 64
    lr: float = 2e-3
    c: float = 1e-4                   # the loss's c||theta||^2
    buffer: int = 6000                # replay buffer capacity (positions)
    gate_starts: int = 6              # arena starts, each played with both colours
    gate_simulations: int = 32
    gate_max_plies: int | None = None  # None: max_plies
    test_starts: int = 24             # endgame: the fixed mate-rate test
    test_simulations: int = 48
    test_max_moves: int = 25
    channels: int = 32                # a network built from scratch (no ``initial``)
    blocks: int = 1
    adjudicate: str = "draw"          # at the move cap: "draw" or "material"
    draw_value: float = -1.0          # -1: a draw is White's failure (the endgame task)
    anchor: int = 0                   # full game: Stockfish-labelled positions mixed in
    value_target: str = "z"           # "z" (AlphaZero) or "zq" (mean of z and the search's q)
    player: str = "latest"            # who plays self-play: the trainee, or the gated best
    starts: str = "initial"           # full game: "records" starts every other game from one
    workers: int = 1                  # processes for the self-play and gate games
    dtype: str = "float32"            # "float64": the same games on every CPU (see below)

    def __post_init__(self):
        """Refuse settings a run cannot use, before any game is played."""
        choices = {"kind": ("endgame", "full"), "piece": ("Q", "R"),
                   "adjudicate": tuple(_ADJUDICATE), "value_target": ("z", "zq"),
                   "player": ("latest", "best"), "starts": ("initial", "records"),
                   "dtype": ("float32", "float64")}
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise ValueError(f"{key} must be one of {', '.join(allowed)}, got "
                                 f"{getattr(self, key)!r}")
        _check_draw_value(self.draw_value)
        for key in ("games", "simulations", "max_plies", "epochs", "batch_size", "buffer",
                    "gate_starts", "gate_simulations", "test_starts", "test_simulations",
                    "test_max_moves", "channels", "blocks", "workers"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{key} must be a whole number of at least 1, got {value!r}")


_ADJUDICATE = {"draw": adjudicate_draw, "material": adjudicate_material}
#: Each task's settings. The full game's gate plays 20 games at 100 simulations (at 32,
#: two of ten challengers got through that then scored 0.35 against the best at 300);
#: ``anchor`` mixes that many Stockfish-labelled game positions into every training
#: pass, so self-play refines the bootstrapped network instead of overwriting it (0: off).
DEFAULTS = {
    "endgame": SelfPlayConfig(kind="endgame"),
    "full": SelfPlayConfig(kind="full", games=8, max_plies=160, temperature_plies=16,
                           epochs=2, lr=5e-4, buffer=20000, gate_starts=10,
                           gate_simulations=100, gate_max_plies=160, blocks=2,
                           adjudicate="material", draw_value=0.0),
}
#: Settings only the full game takes (the endgame curriculum starts from scratch).
FULL_GAME_ONLY = ("initial", "starts", "anchor", "value_target")


def check_settings(kind: str, initial=None, **overrides) -> None:
    """Refuse a task that is not in ``DEFAULTS`` and settings of the other task, before
    any work: ``piece`` is the endgame's, ``FULL_GAME_ONLY`` the full game's."""
    if kind not in DEFAULTS:
        raise ValueError(f"kind must be one of {sorted(DEFAULTS)}, not {kind!r}")
    if overrides.get("piece") and kind != "endgame":
        raise ValueError("piece only applies to the endgame curriculum (train selfplay "
                         "endgame)")
    given = dict(overrides, initial=initial)
    wrong = [key for key in FULL_GAME_ONLY if given.get(key) is not None]
    if kind == "endgame" and wrong:
        raise ValueError(f"{', '.join(wrong)} only apply to the full game (train selfplay "
                         f"full); the endgame curriculum starts from scratch")
    unknown = sorted(set(overrides) - {f.name for f in fields(SelfPlayConfig)})
    if unknown:
        raise ValueError(f"unknown self-play setting(s) {', '.join(unknown)}; the settings "
                         f"are the fields of SelfPlayConfig")
    replace(DEFAULTS[kind], **overrides)          # its own checks, before any work


def _copy_net(net):
    twin = PolicyValueNet(net.channels, net.blocks, net.policy_k, name=net.name, planes=net.planes,
                          value_channels=net.value_channels).astype(net.dtype)
    for (_, dst, _), (_, src, _) in zip(twin.parameters(), net.parameters()):
        dst[...] = src
    for dst, src in zip(twin.leaves(), net.leaves()):
        if hasattr(src, "running_mean"):
            dst.running_mean, dst.running_var = src.running_mean.copy(), src.running_var.copy()
    return twin.eval()


def _with_dtype(net, dtype: str):
    """``net`` itself if its numbers are ``dtype`` already, else a copy in ``dtype`` (a
    network the caller passed in is never changed)."""
    return net if net.dtype == np.dtype(dtype) else _copy_net(net).astype(np.dtype(dtype))


def _opening_starts(count: int, seed: int, plies: int = 4) -> list[str]:
    """Start positions after a few seeded random plies (different arena games)."""
    rng = random.Random(f"openings:{seed}")
    fens = []
    for _ in range(count):
        board = chess.Board()
        for _ in range(plies):
            board.push(rng.choice(list(board.legal_moves)))
        fens.append(board.fen())
    return fens


def train_selfplay(workdir, kind: str = "endgame", iterations: int = 5,
                   max_minutes: float | None = None, initial=None, progress=print,
                   executor=None, **overrides):
    """AlphaZero's loop, resumable: self-play with the latest net (the trainee; with
    ``player="best"`` the gated best plays, as in AlphaGo Zero), train the trainee on
    the replay buffer, gate it against the best (it replaces the best only above 55%),
    measure both on the test set, save everything.

    ``workdir`` holds ``state.json`` (settings, finished iterations, learning curve,
    replay buffer), ``best.json`` and ``trainee.json``; calling again continues from
    there until ``iterations`` are done, stopping early after ``max_minutes``.
    ``kind`` is "endgame" (K+Q vs K from random starts; mate rate on a fixed test set
    is the curve) or "full" (the whole game from the initial position; start from a
    bootstrapped network ``initial``). ``executor`` (a Dask cluster's, say) plays the
    games instead of the ``workers`` processes of the settings, and is not saved with them.
    """
    check_settings(kind, initial, **overrides)
    workdir = Path(workdir)
    state_path = workdir / "state.json"
    if state_path.exists():
        state = read_json(state_path, "self-play state")
        best = load_policy_value(workdir / "best.json")
        trainee = load_policy_value(workdir / "trainee.json")
    else:
        cfg = replace(DEFAULTS[kind], **overrides)
        if initial is None:
            best = PolicyValueNet(cfg.channels, cfg.blocks, seed=cfg.seed,
                                  name=f"{kind} self-play net")
        else:
            best = initial if isinstance(initial, PolicyValueNet) else load_policy_value(initial)
        trainee = _copy_net(best)
        state = {"config": asdict(cfg), "iteration": 0, "curve": [],
                 "buffer": {"capacity": cfg.buffer, "rows": []}}
    cfg = SelfPlayConfig(**state["config"])     # a run written before the dataclass too
    # Self-play is chaotic: in float32 the last bits of a sum, which differ between the
    # BLAS kernels of different CPUs, change a visit count, then a move, then the games.
    # float64 pushes those differences far below anything a search compares.
    best, trainee = _with_dtype(best, cfg.dtype), _with_dtype(trainee, cfg.dtype)
    buffer = ReplayBuffer.from_json(state["buffer"])
    adjudicate = _ADJUDICATE[cfg.adjudicate]
    seed = cfg.seed
    anchor = []
    if kind == "endgame":
        test = mixed_endgame_starts(cfg.test_starts, cfg.piece, seed=10_000 + seed)
        gate_starts = mixed_endgame_starts(cfg.gate_starts, cfg.piece, seed=20_000 + seed)
    else:
        test = None
        gate_starts = _opening_starts(cfg.gate_starts, seed)
        if cfg.anchor:
            anchor = _anchor_rows(cfg.anchor)

    def measure(net):
        if test is None:
            return {}
        return mate_test(net, test, cfg.test_simulations, cfg.test_max_moves)

    def save():
        save_policy_value(best, workdir / "best.json", kind=kind, iterations=state["iteration"])
        save_policy_value(trainee, workdir / "trainee.json", kind=kind,
                          iterations=state["iteration"])
        state["buffer"] = buffer.to_json()
        write_json_atomic(state_path, state)

    clock = time.perf_counter()
    if not state["curve"]:
        first = measure(best)
        state["curve"].append({"iteration": 0, **first, "accepted": True, "trainee": first})
        progress(f"iteration 0: {_summary(state['curve'][-1])}")
        save()
    while state["iteration"] < iterations:
        if max_minutes is not None and time.perf_counter() - clock > 60 * max_minutes:
            progress(f"stopping after {max_minutes} minutes; run again to continue")
            break
        it = state["iteration"] + 1
        t0 = time.perf_counter()
        rng = random.Random(f"selfplay:{seed}:{it}")
        if kind == "endgame":    # easy starts mixed in: a third of each level
            starts = [endgame_starts(1, cfg.piece, rng.randrange(10**9), level=g % 3)[0]
                      for g in range(cfg.games)]
        elif cfg.starts == "records":   # every other game from a recorded game
            found = record_starts(cfg.games // 2, seed=rng.randrange(10**9))
            starts = [found[g // 2] if g % 2 and g // 2 < len(found) else None
                      for g in range(cfg.games)]
        else:
            starts = [None] * cfg.games
        results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
        plies = []
        player_net = best if cfg.player == "best" else trainee
        jobs = [(player_net, start, cfg.simulations, cfg.temperature_plies,
                 cfg.max_plies, adjudicate, cfg.draw_value, rng.randrange(10**9))
                for start in starts]
        for game in parallel_map(_self_play_job, jobs, executor or cfg.workers):
            buffer.add(game["records"])
            results[game["result"]] += 1
            plies.append(len(game["moves"]))
        rows = buffer.rows
        if cfg.value_target == "zq":
            # the value learns the mean of the game's result and the search's own value
            # of the position: one game's result is a noisy verdict on every move of it
            rows = [{**r, "z": 0.5 * (r["z"] + r["q"])} if "q" in r else r for r in rows]
        mixed = rows + (rng.sample(anchor, min(len(anchor), len(buffer))) if anchor else [])
        losses = train_epochs(trainee, mixed, Adam(cfg.lr), cfg.epochs,
                              cfg.batch_size, cfg.c, seed=rng.randrange(10**9),
                              augment=True, mirror_colours=cfg.draw_value == 0.0)
        accepted, match = gate(trainee, best, gate_starts, simulations=cfg.gate_simulations,
                               max_plies=cfg.gate_max_plies or cfg.max_plies,
                               adjudicate=adjudicate, draw_value=cfg.draw_value, seed=it,
                               workers=executor or cfg.workers)
        if accepted:
            best = _copy_net(trainee)
        row = {"iteration": it, "selfplay": results, "mean_plies": float(np.mean(plies)),
               "samples": len(buffer), "loss": losses[-1], "gate": match,
               "accepted": accepted, **measure(best),
               "trainee": measure(trainee), "seconds": round(time.perf_counter() - t0, 1)}
        state["curve"].append(row)
        state["iteration"] = it
        save()
        progress(f"iteration {it}: {_summary(row)}")
    return state


def _self_play_job(job) -> dict:
    net, start, simulations, temperature_plies, max_plies, adjudicate, draw_value, seed = job
    return self_play_game(net, start, simulations, temperature_plies, max_plies, adjudicate,
                          draw_value=draw_value, seed=seed)


def record_starts(count: int, seed: int = 0, plies=(8, 40), records=None) -> list[str]:
    """Positions from game records, each after a seeded random number of plies: self-play
    then also meets the middlegames that games from the initial position rarely reach.
    ``records`` defaults to the shipped games the bootstrap trained on (the first nine
    tenths)."""
    if records is None:
        records = shipped_game_split()[0]
    if not any(len(list(g.mainline_moves())) >= plies[0] + 10 for g in records):
        raise ValueError(f"no game record has the {plies[0] + 10} plies a start needs")
    rng = random.Random(f"record starts:{seed}")
    fens = []
    while len(fens) < count:
        moves = list(records[rng.randrange(len(records))].mainline_moves())
        if len(moves) < plies[0] + 10:
            continue
        board = chess.Board()
        for move in moves[:rng.randint(plies[0], min(plies[1], len(moves) - 10))]:
            board.push(move)
        fens.append(board.fen())
    return fens


def _anchor_rows(count: int) -> list[dict]:
    """Up to ``count`` Stockfish-labelled positions from the shipped games the bootstrap
    trained on, with the moves played and the labels as targets."""
    rows = game_samples(shipped_game_split()[0], 1, stockfish_labels(), labelled_only=True)
    return random.Random(0).sample(rows, min(count, len(rows)))


def _summary(row) -> str:
    parts = []
    for who, r in (("best", row), ("latest", row.get("trainee", {}))):
        if "mate_rate" in r:
            mtm = r["moves_to_mate"]
            parts.append(f"{who}: mate rate {r['mate_rate']:.2f}, moves to mate "
                         f"{'-' if mtm is None else f'{mtm:.1f}'}")
    if "gate" in row:
        parts.append(f"gate score {row['gate']['score']:.2f} "
                     f"({'accepted' if row['accepted'] else 'rejected'})")
    if "loss" in row:
        parts.append(f"loss {row['loss']['total']:.3f}")
    if "seconds" in row:
        parts.append(f"{row['seconds']:.0f} s")
    return ", ".join(parts)
