"""Test-wide settings, loaded by pytest before any test module or notebook kernel starts."""
import os

from chesslab.base.parallel import one_blas_thread

# Small matrices on a busy 2-core laptop: multi-threaded BLAS can be hundreds of times
# slower than one thread. Notebook kernels and worker processes inherit the setting.
one_blas_thread()
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
