"""String tensors across a cluster's tasks (packed on the wire: ``transport/wire.py``):
fed, computed on another task, and fetched, as a TF1 job moves file names, serialized
Examples and summaries; the same on a direct session."""

from __future__ import annotations

import numpy as np

import devsession as ds
from devsession.proto import summary_pb2


def test_strings_are_fed_computed_and_fetched_across_tasks(make_session):
    names = ds.placeholder(ds.string, (None,), name="names")
    joined = ds.strings.join([names, ds.constant("!")])
    loss = ds.placeholder(ds.float32, (), name="x")
    summary = ds.summary.scalar("loss", loss)
    sess = make_session()
    got = sess.run(joined, {names: np.array([b"a", b"", "é".encode()], object)})
    assert got.tolist() == [b"a!", b"!", "é!".encode()]
    parsed = summary_pb2.Summary.FromString(sess.run(summary, {loss: 2.5}))
    assert (parsed.value[0].tag, parsed.value[0].simple_value) == ("loss", 2.5)
    empty = sess.run(names, {names: np.array([], object)})
    assert empty.shape == (0,) and empty.dtype == object
