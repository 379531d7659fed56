"""TF1's ``tf.summary.text`` and ``tf.summary.tensor_summary`` (TF's TensorSummaryV2): the
whole tensor as a TensorProto beside its plugin's metadata, read back by TensorBoard's own
protobufs from an event file."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds


def test_text_and_tensor_summaries_reach_tensorboard(tmp_path):
    pytest.importorskip("tensorboard", reason="FileWriter needs the tensorboard extra")
    from tensorboard.util import tensor_util

    notes = ds.placeholder(ds.string, [None], name="notes_in")
    text = ds.summary.text("notes", notes)
    weights = ds.summary.tensor_summary("w", ds.constant([[1.5, -2.0]]), family="layer",
                                        summary_description="the weights",
                                        display_name="W")
    assert (text.op.type, text.op.name, weights.op.name) == ("TensorSummaryV2", "notes",
                                                              "layer/w")
    assert ds.get_default_graph().get_collection("summaries") == [text, weights]
    writer = ds.summary.FileWriter(str(tmp_path))
    with ds.Session() as sess:
        merged = sess.run(ds.summary.merge_all(),
                          {notes: np.array([b"step 1: ok", "é".encode()], object)})
    writer.add_summary(merged, global_step=3)
    writer.close()
    (path,) = [os.path.join(tmp_path, f) for f in os.listdir(tmp_path)]
    values = [v for e in ds.train.summary_iterator(path) if e.HasField("summary")
              for v in e.summary.value]
    got = {v.tag: v for v in values}
    assert got["notes"].metadata.plugin_data.plugin_name == "text"
    assert tensor_util.make_ndarray(got["notes"].tensor).tolist() == [b"step 1: ok",
                                                                      "é".encode()]
    assert (got["layer/w"].metadata.summary_description,
            got["layer/w"].metadata.display_name) == ("the weights", "W")
    np.testing.assert_array_equal(tensor_util.make_ndarray(got["layer/w"].tensor),
                                  np.array([[1.5, -2.0]], np.float32))


def test_text_takes_strings_only():
    with pytest.raises(ValueError, match="to have dtype string, got float32"):
        ds.summary.text("loss", ds.constant(1.0))
