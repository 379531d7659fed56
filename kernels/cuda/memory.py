"""GPU memory of sessions: capping cupy's pool, and handing memory back on close.

cupy keeps freed device memory in its pool (one per device, shared by the process) so
that the next allocation of the same size is free.  A session with
``SessionOptions.gpu_memory_limit_bytes`` caps that pool on each of its GPUs while it
is open (cupy then raises out-of-memory past the cap, which the kernels report as
``ResourceExhaustedError``) and puts the previous cap back when it closes.  Closing a
session drops its plans and variables and then returns the pool's free blocks, and the
pinned host staging buffers, to the driver.  The pool is per process: two sessions
open at once with different caps share the last cap set.
"""

from __future__ import annotations

import cupy

__all__ = ["set_pool_limit", "release_free_memory", "pool_stats"]


def set_pool_limit(index: int, limit: int | None) -> int:
    """Cap the pool of GPU ``index`` at ``limit`` bytes (None or 0: no cap); returns
    the previous cap (0 when there was none)."""
    with cupy.cuda.Device(index):
        pool = cupy.get_default_memory_pool()
        previous = pool.get_limit()
        pool.set_limit(size=int(limit or 0))
    return previous


def release_free_memory(indices) -> None:
    """Return the free blocks of the pools of GPUs ``indices`` to the driver."""
    for index in indices:
        with cupy.cuda.Device(index):
            cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


def pool_stats(index: int) -> dict:
    """{"used_bytes", "total_bytes", "limit_bytes"} of GPU ``index``'s pool."""
    with cupy.cuda.Device(index):
        pool = cupy.get_default_memory_pool()
        return {"used_bytes": pool.used_bytes(), "total_bytes": pool.total_bytes(),
                "limit_bytes": pool.get_limit()}
