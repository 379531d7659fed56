"""TF1's ``tf.train.SessionManager``: a session whose model is ready, made in one of the
three ways a training cluster needs, as TF1's:

``prepare_session``  (the chief) restore the newest checkpoint of ``checkpoint_dir`` if
                     there is one, else run ``init_op`` and ``init_fn(sess)``; then
                     ``local_init_op``; ``RuntimeError`` if the model is still not ready
``recover_session``  restore if a checkpoint is there; ``(sess, restored)``
``wait_for_session`` (the other workers) open a session, run ``local_init_op``, check
                     ``ready_op``; until ready, close it and try again after
                     ``recovery_wait_secs``; ``DeadlineExceededError`` once another wait
                     would pass ``max_wait_secs``

``ready_op`` is what says the model is ready.  TF1's is a string tensor of the names of
the variables not initialized yet (empty: ready), and such a tensor works here too.
The default, ``variables_ready_op``, is TF1's ``report_uninitialized_variables`` over
the global and local variables (each checked where it lives).  A ready op that reads
variables instead (a group of reads) works too: while one is uninitialized its run fails
with ``FailedPreconditionError`` ("Attempting to use uninitialized value w"), which reads
as "not ready" as in TF1's ``_ready`` (any other error is raised).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from ..errors import DeadlineExceededError, FailedPreconditionError
from ..graph import control_dependencies, get_default_graph
from ..variables import report_uninitialized_variables
from .saver import get_checkpoint_state

__all__ = ["SessionManager", "variables_ready_op", "make_session"]

log = logging.getLogger("devsession.train")


class SessionManager:
    """TF1's ``SessionManager(local_init_op=None, ready_op=None,
    ready_for_local_init_op=None, graph=None, recovery_wait_secs=30,
    local_init_run_options=None, local_init_feed_dict=None)`` (see the module
    docstring)."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None,
                 graph=None, recovery_wait_secs=30, local_init_run_options=None,
                 local_init_feed_dict=None):
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError(f"If you pass a ready_for_local_init_op you must also pass a "
                             f"local_init_op , ready_for_local_init_op "
                             f"[{ready_for_local_init_op}]")
        self._graph = graph if graph is not None else get_default_graph()
        self._local_init_op, self._ready_op = local_init_op, ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None, init_feed_dict=None,
                        init_fn=None):
        """A session with the model restored or initialized, and ready."""
        sess, restored = self._restore_checkpoint(
            master, saver, checkpoint_dir, checkpoint_filename_with_path,
            wait_for_checkpoint, max_wait_secs, config)
        with _closed_on_error(sess):
            if not restored:
                if init_op is None and not init_fn and self._local_init_op is None:
                    raise RuntimeError("Model is not initialized and no init_op or init_fn "
                                       "or local_init_op was given")
                if init_op is not None:
                    sess.run(init_op, feed_dict=init_feed_dict)
                if init_fn:
                    init_fn(sess)
            local_init_done, message = self._try_run_local_init_op(sess)
            if not local_init_done:
                raise RuntimeError(f"Init operations did not make model ready for local_init."
                                   f"  Init op: {_name(init_op)}, init fn: {init_fn}, "
                                   f"error: {message}")
            ready, message = self._model_ready(sess)
            if not ready:
                raise RuntimeError(f"Init operations did not make model ready.  Init op: "
                                   f"{_name(init_op)}, init fn: {init_fn}, local_init_op: "
                                   f"{_name(self._local_init_op)}, error: {message}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None):
        """``(session, True)`` when a checkpoint restored a ready model, else
        ``(session, False)`` (a session to initialize)."""
        sess, restored = self._restore_checkpoint(
            master, saver, checkpoint_dir, checkpoint_filename_with_path,
            wait_for_checkpoint, max_wait_secs, config)
        with _closed_on_error(sess):
            local_init_done, message = self._try_run_local_init_op(sess)
            if not restored:
                return sess, False
            source = checkpoint_dir or checkpoint_filename_with_path
            if not local_init_done:
                log.info("Restoring model from %s did not make model ready for local init: "
                         "%s", source, message)
                return sess, False
            ready, message = self._model_ready(sess)
            if not ready:
                log.info("Restoring model from %s did not make model ready: %s", source,
                         message)
                return sess, False
            log.info("Restored model from %s", source)
            return sess, True

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A session once another task (the chief) made the model ready; a new session
        per try, as TF1's."""
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        deadline = time.monotonic() + max_wait_secs
        while True:
            sess = make_session(master, self._graph, config)
            with _closed_on_error(sess):
                local_init_done, local_message = self._try_run_local_init_op(sess)
                message = None
                if local_init_done:
                    ready, message = self._model_ready(sess)
                    if ready:
                        return sess
            _close_quietly(sess)
            if deadline - time.monotonic() - self._recovery_wait_secs < 0:
                why = message or local_message
                raise DeadlineExceededError(
                    f"Session was not ready after waiting {max_wait_secs:g} secs: the chief "
                    f"did not initialize the variables ({why})", None)
            log.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, "
                     "ready: %s", local_message, message)
            time.sleep(self._recovery_wait_secs)

    def _restore_checkpoint(self, master, saver, checkpoint_dir,
                            checkpoint_filename_with_path, wait_for_checkpoint,
                            max_wait_secs, config) -> tuple:
        """A new session, and whether a checkpoint was restored into it."""
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        sess = make_session(master, self._graph, config)
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        with _closed_on_error(sess):
            if checkpoint_filename_with_path:
                saver.restore(sess, checkpoint_filename_with_path)
                return sess, True
            waited = 0.0
            state = get_checkpoint_state(checkpoint_dir)
            while state is None or not state.model_checkpoint_path:
                if not (wait_for_checkpoint and waited < max_wait_secs):
                    return sess, False
                log.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                waited += self._recovery_wait_secs
                state = get_checkpoint_state(checkpoint_dir)
            log.info("Restoring the variables from %s", state.model_checkpoint_path)
            saver.restore(sess, state.model_checkpoint_path)
            if hasattr(saver, "recover_last_checkpoints"):
                saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
            return sess, True

    def _model_ready(self, sess) -> tuple:
        return _ready(self._ready_op, sess)

    def _try_run_local_init_op(self, sess) -> tuple:
        """``(True, None)`` once ``local_init_op`` ran (or there is none); ``(False,
        why)`` while ``ready_for_local_init_op`` says the model is not ready for it."""
        if self._local_init_op is None:
            return True, None
        ready, message = _ready(self._ready_for_local_init_op, sess)
        if not ready:
            return False, message
        log.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                 options=self._local_init_run_options)
        return True, None


def make_session(master, graph, config):
    """A ``ds.Session`` on ``master`` for ``graph``; ``config``: a ``ConfigProto`` (or
    dict) or devsession's ``SessionOptions``."""
    from ..options import SessionOptions
    from ..session import Session

    settings = {"options": config} if isinstance(config, SessionOptions) else {"config": config}
    return Session(master, graph=graph, **settings)


def variables_ready_op(var_list, name: str = "report_uninitialized_variables"):
    """devsession's ready check over ``var_list`` (see the module docstring), or None
    when there are no variables."""
    if not var_list:
        return None
    with control_dependencies(None):
        return report_uninitialized_variables(var_list, name=name)


def _ready(op, sess) -> tuple:
    """``(True, None)`` when ``op`` (None, a group of reads, or a tensor of names) says
    ready; else ``(False, why)``.  As TF1's: an empty (or int32) value is ready; a
    ``FailedPreconditionError`` about an uninitialized value is "not ready", any other
    error propagates."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
    except FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            log.warning("Model not ready raised: %s", e)
            raise
        return False, f"Model not ready: {e}"
    if value is None or getattr(value, "dtype", None) == np.int32 or _size(value) == 0:
        return True, None
    names = ", ".join(n.decode("utf-8") if isinstance(n, bytes) else str(n)
                      for n in getattr(value, "flat", [value]))
    return False, f"Model not ready: Variables not initialized: {names}"


def _size(value) -> int:
    return getattr(value, "size", len(value) if hasattr(value, "__len__") else 1)


def _name(op) -> str:
    return getattr(op, "name", None) or str(op)


def _close_quietly(sess) -> None:
    try:
        sess.close()
    except Exception as e:  # noqa: BLE001 - a session that failed may not close cleanly
        log.debug("Ignored exception while closing a session: %s", e)


class _closed_on_error:
    """Close ``sess`` when the block raises (the session is not handed out)."""

    def __init__(self, sess):
        self._sess = sess

    def __enter__(self):
        return self._sess

    def __exit__(self, kind, value, traceback):
        if kind is not None:
            _close_quietly(self._sess)
        return False

