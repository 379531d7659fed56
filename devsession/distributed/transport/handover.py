"""Send a small frame, then watch briefly for the answer, all with the GIL released.

Why: a request and its reply hand the work from one thread to another.  On a VM whose
idle vCPUs halt (no guest halt-polling, as here), a thread asleep in ``recv`` costs
20-40 us to wake, twice per round trip; and when both threads live in one process, a
sender that takes the GIL back after its ``send`` holds it just as its woken peer
wants it, so the peer sleeps once more on the GIL.  A socketpair ping-pong between two
Python threads measured 61 us a round trip blocking, 51 us watching the socket after
Python's own ``sendall``, 11-18 us sending and watching in one call without the GIL
(benchmarks/README.md).  TensorFlow's runtime threads spin the same way before they
sleep.

``send_then_watch(sock, data, spin_ns)`` sends ``data`` with ``send(2)`` and then polls
the socket for up to ``spin_ns`` until something arrives (yielding the CPU between
polls to any thread waiting for it), in one numba function that runs without the GIL;
the caller then reads as usual.  It returns how many bytes it
sent: fewer than ``len(data)`` when the socket would block or failed, and the caller
sends the rest with ``sendall``, which raises what the socket says.  The longest watch
is ``SPIN_NS`` (``DEVSESSION_SOCKET_SPIN_US``, 100 us by default; 0 turns watching
off).  ``WatchPolicy`` decides, per connection, whether to watch at all: only while
most answers come soon, so a thread whose answers take longer (the pushes and
partitions of a training step, while the cores compute) rarely spins.
Only plain sockets (not TLS: the bytes must go through the SSL object) on Linux take
this path, and only once ``ready()``: the first ask loads the compiled function on the
background compile thread (0.1 s from numba's cache, 0.6 s to compile), and frames go
out with ``sendall`` meanwhile, so no connection waits for it.
"""

from __future__ import annotations

import ctypes
import functools
import os
import socket
import sys
import threading

import numpy as np

from ...kernels import background_compile
from ...kernels.cpu.numba_setup import numba     # numba's threading set up first

import llvmlite.ir as ir  # noqa: E402
from numba import types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

__all__ = ["SPIN_NS", "SOON_NS", "WatchPolicy", "ready", "send_then_watch"]

SPIN_NS = int(float(os.environ.get("DEVSESSION_SOCKET_SPIN_US", "100")) * 1000)
# An answer this soon is worth watching for: unwatched, it paid two wake-ups (~50 us
# each here) and the GIL's hand-over, so watched it might have come within SPIN_NS.
SOON_NS = 4 * SPIN_NS
_WATCH_FROM, _MOST = 2, 4          # WatchPolicy's score: watch at 2 and up, at most 4
_MSG_NOSIGNAL = 0x4000          # a closed peer gives EPIPE, never SIGPIPE
_POLLIN = 1
_CLOCK_MONOTONIC = 1
_loaded = threading.Event()


@functools.cache
def _libc() -> tuple[int, int, int, int] | None:
    """The addresses of libc's ``send``, ``poll``, ``clock_gettime`` and ``sched_yield``,
    or None."""
    if not sys.platform.startswith("linux") or SPIN_NS <= 0:
        return None
    try:
        libc = ctypes.CDLL(None)
        return tuple(ctypes.cast(getattr(libc, name), ctypes.c_void_p).value
                     for name in ("send", "poll", "clock_gettime", "sched_yield"))
    except (OSError, AttributeError):
        return None


class WatchPolicy:
    """Whether a connection's next small send watches for its answer: while its answers
    mostly come within ``SOON_NS``.  A score of recent answers (0-4, watching from 2):
    one within ``SOON_NS`` scores +1, a later one -2.  A step of tiny partitions keeps
    watching; the pushes of a training step, a third of them answered after 0.4 ms
    while the cores compute, rarely watch (watching all of them cost the data-parallel
    MLP step 3-5%)."""

    __slots__ = ("score",)

    def __init__(self):
        self.score = _WATCH_FROM

    def watch_ns(self) -> int:
        """How long the next send should watch (0: not at all)."""
        return SPIN_NS if self.score >= _WATCH_FROM else 0

    def answered(self, wait_ns: int) -> None:
        """The answer to the last send came ``wait_ns`` after it."""
        change = 1 if wait_ns <= SOON_NS else -2
        self.score = min(max(self.score + change, 0), _MOST)


def ready() -> bool:
    """True once ``send_then_watch`` can be called; the first ask starts loading it."""
    if _loaded.is_set():
        return True
    _start_loading()
    return False


@functools.cache
def _start_loading() -> None:
    if _libc() is not None:
        background_compile.submit(_load)


def _load(cancelled) -> None:
    if cancelled():
        return
    ends = socket.socketpair()
    try:
        _send_then_watch(*_libc(), ends[0].fileno(), np.frombuffer(b"\0", np.uint8), 0)
    finally:
        for end in ends:
            end.close()
    _loaded.set()


def send_then_watch(sock, data: bytes, spin_ns: int = SPIN_NS) -> int:
    """Send ``data`` on the plain socket ``sock``, then wait up to ``spin_ns`` for it to
    turn readable; the bytes sent (the caller sends any rest).  Only once ``ready()``."""
    return _send_then_watch(*_libc(), sock.fileno(),
                            np.frombuffer(data, np.uint8), spin_ns)


def _foreign(result_bits: int, argument_bits: tuple):
    """(signature, codegen) of a call to the C function at an address (the first
    argument), integer arguments of these widths (64 for pointers), the result as int64."""
    def codegen(context, builder, signature, values):
        function = ir.FunctionType(ir.IntType(result_bits),
                                   [ir.IntType(bits) for bits in argument_bits])
        pointer = builder.inttoptr(values[0], function.as_pointer())
        result = builder.call(pointer, [
            builder.trunc(value, ir.IntType(bits)) if bits < 64 else value
            for value, bits in zip(values[1:], argument_bits)])
        return builder.sext(result, ir.IntType(64)) if result_bits < 64 else result
    return types.int64(*[types.int64] * (1 + len(argument_bits))), codegen


@intrinsic
def _send(typingctx, address, fd, buffer, size, flags):
    """ssize_t send(int fd, const void *buffer, size_t size, int flags)"""
    return _foreign(64, (32, 64, 64, 32))


@intrinsic
def _poll(typingctx, address, fds, count, timeout_ms):
    """int poll(struct pollfd *fds, nfds_t count, int timeout_ms)"""
    return _foreign(32, (64, 64, 32))


@intrinsic
def _yield(typingctx, address):
    """int sched_yield(void)"""
    return _foreign(32, ())


@intrinsic
def _clock(typingctx, address, clock, now):
    """int clock_gettime(clockid_t clock, struct timespec *now)"""
    return _foreign(32, (32, 64))


@numba.njit(cache=True, nogil=True)
def _now_ns(clock_at, clock):
    _clock(clock_at, _CLOCK_MONOTONIC, clock.ctypes.data)
    return clock[0] * 1_000_000_000 + clock[1]


@numba.njit(cache=True, nogil=True)
def _send_then_watch(send_at, poll_at, clock_at, yield_at, fd, data, spin_ns):
    sent = 0
    while sent < data.size:
        n = _send(send_at, fd, data.ctypes.data + sent, data.size - sent, _MSG_NOSIGNAL)
        if n <= 0:
            return sent         # would block, or an error: the caller's sendall says which
        sent += n
    watched = np.zeros(2, np.int32)          # struct pollfd {int fd; short events, revents}
    watched[0] = fd
    watched[1] = _POLLIN
    clock = np.zeros(2, np.int64)            # struct timespec
    start = _now_ns(clock_at, clock)
    while _poll(poll_at, watched.ctypes.data, 1, 0) == 0:
        if _now_ns(clock_at, clock) - start >= spin_ns:
            break
        _yield(yield_at)
    return sent
