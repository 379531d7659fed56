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
import queue
import threading

__all__ = ["DaemonThreadPool"]


class DaemonThreadPool(concurrent.futures.Executor):
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

    def submit(self, fn, /, *args, **kwargs) -> concurrent.futures.Future:
        if self._shutdown:
            raise RuntimeError("cannot submit to a pool that was shut down")
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._work.put((future, fn, args, kwargs))
        if not self._idle.acquire(blocking=False):
            with self._lock:
                if len(self._running) < self._max:
                    thread = threading.Thread(target=self._run, daemon=True,
                                              name=f"{self._prefix}-{len(self._running) + 1}")
                    self._running.append(thread)
                    thread.start()
        return future

    def _run(self) -> None:
        if self._initializer is not None:
            self._initializer()
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

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No new work; with ``cancel_futures``, work not started yet is cancelled; with
        ``wait``, returns once every thread has finished what it runs."""
        with self._lock:
            self._shutdown = True
            threads = list(self._running)
        if cancel_futures:
            while True:
                try:
                    item = self._work.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in threads:
            self._work.put(None)
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()
