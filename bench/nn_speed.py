"""How fast is chesslab.nn? Our numpy nets vs PyTorch on the CPU, same shapes, same threads.

    flock /tmp/chesslab-cpu.lock python bench/nn_speed.py            # threads 1 and 2
    python bench/nn_speed.py --threads 1 --quick

Rows: a training step (forward, MSE, backward, Adam) at batch 256, and inference at
batch 1 and 256 (eval mode, no gradients), for the thesis ANN, the thesis CNN and the
tutorial conv net (32 filters x 4). Times are the best of several repeats; the ratio
ours/torch is measured in this one run (below 1.0: we are faster).

The last two rows are a floor: numpy's matrix products for one 32 -> 32 conv layer,
with the im2col columns already built, against torch's whole layer. When they are above
1.0, the conv net cannot reach torch with im2col in numpy, whatever the gather costs.

PyTorch is optional and only used here: ``pip install torch==2.13.0``.
Each thread count runs in a fresh process, because BLAS reads its thread count when
numpy is imported.
"""
from __future__ import annotations

import argparse
import os
import sys
import time


def _best_times(fns, number, repeat=5):
    """Best time per call of each function; rounds alternate between the functions so a
    busy machine slows all of them alike."""
    best = [float("inf")] * len(fns)
    for fn in fns:
        fn()
        fn()
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (time.perf_counter() - start) / number)
    return best


def _ours(name):
    from chesslab import nn
    return {"thesis ANN": nn.thesis_ann, "thesis CNN": nn.thesis_cnn,
            "conv net 32x4": nn.conv_net}[name]()


def _torch_net(name):
    import torch.nn as tnn
    if name == "thesis ANN":
        return tnn.Sequential(tnn.Linear(64, 64), tnn.Sigmoid(), tnn.Linear(64, 64),
                              tnn.Sigmoid(), tnn.Linear(64, 1))
    if name == "thesis CNN":
        return tnn.Sequential(tnn.Conv2d(1, 13, 3, padding=1), tnn.MaxPool2d(3, ceil_mode=True),
                              tnn.ReLU(), tnn.Conv2d(13, 10, 3, padding=1),
                              tnn.MaxPool2d(2, ceil_mode=True), tnn.ReLU(), tnn.Flatten(),
                              tnn.Linear(40, 1))
    layers, channels = [], 14
    for _ in range(4):
        layers += [tnn.Conv2d(channels, 32, 3, padding=1), tnn.ReLU()]
        channels = 32
    layers += [tnn.Flatten(), tnn.Linear(2048, 64), tnn.ReLU(), tnn.Linear(64, 1), tnn.Sigmoid()]
    return tnn.Sequential(*layers)


SHAPES = {"thesis ANN": (64,), "thesis CNN": (1, 8, 8), "conv net 32x4": (14, 8, 8)}


def measure(threads, quick=False, use_torch=True):
    """[(net, what, ours seconds, torch seconds or None)] with this process's threads."""
    import numpy as np
    from chesslab import nn
    torch = None
    if use_torch:
        try:
            import torch
            torch.set_num_threads(threads)
        except ImportError:
            torch = None
    rows = []
    scale = 0.2 if quick else 1.0
    for name, shape in SHAPES.items():
        heavy = name == "conv net 32x4"
        rng = np.random.default_rng(0)
        x256 = rng.standard_normal((256,) + shape).astype(np.float32)
        y256 = rng.uniform(size=(256, 1)).astype(np.float32)
        x1 = x256[:1].copy()
        n_train = max(2, int((5 if heavy else 50) * scale))
        n_inf = max(2, int((10 if heavy else 100) * scale))

        net = _ours(name)
        opt = nn.Adam(lr=1e-3)
        ours = {"train step, batch 256": lambda: nn.train_step(net, opt, x256, y256),
                "inference, batch 1": lambda: net.forward(x1),
                "inference, batch 256": lambda: net.forward(x256)}
        theirs = {}
        if torch is not None:
            tnet = _torch_net(name)
            topt = torch.optim.Adam(tnet.parameters(), lr=1e-3)
            tx, ty, tx1 = torch.from_numpy(x256), torch.from_numpy(y256), torch.from_numpy(x1)

            def tstep():
                topt.zero_grad()
                loss = ((tnet(tx) - ty) ** 2).mean()
                loss.backward()
                topt.step()

            def tinfer(batch):
                with torch.no_grad():
                    tnet(batch)

            theirs = {"train step, batch 256": tstep, "inference, batch 1": lambda: tinfer(tx1),
                      "inference, batch 256": lambda: tinfer(tx)}
        for what in ours:
            if what.startswith("inference"):    # eval mode: no caches, batch-norm statistics
                net.eval()
                if torch is not None:
                    tnet.eval()
            number = n_inf * 5 if what.endswith(" 1") else (n_inf if "inference" in what else n_train)
            fns = [ours[what]] + ([theirs[what]] if what in theirs else [])
            times = _best_times(fns, number)
            rows.append((name, what, times[0], times[1] if len(times) > 1 else None))
    rows += _gemm_floor(torch, quick)
    return rows, torch is not None


def _gemm_floor(torch, quick=False):
    """One 32 -> 32 conv layer of the tutorial net at batch 256 (3x3, padding 1): our
    matrix products ALONE (the same np.matmul calls as ``Conv2D``, on window rows that
    are already gathered) against torch's whole layer. Above 1.0, no im2col design in
    numpy can reach torch on this layer, however fast its gather: the products alone
    are already slower."""
    import numpy as np
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((32 * 9, 32)).astype(np.float32)    # (k*k*C, out)
    rows = rng.standard_normal((256, 64, 32 * 9)).astype(np.float32)  # (N, positions, k*k*C)
    grad = rng.standard_normal((256 * 64, 32)).astype(np.float32)     # output gradients
    number = 4 if quick else 20
    products = {"forward": lambda: np.matmul(rows, weight),
                "forward + backward": lambda: (np.matmul(rows, weight),          # output
                                               grad.T @ rows.reshape(-1, 32 * 9),  # dL/dW
                                               np.matmul(rows, weight))}         # dL/dx
    rows_out = []
    if torch is None:
        for what, fn in products.items():
            rows_out.append(("1 conv layer", f"GEMM only, {what}", _best_times([fn], number)[0],
                             None))
        return rows_out
    layer = torch.nn.Conv2d(32, 32, 3, padding=1)
    x = torch.from_numpy(rng.standard_normal((256, 32, 8, 8)).astype(np.float32))
    x.requires_grad_(True)
    g = torch.ones(256, 32, 8, 8)

    def torch_forward():
        with torch.no_grad():
            layer(x)

    def torch_both():
        layer(x).backward(g)

    for what, theirs in (("forward", torch_forward), ("forward + backward", torch_both)):
        ours, t = _best_times([products[what], theirs], number)
        rows_out.append(("1 conv layer", f"GEMM only, {what}", ours, t))
    return rows_out


def _print(rows, threads, have_torch):
    for name, what, ours, theirs in rows:
        if theirs is None:
            print(f"{threads:7d}  {name:14s} {what:30s} {ours * 1e3:10.3f} ms")
        else:
            print(f"{threads:7d}  {name:14s} {what:30s} {ours * 1e3:10.3f} ms {theirs * 1e3:10.3f} ms"
                  f"   {ours / theirs:5.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--no-torch", action="store_true", help="only our own timings")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        rows, have_torch = measure(args.threads[0], args.quick, not args.no_torch)
        _print(rows, args.threads[0], have_torch)
        if not have_torch:
            print("# torch not importable", flush=True)
        return 0
    print(f"{'threads':>7s}  {'net':14s} {'what':30s} {'ours':>13s} {'torch':>13s}   ours/torch")
    missing = False
    from chesslab.base.parallel import BLAS_VARIABLES
    from chesslab.base.text import run_text
    for threads in args.threads:
        env = dict(os.environ, **{variable: str(threads) for variable in BLAS_VARIABLES})
        cmd = [sys.executable, __file__, "--child", "--threads", str(threads)]
        cmd += ["--quick"] * args.quick + ["--no-torch"] * args.no_torch
        run = run_text(cmd, env=env, check=True)
        out = run.stdout
        missing |= "# torch not importable" in out
        print("\n".join(line for line in out.splitlines() if not line.startswith("#")),
              flush=True)
    if missing and not args.no_torch:
        print("\nPyTorch is not installed, so only our timings are shown. For the comparison:\n"
              "    pip install torch==2.13.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
