"""``ds.train.MonitoredTrainingSession`` and its hooks: TF1's training loop.

The chief initializes or restores, saves checkpoints and summaries; another worker waits
for the chief's variables; hooks see every run and stop the loop; an input that runs out
ends the block quietly.  Between-graph replication on a ps + 2 workers cluster runs in
threads of this process, each client its own graph, as TF1's distributed guide writes it.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import devsession as ds
from devsession.distributed import create_local_cluster
from devsession.errors import DeadlineExceededError, OutOfRangeError
from test_summaries import accumulator  # noqa: F401  (the fixture reading event files)

F32 = np.float32
W_TRUE = np.array([[1.5], [-2.0], [0.5]], F32)


def regression(device_fn=None):
    """A linear regression trained by SGD, in the default graph: (train op, loss, x, y)."""
    with ds.device(device_fn):
        step = ds.train.get_or_create_global_step()
        w = ds.Variable(np.zeros((3, 1), F32), name="w")
        x = ds.placeholder(ds.float32, (None, 3), name="x")
        y = ds.placeholder(ds.float32, (None, 1), name="y")
        loss = ds.reduce_mean(ds.square(ds.matmul(x, w) - y))
        train = ds.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    ds.summary.scalar("loss", loss)
    return train, loss, x, y


def batch(rng):
    x = rng.standard_normal((16, 3)).astype(F32)
    return x, x @ W_TRUE


class Recorder(ds.train.SessionRunHook):
    """Records the calls it gets; asks for ``fetch`` (and feeds ``feed``) on every run,
    and stops the loop after ``stop_after`` runs."""

    def __init__(self, fetch=None, feed=None, stop_after=None):
        self.calls, self.values = [], []
        self.fetch, self.feed, self.stop_after = fetch, feed, stop_after

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        if self.fetch is not None:
            return ds.train.SessionRunArgs(self.fetch, self.feed)
        return None

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.values.append(run_values.results)
        if self.stop_after is not None and len(self.values) >= self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.calls.append("end")


def test_the_chief_trains_saves_and_a_new_session_restores(tmp_path, accumulator):
    rng = np.random.default_rng(0)
    train, loss, x, y = regression()
    hooks = [ds.train.StopAtStepHook(last_step=6)]
    losses = []
    with ds.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=hooks,
                                           save_checkpoint_steps=4,
                                           save_summaries_steps=4) as sess:
        while not sess.should_stop():
            xb, yb = batch(rng)
            losses.append(sess.run([train, loss], {x: xb, y: yb})[1])
        trained = sess.run(ds.global_variables()[1])
    assert len(losses) == 6 and losses[-1] < 0.5 * losses[0]
    restores = [op for op in ds.get_default_graph().get_operations()
                if op.type == "Assign" and "restore" in op.name]
    assert len(restores) == len(ds.global_variables())    # one Saver restores and saves
    # saved when the session started (step 0), at step 4 and at the end (step 6)
    assert ds.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-6")
    kept = ds.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths
    assert [p.rsplit("-", 1)[1] for p in kept] == ["0", "4", "6"]
    # as TF 2.21's: each summary is logged at the step its run left (the first run's
    # is 1), then every 4 steps
    steps = [e.step for e in accumulator(str(tmp_path)).Scalars("loss")]
    assert steps == [1, 5]
    assert (tmp_path / "graph.pbtxt").exists() and (tmp_path / "model.ckpt-6.meta").exists()

    ds.reset_default_graph()                       # a new process, as it were
    train, loss, x, y = regression()
    with ds.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), save_checkpoint_secs=None,
            save_summaries_steps=None, hooks=[ds.train.StopAtStepHook(num_steps=2)]) as sess:
        step = ds.train.get_global_step()
        assert sess.run(step) == 6                 # restored, not initialized
        np.testing.assert_array_equal(sess.run(ds.global_variables()[1]), trained)
        runs = 0
        while not sess.should_stop():
            xb, yb = batch(rng)
            sess.run(train, {x: xb, y: yb})
            runs += 1
        assert runs == 2 and sess.run(step) == 8


def test_summary_saver_hook_as_tfs(tmp_path, accumulator):
    """TF 2.21's SummarySaverHook: a summary_op or a scaffold (exactly one), save_steps or
    save_secs, a given writer or output_dir's; each summary at the step its run left."""
    rng = np.random.default_rng(0)
    train, loss, x, y = regression()
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        ds.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path))
    every = ds.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path / "every"),
                                      summary_op=ds.summary.merge_all())
    writer = ds.summary.FileWriter(str(tmp_path / "given"))
    timed = ds.train.SummarySaverHook(save_secs=3600, summary_writer=writer, scaffold=(
        ds.train.Scaffold(summary_op=ds.summary.merge_all())))
    with ds.train.MonitoredSession(hooks=[every, timed,
                                          ds.train.StopAtStepHook(last_step=3)]) as sess:
        while not sess.should_stop():
            sess.run(train, dict(zip((x, y), batch(rng))))
    assert [e.step for e in accumulator(str(tmp_path / "every")).Scalars("loss")] == [1, 2, 3]
    writer.flush()
    assert [e.step for e in accumulator(str(tmp_path / "given")).Scalars("loss")] == [1]


def test_checkpoint_hooks_keyword_arguments_and_summaries_without_checkpoints(tmp_path,
                                                                              accumulator):
    """``scaffold`` / ``save_graph_def`` of TF 2.21's CheckpointSaverHook and
    MonitoredTrainingSession; a ``summary_dir`` alone still gets the summaries."""
    rng = np.random.default_rng(0)
    train, loss, x, y = regression()
    with pytest.raises(ValueError, match="both saver and scaffold"):
        ds.train.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=ds.train.Saver(),
                                     scaffold=ds.train.Scaffold())
    hook = ds.train.CheckpointSaverHook(str(tmp_path / "ck"), save_steps=2,
                                        scaffold=ds.train.Scaffold(saver=ds.train.Saver()),
                                        save_graph_def=False)
    with ds.train.MonitoredTrainingSession(
            summary_dir=str(tmp_path / "summaries"), save_summaries_secs=3600,
            hooks=[hook, ds.train.StopAtStepHook(last_step=2)]) as sess:
        while not sess.should_stop():
            sess.run(train, dict(zip((x, y), batch(rng))))
    assert ds.train.get_checkpoint_state(str(tmp_path / "ck")).all_model_checkpoint_paths[
        -2:] == [str(tmp_path / "ck" / f"model.ckpt-{n}") for n in (0, 2)]
    assert not [p for p in (tmp_path / "ck").iterdir() if p.suffix in (".meta", ".pbtxt")]
    assert [e.step for e in accumulator(str(tmp_path / "summaries")).Scalars("loss")] == [1]


def test_hooks_see_every_run_add_fetches_and_feeds_and_stop_the_loop():
    train, loss, x, y = regression()
    scale = ds.placeholder(ds.float32, ())          # fed by the hook
    watcher = Recorder(fetch={"step": ds.train.get_global_step(), "twice": scale * 2.0},
                       feed={scale: F32(4.0)}, stop_after=3)
    quiet = Recorder()
    rng = np.random.default_rng(1)
    with ds.train.MonitoredTrainingSession(hooks=[watcher, quiet]) as sess:
        while not sess.should_stop():
            xb, yb = batch(rng)
            assert sess.run(train, {x: xb, y: yb}) is None
    # the step variable itself is fetched as the run left it (TF 2.21's compat.v1: 1, 2, 3)
    assert watcher.values == [{"step": 1, "twice": 8.0}, {"step": 2, "twice": 8.0},
                              {"step": 3, "twice": 8.0}]
    assert quiet.values == [None, None, None]
    assert quiet.calls == ["begin", "after_create_session"] + \
        ["before_run", "after_run"] * 3 + ["end"]


def test_an_input_that_runs_out_ends_the_block_and_other_errors_pass(tmp_path):
    regression()
    hook = Recorder()
    with ds.train.MonitoredTrainingSession(hooks=[hook]) as sess:
        raise OutOfRangeError("the input ran out", None)
    assert hook.calls[-1] == "end"
    hook = Recorder()
    with pytest.raises(ZeroDivisionError):
        with ds.train.MonitoredTrainingSession(hooks=[hook]) as sess:
            1 / 0
    assert "end" not in hook.calls
    with pytest.raises(RuntimeError, match="closed"):
        sess._session.run(ds.train.get_global_step())


def test_hook_arguments_and_a_missing_global_step_are_clear_errors():
    with pytest.raises(ValueError, match="exactly one of num_steps and last_step"):
        ds.train.StopAtStepHook()
    with pytest.raises(ValueError, match="exactly one of save_secs and save_steps"):
        ds.train.CheckpointSaverHook("/tmp", save_secs=1, save_steps=1)
    ds.Variable(1.0, name="v")
    with pytest.raises(RuntimeError, match="needs a global step"):
        ds.train.MonitoredTrainingSession(hooks=[ds.train.StopAtStepHook(last_step=1)])


def test_a_worker_waits_for_the_chief_then_both_train_the_shared_variables():
    servers = create_local_cluster({"ps": 1, "worker": 2})
    spec = servers[0].cluster_spec
    results, errors = {}, []

    def client(index):
        try:
            with ds.Graph().as_default():
                train, loss, x, y = regression(ds.train.replica_device_setter(
                    cluster=spec, worker_device=f"/job:worker/task:{index}"))
                target = next(s.target for s in servers
                              if (s.job_name, s.task_index) == ("worker", index))
                rng = np.random.default_rng(index)
                mine = 0
                with ds.train.MonitoredTrainingSession(
                        master=target, is_chief=index == 0,
                        hooks=[ds.train.StopAtStepHook(last_step=30)]) as sess:
                    while not sess.should_stop():
                        xb, yb = batch(rng)
                        sess.run(train, {x: xb, y: yb})
                        mine += 1
                    w = sess.run(ds.global_variables()[1])
                results[index] = (mine, w)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    try:
        waiting = threading.Thread(target=client, args=(1,))
        waiting.start()                           # before the chief: it must wait
        waiting.join(0.3)
        assert waiting.is_alive()
        chief = threading.Thread(target=client, args=(0,))
        chief.start()
        for thread in (chief, waiting):
            thread.join(120)
        assert not errors, errors
        assert results[0][0] + results[1][0] >= 30 and min(results[0][0], results[1][0]) > 0
        np.testing.assert_allclose(results[0][1], W_TRUE, atol=0.05)
    finally:
        for server in servers:
            server.stop(grace=0)


def test_a_worker_gives_up_when_no_chief_initializes():
    servers = create_local_cluster({"worker": 1})
    try:
        regression()
        with pytest.raises(DeadlineExceededError, match="did not initialize the variables"):
            ds.train.MonitoredTrainingSession(master=servers[0].target, is_chief=False,
                                              max_wait_secs=0.3)
    finally:
        servers[0].stop(grace=0)


# --- Scaffold and the everyday hooks ------------------------------------------------------

def test_a_scaffold_initializes_with_its_own_op_then_its_init_fn(tmp_path):
    train, loss, x, y = regression()
    start = ds.placeholder(ds.float32, (3, 1), name="start")
    w = [v for v in ds.global_variables() if v.op.name == "w"][0]
    loaded = []
    bump = w.assign_add(np.ones((3, 1), F32))   # built before the session finalizes the graph

    def init_fn(scaffold, session):            # e.g. pretrained weights
        loaded.append(scaffold)
        session.run(bump)
    scaffold = ds.train.Scaffold(
        init_op=ds.group(ds.variables_initializer([ds.train.get_global_step()]),
                         w.assign(start)),
        init_feed_dict={start: np.full((3, 1), 2.0, F32)}, init_fn=init_fn)
    with ds.train.MonitoredTrainingSession(scaffold=scaffold, log_step_count_steps=0,
                                           save_summaries_steps=0,
                                           checkpoint_dir=str(tmp_path)) as sess:
        assert loaded == [scaffold]
        np.testing.assert_array_equal(sess.run(w), np.full((3, 1), 3.0))
    assert scaffold.saver is not None and scaffold.init_fn is init_fn
    copy = ds.train.Scaffold(copy_from_scaffold=scaffold)
    assert copy.init_op is scaffold.init_op and copy.saver is scaffold.saver
    with pytest.raises(TypeError, match="not a Scaffold"):
        ds.train.Scaffold(copy_from_scaffold=object())


def test_a_scaffolds_ready_op_holds_a_worker_until_it_is_empty():
    regression()
    names = ds.placeholder(ds.string, (None,), name="names")
    not_ready = ds.identity(ds.constant([b"w"]), name="not_ready")
    nothing = ds.constant(np.zeros(0, np.float32))     # built before a session finalizes
    with pytest.raises(DeadlineExceededError, match="did not initialize.*not ready"):
        ds.train.MonitoredTrainingSession(
            is_chief=False, max_wait_secs=0.3, log_step_count_steps=0,
            scaffold=ds.train.Scaffold(ready_op=not_ready))
    ready = ds.train.Scaffold(ready_op=nothing)
    with ds.train.MonitoredTrainingSession(is_chief=False, scaffold=ready,
                                           log_step_count_steps=0) as sess:
        assert not sess.should_stop()
    del names


def test_nan_tensor_hook_fails_or_stops_on_a_nan_loss(caplog):
    train, loss, x, y = regression()
    xv, yv = batch(np.random.default_rng(3))
    bad = {x: np.full_like(xv, np.nan), y: yv}
    with pytest.raises(ds.train.NanLossDuringTrainingError, match="NaN loss"):
        with ds.train.MonitoredTrainingSession(hooks=[ds.train.NanTensorHook(loss)],
                                               log_step_count_steps=0) as sess:
            sess.run(train, {x: xv, y: yv})           # a finite loss passes
            sess.run(train, bad)
    with ds.train.MonitoredTrainingSession(
            hooks=[ds.train.NanTensorHook(loss, fail_on_nan_loss=False)],
            log_step_count_steps=0) as sess:
        sess.run(train, bad)
        assert sess.should_stop()
    assert "diverged with loss = NaN" in caplog.text


def test_logging_and_step_counter_hooks_report_on_their_schedule(caplog):
    train, loss, x, y = regression()
    xv, yv = batch(np.random.default_rng(4))
    step = ds.train.get_global_step()
    logging_hook = ds.train.LoggingTensorHook({"step": step, "loss": loss}, every_n_iter=3)
    at_end = ds.train.LoggingTensorHook([step], at_end=True,
                                        formatter=lambda v: f"step = {v[step.name]}, at end")
    counter = ds.train.StepCounterHook(every_n_steps=2)
    caplog.set_level("INFO", logger="devsession")
    with ds.train.MonitoredTrainingSession(hooks=[logging_hook, at_end, counter],
                                           log_step_count_steps=0) as sess:
        for _ in range(7):
            sess.run(train, {x: xv, y: yv})
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("step = ")]
    # runs 0, 3 and 6, each showing the step variable as the run left it (as TF 2.21's
    # compat.v1 logs), then the end's
    assert [line.split(",")[0] for line in lines] == ["step = 1", "step = 4", "step = 7",
                                                      "step = 7"]
    assert "loss = " in lines[0]
    assert counter.steps_per_sec is not None and counter.steps_per_sec > 0
    assert any(r.getMessage().startswith("global_step/sec: ") for r in caplog.records)
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        ds.train.LoggingTensorHook([loss], every_n_iter=2, every_n_secs=1.0)


def test_step_counter_writes_global_step_per_sec_summaries_as_tf(tmp_path):
    train, loss, x, y = regression()
    xv, yv = batch(np.random.default_rng(5))
    with ds.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), log_step_count_steps=2,
                                           save_summaries_steps=0) as sess:
        for _ in range(7):
            sess.run(train, {x: xv, y: yv})
    rates = [(event.step, value.simple_value)
             for path in sorted(tmp_path.glob("events.out.tfevents.*"))
             for event in ds.train.summary_iterator(str(path))
             for value in event.summary.value if value.tag == "global_step/sec"]
    # the first run starts the clock at step 1; then every second step, as TF's timer
    assert [step for step, _ in rates] == [3, 5, 7]
    assert all(rate > 0 for _, rate in rates)


def test_without_a_directory_no_step_counter_asks_for_a_global_step():
    w = ds.Variable(F32(1.0), name="w")
    train = ds.train.GradientDescentOptimizer(0.1).minimize(w * w)      # no global step
    with ds.train.MonitoredTrainingSession() as sess:
        sess.run(train)
        assert sess.run(w) == pytest.approx(0.8)


def test_the_graph_is_finalized_and_a_second_session_finds_the_scaffolds_ops(tmp_path):
    """As TF1's: making the session finalizes the graph (a loop that keeps adding ops
    is a RuntimeError), and the Scaffold's defaults live in the graph's collections, so
    a second session on the same graph reuses them instead of building new ones."""
    train, loss, x, y = regression()
    graph = ds.get_default_graph()
    with ds.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                           log_step_count_steps=0) as sess:
        assert graph.finalized
        with pytest.raises(RuntimeError, match="Graph is finalized"):
            ds.constant(2.0)
        sess.run(train, dict(zip((x, y), batch(np.random.default_rng(0)))))
    found = [graph.get_collection(key) for key in (
        ds.GraphKeys.INIT_OP, ds.GraphKeys.READY_OP, ds.GraphKeys.SUMMARY_OP,
        ds.GraphKeys.SAVERS)]
    assert [len(items) for items in found] == [1, 1, 1, 1]
    with ds.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), log_step_count_steps=0,
                                           save_summaries_steps=0) as sess:
        assert sess.run(ds.train.get_global_step()) == 1       # restored by the same saver
    assert [graph.get_collection(key) for key in (
        ds.GraphKeys.INIT_OP, ds.GraphKeys.READY_OP, ds.GraphKeys.SUMMARY_OP,
        ds.GraphKeys.SAVERS)] == found


def test_closing_opens_again_a_graph_only_the_session_finalized():
    """As TF1's: a monitored session that finalized the graph un-finalizes it as it closes
    (ops can be added for the next session); one given a finalized graph leaves it so."""
    w = ds.Variable(F32(1.0), name="w")
    graph = ds.get_default_graph()
    with ds.train.SingularMonitoredSession() as sess:
        assert graph.finalized
        assert sess.run(w) == 1.0
    assert not graph.finalized
    double = w * 2.0
    with ds.train.MonitoredTrainingSession() as sess:
        assert graph.finalized
        assert sess.run(double) == 2.0
    assert not graph.finalized
    graph.finalize()
    with ds.train.SingularMonitoredSession() as sess:
        assert sess.run(double) == 2.0
    assert graph.finalized


def test_the_scaffolds_saver_is_built_without_a_checkpoint_dir(tmp_path):
    """As TF1's: finalize() builds the default Saver (in the savers collection) even
    where the session neither saves nor restores, so scaffold.saver saves what the loop
    trained; default_local_init_op() is a grouped NoOp."""
    w = ds.Variable(F32(1.0), name="w")
    bump = w.assign_add(F32(2.0))
    scaffold = ds.train.Scaffold()
    with ds.train.SingularMonitoredSession(scaffold=scaffold) as sess:
        sess.run(bump)
        path = scaffold.saver.save(sess.raw_session(), str(tmp_path / "model"))
    assert ds.get_default_graph().get_collection(ds.GraphKeys.SAVERS) == [scaffold.saver]
    assert ds.train.load_variable(path, "w") == 3.0
    assert ds.train.Scaffold.default_local_init_op().type == "NoOp"


def test_a_training_session_without_summaries_needs_no_tensorboard(tmp_path, monkeypatch):
    """The summary hook makes its FileWriter (which needs the tensorboard extra) only
    when the graph has summaries to write."""
    import sys

    for module in ("tensorboard", "tensorboard.compat.proto",
                   "tensorboard.summary.writer.event_file_writer"):
        monkeypatch.setitem(sys.modules, module, None)
    w = ds.Variable(np.zeros((3, 1), F32), name="w")
    step = ds.train.get_or_create_global_step()
    train = ds.train.GradientDescentOptimizer(0.1).minimize(ds.reduce_sum(w * w) + 1.0,
                                                           global_step=step)
    with ds.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                           hooks=[ds.train.StopAtStepHook(last_step=2)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert ds.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-2")


def test_the_default_local_init_op_initializes_the_lookup_tables():
    """As TF1's Scaffold: a vocabulary's table (a feature column's) is ready in a
    monitored session, with no initializer run by hand."""
    table = ds.lookup.StaticHashTable(ds.lookup.KeyValueTensorInitializer(
        ["a", "b"], [1, 2], ds.string, ds.int64), -1)
    found = table.lookup(ds.constant(["b", "z"]))
    with ds.train.MonitoredTrainingSession(log_step_count_steps=0) as sess:
        np.testing.assert_array_equal(sess.run(found), [2, -1])
