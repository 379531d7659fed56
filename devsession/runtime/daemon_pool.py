"""A thread pool whose threads never keep the interpreter from exiting.

``concurrent.futures.ThreadPoolExecutor`` joins its threads at exit, before ``atexit``
handlers run, so whatever they still run keeps a process alive: a gRPC server's
handler waiting on a stream its caller keeps open (a process that forgot to stop its
server would never exit), or a direct session's branch still computing after Ctrl-C
or after the thread that started the step ended.  This pool's threads are daemons:
like TF1's servers and sessions, the work lives as long as its process.  Threads are
made on demand up to ``max_workers`` and reused when idle, as ThreadPoolExecutor does;
``initializer`` runs first on each.
"""

from __future__ import annotations

import concurrent.futures
from concurrent.futures.thread import BrokenThreadPool
import queue
import threading

__all__ = ["DaemonThreadPool", "BrokenThreadPool"]


class DaemonThreadPool(concurrent.futures.Executor):
    """``submit`` raises RuntimeError after ``shutdown``; if ``initializer`` raises, the
    pool is broken: its waiting work fails and ``submit`` raises ``BrokenThreadPool``,
    as ThreadPoolExecutor does."""

    def __init__(self, max_workers: int, thread_name_prefix: str = "devsession",
                 initializer=None):
        self._max = max_workers
        self._initializer = initializer
        self._prefix = thread_name_prefix
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._running: list[threading.Thread] = []
        self._shutdown = False
        self._broken: str | None = None

    def submit(self, fn, /, *args, **kwargs) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:       # against shutdown(): nothing may queue behind its stops
            if self._broken is not None:
                raise BrokenThreadPool(self._broken)
            if self._shutdown:
                raise RuntimeError("cannot submit to a pool that was shut down")
            self._work.put((future, fn, args, kwargs))
            if not self._idle.acquire(blocking=False) and len(self._running) < self._max:
                thread = threading.Thread(target=self._run, daemon=True,
                                          name=f"{self._prefix}-{len(self._running) + 1}")
                self._running.append(thread)
                thread.start()
        return future

    def _run(self) -> None:
        if self._initializer is not None:
            try:
                self._initializer()
            except BaseException as e:  # noqa: BLE001 - the pool is broken: say so
                self._break(f"A thread initializer failed: {type(e).__name__}: {e}")
                return
        while True:
            item = self._work.get()
            if item is None:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as e:  # noqa: BLE001 - handed to the future
                    future.set_exception(e)
            del item, future, fn, args, kwargs
            self._idle.release()

    def _break(self, why: str) -> None:
        with self._lock:
            self._broken = why
        for future in self._drain():
            if future.set_running_or_notify_cancel():
                future.set_exception(BrokenThreadPool(why))

    def _drain(self) -> list:
        """The futures of the work no thread has taken yet, taken off the queue."""
        futures = []
        while True:
            try:
                item = self._work.get_nowait()
            except queue.Empty:
                return futures
            if item is not None:
                futures.append(item[0])

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No new work; with ``cancel_futures``, work not started yet is cancelled; with
        ``wait``, returns once every thread has finished what it runs."""
        with self._lock:
            self._shutdown = True
            threads = list(self._running)
        if cancel_futures:
            for future in self._drain():
                future.cancel()
        for _ in threads:
            self._work.put(None)
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()
