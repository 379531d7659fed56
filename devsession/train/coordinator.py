"""TF1's ``tf.train.Coordinator``: how a training loop and its helper threads (queue
runners) agree to stop, and how an error in any of them reaches the loop.

State: a stop event, the first error reported (with its traceback), the registered
threads.  ``request_stop(ex)`` sets the event and keeps ``ex`` unless an error is already
kept, the stop was already requested, or ``ex`` is a clean stop
(``clean_stop_exception_types``, ``OutOfRangeError`` by default: the end of the data).
``join`` waits for the threads, gives live ones ``stop_grace_period_secs`` after the stop,
then re-raises the kept error, else complains about stragglers.

    coord = ds.train.Coordinator()
    threads = ds.train.start_queue_runners(sess, coord)
    try:
        while not coord.should_stop():
            sess.run(train_op)
    except Exception as e:
        coord.request_stop(e)
    finally:
        coord.request_stop()
        coord.join(threads)

``LooperThread`` is a thread that calls a function (or its ``run_loop``) every
``timer_interval_secs`` until the coordinator stops, reporting its error to it: TF1's
timers for periodic work beside a loop (``Supervisor``'s checkpoint and summary threads).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time

from ..errors import OutOfRangeError

__all__ = ["Coordinator", "LooperThread"]

log = logging.getLogger("devsession.train")

_JOIN_POLL_S = 0.05


class Coordinator:
    """A stop flag shared by threads, and the first error any of them reported."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter_exception(self, ex):
        error = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(error, self._clean_stop_exception_types) else ex

    def request_stop(self, ex=None) -> None:
        """Ask every thread to stop; ``ex`` (an exception, or ``sys.exc_info()``) is the
        error ``join`` will re-raise, if it is the first and not a clean stop."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._stop_event.is_set():
                return
            if ex is not None and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    log.info("Error reported to Coordinator: %s", ex[1])
                    self._exc_info_to_raise = ex
                else:
                    log.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                    self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Forget a stop request and its error, so the coordinator can be used again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context whose exception (any) requests the stop instead of propagating."""
        try:
            yield
        except BaseException:  # noqa: BLE001 - TF1 hands every exception to request_stop
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Wait until a stop is requested (at most ``timeout`` s); whether one was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread) -> None:
        """A thread ``join`` waits for even when not passed to it."""
        with self._lock:
            self._registered_threads.add(thread)

    @property
    def joined(self) -> bool:
        return self._joined

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for ``threads`` (and the registered ones) to end, or for a stop request
        and then ``stop_grace_period_secs`` more.  Re-raises the first reported error;
        otherwise ``RuntimeError`` naming the threads still alive (only logged with
        ``ignore_live_threads``)."""
        with self._lock:
            threads = list(self._registered_threads.union(threads or ()))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(_JOIN_POLL_S):
            pass
        grace_ends = time.monotonic() + stop_grace_period_secs
        for thread in threads:
            thread.join(max(grace_ends - time.monotonic(), 0.0))
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise is not None:
                _, error, traceback = self._exc_info_to_raise
                raise error.with_traceback(traceback)
        if stragglers:
            message = "Coordinator stopped with threads still running: " + " ".join(stragglers)
            if not ignore_live_threads:
                raise RuntimeError(message)
            log.info(message)

    def raise_requested_exception(self) -> None:
        """Re-raise the error a thread reported, if any."""
        with self._lock:
            if self._exc_info_to_raise is not None:
                _, error, traceback = self._exc_info_to_raise
                raise error.with_traceback(traceback)


class LooperThread(threading.Thread):
    """TF1's ``tf.train.LooperThread(coord, timer_interval_secs, target=None, args=None,
    kwargs=None)``: a daemon thread, registered with ``coord``, that calls ``target`` (or
    ``run_loop``) at once and then every ``timer_interval_secs`` (back to back when
    None) until ``coord`` stops; an exception stops ``coord`` with it."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if target is not None:
            self._args, self._kwargs = args or (), kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass "
                             "'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None) -> "LooperThread":
        """A started ``LooperThread`` calling ``target(*args, **kwargs)``."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                # the due times stay on one grid: a slow call does not shift the next ones
                due = time.monotonic()
                while not self._coord.wait_for_stop(max(due - time.monotonic(), 0.0)):
                    due += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called once, in the thread, before the first ``run_loop``."""

    def stop_loop(self) -> None:
        """Called once, in the thread, after the last ``run_loop``."""

    def run_loop(self) -> None:
        """One period's work: ``target`` by default."""
        if self._target is not None:
            self._target(*self._args, **self._kwargs)
