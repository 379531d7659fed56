"""TF1.15's device queries (``tf.config`` and ``tf.test``), ``tf.get_seed`` and the
``tf.Summary`` protos at the top level, on the CI's CPU-only machine (and on a GPU
machine, which the queries then list)."""

from __future__ import annotations

import pytest

import devsession as ds
from devsession.devices import gpu_devices


def test_the_devices_are_devsessions_named_as_tf_names_them():
    physical = ds.config.list_physical_devices()
    assert physical[0] == ("/physical_device:CPU:0", "CPU")
    assert ds.config.list_logical_devices("CPU") == [("/device:CPU:0", "CPU")]
    gpus = ds.config.experimental.list_physical_devices("GPU")
    assert len(gpus) == len(gpu_devices()) == len(physical) - 1
    assert ds.config.get_visible_devices() == physical
    assert ds.test.is_gpu_available() == bool(gpus)
    assert ds.test.gpu_device_name() == ("/device:GPU:0" if gpus else "")
    for gpu in gpus:
        ds.config.experimental.set_memory_growth(gpu, True)
        assert ds.config.experimental.get_memory_growth(gpu)
    with pytest.raises(ValueError, match="not a GPU"):
        ds.config.experimental.set_memory_growth(physical[0], True)


def test_get_seed_reports_the_seeds_a_random_op_would_use():
    assert ds.get_seed(None) == (None, None)
    graph_default, op_seed = ds.get_seed(5)
    assert op_seed == 5 and graph_default is not None
    ds.set_random_seed(3)
    assert ds.get_seed(7) == (3, 7) and ds.get_seed(None)[0] == 3


def test_a_summary_built_by_hand_is_tfs_message(tmp_path):
    summary = ds.Summary(value=[ds.Summary.Value(tag="accuracy", simple_value=0.5)])
    assert ds.Summary.FromString(summary.SerializeToString()).value[0].simple_value == 0.5
    assert ds.Summary is ds.summary.Summary and ds.HistogramProto().num == 0
    pytest.importorskip("tensorboard", reason="the event writer is the tensorboard extra")
    writer = ds.summary.FileWriter(str(tmp_path))
    writer.add_summary(summary, global_step=3)
    writer.close()
    assert any(p.name.startswith("events.") for p in tmp_path.iterdir())
