"""TF1's ``tf.train.Supervisor``: the training loop of older TF1 scripts (the PTB language
model, the first Distributed TensorFlow guide), before ``MonitoredTrainingSession``.

    sv = ds.train.Supervisor(logdir="/tmp/run")
    with sv.managed_session() as sess:
        while not sv.should_stop():
            sess.run(train_op)
        sv.saver.save(sess, "/tmp/run/model.ckpt", global_step=sv.global_step)

What it does, as TF 1.15's:

* the constructor finds or builds what the loop needs (each argument left as
  ``Supervisor.USE_DEFAULT`` is first looked up in its graph collection, TF1's
  ``GraphKeys.READY_OP``, ``INIT_OP``, ...): ``ready_op`` (see below), ``init_op``
  (``global_variables_initializer``), ``local_init_op`` (the local variables' and
  tables' initializers), ``saver`` (a ``Saver`` of the global variables, when there are
  any), ``summary_op`` (``summary.merge_all``), ``global_step`` (the graph's, if any) and,
  on the chief with a ``logdir``, ``summary_writer`` (a ``FileWriter`` there); then it
  **finalizes the graph**: adding an op later is TF's ``RuntimeError``;
* ``managed_session`` / ``prepare_or_wait_for_session``: the chief restores the newest
  checkpoint in ``logdir`` or else runs ``init_op``, ``init_fn(sess)``, and writes the
  graph (``graph.pbtxt``, and to the summary writer); another task waits until
  ``ready_op`` says the chief has, trying again every ``recovery_wait_secs``
  (``DeadlineExceededError`` after ``max_wait_secs``); both run ``local_init_op``; then
  the chief's standard services and everyone's queue runners start under ``coord``;
* standard services (the chief's, with a ``logdir``): a thread saving
  ``<logdir>/<checkpoint_basename>-<global step>`` every ``save_model_secs`` (none when 0
  or without a saver), one writing ``summary_op`` every ``save_summaries_secs`` and, with
  a global step, one writing ``global_step/sec``; each does its first round at once;
* leaving ``managed_session`` requests the stop, joins every thread within
  ``stop_grace_secs``, closes the summary writer and the session; an ``OutOfRangeError``
  raised in the block (the input ran out) ends it quietly, any other exception (or a
  thread's) is raised after that.

The ready check: the default ``ready_op`` is TF1's ``report_uninitialized_variables``
over the global and local variables (each checked where it lives: the names of those not
initialized, empty when ready).  A ready op that reads variables instead (a group of
reads) works as well: an uninitialized value's ``FailedPreconditionError`` counts as "not
ready" (``session_manager.py``).  ``Saver`` objects are not added to the ``savers``
collection (a ``.meta`` has no form for them here).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time

from ..graph import get_default_graph
from ..graph_keys import GraphKeys
from ..ops import group
from ..lookup.tables import tables_initializer
from ..variables import (global_variables, global_variables_initializer, local_variables,
                         local_variables_initializer)
from .coordinator import Coordinator, LooperThread
from .graph_io import write_graph
from .saver import Saver
from .session_manager import SessionManager, variables_ready_op

__all__ = ["Supervisor"]

log = logging.getLogger("devsession.train")


class Supervisor:
    """TF1's ``tf.train.Supervisor`` (see the module docstring)."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT,
                 is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 local_init_op=USE_DEFAULT, logdir=None, summary_op=USE_DEFAULT,
                 saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120,
                 checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        graph = graph if graph is not None else get_default_graph()
        self._graph = graph
        with graph.as_default():
            self._ready_op = _default(ready_op, graph, GraphKeys.READY_OP, lambda: (
                variables_ready_op(global_variables() + local_variables())))
            self._ready_for_local_init_op = _default(
                ready_for_local_init_op, graph, GraphKeys.READY_FOR_LOCAL_INIT_OP, None)
            self._init_op = _default(init_op, graph, GraphKeys.INIT_OP,
                                     global_variables_initializer)
            self._local_init_op = _default(local_init_op, graph, GraphKeys.LOCAL_INIT_OP,
                                           lambda: group(local_variables_initializer(),
                                                         tables_initializer()))
            self._saver = _default(saver, graph, GraphKeys.SAVERS,
                                   lambda: Saver() if global_variables() else None)
            from ..summary import merge_all

            self._summary_op = _default(summary_op, graph, GraphKeys.SUMMARY_OP, merge_all)
            self._global_step = (_default_global_step(graph)
                                 if global_step is Supervisor.USE_DEFAULT else global_step)
        self._init_feed_dict = init_feed_dict
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        # only the chief writes checkpoints and events
        self._logdir = self._save_summaries_secs = self._save_model_secs = None
        self._save_path = self._summary_writer = None
        self._graph_added_to_summary = False
        if is_chief:
            self._logdir = logdir
            self._save_summaries_secs, self._save_model_secs = (save_summaries_secs,
                                                                save_model_secs)
            if logdir:
                self._save_path = os.path.join(logdir, checkpoint_basename)
            self._summary_writer = (_default_writer(logdir)
                                    if summary_writer is Supervisor.USE_DEFAULT
                                    else summary_writer)
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=graph,
            recovery_wait_secs=recovery_wait_secs,
            local_init_run_options=local_init_run_options)
        self._verify_setup()
        graph.finalize()                          # the graph may not change any more

    # --- what it was built with --------------------------------------------------------

    is_chief = property(lambda self: self._is_chief)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # --- sessions -----------------------------------------------------------------------

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """The chief's session, initialized or restored; another task's, once the chief
        made the model ready.  Starts the services and queue runners unless told not
        to."""
        self._coord.clear_stop()          # a second session after stop() runs threads again
        if self._summary_writer is not None and hasattr(self._summary_writer, "reopen"):
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
                config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """``prepare_or_wait_for_session``'s session for a ``with`` block, stopped and
        closed at its end (see the module docstring for what ends it quietly)."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - the coordinator decides: clean stop or raise
            self.request_stop(e)
        finally:
            try:
                # stop() re-raises the first error reported (the block's or a thread's);
                # the grace period covers threads blocked in a run, which close() ends
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception as e:  # noqa: BLE001 - as TF1's: closing errors are ignored
                        log.debug("Ignored exception while closing the session: %s", e)

    # --- threads ------------------------------------------------------------------------

    def start_standard_services(self, sess) -> list:
        """Start the chief's checkpoint, summary and steps/sec threads (those that apply)
        for ``sess``; returns them."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. "
                               "Because only chief supervisors can write events.")
        if not self._logdir:
            log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        if self._global_step is not None and self._summary_writer is not None:
            self._add_session_log("START", step=_step(sess, self._global_step))
        threads = []
        if self._save_summaries_secs and self._summary_writer is not None:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self._saver is not None and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for thread in threads:
            thread.start()
        return threads

    def start_queue_runners(self, sess, queue_runners=None) -> list:
        """Start the threads of ``queue_runners`` (default: the graph's) under ``coord``."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for runner in queue_runners:
            threads.extend(runner.create_threads(sess, coord=self._coord, daemon=True,
                                                 start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None) -> LooperThread:
        """A started thread calling ``target(*args, **kwargs)`` every
        ``timer_interval_secs`` until the stop."""
        return LooperThread.loop(self._coord, timer_interval_secs, target=target, args=args,
                                 kwargs=kwargs)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False) -> None:
        """Request the stop and join the threads (``threads`` and every registered one)
        within ``stop_grace_secs``; re-raises the first error reported.  Closes the
        summary writer, last."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer is not None:
                self._add_session_log("STOP")
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None) -> None:
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self):
        """A context whose exception requests the stop (``Coordinator``'s)."""
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None) -> None:
        """Write ``summary`` (a fetched summary) at ``global_step`` (default: the global
        step's value)."""
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = _step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    # --- helpers ------------------------------------------------------------------------

    def _write_graph(self) -> None:
        """The graph into ``logdir/graph.pbtxt`` and, once, to the summary writer."""
        if self._logdir:
            write_graph(self._graph, self._logdir, "graph.pbtxt")
        if self._summary_writer is not None and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True

    def _add_session_log(self, status: str, step=None, checkpoint_path=None) -> None:
        """A TensorBoard SessionLog event, when the writer can write one."""
        from ..proto.summary_pb2 import SessionLog

        add = getattr(self._summary_writer, "add_session_log", None)
        if add is None:
            return
        entry = SessionLog(status=getattr(SessionLog, status))
        if checkpoint_path is not None:
            entry.checkpoint_path = checkpoint_path
        add(entry, step)

    def _verify_setup(self) -> None:
        """A replica (not the chief) needs every variable placed, as TF1's."""
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError(f"When using replicas, all Variables must have their "
                                     f"device set: {op}")


# TF1's older spellings
Supervisor.PrepareSession = Supervisor.prepare_or_wait_for_session
Supervisor.StartQueueRunners = Supervisor.start_queue_runners
Supervisor.StartStandardServices = Supervisor.start_standard_services
Supervisor.Stop = Supervisor.stop
Supervisor.RequestStop = Supervisor.request_stop
Supervisor.Loop = Supervisor.loop
Supervisor.ShouldStop = Supervisor.should_stop
Supervisor.StopOnException = Supervisor.stop_on_exception
Supervisor.WaitForStop = Supervisor.wait_for_stop
Supervisor.SummaryComputed = Supervisor.summary_computed


class SVSummaryThread(LooperThread):
    """Runs ``summary_op`` (and reads the global step) every ``save_summaries_secs`` and
    writes it."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self) -> None:
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer is not None:
            log.info("Recording summary at step %s.", step)
            self._sv.summary_writer.add_summary(summary, step)


class SVStepCounterThread(LooperThread):
    """Writes ``<global step's name>/sec``: the steps done per second since the last
    round, every ``save_summaries_secs``."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._counter = sv.global_step if step_counter is None else step_counter
        self._tag = f"{self._counter.op.name}/sec"
        self._last_time, self._last_step = 0.0, 0

    def start_loop(self) -> None:
        self._last_time = time.monotonic()
        self._last_step = _step(self._sess, self._counter)

    def run_loop(self) -> None:
        from ..proto.summary_pb2 import Summary

        step = _step(self._sess, self._counter)
        added, self._last_step = step - self._last_step, step
        now = time.monotonic()
        elapsed, self._last_time = now - self._last_time, now
        rate = added / elapsed if elapsed > 0.0 else float("inf")
        if self._sv.summary_writer is not None:
            self._sv.summary_writer.add_summary(
                Summary(value=[Summary.Value(tag=self._tag, simple_value=rate)]), step)
        log.info("%s: %g", self._tag, rate)


class SVTimerCheckpointThread(LooperThread):
    """Saves a checkpoint to ``save_path`` (numbered by the global step) every
    ``save_model_secs``."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self) -> None:
        log.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer is not None and self._sv.global_step is not None:
            self._sv._add_session_log("CHECKPOINT", step=_step(self._sess, self._sv.global_step),
                                      checkpoint_path=self._sv.save_path)


def _default(given, graph, key, build, keep=True):
    """``given``, unless it is ``USE_DEFAULT``: then the first item of collection ``key``,
    else ``build()`` (kept in the collection when ``keep``); ``build`` None: None."""
    if given is not Supervisor.USE_DEFAULT:
        return given
    found = graph.get_collection(key)
    if len(found) > 1:
        log.info("Found %d %s operations. Returning the first one.", len(found), key)
    if found:
        return found[0]
    built = build() if build is not None else None
    if built is not None and keep:
        graph.add_to_collection(key, built)
    return built


def _default_global_step(graph):
    """The graph's global step (its collection's, else the integer variable or tensor
    named ``global_step``), or None."""
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if found:
        return found[0]
    named = [v for v in global_variables(graph=graph) if v.op.name == "global_step"]
    try:
        step = named[0] if named else graph.get_tensor_by_name("global_step:0")
    except (KeyError, ValueError):
        return None
    if not step.dtype.is_integer:
        log.warning("Found 'global_step' is not an int type: %s", step.dtype)
        return None
    return step


def _default_writer(logdir):
    """A FileWriter on ``logdir`` (None without one, or without the tensorboard package:
    then the Supervisor writes no events, but checkpoints still)."""
    if not logdir:
        return None
    from ..summary import FileWriter

    try:
        return FileWriter(logdir)
    except ImportError as e:
        log.warning("Supervisor writes no summaries: %s", e)
        return None


def _step(sess, step) -> int:
    return int(sess.run(step))
