"""TF1's ``tf.train.QueueRunner``: threads that run a queue's enqueue ops over and over,
so that a training loop's dequeues find data; and ``add_queue_runner`` /
``start_queue_runners``, which keep runners in the graph's ``QUEUE_RUNNERS`` collection
and start them for a session.

Per session, one thread per enqueue op runs it until the step fails.  A failure that
means the input ended (``queue_closed_exception_types``, ``OutOfRangeError`` by default:
an upstream queue closed and drained, an epoch limit reached) ends that thread quietly,
and when the last of the session's threads ends, the runner runs ``close_op``, so the
queue's consumers drain it and then see ``OutOfRangeError`` too: the end of the data
travels down a pipeline queue by queue.  Any other error is reported to the
coordinator (``request_stop(e)``), which ``join`` re-raises.  With a coordinator, one
more thread waits for the stop and runs ``cancel_op`` (a close that cancels pending
enqueues), so no runner stays blocked on a full queue after the loop ended.

A runner has TF's proto form, ``QueueRunnerDef`` (``to_proto`` / ``from_proto``, or
``QueueRunner(queue_runner_def=...)``): the names of its queue and ops, and the status codes
that end a thread quietly.  A MetaGraphDef keeps the graph's ``queue_runners`` collection
so, as TF1's does, and ``import_meta_graph`` gives back runners that
``start_queue_runners`` starts (a ``.meta`` TensorFlow wrote included).  A runner read
back this way holds its queue's Operation where a built one holds the queue object, as in
TF1; its threads need only the ops.
"""

from __future__ import annotations

import logging
import threading
import weakref

from ..defaults import default_session
from ..errors import (OutOfRangeError, error_code_from_exception_type,
                      exception_type_from_error_code)
from ..graph import get_default_graph
from ..graph_keys import GraphKeys
from ..proto.queue_runner_pb2 import QueueRunnerDef

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

log = logging.getLogger("devsession.train")


class QueueRunner:
    """The enqueue ops of one queue, and the ops that close it."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None,
                 import_scope=None):
        if queue_runner_def is not None:
            if queue is not None or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
        else:
            if queue is None or not enqueue_ops:
                raise ValueError("QueueRunner needs a queue and at least one enqueue op.")
            self._queue = queue
            self._enqueue_ops = list(enqueue_ops)
            self._close_op = close_op if close_op is not None else queue.close()
            self._cancel_op = cancel_op if cancel_op is not None else queue.close(
                cancel_pending_enqueues=True)
            self._queue_closed_exception_types = tuple(queue_closed_exception_types or
                                                       (OutOfRangeError,))
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised: list = []

    def _init_from_proto(self, queue_runner_def, import_scope) -> None:
        """The queue and ops the proto names, looked up in the default graph (under
        ``import_scope/`` when given), as TF1's ``_init_from_proto``."""
        graph = get_default_graph()

        def element(name):
            return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)

        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(name) for name in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        self._queue_closed_exception_types = tuple(
            exception_type_from_error_code(code)
            for code in queue_runner_def.queue_closed_exception_types) or (OutOfRangeError,)

    def to_proto(self, export_scope=None):
        """This runner as a ``QueueRunnerDef`` (names with ``export_scope/`` stripped), or
        None when its queue is outside ``export_scope``, as TF1's."""
        if export_scope is not None and not self.name.startswith(export_scope):
            return None

        def strip(name):
            prefix = f"{export_scope}/" if export_scope else ""
            return name[len(prefix):] if prefix and name.startswith(prefix) else name

        return QueueRunnerDef(
            queue_name=strip(self.name),
            enqueue_op_name=[strip(op.name) for op in self._enqueue_ops],
            close_op_name=strip(self._close_op.name),
            cancel_op_name=strip(self._cancel_op.name),
            queue_closed_exception_types=[error_code_from_exception_type(cls)
                                          for cls in self._queue_closed_exception_types])

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None) -> "QueueRunner":
        """The runner a ``QueueRunnerDef`` describes, over the default graph's ops."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: list(self._enqueue_ops))
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types)
    name = property(lambda self: self._queue.name)

    @property
    def exceptions_raised(self) -> list:
        """The errors the threads raised without a coordinator to report them to."""
        return list(self._exceptions_raised)

    def create_threads(self, sess, coord=None, daemon=False, start=False) -> list:
        """The threads running this runner in ``sess`` (none when they already run
        there), registered with ``coord``; started with ``start``."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord))
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop,
                                            args=(sess, self._cancel_op, coord),
                                            name=f"QueueRunnerThread-{self.name}"))
        for thread in threads:
            if coord is not None:
                coord.register_thread(thread)
            if daemon:
                thread.daemon = True
            if start:
                thread.start()
        return threads

    def _run(self, sess, enqueue_op, coord) -> None:
        finished = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while not (coord is not None and coord.should_stop()):
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    finished = True
                    self._one_thread_done(sess)
                    return
        except Exception as e:
            if coord is not None:
                coord.request_stop(e)
            else:
                log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not finished:
                self._one_thread_done(sess)

    def _one_thread_done(self, sess) -> None:
        """The last of a session's threads to end closes the queue."""
        with self._lock:
            self._runs_per_session[sess] -= 1
            last = self._runs_per_session[sess] == 0
        if last:
            try:
                sess.run(self._close_op)
            except Exception as e:  # noqa: BLE001 - the session may be closed already
                log.debug("Ignored exception: %s", e)

    def _close_on_stop(self, sess, cancel_op, coord) -> None:
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be closed already
            log.debug("Ignored exception: %s", e)


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS) -> None:
    """Keep ``qr`` in the default graph's ``collection`` for ``start_queue_runners``."""
    get_default_graph().add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS) -> list:
    """Start the threads of every runner in the graph's ``collection`` for ``sess`` (the
    default session when None: ``ValueError`` without one); returns the threads."""
    if sess is None:
        sess = default_session()
        if sess is None:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession",
                               "_MonitoredSession"):
        return []          # a monitored session starts its graph's runners itself, as TF1's
    runners = sess.graph.get_collection(collection)
    if not runners:
        log.warning("`tf.train.start_queue_runners()` was called when no queue runners "
                        "were defined. You can safely remove the call to this deprecated "
                        "function.")
    threads = []
    for runner in runners:
        threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
