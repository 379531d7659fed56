"""FileWriter.add_run_metadata (the MNIST-with-summaries tutorial writes a traced step's
RunMetadata for TensorBoard every 100 steps): the event it writes compared with what
TensorFlow 2.21's FileWriter wrote for the same traced matmul
(tests/data/make_tf_run_metadata_event.py): step, tag, and the RunMetadata proto read back
with the node's stats under TF's device name; a tag used twice is TF's ValueError."""

from __future__ import annotations

import glob
import json
import os

import numpy as np
import pytest

import devsession as ds

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_file_loader import (  # noqa: E402
    LegacyEventFileLoader)
from tensorboard.compat.proto import config_pb2, graph_pb2  # noqa: E402

from devsession.summary.writer import run_metadata_proto  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "tf_run_metadata_event.json")) as f:
    TF = json.load(f)


def _events(logdir, fed: set) -> list:
    """As the recorder reads TF's: (step, tag, {device: graph nodes in its stats}), the fed
    placeholders left out (TF's stats name them _arg_x_0_0, which the recorder drops)."""
    out = []
    for event in LegacyEventFileLoader(glob.glob(os.path.join(logdir, "*"))[0]).Load():
        if event.HasField("tagged_run_metadata"):
            meta = config_pb2.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
            out.append([event.step, event.tagged_run_metadata.tag,
                        {d.device: sorted(n.node_name for n in d.node_stats
                                          if not n.node_name.startswith("_")
                                          and n.node_name not in fed)
                         for d in meta.step_stats.dev_stats}])
    return out


def test_add_run_metadata_writes_tfs_tagged_run_metadata_events(tmp_path):
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, [2, 2], name="x")
        y = ds.matmul(x, x, name="mm")
        with ds.Session() as sess:
            run_metadata = ds.RunMetadata()
            value = sess.run(y, {x: [[1, 2], [3, 4]]},
                             options=ds.RunOptions(trace_level=ds.RunOptions.FULL_TRACE),
                             run_metadata=run_metadata)
    np.testing.assert_allclose(value, [[7, 10], [15, 22]])
    writer = ds.summary.FileWriter(str(tmp_path))
    writer.add_run_metadata(run_metadata, "step001", global_step=3)
    with pytest.raises(ValueError) as e:
        writer.add_run_metadata(run_metadata, "step001")
    assert [type(e.value).__name__, str(e.value)] == TF["tag_twice"]
    writer.add_run_metadata(run_metadata, "untimed")
    writer.close()
    assert _events(str(tmp_path), {"x"}) == TF["events"]

    stats = run_metadata_proto(run_metadata, graph_pb2)
    (mm,) = [n for d in stats.step_stats.dev_stats for n in d.node_stats if n.node_name == "mm"]
    assert mm.timeline_label == "mm = MatMul()"
    assert mm.all_start_micros > 0 and mm.all_end_rel_micros >= mm.op_end_rel_micros >= 0


def test_an_empty_run_metadata_and_a_proto_pass(tmp_path):
    with ds.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_run_metadata(ds.RunMetadata(), "nothing traced", global_step=1)
        writer.add_run_metadata(config_pb2.RunMetadata(), "a proto", global_step=2)
    assert _events(str(tmp_path), set()) == [[1, "nothing traced", {}], [2, "a proto", {}]]
