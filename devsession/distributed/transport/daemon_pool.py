"""A thread pool whose threads never keep the interpreter from exiting.

gRPC's sync server runs every handler on the executor it is given.  Some handlers wait
for as long as their caller keeps a stream open (an exchange stream between steps), so
with ``concurrent.futures.ThreadPoolExecutor`` (whose threads the interpreter joins at
exit, before ``atexit`` handlers could stop the server) a process that forgot to stop
its server would never exit.  This pool's threads are daemons: like TF1's servers, a
server lives as long as its process.  Threads are made on demand up to ``max_workers``
and reused when idle, as ThreadPoolExecutor does.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading

__all__ = ["DaemonThreadPool"]


class DaemonThreadPool(concurrent.futures.Executor):
    def __init__(self, max_workers: int, thread_name_prefix: str = "devsession"):
        self._max = max_workers
        self._prefix = thread_name_prefix
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._threads = 0
        self._shutdown = False

    def submit(self, fn, /, *args, **kwargs) -> concurrent.futures.Future:
        if self._shutdown:
            raise RuntimeError("cannot submit to a pool that was shut down")
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._work.put((future, fn, args, kwargs))
        if not self._idle.acquire(blocking=False):
            with self._lock:
                if self._threads < self._max:
                    self._threads += 1
                    threading.Thread(target=self._run, daemon=True,
                                     name=f"{self._prefix}-{self._threads}").start()
        return future

    def _run(self) -> None:
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
        with self._lock:
            self._shutdown = True
            threads = self._threads
        for _ in range(threads):
            self._work.put(None)
