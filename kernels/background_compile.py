"""One background thread that compiles kernels, and stops at once when the process exits.

Jobs run one at a time, in the order they came (numba compiles under one global lock
anyway).  A job is ``job(cancelled)``: it builds and warms kernels, calling
``cancelled()`` between pieces of work and returning early when it says True.

Exiting must neither wait for a whole compile (seconds) nor tear LLVM down under one
(a crash at exit).  So the thread is a daemon, and when the interpreter shuts down
(``threading._register_atexit``: before atexit handlers, llvmlite's among them, as
``concurrent.futures`` does) the worker is told to stop and is joined.  numba gives a
cancellation point before each compiler pass: a ``numba:run_pass`` event listener raises
``CompileCancelled`` on the worker's thread once it is told to stop, so an exit waits
for the one pass in flight (milliseconds to a few tenths of a second for LLVM's), and
numba's compiler lock is released by its own ``with`` blocks.

``CompileCancelled`` is a BaseException, like KeyboardInterrupt: a job's ``except
Exception`` (a kernel failing on stand-in values) must not swallow it.

A fork waits for the compile in flight: numba's compiler lock is held across it
(``os.register_at_fork``), as ``logging`` holds its own, since a child that inherited
it locked by the worker, a thread it does not have, would hang on its first compile.

A job still queued when the worker stops is called once more, on the way out, with
``cancelled()`` already True: it returns at once, and whoever waits for it (a session's
``wait_compiled``, from a thread that outlives the main one) hears that it ended.  The
worker drops each job when it is done with it: a job's closure may hold a whole
session, which must go when its user drops it.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from typing import Callable

__all__ = ["CompileCancelled", "submit", "shutdown", "worker_thread"]

_log = logging.getLogger("devsession")

Job = Callable[[Callable[[], bool]], None]


class CompileCancelled(BaseException):
    """Raised inside a compile on the worker thread when the process is exiting."""


_lock = threading.Lock()
_jobs: "queue.SimpleQueue[Job | None]" = queue.SimpleQueue()
_stop = threading.Event()
_thread: threading.Thread | None = None
_listening = False
_compiler_lock = None     # numba's, once the worker has set numba up
_held_for_fork: list = []


def submit(job: Job) -> bool:
    """Queue ``job`` for the worker (started on first use); False if the process is
    exiting and the job will not run."""
    global _thread
    with _lock:
        if _stop.is_set():
            return False
        if _thread is None or not _thread.is_alive():     # first use, or a forked child
            try:
                threading._register_atexit(shutdown)
            except RuntimeError:          # the interpreter is already shutting down
                return False
            _thread = threading.Thread(target=_work, name="devsession-compile", daemon=True)
            _thread.start()
        _jobs.put(job)
    return True


def shutdown(timeout: float = 10.0) -> None:
    """Stop the worker at its next cancellation point and wait for it (at most
    ``timeout`` seconds); later submissions are refused.  Called at interpreter exit."""
    with _lock:                # a job that submit() queued is seen by the worker's drain
        _stop.set()
    _jobs.put(None)
    thread = _thread
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout)


def worker_thread() -> threading.Thread | None:
    """The worker's thread, if it was started."""
    return _thread


def _work() -> None:
    try:
        while not _stop.is_set():
            job = _jobs.get()
            if job is None or _stop.is_set():
                if job is not None:
                    _jobs.put(job)          # dropped with the others, below
                return
            try:
                _listen_for_stop()
                job(_stop.is_set)
            except CompileCancelled:
                return
            except Exception:                              # noqa: BLE001 (reported)
                _log.warning("devsession: a background kernel compile failed; the "
                             "reference kernels keep running", exc_info=True)
            finally:
                job = None
    finally:
        _drop_queued()


def _drop_queued() -> None:
    """Call each job left in the queue with ``cancelled()`` True, so it settles."""
    while True:
        try:
            job = _jobs.get_nowait()
        except queue.Empty:
            return
        if job is not None:
            try:
                job(lambda: True)
            except BaseException:                          # noqa: BLE001 (exiting)
                pass


def _listen_for_stop() -> None:
    """Install the numba listener that makes each compiler pass a cancellation point
    (on the worker thread: importing numba here keeps it off the caller's time)."""
    global _listening
    if _listening:
        return
    from .cpu.numba_setup import numba

    class StopListener(numba.core.event.Listener):
        def on_start(self, event) -> None:
            if _stop.is_set() and threading.current_thread() is _thread:
                raise CompileCancelled()

        def on_end(self, event) -> None:
            pass

    numba.core.event.register("numba:run_pass", StopListener())
    global _compiler_lock
    from numba.core.compiler_lock import global_compiler_lock
    _compiler_lock = global_compiler_lock
    _listening = True


def _before_fork() -> None:
    lock = _compiler_lock
    if lock is not None:
        lock.acquire()           # waits for the worker's compile in flight
        _held_for_fork.append(lock)


def _after_fork() -> None:
    while _held_for_fork:
        _held_for_fork.pop().release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork,
                        after_in_child=_after_fork)
