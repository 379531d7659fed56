"""TF1's training loop: ``MonitoredTrainingSession`` and its hooks.

    with ds.train.MonitoredTrainingSession(master=server.target, is_chief=task == 0,
                                           checkpoint_dir="/tmp/run",
                                           hooks=[ds.train.StopAtStepHook(last_step=1000)]) as sess:
        while not sess.should_stop():
            sess.run(train_op)

What it does, as TF1's:

* the chief restores the newest checkpoint in ``checkpoint_dir`` if there is one, else
  initializes every global variable; any other worker waits (up to ``max_wait_secs``)
  until the chief has, polling ``report_uninitialized_variables``; every worker then runs
  ``local_init_op`` (through a ``SessionManager``: ``session_manager.py``);
* hooks (``SessionRunHook``) see each ``run``: ``before_run`` may add fetches, and
  ``after_run`` gets their values and may ``request_stop()``, which ``should_stop()``
  reports; ``end`` runs when the block ends normally;
* with a ``checkpoint_dir``, the chief saves a checkpoint once the session exists,
  every ``save_checkpoint_secs`` (600 by default) or ``save_checkpoint_steps``, and at
  the end; and writes the graph's merged summaries there every
  ``save_summaries_steps`` (100) for TensorBoard;
* ``OutOfRangeError`` (an input that ran out) ends the ``with`` block quietly.

A ``Scaffold`` replaces what the session builds by default: ``init_op`` (and
``init_feed_dict``), ``init_fn(scaffold, session)`` run after it (e.g. to load
pretrained weights), ``local_init_op``, ``ready_op`` (a tensor of the names of what is
not ready yet: empty when ready; by default ``report_uninitialized_variables`` over the
global and local variables, as TF1's),
``summary_op`` and ``saver``; its default ``local_init_op`` initializes the local
variables (``limit_epochs``' counters) once ``ready_for_local_init_op`` (by default the
same report) says the global ones are, as TF1's.  ``log_step_count_steps`` adds a
``StepCounterHook`` on the chief when it writes summaries or checkpoints.

The graph's queue runners (``QUEUE_RUNNERS``) start once the session is ready, under a
``Coordinator``; a runner's error stops the loop (``should_stop()``), and closing the
session stops them, waits ``stop_grace_period_secs`` for their threads and re-raises
that error, as TF1's.

Underneath, as TF1's: ``MonitoredSession(session_creator, hooks)`` runs the hooks around
a session a ``ChiefSessionCreator`` (restore or initialize) or ``WorkerSessionCreator``
(wait for the chief) makes; ``SingularMonitoredSession`` is the chief's, with
``raw_session()``; ``run_step_fn(step_fn)`` runs a step function with a
``StepContext`` (``run_with_hooks``, ``request_stop``).  A session that fails with
``AbortedError`` is not re-created here (devsession's cluster sessions heal after a
worker restart by themselves).  The hooks' base class: ``session_run_hook.py``; more
hooks: ``hooks.py``.
"""

from __future__ import annotations

import logging
import os
import time

from ..errors import OutOfRangeError
from ..ops.state import group
from ..options import RunMetadata, RunOptions
from ..graph import control_dependencies, get_default_graph, name_scope
from ..variables import (global_variables, global_variables_initializer, local_variables,
                         local_variables_initializer)
from ..summary.writer import tensorboard_installed
from .hooks import SecondOrStepTimer, StepCounterHook
from .saver import Saver
from .session_manager import SessionManager, variables_ready_op
from .session_run_hook import (SessionRunArgs, SessionRunContext, SessionRunHook,
                               SessionRunValues, global_step_or_error)

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunValues", "SessionRunContext",
           "StopAtStepHook", "CheckpointSaverHook", "CheckpointSaverListener", "SummarySaverHook", "Scaffold",
           "MonitoredTrainingSession", "MonitoredSession", "SingularMonitoredSession",
           "ChiefSessionCreator", "WorkerSessionCreator", "SessionCreator", "StepContext"]

log = logging.getLogger("devsession")

_WAIT_POLL_S = 0.5          # how often a worker checks whether the chief has initialized


class StopAtStepHook(SessionRunHook):
    """Stop once the global step reaches ``last_step``, or ``num_steps`` steps after the
    session starts (give one of them)."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("StopAtStepHook takes exactly one of num_steps and last_step.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._step = global_step_or_error("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._num_steps is not None:
            self._last_step = int(session.run(self._step)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        # the value fetched is the step before this run's update; read it again
        if int(run_values.results) + 1 >= self._last_step and \
                int(run_context.session.run(self._step)) >= self._last_step:
            run_context.request_stop()


class CheckpointSaverHook(SessionRunHook):
    """Save a checkpoint into ``checkpoint_dir`` when the session starts, every
    ``save_secs`` or ``save_steps`` (one of them), and at the end."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None,
                 save_graph_def=True):
        if (save_secs is None) == (save_steps is None):
            raise ValueError("CheckpointSaverHook takes exactly one of save_secs and "
                             "save_steps.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._dir = checkpoint_dir
        self._secs, self._steps, self._saver = save_secs, save_steps, saver
        self._scaffold, self._save_graph_def = scaffold, save_graph_def
        self._listeners = list(listeners or [])

    def begin(self):
        from ..graph_keys import GraphKeys, add_to_collection, get_collection

        os.makedirs(self._dir, exist_ok=True)
        self._step = global_step_or_error("CheckpointSaverHook")
        if self._saver is None and getattr(self._scaffold, "saver", None) is None and \
                not get_collection(GraphKeys.SAVERS):
            # now, as the graph is finalized when the session is made; in the graph's
            # savers, where the session's Scaffold finds it (one Saver, one restore op
            # per variable)
            add_to_collection(GraphKeys.SAVERS, Saver())
        for listener in self._listeners:
            listener.begin()

    def _get_saver(self):
        """The given saver, the scaffold's, or the graph's (its ``savers`` collection:
        ``begin`` put one there if none would be)."""
        if self._saver is None:
            from ..graph_keys import GraphKeys, get_collection

            self._saver = getattr(self._scaffold, "saver", None)
            savers = get_collection(GraphKeys.SAVERS)
            if self._saver is None and len(savers) != 1:
                raise RuntimeError(f"{len(savers)} items in collection {GraphKeys.SAVERS}: "
                                   f"pass the one to use to the constructor.")
            self._saver = self._saver or savers[0]
        return self._saver

    def after_create_session(self, session, coord):
        if self._save_graph_def:       # as TF1's, the graph as the hooks left it
            from .graph_io import write_graph

            write_graph(session.graph, self._dir, "graph.pbtxt")
        self._save(session)

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results) + 1
        if (self._steps is not None and step >= self._saved_step + self._steps) or \
                (self._secs is not None and time.monotonic() >= self._saved_at + self._secs):
            if self._save(run_context.session):
                run_context.request_stop()

    def end(self, session):
        step = int(session.run(self._step))
        if step != self._saved_step:
            self._save(session)
        for listener in self._listeners:
            listener.end(session, step)

    def _save(self, session) -> bool:
        """Save; True when a listener's ``after_save`` asks the loop to stop."""
        self._saved_step = int(session.run(self._step))
        self._saved_at = time.monotonic()
        for listener in self._listeners:
            listener.before_save(session, self._saved_step)
        self._get_saver().save(session, self._path, global_step=self._saved_step,
                               write_meta_graph=self._save_graph_def)
        stop = False
        for listener in self._listeners:
            if listener.after_save(session, self._saved_step):
                log.info("A CheckpointSaverListener requested that training be stopped. "
                         "listener: %s", listener)
                stop = True
        return stop


class CheckpointSaverListener:
    """TF1's interface for code run around ``CheckpointSaverHook``'s saves: ``begin()``
    (may add ops), ``before_save`` / ``after_save(session, global_step_value)`` (the
    latter returning True stops the loop) and ``end(session, global_step_value)``."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class SummarySaverHook(SessionRunHook):
    """Write the summaries of ``summary_op`` (or of ``scaffold.summary_op``: exactly one of
    them) every ``save_steps`` steps or ``save_secs`` seconds, into ``summary_writer`` or
    ``output_dir``'s cached FileWriter, for TensorBoard.  As TF1's, each is logged at the
    global step the run left (the first run's, and each one written, read after the run;
    otherwise the step read as the run started, plus one)."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._op, self._scaffold = summary_op, scaffold
        self._writer, self._dir = summary_writer, output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._step = global_step_or_error("SummarySaverHook")

    def after_create_session(self, session, coord):
        from ..summary import FileWriterCache

        # once the scaffold is final; a graph without summaries needs no writer (nor the
        # tensorboard package that writes event files)
        if self._writer is None and self._dir and self._summary_ops():
            self._writer = FileWriterCache.get(self._dir)

    def _summary_ops(self) -> list:
        op = self._op if self._op is not None else self._scaffold.summary_op
        return [] if op is None else op if isinstance(op, list) else [op]

    def before_run(self, run_context):
        self._requested = self._next_step is None or \
            self._timer.should_trigger_for_step(self._next_step)
        fetches = {"step": self._step}
        if self._requested and self._summary_ops():
            fetches["summary"] = self._summary_ops()      # only on the runs that write it
        return SessionRunArgs(fetches)

    def after_run(self, run_context, run_values):
        if not self._writer:
            return
        step = int(run_values.results["step"]) + 1
        if self._next_step is None or self._requested:
            step = int(run_context.session.run(self._step))
        if self._next_step is None:
            from ..proto.summary_pb2 import SessionLog

            self._writer.add_session_log(SessionLog(status=SessionLog.START), step)
        if self._requested:
            self._timer.update_last_triggered_step(step)
            for summary in run_values.results.get("summary", ()):
                self._writer.add_summary(summary, step)
        self._next_step = step + 1

    def end(self, session):
        if self._writer:
            self._writer.flush()


def merged_run_options(options, hook_options: list) -> RunOptions:
    """The caller's options with the hooks': the highest trace level, the shortest
    timeout (as TF1's ``_HookedSession`` merges them)."""
    every = ([options] if options is not None else []) + list(hook_options)
    timeouts = [o.timeout_s for o in every if o.timeout_s is not None]
    return RunOptions(trace_level=max(o.trace_level for o in every),
                      timeout_s=min(timeouts) if timeouts else None)


class Scaffold:
    """What ``MonitoredTrainingSession`` initializes, checks and saves with (see the
    module docstring); ``finalize()`` fills in the defaults."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None, local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            given = copy_from_scaffold
            init_op, init_feed_dict, init_fn = (init_op or given.init_op, init_feed_dict or
                                                given.init_feed_dict, init_fn or given.init_fn)
            ready_op, local_init_op = ready_op or given.ready_op, local_init_op or \
                given.local_init_op
            summary_op, saver = summary_op or given.summary_op, saver or given.saver
        self.init_op, self.init_feed_dict, self.init_fn = init_op, init_feed_dict, init_fn
        self.ready_op, self.ready_for_local_init_op = ready_op, ready_for_local_init_op
        self.local_init_op, self.local_init_feed_dict = local_init_op, local_init_feed_dict
        self.summary_op, self.saver = summary_op, saver

    def finalize(self) -> "Scaffold":
        """Build the defaults: every global variable's initializer, the ready check
        (``report_uninitialized_variables`` over the global and local variables; over the
        global ones what ``local_init_op`` waits for), the local variables' initializer,
        the merged summaries and a ``Saver`` (empty where there are no variables).  As
        TF1's, each default is the one in its graph collection
        (``GraphKeys.INIT_OP``, ``READY_OP``, ..., ``SAVERS``) or is built and put
        there, so that a second session on the graph finds them; then the graph is
        finalized: an op added while the loop runs (a graph that keeps growing) is a
        RuntimeError."""
        from ..graph_keys import GraphKeys
        from ..summary import merge_all

        with name_scope("monitored_session"), control_dependencies(None):
            variables = global_variables()
            if self.init_op is None:
                self.init_op = _get_or_default("init_op", GraphKeys.INIT_OP,
                                               global_variables_initializer)
            if self.ready_op is None:
                self.ready_op = _get_or_default(
                    "ready_op", GraphKeys.READY_OP,
                    lambda: variables_ready_op(variables + local_variables()))
            if self.local_init_op is None:
                self.local_init_op = _get_or_default("local_init_op", GraphKeys.LOCAL_INIT_OP,
                                                     _default_local_init_op)
            if self.ready_for_local_init_op is None and self.local_init_op is not None:
                # as TF1's: a worker runs local_init_op once the chief initialized the
                # global variables (a local one may start from a global's value)
                self.ready_for_local_init_op = _get_or_default(
                    "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                    lambda: variables_ready_op(variables,
                                               name="report_uninitialized_variables_1"))
            if self.summary_op is None:
                self.summary_op = _get_or_default("summary_op", GraphKeys.SUMMARY_OP,
                                                  merge_all)
            # one Saver restores and saves (each Saver adds a restore op per variable);
            # built even where the session neither saves nor restores, as TF1's, so that
            # scaffold.saver can save the model the loop trained
            if self.saver is None:
                self.saver = _get_or_default("saver", GraphKeys.SAVERS,
                                             lambda: Saver(allow_empty=True))
        get_default_graph().finalize()
        return self

    @staticmethod
    def default_local_init_op():
        """TF1's ``Scaffold.default_local_init_op()``: the local variables' and lookup
        tables' initializers, grouped (a NoOp)."""
        from ..lookup.tables import tables_initializer

        return group(local_variables_initializer(), tables_initializer())

    def session_manager(self, graph) -> SessionManager:
        """The ``SessionManager`` making sessions ready with this scaffold's ops."""
        local_init = self.local_init_op
        return SessionManager(
            local_init_op=local_init, ready_op=self.ready_op,
            ready_for_local_init_op=self.ready_for_local_init_op if local_init is not None
            else None, graph=graph, recovery_wait_secs=_WAIT_POLL_S,
            local_init_feed_dict=self.local_init_feed_dict)


def _default_local_init_op():
    """TF1's: the local variables' initializer grouped with every lookup table's (a
    vocabulary feature column's table is ready in a monitored session); None when the
    graph has neither (TF's NoOp then makes a worker wait for the global variables too,
    through its ready_for_local_init_op; devsession's does not)."""
    from ..graph_keys import GraphKeys, get_collection

    if not local_variables() and not get_collection(GraphKeys.TABLE_INITIALIZERS):
        return None
    return Scaffold.default_local_init_op()


def _get_or_default(argument: str, key: str, build):
    """TF1's ``Scaffold.get_or_default``: the one item of collection ``key``, or
    ``build()`` put there (None: nothing)."""
    from ..graph_keys import add_to_collection, get_collection

    found = get_collection(key)
    if len(found) > 1:
        raise RuntimeError(f'More than one item in the collection "{key}". Please indicate '
                           f'which one to use by passing it to the ds.train.Scaffold '
                           f'constructor as: ds.train.Scaffold({argument}=item to use)')
    if found:
        return found[0]
    built = build()
    if built is not None:
        add_to_collection(key, built)
    return built


class _MonitoredSession:
    """The session ``MonitoredTrainingSession`` returns (see the module docstring)."""

    def __init__(self, session, hooks, coord=None, threads=(), stop_grace_period_secs=120,
                 unfinalize=None):
        self._session, self._hooks = session, hooks
        self._unfinalize = unfinalize   # the graph it finalized, open again after close()
        self._stop = False
        self.graph = session.graph
        self._coord, self._threads = coord, list(threads)
        self._stop_grace_period_secs = stop_grace_period_secs

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """``fetches``' values, after every hook's ``before_run`` and before its
        ``after_run``; a hook's ``request_stop`` makes ``should_stop()`` true."""
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._session)
        asked = [hook.before_run(context) for hook in self._hooks]
        feeds = dict(feed_dict or {})
        for args in asked:
            if args is not None and args.feed_dict:
                for key, value in args.feed_dict.items():
                    if key in feeds:
                        raise RuntimeError(f"A hook feeds {key}, which the caller feeds too.")
                    feeds[key] = value
        wanted = [k for k, args in enumerate(asked) if args is not None and
                  args.fetches is not None]             # a hook may only feed (FeedFnHook)
        hook_options = [args.options for args in asked
                        if args is not None and args.options is not None]
        if hook_options:                # ProfilerHook's trace: merged as TF merges them
            options = merged_run_options(options, hook_options)
        run_metadata = run_metadata if run_metadata is not None else RunMetadata()  # as TF
        results, more = self._session.run([fetches, [asked[k].fetches for k in wanted]],
                                          feeds, options=options, run_metadata=run_metadata)
        values = dict(zip(wanted, more))
        for k, hook in enumerate(self._hooks):
            hook.after_run(context, SessionRunValues(values.get(k), options, run_metadata))
        self._stop = self._stop or context.stop_requested
        return results

    def should_stop(self) -> bool:
        return self._stop or (self._coord is not None and self._coord.should_stop())

    def close(self, ended_normally: bool = True) -> None:
        try:
            if ended_normally:
                for hook in self._hooks:
                    hook.end(self._session)
        finally:
            try:
                self._stop_queue_runners()
            finally:
                try:
                    self._session.close()
                finally:    # as TF's: a graph finalized only for the session is opened again
                    if self._unfinalize is not None:
                        self._unfinalize._unsafe_unfinalize()

    def _stop_queue_runners(self) -> None:
        """Stop the runners and wait for them; a runner's error is raised here."""
        if self._coord is not None:
            self._coord.request_stop()
            self._coord.join(self._threads, stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        quiet = kind is not None and issubclass(kind, (OutOfRangeError, StopIteration))
        self.close(ended_normally=kind is None or quiet)
        return quiet


_USE_DEFAULT = object()     # TF1's marker: the argument was not given


def _defaults(steps, secs, default_secs, default_steps):
    """TF1's: both not given, the defaults; one given, the other is None."""
    if steps is _USE_DEFAULT and secs is _USE_DEFAULT:
        return default_steps, default_secs
    return (None if steps is _USE_DEFAULT else steps), (None if secs is _USE_DEFAULT else secs)


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None,
                             hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=_USE_DEFAULT,
                             save_summaries_steps=_USE_DEFAULT,
                             save_summaries_secs=_USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=_USE_DEFAULT,
                             summary_dir=None, save_graph_def=True):
    """A session for a training loop (see the module docstring), as TF1's: checkpoints
    every 600 seconds and summaries every 100 steps unless asked otherwise."""
    checkpoint_steps, checkpoint_secs = _defaults(save_checkpoint_steps, save_checkpoint_secs,
                                                  600, None)
    summary_steps, summary_secs = _defaults(save_summaries_steps, save_summaries_secs, None,
                                            100)
    scaffold = scaffold or Scaffold()        # finalized as the session is made
    hooks = list(hooks or [])
    summary_dir = summary_dir or checkpoint_dir
    if is_chief:
        hooks += list(chief_only_hooks or [])
        if summary_dir:
            if log_step_count_steps and log_step_count_steps > 0:
                # TF's also writes the rate as a summary; without the tensorboard
                # extra it is logged only, as a graph without summaries needs none
                writes = tensorboard_installed()
                hooks.append(StepCounterHook(every_n_steps=log_step_count_steps,
                                             output_dir=summary_dir if writes else None))
            if (summary_steps and summary_steps > 0) or (summary_secs and summary_secs > 0):
                hooks.append(SummarySaverHook(summary_steps, summary_secs, summary_dir,
                                              scaffold=scaffold))
        if checkpoint_dir is not None and ((checkpoint_secs and checkpoint_secs > 0) or
                                           (checkpoint_steps and checkpoint_steps > 0)):
            hooks.append(CheckpointSaverHook(
                checkpoint_dir, save_secs=None if checkpoint_steps else checkpoint_secs,
                save_steps=checkpoint_steps, scaffold=scaffold, save_graph_def=save_graph_def))
    creator = ChiefSessionCreator(scaffold, master, config, checkpoint_dir) if is_chief \
        else WorkerSessionCreator(scaffold, master, config, max_wait_secs)
    return MonitoredSession(creator, hooks, stop_grace_period_secs)


class SessionCreator:
    """TF1's base class of what ``MonitoredSession`` asks for its session."""

    def create_session(self):
        raise NotImplementedError("create_session is not implemented for "
                                  f"{type(self).__name__}.")


class ChiefSessionCreator(SessionCreator):
    """A session whose model is restored from ``checkpoint_dir`` (or
    ``checkpoint_filename_with_path``) when there is a checkpoint, else initialized by
    ``scaffold``'s ops, then made ready (TF1's, through a ``SessionManager``)."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._scaffold, self._master, self._config = scaffold or Scaffold(), master, config
        self._checkpoint_dir, self._checkpoint_path = (checkpoint_dir,
                                                       checkpoint_filename_with_path)

    def create_session(self):
        restores = self._checkpoint_dir is not None or self._checkpoint_path is not None
        scaffold = self._scaffold.finalize()
        init_fn = scaffold.init_fn
        return scaffold.session_manager(get_default_graph()).prepare_session(
            self._master, init_op=scaffold.init_op, saver=scaffold.saver if restores else None,
            checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_path, config=self._config,
            init_feed_dict=scaffold.init_feed_dict,
            init_fn=None if init_fn is None else lambda sess: init_fn(scaffold, sess))


class WorkerSessionCreator(SessionCreator):
    """A session that waits (up to ``max_wait_secs``) until the chief made the model
    ready (TF1's)."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold, self._master, self._config = scaffold or Scaffold(), master, config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        scaffold = self._scaffold.finalize()
        return scaffold.session_manager(get_default_graph()).wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs)


class MonitoredSession(_MonitoredSession):
    """TF1's ``MonitoredSession(session_creator=None, hooks=None,
    stop_grace_period_secs=120)``: the hooks begin, ``session_creator`` (a
    ``ChiefSessionCreator()`` by default) makes the session, the graph's queue runners
    start and the hooks see the session; then ``run`` goes through the hooks."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        hooks = list(hooks or [])
        graph = get_default_graph()
        unfinalize = None if graph.finalized else graph
        for hook in hooks:
            hook.begin()
        session = (session_creator or ChiefSessionCreator()).create_session()
        coord = None
        try:
            coord, threads = _start_queue_runners(session, get_default_graph())
            for hook in hooks:
                hook.after_create_session(session, coord)
        except BaseException:
            if coord is not None:
                coord.request_stop()        # the runners end with the session's close
            session.close()
            raise
        super().__init__(session, hooks, coord, threads, stop_grace_period_secs, unfinalize)

    def run_step_fn(self, step_fn):
        """``step_fn(StepContext)``'s result; its ``request_stop()`` ends the step and
        makes ``should_stop()`` true (None returned)."""
        try:
            return step_fn(StepContext(self._session, self.run))
        except _StepStopped:
            self._stop = True
            return None


class SingularMonitoredSession(MonitoredSession):
    """The chief's ``MonitoredSession`` (TF1's): ``ChiefSessionCreator`` from these
    arguments; ``raw_session()`` is the session without the hooks."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        super().__init__(ChiefSessionCreator(scaffold, master, config, checkpoint_dir,
                                             checkpoint_filename_with_path),
                         hooks, stop_grace_period_secs)

    def raw_session(self):
        return self._session


class _StepStopped(Exception):
    """``StepContext.request_stop()``: ends a ``run_step_fn`` step."""


class StepContext:
    """What ``run_step_fn``'s function gets (TF1's): the raw ``session``, a run through
    the hooks, and a way to stop the loop."""

    def __init__(self, session, run_with_hooks):
        self._session, self._run_with_hooks = session, run_with_hooks

    @property
    def session(self):
        return self._session

    def run_with_hooks(self, *args, **kwargs):
        return self._run_with_hooks(*args, **kwargs)

    def request_stop(self):
        raise _StepStopped("step_fn has requested the iterations to stop.")


def _start_queue_runners(session, graph) -> tuple:
    """A coordinator and the threads of the graph's queue runners, started (as TF1's
    monitored session: every error they raise counts, none is a clean stop)."""
    from ..graph_keys import GraphKeys
    from .coordinator import Coordinator
    from .queue_runner import start_queue_runners

    coord = Coordinator(clean_stop_exception_types=[])
    if not graph.get_collection(GraphKeys.QUEUE_RUNNERS):
        return coord, []
    return coord, start_queue_runners(session, coord)
