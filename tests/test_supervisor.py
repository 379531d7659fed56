"""``ds.train.Supervisor``: the training loop of older TF1 scripts (PTB's language model,
the first Distributed TensorFlow guide), and the ``SessionManager`` behind it.

A PTB-style loop trains in ``managed_session`` and saves; a second Supervisor on the same
logdir restores instead of initializing; the checkpoint, summary and steps/sec threads
write within short intervals; an input that runs out ends the block quietly, any other
error propagates after every thread stopped; a non-chief waits for the chief (two
clients of one in-process cluster) or gives up after its bound; the graph is finalized.
Every wait here is bounded.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import devsession as ds
from devsession.distributed import create_local_cluster
from devsession.errors import DeadlineExceededError

F32 = np.float32
TARGET = np.array([1.0, -2.0, 3.0], F32)


def model(device=None):
    """w -> TARGET by SGD on ``sum((w - TARGET)^2)``; no feeds (a PTB-style graph's
    inputs are in it). Returns (w, train op, loss)."""
    with ds.device(device):
        step = ds.train.get_or_create_global_step()
        w = ds.Variable(np.zeros(3, F32), name="w")
        loss = ds.reduce_sum(ds.square(w - TARGET), name="loss")
        train = ds.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    ds.summary.scalar("training_loss", loss)
    return w, train, loss


def events(logdir) -> list:
    """Every Event in ``logdir``'s event files, in order."""
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    from tensorboard.compat.proto import event_pb2

    from devsession.io.tfrecord import tf_record_iterator

    found = []
    for name in sorted(os.listdir(logdir)):
        if name.startswith("events.out.tfevents"):
            found += [event_pb2.Event.FromString(r)
                      for r in tf_record_iterator(os.path.join(logdir, name))]
    return found


def until(condition, within=10.0) -> bool:
    """Whether ``condition()`` holds within ``within`` seconds (generous: a loaded machine
    is slow, and a passing test returns as soon as it holds)."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def loopers() -> list:
    return [t for t in threading.enumerate()
            if isinstance(t, ds.train.LooperThread) and t.is_alive()]


# --- the chief: train, save, restore --------------------------------------------------------

def test_a_ptb_style_loop_trains_saves_and_a_second_supervisor_restores(tmp_path):
    logdir = str(tmp_path)
    w, train, loss = model()
    initialized = []
    sv = ds.train.Supervisor(logdir=logdir, save_model_secs=0,
                             init_fn=lambda sess: initialized.append(sess))
    config = ds.ConfigProto(allow_soft_placement=True)      # as ptb_word_lm.py passes it
    with sv.managed_session(config=config) as sess:
        assert initialized == [sess]
        first = sess.run(loss)
        for _ in range(20):
            if sv.should_stop():
                break
            sess.run(train)
        trained = sess.run(w)
        path = sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
    np.testing.assert_allclose(trained, TARGET * (1 - 0.8 ** 20), rtol=1e-5)
    assert first == pytest.approx(14.0)
    assert path == os.path.join(logdir, "model.ckpt-20")
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))
    assert sv.should_stop()

    with ds.Graph().as_default():          # a restarted job: same model, same logdir
        w2, train2, _ = model()
        again = []
        sv2 = ds.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0,
                                  init_fn=lambda sess: again.append(sess))
        with sv2.managed_session() as sess:
            np.testing.assert_array_equal(sess.run(w2), trained)
            assert sess.run(sv2.global_step) == 20
            sess.run(train2)
        assert again == []                 # restored: neither init_op nor init_fn ran
        assert sv2.saver.last_checkpoints == [path]   # max_to_keep continues the old ones


def test_the_constructor_finds_or_builds_its_ops_and_finalizes_the_graph(tmp_path):
    w, train, loss = model()
    graph = ds.get_default_graph()
    mine = ds.group(w.initializer, ds.train.get_global_step().initializer, name="my_init")
    graph.add_to_collection(ds.GraphKeys.INIT_OP, mine)
    sv = ds.train.Supervisor(logdir=str(tmp_path), summary_writer=None)
    assert sv.init_op is mine                          # found in GraphKeys.INIT_OP
    assert graph.get_collection(ds.GraphKeys.READY_OP) == [sv.ready_op]
    assert len(graph.get_collection(ds.GraphKeys.LOCAL_INIT_OP)) == 1
    assert sv.summary_op is not None and sv.summary_op.dtype == ds.string
    assert isinstance(sv.saver, ds.train.Saver)
    assert graph.get_collection(ds.GraphKeys.SAVERS) == [sv.saver]     # as TF1's
    assert ds.train.Supervisor(logdir=str(tmp_path), summary_writer=None).saver is sv.saver
    assert sv.global_step is ds.train.get_global_step()
    assert sv.is_chief and isinstance(sv.coord, ds.train.Coordinator)
    assert isinstance(sv.session_manager, ds.train.SessionManager)
    assert sv.save_path == os.path.join(str(tmp_path), "model.ckpt")
    assert sv.summary_writer is None and sv.save_model_secs == 600
    assert ds.train.Supervisor.USE_DEFAULT == 0
    assert graph.finalized
    with pytest.raises(RuntimeError, match="Graph is finalized"):
        ds.constant(1.0)
    with pytest.raises(RuntimeError, match="Graph is finalized"):
        w.assign(TARGET)


def test_a_chief_without_logdir_initializes_with_its_feeds_and_writes_nothing(tmp_path):
    start = ds.placeholder(ds.float32, (3,), name="start")
    w = ds.Variable(start, name="w")
    double = w.assign(w * 2.0)
    sv = ds.train.Supervisor(init_feed_dict={start: TARGET})
    assert sv.summary_writer is None and sv.save_path is None and sv.global_step is None
    with sv.managed_session() as sess:
        np.testing.assert_array_equal(sess.run(double), TARGET * 2.0)
        with pytest.raises(RuntimeError, match="requires a summary writer"):
            sv.summary_computed(sess, b"")
    assert os.listdir(tmp_path) == []


# --- standard services -----------------------------------------------------------------

def test_the_services_save_checkpoints_and_write_summaries_every_interval(tmp_path):
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    logdir = str(tmp_path)
    w, train, loss = model()
    sv = ds.train.Supervisor(logdir=logdir, save_model_secs=0.1, save_summaries_secs=0.1)
    index = os.path.join(logdir, "model.ckpt-5.index")
    with sv.managed_session(start_standard_services=False) as sess:
        for _ in range(5):
            sess.run(train)
        # started after the training, so that every round sees step 5
        assert len(sv.start_standard_services(sess)) == 3
        assert until(lambda: os.path.exists(index))     # the first round is at once
        first = os.stat(index).st_mtime_ns
        assert until(lambda: os.stat(index).st_mtime_ns != first)    # and then again
        sv.summary_computed(sess, sess.run(sv.summary_op))  # at the global step
    latest = ds.train.latest_checkpoint(logdir)
    assert latest == os.path.join(logdir, "model.ckpt-5")
    assert ds.train.load_variable(latest, "global_step") == 5
    np.testing.assert_allclose(ds.train.load_variable(latest, "w"),
                               TARGET * (1 - 0.8 ** 5), rtol=1e-5)

    written = events(logdir)
    tags = {}
    for event in written:
        for value in event.summary.value:
            tags.setdefault(value.tag, []).append((event.step, value.simple_value))
    assert len(tags["training_loss"]) >= 2                      # the thread's rounds, and ours
    assert all(step == 5 and value == pytest.approx(14.0 * 0.64 ** 5, rel=1e-5)
               for step, value in tags["training_loss"])
    assert tags["global_step/sec"] and set(tags["global_step/sec"]) == {(5, 0.0)}
    logs = [(e.session_log.status, e.step) for e in written if e.HasField("session_log")]
    START, STOP, CHECKPOINT = 1, 2, 3
    assert logs[0] == (START, 5) and logs[-1][0] == STOP
    assert logs.count((CHECKPOINT, 5)) >= 2
    assert sum(e.HasField("graph_def") for e in written) == 1


def test_loop_runs_a_function_on_a_timer_until_the_stop():
    ds.Variable(1.0, name="v")
    sv = ds.train.Supervisor(save_model_secs=0)
    calls = []
    with sv.managed_session():
        looper = sv.loop(0.01, calls.append, args=("tick",))
        assert until(lambda: len(calls) >= 3)
    assert not looper.is_alive() and set(calls) == {"tick"}
    with pytest.raises(ValueError, match="require that you also pass 'target'"):
        ds.train.LooperThread(sv.coord, 1.0, args=(1,))


# --- how the block ends ---------------------------------------------------------------

def test_an_input_that_runs_out_ends_the_loop_quietly():
    numbers = ds.train.range_input_producer(7, num_epochs=1, shuffle=False)
    value = numbers.dequeue()
    sv = ds.train.Supervisor()            # local_init_op initializes the epoch counter
    seen = []
    with sv.managed_session() as sess:
        while not sv.should_stop():
            seen.append(int(sess.run(value)))
    assert seen == list(range(7)) and sv.should_stop()
    assert loopers() == []


def test_another_exception_propagates_after_every_thread_stopped(tmp_path):
    numbers = ds.train.range_input_producer(1000, shuffle=False)   # never runs out
    value = numbers.dequeue()
    w, train, loss = model()
    sv = ds.train.Supervisor(logdir=str(tmp_path), save_model_secs=0.05,
                             save_summaries_secs=0.05, stop_grace_secs=20)
    with pytest.raises(ValueError, match="a bug in the loop"):
        with sv.managed_session() as sess:
            sess.run([value, train])
            assert len(loopers()) == 3                 # checkpoints, summaries, steps/sec
            raised = time.monotonic()
            raise ValueError("a bug in the loop")
    assert time.monotonic() - raised < 10.0            # every thread stopped, no grace waited
    assert sv.should_stop() and loopers() == []
    assert not [t for t in threading.enumerate() if t.name.startswith("QueueRunnerThread")]


def test_a_threads_error_stops_the_loop_and_is_raised_at_the_end():
    ds.Variable(1.0, name="v")
    sv = ds.train.Supervisor()

    def fails():
        raise ds.errors.InvalidArgumentError("bad record", None)
    with pytest.raises(ds.errors.InvalidArgumentError, match="bad record"):
        with sv.managed_session():
            sv.loop(None, fails)
            assert until(sv.should_stop)
    stopper = threading.Thread(target=sv.request_stop)
    sv.coord.clear_stop()
    stopper.start()
    sv.wait_for_stop()                 # returns once another thread requests the stop
    stopper.join(1.0)
    assert sv.ShouldStop() and sv.StopOnException is not None


# --- another task waits for the chief ---------------------------------------------------

def test_a_worker_waits_for_the_chief_then_sees_its_variables():
    servers = create_local_cluster({"worker": 1})
    target = servers[0].target
    got, errors = {}, []

    def worker():
        try:
            with ds.Graph().as_default():
                w, train, loss = model("/job:worker/task:0")
                sv = ds.train.Supervisor(is_chief=False, recovery_wait_secs=0.05)
                assert sv.summary_writer is None and sv.save_path is None
                sess = sv.prepare_or_wait_for_session(target, max_wait_secs=60)
                try:
                    got["w"] = sess.run(w)
                finally:
                    sv.stop()
                    sess.close()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    try:
        waiting = threading.Thread(target=worker)
        waiting.start()                   # before the chief: it must wait
        waiting.join(0.3)
        assert waiting.is_alive() and not errors
        w, train, loss = model("/job:worker/task:0")
        sv = ds.train.Supervisor(save_model_secs=0)
        with sv.managed_session(target) as sess:
            sess.run(train)
            waiting.join(30.0)
            chief_w = sess.run(w)
        assert not waiting.is_alive() and not errors, errors
        # the worker read either the initial or the trained value, both the chief's
        assert any(np.allclose(got["w"], v) for v in (np.zeros(3), chief_w))
    finally:
        servers[0].stop(grace=0)


def test_a_worker_gives_up_after_its_bound():
    model("/cpu:0")
    sv = ds.train.Supervisor(is_chief=False, recovery_wait_secs=0.05)
    started = time.monotonic()
    # a direct session of its own: no chief will ever initialize it
    with pytest.raises(DeadlineExceededError,
                       match="not ready after waiting 0.3 secs.*Variables not initialized: "
                             "global_step, w"):
        sv.prepare_or_wait_for_session(max_wait_secs=0.3)
    assert 0.25 <= time.monotonic() - started < 3.0     # no wait long past the bound


def test_a_worker_needs_its_variables_placed():
    model()
    with pytest.raises(ValueError, match="all Variables must have their device set"):
        ds.train.Supervisor(is_chief=False)


def test_only_the_chief_starts_the_standard_services():
    model("/cpu:0")
    sv = ds.train.Supervisor(is_chief=False)
    with pytest.raises(RuntimeError, match="Only chief supervisor"):
        sv.start_standard_services(None)


# --- SessionManager ---------------------------------------------------------------------

def test_a_session_manager_checks_that_init_made_the_model_ready(tmp_path):
    a = ds.Variable(1.0, name="a")
    b = ds.Variable(2.0, name="b")
    ready = ds.train.SessionManager(ready_op=ds.group(ds.identity(a), ds.identity(b)))
    with pytest.raises(RuntimeError, match="did not make model ready.*uninitialized value b"):
        ready.prepare_session("", init_op=a.initializer)
    names = ds.constant([b"b"])                    # TF1's form: the names not ready
    with pytest.raises(RuntimeError, match="Variables not initialized: b"):
        ds.train.SessionManager(ready_op=names).prepare_session("", init_op=a.initializer)
    with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op"):
        ds.train.SessionManager().prepare_session("")
    with pytest.raises(ValueError, match="you must also pass a local_init_op"):
        ds.train.SessionManager(ready_for_local_init_op=names)

    saver = ds.train.Saver()
    manager = ds.train.SessionManager()
    sess, restored = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert restored is False
    sess.run(ds.global_variables_initializer())
    sess.run(a.assign(5.0))
    saver.save(sess, os.path.join(str(tmp_path), "m"))
    sess.close()
    sess, restored = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert restored is True and sess.run(a) == 5.0
    sess.close()


def test_a_monitored_sessions_worker_runs_the_local_init_op_too():
    counted = ds.Variable(0, name="counted", collections=[ds.GraphKeys.LOCAL_VARIABLES])
    bump = counted.assign_add(1)
    with ds.train.MonitoredTrainingSession(is_chief=False, log_step_count_steps=0) as sess:
        assert sess.run(bump) == 1
