"""TF1's ``MonitoredSession`` with its session creators (``ChiefSessionCreator``,
``WorkerSessionCreator``), ``SingularMonitoredSession`` and ``run_step_fn``: the
pieces ``MonitoredTrainingSession`` is made of, as TF1 programs use them directly."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import DeadlineExceededError


def counter_model():
    step = ds.train.get_or_create_global_step()
    w = ds.Variable(np.zeros(2, np.float32), name="w")
    train = ds.group(ds.assign_add(w, [1.0, 2.0]), ds.assign_add(step, 1))
    return step, w, train


class Recorder(ds.train.SessionRunHook):
    def __init__(self):
        self.calls = []

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("created")
        self.session = session

    def before_run(self, run_context):
        self.calls.append("before")

    def end(self, session):
        self.calls.append("end")


def test_a_chief_creator_initializes_then_restores(tmp_path):
    step, w, train = counter_model()
    saver = ds.train.Saver()
    hook = Recorder()
    with ds.train.MonitoredSession(ds.train.ChiefSessionCreator(checkpoint_dir=str(tmp_path)),
                                   hooks=[hook]) as sess:
        sess.run(train)
        sess.run(train)
        saver.save(hook.session, os.path.join(str(tmp_path), "model"), global_step=2)
    assert hook.calls == ["begin", "created", "before", "before", "end"]
    with ds.train.SingularMonitoredSession(checkpoint_dir=str(tmp_path)) as sess:
        raw = sess.raw_session()
        assert raw.run(step) == 2 and raw.run(w).tolist() == [2.0, 4.0]     # restored
    path = os.path.join(str(tmp_path), "model-2")
    creator = ds.train.ChiefSessionCreator(checkpoint_filename_with_path=path)
    with ds.train.MonitoredSession(session_creator=creator) as sess:
        assert sess.run(step) == 2


def test_a_default_monitored_session_initializes_and_step_fns_run_through_hooks():
    step, w, train = counter_model()
    hook = Recorder()
    with ds.train.MonitoredSession(hooks=[hook]) as sess:
        def step_fn(context):
            assert context.session.run(step) == 0          # the raw session: no hooks
            return context.run_with_hooks(train)

        sess.run_step_fn(step_fn)
        assert hook.calls.count("before") == 1
        assert sess.run_step_fn(lambda context: context.request_stop()) is None
        assert sess.should_stop()
        assert sess.run(w).tolist() == [1.0, 2.0]


def test_a_worker_creator_waits_for_the_chief_and_gives_up_past_its_bound():
    counter_model()
    creator = ds.train.WorkerSessionCreator(max_wait_secs=0.2)
    with pytest.raises(DeadlineExceededError, match="Variables not initialized: global_step"):
        ds.train.MonitoredSession(session_creator=creator)


def test_session_creator_is_an_interface():
    with pytest.raises(NotImplementedError):
        ds.train.SessionCreator().create_session()


def test_a_worker_runs_local_init_op_once_the_chief_initialized_the_globals():
    """A local variable starting from a global's value: the worker waits for the chief
    (TF1's ready_for_local_init_op), rather than failing on the uninitialized global."""
    shared = ds.Variable(np.ones(2, np.float32), name="shared")
    copy = ds.Variable(ds.identity(shared), name="copy",
                       collections=[ds.GraphKeys.LOCAL_VARIABLES])
    creator = ds.train.WorkerSessionCreator(max_wait_secs=0.2)
    with pytest.raises(DeadlineExceededError, match="Variables not initialized: shared"):
        ds.train.MonitoredSession(session_creator=creator)
    with ds.train.MonitoredSession() as sess:       # the chief: initialized, then copied
        assert sess.run(copy).tolist() == [1.0, 1.0]


def test_the_default_ready_check_covers_local_variables_too():
    """As TF1's Scaffold: a local variable its local_init_op leaves uninitialized keeps
    the model from being ready (the chief's RuntimeError names it)."""
    counter_model()
    ds.Variable(0, name="seen", trainable=False, collections=[ds.GraphKeys.LOCAL_VARIABLES])
    scaffold = ds.train.Scaffold(local_init_op=ds.no_op(name="forgets_seen"))
    with pytest.raises(RuntimeError, match="seen"):
        ds.train.MonitoredSession(ds.train.ChiefSessionCreator(scaffold=scaffold))
