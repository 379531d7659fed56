"""``_Transfer``: the copies a plan inserts where a value crosses devices.

Plans (``runtime/plan.py``) keep feeds and fetches on the host (CPU:0) and insert one
``_Transfer`` step per (value, device) wherever a node reads a value that lives
elsewhere; its kernel comes from here, built from ``attrs = {"src", "dst"}``:

* host -> GPU (feeds, CPU->GPU edges): small arrays go straight through cupy (a
  pageable ``cudaMemcpy``, whose staging the driver does).  From ``PINNED_MIN_BYTES``
  on, the array is streamed through two pinned host buffers of ``CHUNK_BYTES``: while
  the DMA engine copies chunk k from one buffer, the CPU fills the other with chunk
  k+1, so the copy runs at the speed of the slower of the two instead of their sum.
  A value that already lives on the GPU (a cupy array fed by the caller, or any array
  with ``__cuda_array_interface__`` such as a numba device array) is handed on
  without a copy when it is on the right device.
* GPU -> host (fetches, GPU->CPU edges): into a fresh numpy array (fetched arrays are
  the caller's own), through the same pinned double buffer for large arrays.
* GPU -> GPU: ``device.copy_to_device`` (stream-ordered, peer copy).

Transfers run on the device's current stream, so they are ordered after the kernels
that produced their input; each waits for its own copies before returning, because
its staging buffers go back to cupy's pinned pool and its input may be freed.  Both
thresholds can be tuned with ``DEVSESSION_PINNED_MIN_BYTES`` and
``DEVSESSION_PINNED_CHUNK_BYTES`` (``benchmarks/gpu_bench.py`` measures both paths).
"""

from __future__ import annotations

import collections
import os

import cupy
import numpy as np

from ..checks import get_attr
from ..registry import register_kernel
from .device import copy_to_device, on_device, to_device

__all__ = ["upload", "download", "build_transfer", "PINNED_MIN_BYTES",
           "CHUNK_BYTES"]

PINNED_MIN_BYTES = int(os.environ.get("DEVSESSION_PINNED_MIN_BYTES", 4 << 20))
CHUNK_BYTES = int(os.environ.get("DEVSESSION_PINNED_CHUNK_BYTES", 16 << 20))

_runtime = cupy.cuda.runtime


class _Staging:
    """Two pinned host buffers of ``chunk`` bytes (from cupy's pinned pool)."""

    def __init__(self, chunk: int):
        self.memory = [cupy.cuda.alloc_pinned_memory(chunk) for _ in range(2)]
        self.views = [np.frombuffer(m, np.uint8, chunk) for m in self.memory]
        self.pointers = [m.ptr for m in self.memory]


def upload(host, *, pinned_min_bytes: int | None = None) -> "cupy.ndarray":
    """A copy of host array ``host`` on the current device."""
    host = np.asarray(host)
    host = np.ascontiguousarray(host).reshape(host.shape)   # 0-d stays 0-d (numpy ravels it)
    out = cupy.empty(host.shape, host.dtype)
    nbytes = host.nbytes
    if nbytes == 0:
        return out
    if nbytes < (PINNED_MIN_BYTES if pinned_min_bytes is None else pinned_min_bytes):
        out.set(host)
        return out
    stream = cupy.cuda.get_current_stream()
    chunk = min(CHUNK_BYTES, nbytes)
    staging = _Staging(chunk)
    source = host.reshape(-1).view(np.uint8)
    copied: list = [None, None]          # event of the last DMA out of each buffer
    for k, offset in enumerate(range(0, nbytes, chunk)):
        slot = k % 2
        if copied[slot] is not None:
            copied[slot].synchronize()
        size = min(chunk, nbytes - offset)
        staging.views[slot][:size] = source[offset:offset + size]
        _runtime.memcpyAsync(out.data.ptr + offset, staging.pointers[slot], size,
                             _runtime.memcpyHostToDevice, stream.ptr)
        event = cupy.cuda.Event(disable_timing=True)
        event.record(stream)
        copied[slot] = event
    stream.synchronize()
    return out


def download(x, *, pinned_min_bytes: int | None = None) -> np.ndarray:
    """A new host (numpy) array holding cupy array ``x`` (on the current device)."""
    x = cupy.ascontiguousarray(x).reshape(x.shape)   # 0-d stays 0-d (cupy ravels it)
    nbytes = x.nbytes
    if nbytes == 0 or nbytes < (PINNED_MIN_BYTES if pinned_min_bytes is None
                                else pinned_min_bytes):
        return x.get()
    out = np.empty(x.shape, x.dtype)
    target = out.reshape(-1).view(np.uint8)
    stream = cupy.cuda.get_current_stream()
    chunk = min(CHUNK_BYTES, nbytes)
    staging = _Staging(chunk)
    pending: collections.deque = collections.deque()

    def drain():
        event, slot, offset, size = pending.popleft()
        event.synchronize()
        target[offset:offset + size] = staging.views[slot][:size]

    for k, offset in enumerate(range(0, nbytes, chunk)):
        slot = k % 2
        if len(pending) == 2:            # the chunk that used this buffer is copied out
            drain()
        size = min(chunk, nbytes - offset)
        _runtime.memcpyAsync(staging.pointers[slot], x.data.ptr + offset, size,
                             _runtime.memcpyDeviceToHost, stream.ptr)
        event = cupy.cuda.Event(disable_timing=True)
        event.record(stream)
        pending.append((event, slot, offset, size))
    while pending:
        drain()
    return out


@register_kernel("_Transfer", "GPU")
def build_transfer(node):
    src, dst = get_attr(node, "src"), get_attr(node, "dst")
    if not src.is_gpu and not dst.is_gpu:
        return lambda x: x
    if not src.is_gpu:
        index = dst.index

        def host_to_device(x):
            if isinstance(x, cupy.ndarray) or hasattr(x, "__cuda_array_interface__"):
                return to_device(x, index)     # already on a GPU (a cupy or numba feed)
            return upload(np.asarray(x))
        return on_device(node, host_to_device)
    if not dst.is_gpu:
        def device_to_host(x):
            if isinstance(x, cupy.ndarray):
                return download(x)
            return np.array(x, copy=True)
        return on_device(node, device_to_host)
    target = dst.index
    return on_device(node, lambda x: copy_to_device(x, target))
