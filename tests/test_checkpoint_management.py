"""TF1's checkpoint housekeeping (``checkpoints_iterator``, ``get_checkpoint_mtimes``,
``remove_checkpoint``, ``update_checkpoint_state``, ``generate_checkpoint_state_proto``),
``summary_iterator``, and the hooks ``FinalOpsHook``, ``FeedFnHook``,
``GlobalStepWaiterHook`` and ``SecondOrStepTimer``."""

from __future__ import annotations

import os
import shutil
import threading
import time
import types

import numpy as np
import pytest

import devsession as ds
from devsession.train import checkpoint_management

TF_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_checkpoint")


def saved_checkpoints(directory, steps) -> list:
    """A Saver's checkpoints of one variable at each global step of ``steps``."""
    with ds.Graph().as_default():
        v = ds.Variable(np.zeros(2, np.float32), name="v")
        saver = ds.train.Saver(max_to_keep=None)
        with ds.Session() as sess:
            sess.run(v.initializer)
            return [saver.save(sess, os.path.join(directory, "model"), global_step=s)
                    for s in steps]


@pytest.fixture
def quick_polls(monkeypatch):
    monkeypatch.setattr(checkpoint_management, "_POLL_SECS", 0.02)


def test_checkpoints_iterator_yields_each_new_checkpoint_then_times_out(tmp_path, quick_polls):
    first, second = saved_checkpoints(tmp_path, [1, 2])
    ds.train.update_checkpoint_state(str(tmp_path), first)     # only the first is out
    seen = []
    iterator = ds.train.checkpoints_iterator(str(tmp_path), timeout=0.5)
    seen.append(next(iterator))
    # the second comes out while the iterator waits (a quick file write, well within
    # the timeout even on a loaded machine)
    later = threading.Timer(0.1, lambda: ds.train.update_checkpoint_state(
        str(tmp_path), second, [first]))
    later.start()
    seen += list(iterator)                  # the second, then a timeout ends the loop
    later.join()
    assert seen == [first, second] and second == os.path.join(str(tmp_path), "model-2")


def test_checkpoints_iterator_waits_on_while_timeout_fn_says_so(tmp_path, quick_polls):
    calls = []

    def timeout_fn():
        calls.append(1)
        if len(calls) == 2:
            saved_checkpoints(tmp_path, [5])
        return len(calls) > 3

    got = list(ds.train.checkpoints_iterator(str(tmp_path), timeout=0.05,
                                             timeout_fn=timeout_fn))
    assert got == [os.path.join(str(tmp_path), "model-5")] and len(calls) == 4


def test_mtimes_and_removal_of_devsession_and_tensorflow_checkpoints(tmp_path, caplog):
    os.makedirs(tmp_path / "ours")
    ours = saved_checkpoints(tmp_path / "ours", [1, 2])
    theirs = str(tmp_path / "theirs" / "model.ckpt-3")
    shutil.copytree(TF_DATA, tmp_path / "theirs")
    times = ds.train.get_checkpoint_mtimes([ours[0], theirs, str(tmp_path / "absent")])
    assert times == [os.path.getmtime(p + ".index") for p in (ours[0], theirs)]
    assert "absent not found" in caplog.text
    for prefix in (ours[0], theirs):
        ds.train.remove_checkpoint(prefix)
        assert not ds.train.checkpoint_exists(prefix)
    assert sorted(os.listdir(tmp_path / "ours")) == sorted(
        ["checkpoint"] + [f for f in os.listdir(tmp_path / "ours") if "model-2" in f])
    assert not [f for f in os.listdir(tmp_path / "theirs") if f.startswith("model.ckpt-3")]
    ds.train.remove_checkpoint(ours[0])         # already gone: nothing to do


def test_update_checkpoint_state_is_what_latest_checkpoint_reads(tmp_path):
    first, second = saved_checkpoints(tmp_path, [1, 2])
    ds.train.update_checkpoint_state(str(tmp_path), first)
    assert ds.train.latest_checkpoint(str(tmp_path)) == first
    state = ds.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == [first]
    ds.train.update_checkpoint_state(str(tmp_path), second, [first], latest_filename="other")
    state = ds.train.get_checkpoint_state(str(tmp_path), latest_filename="other")
    assert (state.model_checkpoint_path, state.all_model_checkpoint_paths) == \
        (second, [first, second])
    proto = ds.train.generate_checkpoint_state_proto(str(tmp_path), "b", ["a", "b"])
    assert (proto.model_checkpoint_path, proto.all_model_checkpoint_paths) == ("b", ["a", "b"])
    with pytest.raises(RuntimeError, match="conflicts with path used for checkpoint state"):
        ds.train.update_checkpoint_state(str(tmp_path), str(tmp_path / "checkpoint"))


def test_a_relative_save_dir_takes_paths_from_the_working_directory(tmp_path, monkeypatch):
    """As TF's: ``update_checkpoint_state("train", saver.save(sess, "train/model"))``
    records ``model-1`` within ``train`` (not ``train/train/model-1``)."""
    os.makedirs(tmp_path / "train")
    saved_checkpoints(tmp_path / "train", [1, 2])
    monkeypatch.chdir(tmp_path)
    ds.train.update_checkpoint_state("train", os.path.join("train", "model-1"))
    assert ds.train.latest_checkpoint("train") == os.path.join("train", "model-1")
    with open(tmp_path / "train" / "checkpoint") as f:
        assert '"model-1"' in f.read()
    proto = ds.train.generate_checkpoint_state_proto("train", "train/model-2", ["train/model-1"])
    assert (proto.model_checkpoint_path, proto.all_model_checkpoint_paths) == \
        ("model-2", ["model-1", "model-2"])


def test_summary_iterator_reads_back_what_a_file_writer_wrote(tmp_path):
    pytest.importorskip("tensorboard", reason="FileWriter needs the tensorboard extra")
    loss = ds.placeholder(ds.float32, (), name="x")
    summary = ds.summary.scalar("loss", loss)
    writer = ds.summary.FileWriter(str(tmp_path))
    with ds.Session() as sess:
        for step, value in enumerate([3.0, 2.5, 1.0]):
            writer.add_summary(sess.run(summary, {loss: value}), step)
    writer.close()
    (path,) = [os.path.join(tmp_path, f) for f in os.listdir(tmp_path)]
    events = list(ds.train.summary_iterator(path))
    scalars = [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value)
               for e in events if e.HasField("summary")]
    assert events[0].file_version.startswith("brain.Event:")
    assert scalars == [(0, "loss", 3.0), (1, "loss", 2.5), (2, "loss", 1.0)]
    with open(path, "r+b") as f:                # a flipped byte is DataLossError
        f.seek(-3, os.SEEK_END)
        byte = f.read(1)
        f.seek(-3, os.SEEK_END)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ds.errors.DataLossError):
        list(ds.train.summary_iterator(path))


def test_second_or_step_timer_is_tf1s(monkeypatch):
    from devsession.train import hooks

    now = [100.0]                           # a clock of the test's own: no sleeping
    monkeypatch.setattr(hooks, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    steps = ds.train.SecondOrStepTimer(every_steps=3)
    assert steps.should_trigger_for_step(0)
    assert steps.update_last_triggered_step(0) == (None, None)
    assert [steps.should_trigger_for_step(s) for s in (0, 1, 2, 3)] == [False, False, False,
                                                                        True]
    now[0] += 2.5
    assert steps.update_last_triggered_step(3) == (2.5, 3)
    assert steps.last_triggered_step() == 3
    seconds = ds.train.SecondOrStepTimer(every_secs=0.5)
    seconds.update_last_triggered_step(1)
    now[0] += 0.25
    assert not seconds.should_trigger_for_step(2)
    now[0] += 0.25
    assert seconds.should_trigger_for_step(2) and not seconds.should_trigger_for_step(1)
    seconds.reset()
    assert seconds.should_trigger_for_step(1)
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        ds.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="Can not provide both"):
        ds.train.SecondOrStepTimer(every_secs=1, every_steps=1)


def test_final_ops_and_feed_fn_hooks_in_a_monitored_session():
    x = ds.placeholder(ds.float32, (), name="x")
    total = ds.Variable(0.0, name="total")
    add = ds.assign_add(total, x)
    step = ds.train.get_or_create_global_step()
    train = ds.group(add, ds.assign_add(step, 1))
    feeds = iter([1.0, 2.0, 4.0])
    final = ds.train.FinalOpsHook([total, step])
    hooks = [ds.train.FeedFnHook(lambda: {x: next(feeds)}), final,
             ds.train.StopAtStepHook(last_step=3)]
    with ds.train.MonitoredTrainingSession(hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert final.final_ops_values == [7.0, 3]


class _Capture(ds.train.SessionRunHook):
    """Keeps the raw session the monitored one wraps (a chief's runs go through it)."""

    def after_create_session(self, session, coord):
        self.session = session


def test_global_step_waiter_holds_the_first_run_until_the_chief_gets_there(monkeypatch):
    monkeypatch.setattr(ds.train.GlobalStepWaiterHook, "_POLL_SECS", 0.02)
    step = ds.train.get_or_create_global_step()
    bump = ds.assign_add(step, 1)
    runs = ds.Variable(0, name="runs")
    work = ds.assign_add(runs, 1)
    capture = _Capture()
    hooks = [capture, ds.train.GlobalStepWaiterHook(wait_until_step=5)]
    with ds.train.MonitoredTrainingSession(hooks=hooks) as sess:
        raw = capture.session

        def chief():
            for _ in range(5):
                time.sleep(0.02)
                raw.run(bump)
        thread = threading.Thread(target=chief)
        thread.start()
        sess.run(work)                  # returns once the global step reached 5
        reached = raw.run(step)
        thread.join()
        sess.run(work)                  # later runs do not wait
        assert (reached, raw.run(runs)) == (5, 2)


def test_no_max_to_keep_keeps_every_file_and_tracks_none_as_tf(tmp_path):
    """Saver(max_to_keep=None): nothing deleted, last_checkpoints empty, the state file
    lists the latest only (TF 2.21's)."""
    with ds.Graph().as_default():
        v = ds.Variable(1.0)
        saver = ds.train.Saver(max_to_keep=None)
        with ds.Session() as sess:
            sess.run(v.initializer)
            for k in range(3):
                saver.save(sess, str(tmp_path / "m"), global_step=k)
    state = ds.train.get_checkpoint_state(str(tmp_path))
    assert saver.last_checkpoints == []
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / "m-2")]
    assert sorted(p.name for p in tmp_path.glob("*.index")) == ["m-0.index", "m-1.index",
                                                                "m-2.index"]
