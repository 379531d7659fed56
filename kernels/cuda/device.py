"""Device plumbing shared by the CUDA kernels: which GPU a node runs on, running a
kernel there, and turning cupy's out-of-memory errors into ``ResourceExhaustedError``.

``on_device(node, fn)`` wraps a kernel body.  The CUDA "current device" is per host
thread, so the wrapper switches it only when it differs (and switches back), which
makes kernels of different GPUs safe to run from any thread.  On a machine with one
GPU there is nothing to switch and the wrapper only maps errors.  Python's
``try`` costs nothing until something raises, so the wrapper adds no measurable time to
a kernel call.

Out of memory: cupy raises ``cupy.cuda.memory.OutOfMemoryError`` (a ``MemoryError``)
when its pool cannot grow, either because the card is full or because the session's
``gpu_memory_limit_bytes`` capped the pool; cuBLAS and the runtime report allocation
failures as their own errors.  All become ``ResourceExhaustedError`` naming the node,
the device and the bytes asked for.
"""

from __future__ import annotations

import functools
import re

import cupy
import numpy as np

from devsession.errors import ResourceExhaustedError

__all__ = ["device_count", "on_device", "out_of_memory", "to_device",
           "is_device_array", "copy_to_device"]

_runtime = cupy.cuda.runtime
_OOM_TYPES = (cupy.cuda.memory.OutOfMemoryError,)
_ALLOC_FAILURES = ("cudaErrorMemoryAllocation", "CUBLAS_STATUS_ALLOC_FAILED",
                   "CUDA_ERROR_OUT_OF_MEMORY")


@functools.lru_cache(maxsize=1)
def device_count() -> int:
    return _runtime.getDeviceCount()


def is_device_array(x) -> bool:
    return isinstance(x, cupy.ndarray)


def out_of_memory(node_name: str, op: str, device: str, exc: BaseException
                  ) -> ResourceExhaustedError:
    """A ``ResourceExhaustedError`` for an allocation that failed in node ``node_name``."""
    size = getattr(exc, "_size", None)
    if size is None:
        found = re.search(r"allocating ([\d,]+) bytes", str(exc))
        size = int(found.group(1).replace(",", "")) if found else None
    asked = f"{size:,} bytes ({size / 2**20:.1f} MiB)" if size is not None else \
        "an unknown number of bytes"
    limit = getattr(exc, "_limit", 0)
    cap = f" the session's pool is capped at {limit:,} bytes" \
          f" (SessionOptions.gpu_memory_limit_bytes);" if limit else ""
    return ResourceExhaustedError(
        f"{device} ran out of memory in node '{node_name}' ({op}): it asked for {asked};"
        f"{cap} cupy said: {exc}", node_name)


def _is_alloc_failure(exc: BaseException) -> bool:
    return isinstance(exc, _OOM_TYPES) or any(s in str(exc) for s in _ALLOC_FAILURES)


def on_device(node, fn):
    """``fn`` wrapped to run on ``node.device`` with out-of-memory errors mapped."""
    index = node.device.index
    name, op, where = node.name, node.op, node.device.short_name

    switch = not (index == 0 and device_count() == 1)    # one GPU: nothing to switch

    def kernel(*xs):
        previous = _runtime.getDevice() if switch else index
        if previous != index:
            _runtime.setDevice(index)
        try:
            return fn(*xs)
        except Exception as e:
            if _is_alloc_failure(e):
                raise out_of_memory(name, op, where, e) from None
            raise
        finally:
            if previous != index:
                _runtime.setDevice(previous)
    return kernel


def to_device(value, index: int) -> "cupy.ndarray":
    """``value`` as a cupy array on GPU ``index``, which must be the current device: a
    cupy array already there is returned as is; an array with
    ``__cuda_array_interface__`` (numba, PyTorch) is wrapped without a copy when it is
    there; anything else is copied (host arrays are uploaded)."""
    if isinstance(value, cupy.ndarray):
        return value if value.device.id == index else copy_to_device(value, index)
    if hasattr(value, "__cuda_array_interface__"):
        return to_device(cupy.asarray(value), index)
    return cupy.asarray(np.asarray(value))


def copy_to_device(x: "cupy.ndarray", dst: int) -> "cupy.ndarray":
    """A copy of ``x`` (on any GPU) on GPU ``dst``.

    The copy runs on ``dst``'s current stream after an event recorded on ``x``'s
    device, so it sees every kernel that produced ``x``; it is waited for before
    returning, because ``x`` may be freed (and its memory reused) as soon as we return.
    """
    with cupy.cuda.Device(x.device.id):
        x = cupy.ascontiguousarray(x)
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record()
    with cupy.cuda.Device(dst):
        out = cupy.empty(x.shape, x.dtype)
        if x.nbytes:
            stream = cupy.cuda.get_current_stream()
            stream.wait_event(ready)
            out.data.copy_from_device_async(x.data, x.nbytes, stream)
            stream.synchronize()
    return out
