"""chesslab: learn how a chess AI is built, one idea per module.

Layers, bottom to top: encoding -> nn -> evaluation -> search -> players -> arena/play.
`chess.Board` and `chess.Move` (python-chess) are passed everywhere.
"""
from chesslab.base.parallel import one_blas_thread as _one_blas_thread

__version__ = "0.1.0"

_one_blas_thread()      # numpy's BLAS on one thread (see chesslab.base.parallel)
