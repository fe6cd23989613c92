"""Test-wide settings, loaded by pytest before any test module or notebook kernel starts."""
import os

# Small matrices on a busy 2-core laptop: multi-threaded BLAS can be hundreds of times
# slower than one thread. Notebook kernels inherit this environment.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
