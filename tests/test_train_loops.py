"""TF1's ``ProfilerHook``, ``CheckpointSaverListener`` (``CheckpointSaverHook(listeners=)``),
``basic_train_loop`` and ``assert_global_step``: which steps are traced, the listener's
calls, the loop's retries and the checks, each as TensorFlow 2.21 behaved
(tests/data/tf_train_loops.json, made by make_tf_train_loops.py)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import train_loops_cases as cases

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "tf_train_loops.json")) as _f:
    TF = json.load(_f)


@pytest.mark.parametrize("save_steps", [1, 2, 3])
def test_profiler_hook_traces_the_steps_tensorflow_traces(tmp_path, save_steps):
    steps = cases.profile(ds, tmp_path, save_steps)
    assert steps == TF["profiler"][str(save_steps)]
    trace = json.loads((tmp_path / f"timeline-{steps[0]}.json").read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    assert any(e.get("ph") == "X" and e.get("name", "").startswith("AssignAdd")
               or e.get("args", {}).get("op") == "AssignAdd" for e in events)


def test_profiler_hook_traces_only_the_runs_it_writes(tmp_path):
    seen = []

    class Probe(ds.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            seen.append(bool(run_values.run_metadata.step_stats))

    with ds.Graph().as_default():
        op = cases.train_op(ds)
        hooks = [ds.train.ProfilerHook(save_steps=3, output_dir=str(tmp_path)), Probe()]
        with ds.train.MonitoredSession(hooks=hooks) as sess:
            for _ in range(7):
                sess.run(op)
    assert seen == [False, False, True, False, False, True, False]   # steps 3 and 6
    with pytest.raises(ValueError, match="Can not provide both"):
        ds.train.ProfilerHook(save_steps=1, save_secs=1)


def run_listener(directory, save_steps, stop_at=None) -> dict:
    return cases.run_listener(ds, directory, save_steps, stop_at)


@pytest.mark.parametrize("save_steps", [2, 3])
def test_checkpoint_saver_listener_is_called_as_tensorflow_calls_it(tmp_path, save_steps):
    assert run_listener(tmp_path, save_steps) == TF["listener"][str(save_steps)]
    assert ds.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-7")


def test_a_listener_returning_true_after_save_stops_the_loop(tmp_path):
    assert run_listener(tmp_path, 1, stop_at=4) == TF["stop_after_save"]


def test_the_base_listener_does_nothing(tmp_path):
    with ds.Graph().as_default():
        op = cases.train_op(ds)
        hook = ds.train.CheckpointSaverHook(str(tmp_path), save_steps=1,
                                            listeners=[ds.train.CheckpointSaverListener()])
        with ds.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(op)
    assert ds.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-1")


def test_basic_train_loop_opens_a_new_session_after_an_aborted_step():
    assert cases.basic_loop(ds) == TF["basic_loop"]


def test_basic_train_loop_with_a_supervisor(tmp_path):
    with ds.Graph().as_default():
        op = cases.train_op(ds)
        sv = ds.train.Supervisor(logdir=str(tmp_path), save_model_secs=0,
                                 save_summaries_secs=0)
        seen = []

        def step(sess):
            seen.append(int(sess.run(op)))
            if seen[-1] == 3:
                sv.request_stop()

        ds.train.basic_train_loop(sv, step)
    assert seen == [1, 2, 3]


def test_other_errors_end_basic_train_loop():
    sup = cases.FakeSupervisor()

    def step(sess):
        raise ds.errors.InvalidArgumentError(None, None, "bad")

    with pytest.raises(ds.errors.InvalidArgumentError):
        ds.train.basic_train_loop(sup, step)
    assert sup.sessions == 1


def test_assert_global_step_as_tensorflow():
    with ds.Graph().as_default():
        cases = {
            "int64_variable": ds.Variable(0, dtype=ds.int64),
            "int32_tensor": ds.constant(3),
            "float_variable": ds.Variable(0.0),
            "vector": ds.Variable(np.array([1, 2], np.int32)),
            "unknown_shape": ds.placeholder(ds.int64, None),
            "partly_known": ds.placeholder(ds.int64, [None, 2]),
            "python_int": 3,
        }
        for name, value in cases.items():
            want = TF["assert_global_step"][name]
            if want is None:
                ds.train.assert_global_step(value)
                continue
            cls, message = want
            assert cls == "TypeError"
            with pytest.raises(TypeError) as info:
                ds.train.assert_global_step(value)
            expected = message.split("<dtype")[0]       # TF's dtype repr is its own
            assert str(info.value).startswith(expected), (name, str(info.value))
