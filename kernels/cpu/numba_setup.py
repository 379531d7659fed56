"""Configure numba's threading before anything imports it; every CPU module imports
numba through here (``from .numba_setup import numba``).

Why: sessions run steps from many Python threads at once.  numba's default
"workqueue" threading layer is not thread-safe and aborts the whole process when two
threads launch ``parallel=True`` kernels concurrently, so we pin the OpenMP layer,
which is.  ``OMP_WAIT_POLICY=PASSIVE`` keeps idle OpenMP workers from spinning on a
core after every parallel loop (the machine is shared with the session's own threads,
and the env var must be set before libgomp loads).  Both respect an explicit user
choice: an existing ``OMP_WAIT_POLICY`` or ``NUMBA_THREADING_LAYER`` is left alone.

If numba's OpenMP layer is missing from this build, we fall back to "threadsafe"
(TBB or OpenMP, whichever loads) and log it; if numba had already launched a parallel
kernel with another layer before we got here, the layer cannot change any more, and we
log that too.
"""

from __future__ import annotations

import logging
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

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
