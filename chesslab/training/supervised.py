"""Learn Stockfish's move preferences and win expectation: the policy-value network's
supervised start on the policy labels (``python -m chesslab data policy-labels``).

Each labelled position gives a policy target (Stockfish's best moves, their scores
turned into a distribution at a temperature, ``policy_target``) and a value target (its
win/draw/loss estimate as wins minus losses, for the side to move). The rest of the
labelled dataset (data/positions.npz: a Stockfish score and win/draw/loss for every
position) teaches the value head too: each batch is half policy-labelled positions, half
value-only ones, so the value sees several times more positions at no labelling cost.
The network sees the board from the side to move (``planes="mover"``). Positions of one
game in twenty are held out (by game, so no game is on both sides) to measure how often
the network's top move is Stockfish's, and its value error. Those are measured in the
mode a search uses the network: at the end of every epoch, before they are measured, the
batch norms' running statistics are recomputed with the final weights
(``recalibrate_batch_norm``), since the running averages of training lag behind the
weights and a value error measured with them is too high. Each epoch's notes say so.

A run is long and resumable: the network is saved every few thousand positions with
how far it got, and calling again continues from there. Shards labelled since the last
epoch join at the next epoch.

    python -m chesslab train supervised --out data/models/policy_value.json
"""
from __future__ import annotations

import time
from pathlib import Path

import chess
import numpy as np

from chesslab.base.files import file_tag
from chesslab.board.encoding import mover_bitboards, mover_indices, mover_planes_from
from chesslab.datasets.policy_labels import POLICY_LABELS, load_policy_labels, policy_target
from chesslab.datasets.positions import DEFAULT_DATASET, load_dataset
from chesslab.evaluators.policy_value import (LICHESS_CP_SLOPE, VALUE_TARGETS, PolicyValueNet,
                                              load_policy_value, save_policy_value)
from chesslab.nn import (DTYPE, Adam, l2_penalty, mse, recalibrate_batch_norm,
                         softmax_cross_entropy)

#: One game in this many is held out (by its game id).
HELD_OUT_EVERY = 20
#: Held-out positions measured after each epoch (spread over the held-out games).
HELD_OUT_POSITIONS = 20_000


def value_target(wdl, cp, value: str = "wdl") -> np.ndarray:
    """Value targets for the side to move from its win/draw/loss per mille (n x 3) and
    its centipawns (n), on the scale ``value`` names (``policy_value.VALUE_TARGETS``)."""
    if value == "wdl":
        w, _, l = np.asarray(wdl, np.float32).T
        return (w - l) / 1000.0
    if value == "cp":
        return np.tanh(LICHESS_CP_SLOPE / 2 * np.asarray(cp, np.float32)).astype(np.float32)
    raise ValueError(f"value target {value!r} is not one of {', '.join(VALUE_TARGETS)}")


class Examples:
    """Labelled positions as compact arrays: side-to-move bitboards, the legal moves'
    policy indices (flat, with offsets), the policy target over Stockfish's moves, the
    value target."""

    def __init__(self, bitboards, clock, legal, offsets, target_index, target_p, z, game_id):
        self.bitboards, self.clock = bitboards, clock
        self.legal, self.offsets = legal, offsets
        self.target_index, self.target_p, self.z, self.game_id = target_index, target_p, z, game_id
        self.has_policy = target_p.sum(1) > 0

    def __len__(self):
        return len(self.z)

    def batch(self, rows):
        """(planes, dense policy target, legal mask, value target) of ``rows``. A
        value-only row has no target and a placeholder mask (its policy gradient is
        dropped by ``train_step``)."""
        x = mover_planes_from(self.bitboards[rows], self.clock[rows])
        pi = np.zeros((len(rows), 4272), DTYPE)
        mask = np.zeros((len(rows), 4272), bool)
        for j, r in enumerate(rows):
            if not self.has_policy[r]:
                mask[j, 0] = True
                continue
            mask[j, self.legal[self.offsets[r]:self.offsets[r + 1]]] = True
            keep = self.target_p[r] > 0
            pi[j, self.target_index[r][keep]] = self.target_p[r][keep]
        return x, pi, mask, self.z[rows].astype(DTYPE)


def join_examples(a: Examples, b: Examples) -> Examples:
    """One set of examples from two (b's legal-move offsets shifted after a's)."""
    return Examples(np.concatenate([a.bitboards, b.bitboards]), np.concatenate([a.clock, b.clock]),
                    np.concatenate([a.legal, b.legal]),
                    np.concatenate([a.offsets, b.offsets[1:] + a.offsets[-1]]),
                    np.concatenate([a.target_index, b.target_index]),
                    np.concatenate([a.target_p, b.target_p]), np.concatenate([a.z, b.z]),
                    np.concatenate([a.game_id, b.game_id]))


def value_examples(dataset, skip=(), value: str = "wdl") -> Examples:
    """Value-only examples from a labelled ``Dataset`` (its win/draw/loss and score, White's
    side, turned to the side to move's, ``value_target``); FENs in ``skip`` are left out."""
    skip = set(skip)
    rows = [i for i, f in enumerate(dataset.fen.tolist()) if f not in skip]
    boards = [chess.Board(dataset.fen[i]) for i in rows]
    bitboards, clock = mover_bitboards(boards)
    white = np.array([b.turn == chess.WHITE for b in boards])
    wdl = np.where(white[:, None], dataset.wdl[rows], dataset.wdl[rows][:, ::-1])
    cp = np.where(white, dataset.cp[rows], -dataset.cp[rows])
    z = value_target(wdl, cp, value)
    n = len(rows)
    return Examples(bitboards, clock, np.zeros(0, np.int16), np.zeros(n + 1, np.int64),
                    np.zeros((n, 8), np.int16), np.zeros((n, 8), np.float32), z,
                    dataset.game_id[rows])


def train_step(net, optimizer, ex: Examples, rows, c: float) -> dict:
    """One minibatch: ``(z - v)^2`` on every row, the policy's cross-entropy on the rows
    that have a policy target (averaged over those rows), ``c ||theta||^2``."""
    x, pi, mask, z = ex.batch(rows)
    logits, v = net.forward(x)
    value_loss, g_value = mse(v, z)
    policy_loss, g_logits = softmax_cross_entropy(logits, pi, mask)
    has = ex.has_policy[rows]
    g_logits[~has] = 0.0
    share = max(int(has.sum()), 1) / len(rows)
    net.backward(g_logits / share, g_value)
    l2_penalty(net, 2 * c)
    optimizer.step(net)
    return {"value": value_loss, "policy": policy_loss / share}


def build_examples(labels: dict, temperature: float = 50.0, value: str = "wdl") -> Examples:
    """``Examples`` from ``load_policy_labels``' arrays (the value target: ``value_target``
    of the best move's score); finished games (no moves) are left out."""
    fens, moves, scores, wdl = labels["fen"], labels["moves"], labels["scores"], labels["wdl"]
    keep = np.flatnonzero(moves[:, 0] != "")
    boards = [chess.Board(str(fens[i])) for i in keep]
    bitboards, clock = mover_bitboards(boards)
    legal, offsets = [], [0]
    k = moves.shape[1]
    target_index = np.zeros((len(keep), k), np.int64)
    target_p = np.zeros((len(keep), k), np.float32)
    for j, (i, board) in enumerate(zip(keep, boards)):
        idx = mover_indices(board)
        legal.append(idx)
        offsets.append(offsets[-1] + len(idx))
        named = mover_indices(board, [chess.Move.from_uci(str(m)) for m in moves[i] if m])
        target_index[j, :len(named)] = named
        target_p[j] = policy_target(scores[i], moves[i], temperature)
    return Examples(bitboards, clock, np.concatenate(legal).astype(np.int16),
                    np.array(offsets), target_index.astype(np.int16), target_p,
                    value_target(wdl[keep], scores[keep, 0], value), labels["game_id"][keep])


def held_out_mask(game_id) -> np.ndarray:
    return np.asarray(game_id) % HELD_OUT_EVERY == 0


def spread_sample(rows, n: int) -> np.ndarray:
    """At most ``n`` of ``rows``, evenly spaced: positions from every held-out game, not
    ``n`` consecutive positions of a few games (whose errors move together)."""
    rows = np.asarray(rows)
    if len(rows) <= n:
        return rows
    return rows[np.linspace(0, len(rows) - 1, n).astype(np.int64)]


def split_rows(ex: Examples, values, held_out: int = HELD_OUT_POSITIONS):
    """``(examples, policy training rows, held-out policy rows, value-only training
    rows)``: the examples joined with ``values`` (value-only examples, or None), the
    value-only rows counted in the joined set (None without them)."""
    test = held_out_mask(ex.game_id)
    train_rows = np.flatnonzero(~test)
    test_rows = spread_sample(np.flatnonzero(test), held_out)
    if values is None:
        return ex, train_rows, test_rows, None
    value_rows = len(ex) + np.flatnonzero(~held_out_mask(values.game_id))
    return join_examples(ex, values), train_rows, test_rows, value_rows


def measure(net, ex: Examples, rows, batch: int = 512) -> dict:
    """Top-1 agreement with Stockfish's best move, policy cross-entropy, value error."""
    hits, ce, se = 0, 0.0, 0.0
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        x, pi, mask, z = ex.batch(part)
        logits, v = net.predict(x)
        logits = np.where(mask, logits.astype(np.float64), -np.inf)
        logp = logits - logits.max(1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(1, keepdims=True))
        logp = np.where(mask, logp, 0.0)           # illegal moves: no target, no -inf
        hits += int(np.sum(np.argmax(logits, 1) == ex.target_index[part, 0]))
        ce -= float(np.sum(np.where(pi > 0, pi * logp, 0.0)))
        se += float(np.sum((z - v) ** 2))
    n = max(len(rows), 1)
    return {"top1": hits / n, "policy_ce": ce / n, "value_mse": se / n}


def train_supervised(out, labels=POLICY_LABELS, channels: int = 48, blocks: int = 3,
                     epochs: int = 4, batch_size: int = 256, lr: float = 2e-3,
                     lr_decay: float = 0.6, temperature: float = 50.0, c: float = 1e-4,
                     save_every: int = 50_000, held_out: int = HELD_OUT_POSITIONS, seed: int = 0,
                     value_data=DEFAULT_DATASET, init=None, value_channels: int = 1,
                     value: str = "wdl", progress=print):
    """Train (or continue training) the side-to-move policy-value network on the labels.

    An epoch passes once over the policy-labelled training positions, each batch half
    of them and half value-only positions of ``value_data`` (None: policy labels only).
    Epoch e uses the step ``lr * lr_decay**e`` and the labels there were when it began;
    the network is saved every ``save_every`` policy positions, so a stopped run loses
    little, and after each epoch also as ``epoch_file(out, e)``. ``init``: a network file
    to start from instead of random weights. ``value``: what the value head learns
    (``VALUE_TARGETS``); a resumed run keeps the one it began with.
    """
    out = Path(out)
    if out.exists():
        net = load_policy_value(out)
        notes = dict(net.training_notes)
    else:
        net = (load_policy_value(init) if init else
               PolicyValueNet(channels, blocks, seed=seed, planes="mover",
                              value_channels=value_channels,
                              name="supervised policy-value net"))
        # the digest too: a shipped file is often continued in place, so its name alone
        # would later point at the network that replaced it
        notes = {"epoch": 0, "position": 0, "history": [], "init": str(init) if init else None,
                 "init_tag": file_tag(init) if init else None, "value_target": value}
    if notes.get("value_target", "wdl") != value:
        raise ValueError(f"{out} was trained with value target {notes.get('value_target', 'wdl')!r}, "
                         f"not {value!r}: continue it with that one, or write to a new --out")
    value_target(np.zeros((0, 3)), np.zeros(0), value)            # an unknown name stops here
    if net.planes != "mover":
        raise ValueError(f"{out if out.exists() else init} reads planes9; supervised training "
                         f"needs a side-to-move (planes='mover') network")
    values = _value_examples(value_data, labels, value) if value_data else None
    cache = {}
    while notes["epoch"] < epochs:
        labels_now = load_policy_labels(labels)
        n_labels = notes.get("epoch_labels") if notes["position"] else len(labels_now["fen"])
        if n_labels not in cache:
            cache.clear()
            ex = build_examples({k: v[:n_labels] for k, v in labels_now.items()}, temperature,
                                value)
            cache[n_labels] = ex, split_rows(ex, values, held_out)
        ex, (both, train_rows, test_rows, value_rows) = cache[n_labels]
        rng = np.random.default_rng(seed + notes["epoch"])
        order = rng.permutation(train_rows)
        half = batch_size // 2 if values is not None else batch_size
        if values is not None:
            value_order = rng.permutation(value_rows)             # rows of the joined set
        step = lr * lr_decay ** notes["epoch"]
        optimizer = Adam(step)
        net.train()
        sums, count, t0 = {"value": 0.0, "policy": 0.0}, 0, time.perf_counter()
        for start in range(notes["position"], len(order), half):
            rows = order[start:start + half]
            if len(rows) < 2:
                break
            if values is not None:
                rows = np.concatenate([rows, value_order[np.arange(start, start + half)
                                                         % len(value_order)]])
            parts = train_step(net, optimizer, both, rows, c)
            sums["value"] += parts["value"]
            sums["policy"] += parts["policy"]
            count += 1
            done = min(start + half, len(order))
            if done // save_every != start // save_every or done >= len(order):
                notes.update(position=done, epoch_labels=n_labels)
                _save(net, out, notes, temperature)
                rate = count * len(rows) / (time.perf_counter() - t0)
                progress(f"epoch {notes['epoch'] + 1}: {done}/{len(order)} policy positions, "
                         f"policy {sums['policy'] / count:.3f}, value {sums['value'] / count:.3f}, "
                         f"{rate:.0f} positions/s")
        recalibrate_batch_norm(net, calibration_batches(both, train_rows, value_rows,
                                                        batch_size, np.random.default_rng(seed)))
        net.eval()
        scores = measure(net, ex, test_rows)
        if values is not None:
            held = spread_sample(np.flatnonzero(held_out_mask(values.game_id)), held_out)
            scores["value_mse_all"] = measure(net, values, held)["value_mse"]
        notes["history"].append({"epoch": notes["epoch"] + 1, "lr": step,
                                 "policy_positions": len(train_rows),
                                 "value_positions": len(train_rows) + (
                                     len(value_rows) if values is not None else 0),
                                 "held_out_positions": len(test_rows),
                                 "batch_norms": "recalibrated before measuring",
                                 "train_policy": sums["policy"] / max(count, 1),
                                 "train_value": sums["value"] / max(count, 1), **scores})
        notes.update(epoch=notes["epoch"] + 1, position=0)
        notes.pop("epoch_labels", None)
        _save(net, out, notes, temperature)
        # each epoch's network is kept beside the file: the value can get worse while the
        # policy still improves, and the matches decide which one plays
        _save(net, epoch_file(out, notes["epoch"]), notes, temperature)
        progress(f"epoch {notes['epoch']} done: held-out top-1 {scores['top1']:.3f}, policy "
                 f"cross-entropy {scores['policy_ce']:.3f}, value mse {scores['value_mse']:.3f}")
    return net


#: Training batches whose statistics become the batch norms' running statistics.
CALIBRATION_BATCHES = 200


def calibration_batches(ex: Examples, policy_rows, value_rows, batch_size: int, rng,
                        count: int = CALIBRATION_BATCHES):
    """Input planes of ``count`` batches drawn like the training batches (half policy
    rows, half value-only rows when there are any) for ``recalibrate_batch_norm``."""
    half = batch_size // 2 if value_rows is not None else batch_size
    for _ in range(count):
        rows = rng.choice(policy_rows, half)
        if value_rows is not None:
            rows = np.concatenate([rows, rng.choice(value_rows, half)])
        yield mover_planes_from(ex.bitboards[rows], ex.clock[rows])


def recalibrate_file(path, out=None, labels=POLICY_LABELS, value_data=DEFAULT_DATASET,
                     batch_size: int = 256, seed: int = 0, progress=print):
    """Recalibrate the batch norms of a trained network file (written to ``out``, by
    default in place) and measure it before and after on the held-out positions."""
    net = load_policy_value(path)
    value = net.training_notes.get("value_target", "wdl")     # measured as it was trained
    ex = build_examples(load_policy_labels(labels), value=value)
    values = _value_examples(value_data, labels, value) if value_data else None
    both, train_rows, test_rows, value_rows = split_rows(ex, values)
    before = measure(net.eval(), ex, test_rows)
    used = recalibrate_batch_norm(net, calibration_batches(both, train_rows, value_rows,
                                                           batch_size,
                                                           np.random.default_rng(seed)))
    after = measure(net.eval(), ex, test_rows)
    notes = dict(net.training_notes)
    notes["batch_norm_recalibrated"] = {"batches": used, "batch_size": batch_size,
                                        "before": before, "after": after}
    save_policy_value(net, out or path, **notes)
    progress(f"held-out value mse {before['value_mse']:.3f} -> {after['value_mse']:.3f}, "
             f"top-1 {before['top1']:.3f} -> {after['top1']:.3f} ({used} batches)")
    return before, after


def epoch_file(out, epoch: int) -> Path:
    """Where the network as it was after ``epoch`` is kept: beside ``out``."""
    out = Path(out)
    return out.with_name(f"{out.stem}.epoch{epoch}{out.suffix}")


def _value_examples(path, labels, value: str = "wdl") -> Examples:
    """Value-only examples of the dataset at ``path``, without the positions that already
    have a policy label (a position labelled later may be in both: harmless)."""
    dataset = load_dataset(path)
    try:
        labelled = set(load_policy_labels(labels)["fen"].tolist())
    except FileNotFoundError:
        labelled = set()
    return value_examples(dataset, skip=labelled, value=value)


def _save(net, out, notes, temperature):
    # the input encoding is in the file's architecture already
    value = ("(wins - losses) / 1000" if notes.get("value_target", "wdl") == "wdl" else
             f"tanh({LICHESS_CP_SLOPE / 2:g} cp), Lichess's win% scale")
    save_policy_value(net, out, **{**notes, "targets": f"Stockfish multipv, softmax at "
                                   f"{temperature} cp; value {value}"})
