"""chesslab: learn how a chess AI is built, one idea per module.

Layers, bottom to top: encoding -> nn -> evaluation -> search -> players -> arena/play.
`chess.Board` and `chess.Move` (python-chess) are passed everywhere.
"""
import os as _os

__version__ = "0.1.0"

_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _one_blas_thread() -> None:
    """Run numpy's BLAS on one thread unless the user chose a thread count.

    Our matrices are small: on a 2-core laptop a second BLAS thread mostly fights the
    Jupyter kernel and the AI's search for the CPU (measured: a batch-8 forward pass of
    the conv net took 0.8 ms on one thread and 85 ms on two while the machine was busy).
    The environment variables work only before numpy is loaded; in a notebook numpy is
    usually loaded first (by matplotlib), so the bundled OpenBLAS is also told directly.
    """
    if any(var in _os.environ for var in _BLAS_VARS):
        return
    for var in _BLAS_VARS:
        _os.environ[var] = "1"
    try:
        import ctypes
        import glob
        import numpy
        libs = _os.path.join(_os.path.dirname(numpy.__file__), _os.pardir, "numpy.libs")
        for path in glob.glob(_os.path.join(libs, "*openblas*")):
            lib = ctypes.CDLL(path)
            for name in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                         "openblas_set_num_threads"):
                setter = getattr(lib, name, None)
                if setter is not None:
                    setter(1)
                    break
    except Exception:   # best effort: another BLAS build, or no bundled library
        pass


_one_blas_thread()
