"""Cap the BLAS library's threads while a session's steps run (``intra_op_threads``).

Why: numba's thread count is per calling thread (``numba.set_num_threads``), but
OpenBLAS (on pthreads, as numpy's wheels ship it), MKL and BLIS, which numpy's matmul
runs on, keep one process-wide count, and left alone they start a thread per core in
every session and in the user's own numpy, so two sessions oversubscribe the cores.
threadpoolctl finds the BLAS libraries numpy loaded and sets their counts through their
own APIs (``OPENBLAS_NUM_THREADS`` and friends are read once, when the library loads,
so setting them later does nothing).

A process-wide count is set around each capped run, not once: runs hold a cap, the
library runs with the smallest cap held (never more threads than it had), and when
the last run lets go its count goes back to what it was before the first, so the
user's numpy outside the session's runs is untouched.  A plain save-set-restore per run
would not do: two overlapping runs would restore each other's values and leave the
library capped for good.  While a capped run is in flight, BLAS calls of other threads
(the user's numpy too) see the cap: the library has one setting.  A BLAS with a count
per thread (OpenBLAS built on OpenMP) is capped on the running thread only, and
restored when its run ends.

The libraries are found once, at the first capped run (those loaded by then; a BLAS
loaded later, by scipy say, is not capped).  Cost: about 6 us per run (a read and two
ctypes calls under a lock; tests/test_blas_threads.py), paid only by sessions that set
``intra_op_threads``: the others run the uncapped step function.

Example::

    with capped_blas_threads(2):
        np.matmul(a, b)       # at most 2 BLAS threads
"""

from __future__ import annotations

import contextlib
import threading

__all__ = ["capped_blas_threads", "hold", "release", "held_cap", "has_process_wide_blas"]

_lock = threading.Lock()
_held: dict[int, int] = {}       # cap -> runs holding it
_libraries: tuple | None = None  # (process-wide, per-thread) threadpoolctl LibControllers
_before: list = []               # (library, its count before the first cap) per library
_applied: int | None = None      # the cap set now (None: the libraries' own counts)
_this_thread = threading.local()  # .saved: stack of per-thread counts to restore


def _blas_libraries() -> tuple:
    global _libraries
    if _libraries is None:
        from threadpoolctl import ThreadpoolController

        found = ThreadpoolController().select(user_api="blas").lib_controllers
        per_thread = [lib for lib in found if _counts_per_thread(lib)]
        _libraries = ([lib for lib in found if lib not in per_thread], per_thread)
    return _libraries


def has_process_wide_blas() -> bool:
    """Whether numpy's BLAS keeps one thread count for the whole process."""
    return bool(_blas_libraries()[0])


def held_cap() -> int | None:
    """The smallest cap held now (a session's ``intra_op_threads``), None when none is."""
    with _lock:
        return min(_held) if _held else None


def _counts_per_thread(lib) -> bool:
    """OpenBLAS built on OpenMP keeps a count per thread (threadpoolctl sets it with
    omp_set_num_threads); OpenBLAS on pthreads, MKL and BLIS keep one per process."""
    return lib.internal_api == "openblas" and getattr(lib, "threading_layer", "") == "openmp"


def _set(lib, count: int) -> None:
    lib.set_num_threads(count)
    # threadpoolctl >= 3.6 lets only one thread set a process-wide OpenBLAS count, the
    # first to set it, until that thread lets go: our runs come from many threads and
    # are coordinated here, so let go after each change (a thread of the user's that
    # holds the count inside its own threadpool_limits keeps it: ours is then ignored).
    let_go = getattr(type(lib), "clear_controlling_thread", None)
    if let_go is not None:
        let_go()


@contextlib.contextmanager
def capped_blas_threads(cap: int):
    """BLAS libraries use at most ``cap`` threads inside (``cap`` >= 1)."""
    hold(cap)
    try:
        yield
    finally:
        release(cap)


def hold(cap: int) -> None:
    """Start holding ``cap`` (>= 1) on this thread; every ``hold`` needs its ``release``,
    on the same thread."""
    global _before
    shared, per_thread = _blas_libraries()
    if per_thread:
        saved = [(lib, lib.num_threads) for lib in per_thread]
        for lib, count in saved:
            lib.set_num_threads(min(cap, count))
        _this_thread.__dict__.setdefault("saved", []).append(saved)
    if not shared:
        return
    with _lock:
        if not _held:
            _before = [(lib, lib.num_threads) for lib in shared]
        _held[cap] = _held.get(cap, 0) + 1
        _apply(min(_held))


def release(cap: int) -> None:
    """Stop holding ``cap``; the last release restores the libraries' own counts."""
    global _applied
    shared, per_thread = _blas_libraries()
    if per_thread:
        for lib, count in _this_thread.saved.pop():
            lib.set_num_threads(count)
    if not shared:
        return
    with _lock:
        if _held[cap] == 1:
            del _held[cap]
        else:
            _held[cap] -= 1
        if _held:
            _apply(min(_held))
            return
        for lib, count in _before:
            if _applied is not None and min(_applied, count) != count:
                _set(lib, count)
        _applied = None


def _apply(cap: int) -> None:
    global _applied
    if cap == _applied:
        return
    for lib, count in _before:
        if min(cap, count) != min(_applied or count, count):
            _set(lib, min(cap, count))
    _applied = cap
