"""The mark for tests that need a Stockfish binary: they skip, saying how to install it."""
import pytest

from chesslab.base.stockfish import find_stockfish

needs_stockfish = pytest.mark.skipif(
    find_stockfish(required=False) is None,
    reason="Stockfish is not installed (apt-get install stockfish, or set "
           "CHESSLAB_STOCKFISH); CI installs it so these tests run there")
