"""TF2's process-wide tf.config settings in a TF1 program (devsession/process_settings.py,
config.py, device_listing.py): thread counts, soft placement, device-placement logging and
graph rewrites that the sessions made afterwards start from, and set_visible_devices
hiding GPUs (two fake GPUs stand for a GPU machine)."""

import numpy as np
import pytest

import devsession as ds
from devsession import devices, process_settings
from fake_gpu import fake_gpus


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch):
    for name in ("_PROCESS", "_EXPERIMENTAL", "_FLAGS"):
        monkeypatch.setattr(process_settings, name, dict(getattr(process_settings, name)))
    yield
    devices.set_visible_gpu_count(None)


def _session(**kwargs):
    graph = ds.Graph()
    with graph.as_default():
        ds.add(ds.constant(1.0), 2.0, name="y")
    return ds.Session(graph=graph, **kwargs)


def test_thread_counts_and_soft_placement_reach_the_sessions_made_after():
    ds.config.threading.set_intra_op_parallelism_threads(2)
    ds.config.threading.set_inter_op_parallelism_threads(1)
    ds.config.set_soft_device_placement(False)
    assert (ds.config.threading.get_intra_op_parallelism_threads(),
            ds.config.threading.get_inter_op_parallelism_threads(),
            ds.config.get_soft_device_placement()) == (2, 1, False)
    with _session() as sess:
        assert (sess.options.intra_op_threads, sess.options.inter_op_threads,
                sess.options.allow_soft_placement) == (2, 1, False)
        assert sess.run("y:0") == 3.0
    with _session(config=ds.ConfigProto(intra_op_parallelism_threads=3)) as sess:
        assert (sess.options.intra_op_threads, sess.options.inter_op_threads) == (3, 1)
    with _session(options=ds.SessionOptions(device="cpu")) as sess:     # explicit: as given
        assert (sess.options.intra_op_threads, sess.options.allow_soft_placement) == (0, True)
    with pytest.raises(ValueError, match="must be >= 0"):
        ds.config.threading.set_intra_op_parallelism_threads(-1)


def test_log_device_placement_reaches_the_sessions_made_after(caplog):
    assert ds.debugging.get_log_device_placement() is False
    ds.debugging.set_log_device_placement(True)
    assert ds.debugging.get_log_device_placement() is True
    with _session() as sess:
        assert sess.options.log_device_placement is True
        with caplog.at_level("INFO", logger="devsession"):
            sess.run("y:0")
    assert any("y" in r.getMessage() and "CPU:0" in r.getMessage() for r in caplog.records)


def test_graph_rewrite_switches_reach_the_sessions_optimizer():
    """TF's names and answers (TF 2.21: get_experimental_options after setting
    constant_folding and disable_meta_optimizer lists both with TF's two defaults)."""
    assert ds.config.optimizer.get_experimental_options() == {
        "disable_model_pruning": False, "disable_meta_optimizer": False}
    ds.config.optimizer.set_experimental_options({"constant_folding": False,
                                                  "arithmetic_optimization": False})
    with _session() as sess:
        optimizer = sess.options.optimizer
        assert (optimizer.constant_folding, optimizer.common_subexpression_elimination,
                optimizer.fusion) == (False, False, True)
        assert sess.run("y:0") == 3.0
    ds.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    assert ds.config.optimizer.get_experimental_options() == {
        "constant_folding": False, "arithmetic_optimization": False,
        "disable_model_pruning": False, "disable_meta_optimizer": True}
    with _session() as sess:
        optimizer = sess.options.optimizer
        assert not (optimizer.constant_folding or optimizer.common_subexpression_elimination
                    or optimizer.fusion)
    with pytest.raises(TypeError, match="dict"):
        ds.config.optimizer.set_experimental_options(["constant_folding"])


def test_jit_and_tensor_float_32_switches_answer_as_tf():
    assert ds.config.optimizer.get_jit() == ""
    ds.config.optimizer.set_jit(True)
    assert ds.config.optimizer.get_jit() == "autoclustering"
    ds.config.optimizer.set_jit(False)
    assert ds.config.optimizer.get_jit() == ""
    assert ds.config.experimental.tensor_float_32_execution_enabled() is True
    ds.config.experimental.enable_tensor_float_32_execution(False)
    assert ds.config.experimental.tensor_float_32_execution_enabled() is False


def test_hidden_gpus_leave_the_sessions_on_the_cpu():
    with fake_gpus(2):
        gpus = ds.config.list_physical_devices("GPU")
        assert [d.name for d in gpus] == ["/physical_device:GPU:0", "/physical_device:GPU:1"]
        with _session() as sess:
            assert sess.placement()["y"].endswith("GPU:0")
        ds.config.set_visible_devices([], "GPU")
        assert ds.config.get_visible_devices() == ds.config.list_physical_devices("CPU")
        assert [d.name for d in ds.config.list_logical_devices()] == ["/device:CPU:0"]
        assert len(ds.config.list_physical_devices()) == 3          # still found
        with _session() as sess:
            assert sess.placement()["y"].endswith("CPU:0")
            assert [d.device_type for d in sess.list_devices()] == ["CPU"]
            np.testing.assert_equal(sess.run("y:0"), 3.0)
        ds.config.experimental.set_visible_devices(gpus[:1], "GPU")
        assert [d.name for d in ds.config.list_logical_devices("GPU")] == ["/device:GPU:0"]
        ds.config.set_visible_devices(ds.config.list_physical_devices())
        assert len(ds.config.list_logical_devices("GPU")) == 2


def test_visible_devices_that_cannot_be_had_are_refused():
    with fake_gpus(2):
        second = ds.config.list_physical_devices("GPU")[1]
        with pytest.raises(ds.errors.UnimplementedError, match="CUDA_VISIBLE_DEVICES"):
            ds.config.set_visible_devices([second], "GPU")
        with pytest.raises(ValueError, match="Unrecognized device: 'x'"):
            ds.config.set_visible_devices(["x"])
        assert len(ds.config.get_visible_devices("GPU")) == 2
