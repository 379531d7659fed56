"""Configure numba's threading before anything imports it; every CPU module imports
numba through here (``from .numba_setup import numba``).

Why: sessions run steps from many Python threads at once.  numba's default
"workqueue" threading layer is not thread-safe and aborts the whole process when two
threads launch ``parallel=True`` kernels concurrently, so we pin the OpenMP layer,
which is.  Its idle workers spin for a bounded while before they sleep
(``GOMP_SPINCOUNT``, about 0.2 ms here): a step launches a parallel loop for each big op
(products, im2col, pooling, the optimizers), a few microseconds apart, and waking a
sleeping worker for each cost 35 us on a 2-core VM, about 4 ms of a Deep MNIST training
step (benchmarks/README.md).  A longer spin (libgomp's default, ~15 ms) or none
(``OMP_WAIT_POLICY=PASSIVE``, what this module set before float32 products moved off
OpenBLAS's own spinning threads) measured no better.  The variable must be set before
libgomp loads.  An explicit user choice is left alone: an existing ``OMP_WAIT_POLICY``,
``GOMP_SPINCOUNT`` or ``NUMBA_THREADING_LAYER``.

If numba's OpenMP layer is missing from this build, we fall back to "threadsafe"
(TBB or OpenMP, whichever loads) and log it; if numba had already launched a parallel
kernel with another layer before we got here, the layer cannot change any more, and we
log that too.
"""

from __future__ import annotations

import logging
import os

SPIN_COUNT = "5000"      # libgomp's pause loops before an idle worker sleeps (~0.2 ms)
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)

import numba  # noqa: E402  (must come after the environment is set)

__all__ = ["numba", "num_threads"]

_log = logging.getLogger(__name__)


def _choose_threading_layer() -> None:
    if "NUMBA_THREADING_LAYER" in os.environ:
        return
    try:
        from numba.np.ufunc import omppool  # noqa: F401  (probe only)
        layer = "omp"
    except ImportError:
        layer = "threadsafe"
        _log.warning("numba has no OpenMP threading layer here; using %r", layer)
    try:
        from numba.np.ufunc import parallel as _parallel
        launched = bool(getattr(_parallel, "_is_initialized", False))
    except ImportError:
        launched = False
    if launched and numba.threading_layer() != layer:
        _log.warning("numba's threading layer is already %r; parallel kernels launched "
                     "from several threads at once may abort", numba.threading_layer())
        return
    numba.config.THREADING_LAYER = layer


def num_threads() -> int:
    """The number of threads numba's parallel loops use (from the calling thread)."""
    return numba.get_num_threads()


_choose_threading_layer()
