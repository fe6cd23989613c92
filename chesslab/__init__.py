"""chesslab: learn how a chess AI is built, one idea per module.

Layers, bottom to top: encoding -> nn -> evaluation -> search -> players -> arena/play.
`chess.Board` and `chess.Move` (python-chess) are passed everywhere.
"""
import os as _os

# One BLAS thread unless the user asked otherwise: our matrices are small, and on a
# 2-core laptop a second BLAS thread mostly fights the Jupyter kernel for the CPU.
# (Only effective when chesslab is imported before numpy.)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")

__version__ = "0.1.0"
