"""``python -m chesslab COMMAND ...``: the command line lives in ``chesslab.cli``."""
import sys

from chesslab.cli import main

if __name__ == "__main__":
    sys.exit(main())
