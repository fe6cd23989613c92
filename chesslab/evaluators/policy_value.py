"""The actor-critic network: one residual trunk, a policy head and a value head.

The actor-critic design reads a position as 9x8x8 planes (``encoding.planes9``; the
shipped network reads ``encoding.mover_planes``, the board from the side to move) and
answers two questions at once: *which move?* (the policy, 4272 logits, one per move of
``encoding.move_to_index``) and *who wins?* (the value, tanh in [-1, 1] for the side to
move). ``Sequential`` runs layers in a line, so the two heads live in this small class
that splits the trunk's output in ``forward`` and adds the two heads' gradients back
together in ``backward``. It has ``params`` / ``grads`` / ``parameters()`` /
``leaves()`` like every chesslab.nn model, so ``Adam`` and ``l2_penalty`` work on it.

Loss of the design: ``L = (z - v)^2 - pi . log p + c ||theta||^2``: the value learns
the game result z, the policy learns the search's visit distribution pi, and c keeps
the weights small.
"""
from __future__ import annotations

import chess
import numpy as np

from chesslab.board.encoding import (ENCODINGS, MIRRORED_INDEX, POLICY_SIZE, PROMOTION_PAIRS,
                                     as_board, move_to_index, mover_indices)
from chesslab.base.files import read_json
from chesslab.evaluators.neural import target_to_cp
from chesslab.nn import (DTYPE, BatchNorm, Conv2D, Dense, Flatten, Layer, ReLU, Residual,
                 Sequential, Tanh, l2_penalty, mse, save_model, softmax_cross_entropy)
from chesslab.nn.io import model_from_doc, register_architecture

#: The inputs a policy-value network can read: the encodings that are planes (C, 8, 8).
PLANE_ENCODINGS = tuple(name for name, e in ENCODINGS.items()
                        if len(e.shape) == 3 and e.shape[1:] == (8, 8))

#: Lichess's expected score of a centipawn advantage between human players:
#: win% = 50 + 50 (2 / (1 + exp(-0.00368208 cp)) - 1) (lichess.org/page/accuracy).
LICHESS_CP_SLOPE = 0.00368208
#: What a value head learned (its file's training notes say which; "wdl" when they do
#: not): ``"wdl"`` Stockfish's wins minus losses, ``"cp"`` the score on Lichess's scale as
#: wins minus losses, ``tanh(LICHESS_CP_SLOPE / 2 * cp)``. Stockfish's win/draw/loss calls a
#: position won long before a weak player can win it, so a rook up and a queen up look
#: alike; on the Lichess scale they stay apart and a search sees progress in a won game.
VALUE_TARGETS = ("wdl", "cp")


def value_to_cp(value, target: str = "wdl"):
    """Centipawns for the side to move from a value in [-1, 1], read on the scale the value
    head learned, so a search reports its scores in the centipawns every other player uses:
    ``"cp"`` (Lichess's scale) exactly inverted; any other target (``"wdl"``, and the
    older networks' notes: self-play's game results, the bootstrap's scores) read as an
    expected score (v + 1) / 2 (``neural.target_to_cp(p, "prob")``)."""
    value = np.asarray(value, dtype=np.float64)
    if target == "cp":
        return np.arctanh(np.clip(value, -1 + 1e-4, 1 - 1e-4)) / (LICHESS_CP_SLOPE / 2)
    return target_to_cp((value + 1) / 2, "prob")


class MovePolicyHead(Layer):
    """4272 move logits from two 1x1 convolutions: "from" features and "to" features.

    A dense layer from the trunk's feature planes to 4272 outputs would hold millions of
    weights (AlphaZero first squeezes the trunk into two planes: still over half a
    million). Here every square gets a k-number "from" vector S and a
    k-number "to" vector T, and the logit of the move f->t is ``S_f . T_t / sqrt(k)``:
    64x64 logits, the first 4096 entries of the policy index, from 2 x channels x k
    weights. A promotion f->t=piece adds a per-piece number read at the from square
    (4 extra channels of the "from" convolution).
    """

    def __init__(self, channels: int, k: int = 32, rng=None):
        super().__init__()
        self.channels, self.k = int(channels), int(k)
        self.conv_from = Conv2D(channels, k + 4, 1, rng=rng)
        self.conv_to = Conv2D(channels, k, 1, rng=rng)

    def leaves(self):
        yield self.conv_from
        yield self.conv_to

    def train(self, mode=True):
        self.training = mode
        self.conv_from.train(mode)
        self.conv_to.train(mode)
        return self

    def astype(self, dtype):
        self.conv_from.astype(dtype)
        self.conv_to.astype(dtype)
        return self

    def parameters(self):
        for prefix, conv in (("from", self.conv_from), ("to", self.conv_to)):
            for key, value in conv.params.items():
                yield f"{prefix}.{key}", value, conv.grads.get(key)

    def forward(self, h):
        n = h.shape[0]
        # columns of the 8x8 arrays in python-chess square order (a1 = 0 ... h8 = 63)
        f = self.conv_from.forward(h).reshape(n, self.k + 4, 64)[:, :, _SQUARE_CELL]
        t = self.conv_to.forward(h).reshape(n, self.k, 64)[:, :, _SQUARE_CELL]
        s = f[:, :self.k]
        scale = 1.0 / np.sqrt(self.k)
        pairs = np.matmul(s.transpose(0, 2, 1), t) * scale          # (N, from, to)
        out = np.empty((n, POLICY_SIZE), h.dtype)
        out[:, :4096] = pairs.reshape(n, 4096)
        out[:, 4096:] = (pairs.reshape(n, 4096)[:, _PROMO_PAIR]
                         + f[:, self.k:, :][:, _PROMO_PIECE, _PROMO_FROM])
        if self.training:
            self._cache = (s, t)
        return out

    def backward(self, grad_out, input_grad=True):
        s, t = self._need_cache("_cache")
        n, k = s.shape[0], self.k
        scale = 1.0 / np.sqrt(k)
        g_pairs = grad_out[:, :4096].copy()
        g_promo = grad_out[:, 4096:]
        np.add.at(g_pairs, (slice(None), _PROMO_PAIR), g_promo)
        g_pairs = g_pairs.reshape(n, 64, 64) * scale
        g_f = np.zeros((n, k + 4, 64), grad_out.dtype)
        g_f[:, :k] = np.matmul(t, g_pairs.transpose(0, 2, 1))        # dS = T G^T
        np.add.at(g_f, (slice(None), k + _PROMO_PIECE, _PROMO_FROM), g_promo)
        g_t = np.matmul(s, g_pairs)                                   # dT = S G
        # back from square order to the 8x8 layout, then through the two convolutions
        g_f_cells = np.empty_like(g_f)
        g_f_cells[:, :, _SQUARE_CELL] = g_f
        g_t_cells = np.empty_like(g_t)
        g_t_cells[:, :, _SQUARE_CELL] = g_t
        gx = self.conv_from.backward(g_f_cells.reshape(n, k + 4, 8, 8), input_grad)
        gx2 = self.conv_to.backward(g_t_cells.reshape(n, k, 8, 8), input_grad)
        return gx + gx2 if input_grad else None

    def config(self):
        return {"type": "MovePolicyHead", "channels": self.channels, "k": self.k}


# 8x8 cell (row 0 = rank 8, column 0 = file a) of each python-chess square
_SQUARE_CELL = np.array([(7 - s // 8) * 8 + s % 8 for s in range(64)])
# promotion entry 4096 + 4*pair + piece: its (from*64 + to) pair, its piece, its from square
_PROMO_PAIR = np.repeat([f * 64 + t for f, t in PROMOTION_PAIRS], 4)
_PROMO_PIECE = np.tile(np.arange(4), len(PROMOTION_PAIRS))
_PROMO_FROM = np.repeat([f for f, _ in PROMOTION_PAIRS], 4)


class PolicyValueNet:
    """planes -> (4272 policy logits, value in [-1, 1]) for the side to move.

    ``planes`` names the input encoding (``encoding.ENCODINGS``, one of
    ``PLANE_ENCODINGS``): the seed's ``planes9``, or ``mover``, where the board is seen
    from the side to move (flipped for Black) and the policy's moves are flipped with
    it, so one pattern serves both colours.
    """

    def __init__(self, channels: int = 32, blocks: int = 2, policy_k: int = 32, seed: int = 0,
                 name: str = "policy-value net", planes: str = "planes9",
                 value_channels: int = 1):
        if planes not in PLANE_ENCODINGS:
            raise ValueError(f"unknown input encoding {planes!r} for a policy-value network; "
                             f"choose one of {', '.join(PLANE_ENCODINGS)}")
        rng = np.random.default_rng(seed)
        self.channels, self.blocks, self.policy_k = int(channels), int(blocks), int(policy_k)
        self.value_channels = int(value_channels)
        self.name, self.planes = name, planes
        self.input_shape = ENCODINGS[planes].shape
        self.trunk = Sequential(Conv2D(self.input_shape[0], channels, 3, padding=1, rng=rng),
                                BatchNorm(channels), ReLU(),
                                *[Residual(channels, rng=rng) for _ in range(blocks)])
        self.policy_head = MovePolicyHead(channels, policy_k, rng=rng)
        # value head: a few feature planes (AlphaZero: one; Lc0: 32), a small dense layer, tanh
        vc = self.value_channels
        self.value_head = Sequential(Conv2D(channels, vc, 1, rng=rng), BatchNorm(vc), ReLU(),
                                     Flatten(), Dense(64 * vc, 64, rng=rng), ReLU(),
                                     Dense(64, 1, init="xavier", rng=rng), Tanh())
        self.parts = {"trunk": self.trunk, "policy": self.policy_head, "value": self.value_head}
        self.training = True

    # ------------------------------------------------------------------ forward / backward
    def forward(self, x):
        """(N, planes, 8, 8) -> logits (N, 4272), values (N,)."""
        x = np.asarray(x, dtype=self.dtype)
        if x.shape[1:] != self.input_shape:
            raise ValueError(f"{self.name} expects planes of shape (N, {self.input_shape[0]}, 8, 8) "
                             f"(net.encode(boards)), got {x.shape}")
        h = self.trunk.forward(x)
        return self.policy_head.forward(h), self.value_head.forward(h)[:, 0]

    def backward(self, grad_logits, grad_value):
        """Both heads send a gradient into the trunk; the trunk gets their sum."""
        g = self.policy_head.backward(grad_logits)
        g = g + self.value_head.backward(np.asarray(grad_value).reshape(-1, 1))
        self.trunk.backward(g, input_grad=False)

    def predict(self, x):
        """Inference mode forward (running batch-norm statistics), mode restored after."""
        was = self.training
        self.eval()
        try:
            return self.forward(x)
        finally:
            self.train(was)

    def evaluate(self, planes, legal):
        """What MCTS asks: priors over each position's legal moves, and its value.

        ``legal`` is a list of policy-index arrays (``encoding.legal_indices``); the
        softmax runs over those entries only, so an illegal move never gets probability.
        """
        logits, values = self.predict(planes)
        priors = []
        for row, idx in zip(logits, legal):
            z = row[idx].astype(np.float64)
            e = np.exp(z - z.max())
            priors.append(e / e.sum())
        return priors, values.astype(np.float64)

    def encode(self, boards):
        """The network's input planes for a list of boards."""
        return ENCODINGS[self.planes].batch(boards)

    def move_indices(self, board, moves=None) -> np.ndarray:
        """Policy indices of ``moves`` (default: every legal move) in the network's view."""
        if self.planes == "mover":
            return mover_indices(board, moves)
        moves = board.generate_legal_moves() if moves is None else moves
        return np.fromiter((move_to_index(m) for m in moves), dtype=np.int64)

    def evaluate_boards(self, boards, move_lists):
        """``evaluate`` from boards and their move lists: priors in each list's order."""
        return self.evaluate(self.encode(boards),
                             [self.move_indices(b, ms) for b, ms in zip(boards, move_lists)])

    def policy(self, board):
        """(moves, probabilities, value) of one board: the raw network, no search."""
        board = as_board(board)
        moves = list(board.generate_legal_moves())
        if not moves:
            raise ValueError(f"no legal move in {board.fen()!r}: the game is over")
        priors, values = self.evaluate_boards([board], [moves])
        return moves, priors[0], float(values[0])

    # ------------------------------------------------------------------ the nn protocol
    def leaves(self):
        for part in self.parts.values():
            yield from part.leaves()

    def parameters(self):
        for prefix, part in self.parts.items():
            for name, param, grad in part.parameters():
                yield f"{prefix}.{name}", param, grad

    @property
    def params(self):
        return {name: p for name, p, _ in self.parameters()}

    @property
    def grads(self):
        return {name: g for name, _, g in self.parameters() if g is not None}

    @property
    def dtype(self):
        return self.trunk.layers[0].params["W"].dtype

    def train(self, mode: bool = True):
        self.training = mode
        for part in self.parts.values():
            part.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def astype(self, dtype):
        for part in self.parts.values():
            part.astype(dtype)
        return self

    def n_params(self) -> int:
        return sum(p.size for p in self.params.values())

    @property
    def value_target(self) -> str:
        """What the value head learned, as its training notes name it (``VALUE_TARGETS``
        for the supervised networks; "wdl" when the notes say nothing)."""
        return getattr(self, "training_notes", {}).get("value_target", "wdl")

    def value_to_cp(self, value):
        """``value_to_cp`` on this network's own scale."""
        return value_to_cp(value, self.value_target)

    def architecture(self) -> dict:
        return {"class": "PolicyValueNet", "channels": self.channels, "blocks": self.blocks,
                "policy_k": self.policy_k, "planes": self.planes,
                "value_channels": self.value_channels, "name": self.name,
                "input_shape": list(self.input_shape), "policy_size": POLICY_SIZE}

    def __repr__(self):
        return (f"PolicyValueNet({self.channels} channels, {self.blocks} residual blocks, "
                f"{self.value_channels} value plane(s), {self.planes} input, "
                f"{self.n_params()} parameters)")


# ---------------------------------------------------------------------- loss and training

def policy_value_loss(net, x, pi, z, mask, c: float = 1e-4, backward: bool = True):
    """``(z - v)^2 - pi . log p + c ||theta||^2`` and its gradients (set on ``net``).

    Returns ``(total, parts)`` with parts ``{"value", "policy", "l2"}``. The policy
    softmax is masked: illegal moves get probability 0 and gradient 0.
    """
    logits, v = net.forward(x)
    value_loss, g_value = mse(v, np.asarray(z, dtype=v.dtype))
    policy_loss, g_logits = softmax_cross_entropy(logits, pi, mask)
    if backward:
        net.backward(g_logits, g_value)
        # l2_penalty adds weight_decay * W to the gradient and returns
        # 0.5 * weight_decay * ||W||^2, so weight_decay = 2c gives c ||W||^2
        l2 = l2_penalty(net, 2 * c)
    else:
        l2 = c * sum(float(np.sum(layer.params["W"] ** 2))
                     for layer in net.leaves() if "W" in layer.params)
    parts = {"value": value_loss, "policy": policy_loss, "l2": l2}
    return value_loss + policy_loss + l2, parts


def policy_targets(rows, dtype=DTYPE):
    """Dense pi (N, 4272) and legal masks from sample rows (built one batch at a time:
    a dense target for 10,000 positions would take 170 MB)."""
    pi = np.zeros((len(rows), POLICY_SIZE), dtype)
    mask = np.zeros((len(rows), POLICY_SIZE), bool)
    for i, r in enumerate(rows):
        pi[i, r["legal"]] = r["pi"]
        mask[i, r["legal"]] = True
    return pi, mask


# The 8 symmetries of the square, as sequences of python-chess bitboard flips.
_H, _V, _D = chess.flip_horizontal, chess.flip_vertical, chess.flip_diagonal
SYMMETRIES = ((), (_H,), (_V,), (_H, _V), (_D,), (_D, _H), (_D, _V), (_D, _H, _V))
_INDEX_MAPS = {}


def _index_map(k: int) -> np.ndarray:
    """Policy index -> policy index under symmetry k (-1 where the move has no image)."""
    if k not in _INDEX_MAPS:
        square = np.arange(64)
        for flip in SYMMETRIES[k]:
            square = np.array([chess.lsb(flip(chess.BB_SQUARES[s])) for s in square])
        pairs = {pair: i for i, pair in enumerate(PROMOTION_PAIRS)}
        out = np.full(POLICY_SIZE, -1)
        out[:4096] = square[np.arange(4096) // 64] * 64 + square[np.arange(4096) % 64]
        for i, (f, t) in enumerate(PROMOTION_PAIRS):
            j = pairs.get((int(square[f]), int(square[t])))
            if j is not None:
                out[4096 + 4 * i:4100 + 4 * i] = 4096 + 4 * j + np.arange(4)
        _INDEX_MAPS[k] = out
    return _INDEX_MAPS[k]


def allowed_symmetries(board) -> tuple:
    """Symmetries that map legal chess to legal chess: all 8 without pawns and castling
    rights (K+Q vs K), the left-right mirror with pawns but no castling rights."""
    if board.castling_rights:
        return (0,)
    return tuple(range(8)) if not board.pawns else (0, 1)


def augmented(row, rng, mirror_colours: bool = False):
    """A board and a training row under a random allowed symmetry (8x more endgame data).

    ``mirror_colours`` also swaps the colours half of the time (``board.mirror()``: the
    board flipped top to bottom, White's pieces become Black's and the other side is to
    move). That is a symmetry of every chess position, pawns and castling included, and
    the value for the side to move stays the same; it is not one of a task that treats
    the colours differently (the endgame drills, where a draw is White's loss).
    """
    board = chess.Board(row["fen"])
    k = int(rng.choice(allowed_symmetries(board)))
    mirror = mirror_colours and rng.random() < 0.5
    if not k and not mirror:
        return board, row
    legal = np.asarray(row["legal"])
    if k:
        for flip in SYMMETRIES[k]:
            board = board.transform(flip)
        legal = _index_map(k)[legal]
    if mirror:
        board = board.mirror()
        legal = _index_map(SYMMETRIES.index((_V,)))[legal]     # squares flip top to bottom
    return board, {**row, "fen": board.fen(), "legal": legal}


def net_view_row(net, board, row):
    """A training row whose ``legal`` indices are in the network's view: rows keep
    python-chess's absolute indices, a side-to-move network sees Black's moves flipped."""
    if net.planes == "mover" and board.turn == chess.BLACK:
        return {**row, "legal": MIRRORED_INDEX[np.asarray(row["legal"], dtype=np.int64)]}
    return row


def train_epochs(net, rows, optimizer, epochs: int = 1, batch_size: int = 64,
                 c: float = 1e-4, seed: int = 0, augment: bool = False,
                 mirror_colours: bool = False):
    """Shuffled minibatch epochs over sample rows; returns the mean loss parts per epoch.

    A row is a dict: ``fen``, ``legal`` (policy indices of the legal moves), ``pi``
    (the target probability of each of those moves) and ``z`` (the result for the side
    to move: +1 win, 0 draw, -1 loss). ``augment`` shows each position under a random
    symmetry of the board (see ``allowed_symmetries``), and with ``mirror_colours``
    half of the positions with the colours swapped (see ``augmented``).
    """
    if not rows:
        raise ValueError("no training samples: play some self-play games first")
    rng = np.random.default_rng(seed)
    net.train()
    history = []
    for _ in range(epochs):
        order = rng.permutation(len(rows))
        sums, count = {"total": 0.0, "value": 0.0, "policy": 0.0, "l2": 0.0}, 0
        for start in range(0, len(order), batch_size):
            b = order[start:start + batch_size]
            if len(b) < 2:          # batch norm needs at least two samples
                continue
            pairs = [augmented(rows[i], rng, mirror_colours) if augment
                     else (as_board(rows[i]["fen"]), rows[i]) for i in b]
            batch = [net_view_row(net, bd, r) for bd, r in pairs]
            pi, mask = policy_targets(batch)
            z = np.array([r["z"] for r in batch], DTYPE)
            total, parts = policy_value_loss(net, net.encode([bd for bd, _ in pairs]),
                                             pi, z, mask, c)
            optimizer.step(net)
            for key, value in {"total": total, **parts}.items():
                sums[key] += value * len(b)
            count += len(b)
        history.append({k: v / max(count, 1) for k, v in sums.items()})
    net.eval()
    return history


# ---------------------------------------------------------------------- JSON files

def save_policy_value(net: PolicyValueNet, path, **extra) -> None:
    """Same layout as ``nn.save_model`` (layer1.inputWeights, bias1, ...), plus ``extra``
    notes (how it was trained) under ``"training"``."""
    save_model(net, path, extra={"training": extra} if extra else None)


def load_policy_value(path) -> PolicyValueNet:
    """Rebuild a network written by ``save_policy_value`` (``nn.io.model_from_doc``, as
    every network file: every shape is checked), with its training notes."""
    doc = read_json(path, "model file")
    arch = doc.get("architecture") if isinstance(doc, dict) else None
    if not isinstance(arch, dict) or arch.get("class") != "PolicyValueNet":
        raise ValueError(f"model file {path} is not a policy-value network (its architecture "
                         f"class should be 'PolicyValueNet'); write one with save_policy_value")
    net = model_from_doc(doc, f"model file {path}")
    net.training_notes = doc.get("training", {})
    return net


register_architecture("PolicyValueNet", lambda arch: PolicyValueNet(
    arch["channels"], arch["blocks"], arch["policy_k"], name=arch.get("name", "net"),
    planes=arch.get("planes", "planes9"), value_channels=arch.get("value_channels", 1)))
