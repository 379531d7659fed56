"""The device a numpy stand-in for cupy runs on (``cupy_standin.py``): memory pools,
streams, events, and copies that land only when something waits for them.

One device, so one device pool, one pinned pool and one set of streams per process,
shared by every stand-in module made.  Pools hand out blocks of host memory (new ones
filled with 0xFF bytes: NaN, -1), take them back when their array dies, and never give
them to the OS, so a copy that lands late writes into memory that is still there:
wrong data, not a crashed test process.

``copy(dst, src, size, stream, blocking)`` is every copy the stand-in makes: between
pool memory and not blocking, it is queued on the stream (cudaMemcpyAsync); otherwise
(a blocking copy, or pageable memory on either side, which the driver copies
synchronously) the stream's queue runs first and the copy happens now.  A stream's queue
runs, in order, when something waits on it: ``Stream.synchronize``,
``Event.synchronize`` (up to where the event was recorded), ``Stream.wait_event``,
``Device.synchronize``, or ``launched()``/``blocking()`` (a kernel launch or a blocking
call on the current stream: stream order).
"""

from __future__ import annotations

import bisect
import collections
import ctypes
import itertools
import threading
import weakref

import numpy as np

__all__ = ["Pool", "DEVICE_POOL", "PINNED_POOL", "OutOfMemoryError", "MemoryPointer",
           "Stream", "Event", "Device", "STREAMS", "copy", "launched", "blocking"]

_ALIGN = 512


# ----------------------------------------------------------------- memory

class Pool:
    """Blocks of host memory standing for device (or pinned) memory; never freed."""

    def __init__(self, name: str):
        self.name = name
        self.free: dict = collections.defaultdict(list)
        self.starts: list = []            # sorted block start addresses
        self.ends: dict = {}
        self.limit = 0
        self.in_use = 0
        self.free_all_calls = 0
        self.lock = threading.Lock()

    def allocate(self, nbytes: int) -> np.ndarray:
        size = max(_ALIGN, -(-nbytes // _ALIGN) * _ALIGN)
        with self.lock:
            if self.limit and self.in_use + size > self.limit:
                raise self.out_of_memory(nbytes)
            self.in_use += size
            if self.free[size]:
                return self.free[size].pop()
            block = np.full(size, 0xFF, np.uint8)
            start = block.ctypes.data
            bisect.insort(self.starts, start)
            self.ends[start] = start + size
            return block

    def release(self, block: np.ndarray) -> None:
        with self.lock:
            self.in_use -= block.size
            self.free[block.size].append(block)

    def owns(self, pointer: int, size: int = 1) -> bool:
        with self.lock:
            k = bisect.bisect_right(self.starts, pointer) - 1
            return k >= 0 and pointer + size <= self.ends[self.starts[k]]

    def out_of_memory(self, nbytes: int) -> "OutOfMemoryError":
        return OutOfMemoryError(nbytes, self.in_use, self.limit)


class OutOfMemoryError(MemoryError):
    """``cupy.cuda.memory.OutOfMemoryError``, with cupy's message and attributes."""

    def __init__(self, size, total, limit=0):
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: "
                         f"{total:,} bytes, limit set to: {limit:,} bytes).")
        self._size, self._total, self._limit = size, total, limit


# One device: one device pool, one pinned pool and one set of streams per process,
# shared by every stand-in module made (so memory a late copy touches stays valid).
DEVICE_POOL, PINNED_POOL = Pool("device"), Pool("pinned")


class MemoryPointer:
    """``ndarray.data``: an address, and the array keeping it alive."""

    def __init__(self, owner, ptr: int):
        self.owner, self.ptr = owner, ptr

    def __add__(self, offset: int) -> "MemoryPointer":
        return MemoryPointer(self.owner, self.ptr + offset)

    def copy_from_device(self, src: "MemoryPointer", size: int) -> None:
        copy(self.ptr, src.ptr, size, None, blocking=True)

    def copy_from_device_async(self, src: "MemoryPointer", size: int, stream=None) -> None:
        copy(self.ptr, src.ptr, size, stream, blocking=False)

    def copy_from_host(self, mem, size: int) -> None:
        copy(self.ptr, _address(mem), size, None, blocking=True)

    def copy_from_host_async(self, mem, size: int, stream=None) -> None:
        copy(self.ptr, _address(mem), size, stream, blocking=False)

    def copy_to_host(self, mem, size: int) -> None:
        copy(_address(mem), self.ptr, size, None, blocking=True)

    def copy_to_host_async(self, mem, size: int, stream=None) -> None:
        copy(_address(mem), self.ptr, size, stream, blocking=False)


def _address(mem) -> int:
    if isinstance(mem, int):
        return mem
    if hasattr(mem, "ptr"):
        return int(mem.ptr)
    if isinstance(mem, ctypes.c_void_p):
        return int(mem.value or 0)
    return np.asarray(mem).ctypes.data


# ------------------------------------------------------------ streams, events

_BY_POINTER: "weakref.WeakValueDictionary[int, Stream]" = weakref.WeakValueDictionary()


class Stream:
    """A queue of copies, run in order when something waits on them."""

    _pointers = itertools.count(0x1000, 0x10)

    def __init__(self, null: bool = False, non_blocking: bool = False, ptr: int | None = None):
        self.ptr = 0 if null else (ptr if ptr is not None else next(Stream._pointers))
        self._queue: collections.deque = collections.deque()
        self._queued = 0
        self._ran = 0
        self._lock = threading.RLock()
        _BY_POINTER[self.ptr] = self

    def enqueue(self, work) -> None:
        with self._lock:
            self._queue.append(work)
            self._queued += 1

    @property
    def position(self) -> int:
        """How much work was queued so far (an event records this)."""
        return self._queued

    def run_until(self, position: int) -> None:
        with self._lock:
            while self._ran < position:
                self._queue.popleft()()
                self._ran += 1

    def synchronize(self) -> None:
        self.run_until(self._queued)

    def wait_event(self, event: "Event") -> None:
        event.synchronize()          # conservative: the event's work is done, in order

    def record(self, event: "Event | None" = None) -> "Event":
        event = event or Event()
        event.record(self)
        return event

    @property
    def done(self) -> bool:
        self.synchronize()           # a GPU finishes eventually; polling must not spin
        return True

    def __enter__(self):
        STREAMS.current.append(self)
        return self

    def __exit__(self, *exc):
        STREAMS.current.pop()
        return False

    def use(self):
        STREAMS.current[-1:] = [self]
        return self


class _Streams(threading.local):
    """The null stream, and each thread's current stream (as in CUDA)."""

    null = Stream(null=True)

    def __init__(self):
        self.current = [self.null]

    def of(self, stream) -> Stream:
        if stream is None:
            return self.current[-1]
        if isinstance(stream, Stream):
            return stream
        found = _BY_POINTER.get(int(stream))
        if found is None:
            raise ValueError(f"unknown stream pointer {stream!r}")
        return found

    def all(self) -> list:
        return list(_BY_POINTER.values())


STREAMS = _Streams()      # one device, one set of streams (shared by every stand-in)


class Event:
    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False):
        self._stream: Stream | None = None
        self._position = 0

    def record(self, stream=None) -> None:
        self._stream = STREAMS.of(stream)
        self._position = self._stream.position

    def synchronize(self) -> None:
        if self._stream is not None:
            self._stream.run_until(self._position)

    @property
    def done(self) -> bool:
        self.synchronize()
        return True


class Device:
    def __init__(self, device=None):
        self.id = 0 if device is None else int(getattr(device, "id", device))
        if self.id != 0:
            raise ValueError(f"the cupy stand-in has one device (0), not {self.id}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        return self

    def synchronize(self) -> None:
        for stream in STREAMS.all():
            stream.synchronize()

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return self.id




def copy(dst: int, src: int, size: int, stream, blocking: bool) -> None:
    """Copy ``size`` bytes (see the module docstring for when it lands)."""
    if size == 0:
        return
    pooled = all(DEVICE_POOL.owns(p, size) or PINNED_POOL.owns(p, size) for p in (dst, src))
    if blocking or not pooled:
        STREAMS.of(stream).synchronize()
        ctypes.memmove(dst, src, size)
    else:
        STREAMS.of(stream).enqueue(lambda: ctypes.memmove(dst, src, size))


def launched() -> None:
    """A kernel starts on the current stream: its queued copies land first."""
    STREAMS.current[-1].synchronize()


def blocking() -> None:
    """A blocking call (``get``, ``set``...) waits for the current stream."""
    STREAMS.current[-1].synchronize()
