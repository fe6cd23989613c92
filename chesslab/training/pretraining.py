"""The old name of ``chesslab.training.bootstrap``, kept only until ``training/selfplay.py``
imports the new one (its owner changes that line); then this file is deleted."""
import sys

from chesslab.training import bootstrap as _bootstrap

sys.modules[__name__] = _bootstrap
