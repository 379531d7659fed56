"""Persistent tensors: ``get_session_handle`` / ``get_session_tensor`` /
``delete_session_tensor`` and the ``TensorHandle`` a fetch gives, against TF 2.21's
outcomes (tests/data/session_handles.json, tests/data/make_session_handles.py), in the
direct session (a gRPC worker keeps its own store per session the same way)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import devsession as ds
from devsession.tf_export import to_tf_graph_def
from devsession.tensor_handle import TensorHandle
from session_handle_cases import CASES

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" /
                       "session_handles.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_outcomes_are_tfs(name):
    with ds.Graph().as_default(), ds.Session() as sess:
        got = CASES[name](ds, sess)
    assert json.loads(json.dumps(got)) == RECORDED[name]


def test_a_fetched_handle_evaluates_and_deletes(graph):
    """TF1's TensorHandle.eval and delete (TF 2.21's refuse every fetched handle); the
    reading and deleting ops are built once per dtype however many handles are read."""
    x = ds.placeholder(ds.int64, [None])
    with ds.Session() as sess:
        handles = [sess.run(ds.get_session_handle(x * 2), {x: [k, k + 1]}) for k in range(3)]
        handles += sess.run([ds.get_session_handle(x)] * 2, {x: [7]})  # one op, two places
        assert all(isinstance(h, TensorHandle) for h in handles)
        assert handles[3].handle == handles[4].handle
        size = len(graph.get_operations())
        for k, h in enumerate(handles[:3]):
            np.testing.assert_array_equal(h.eval(), [2 * k, 2 * k + 2])
            assert h.eval().dtype == np.int64 and str(h) == h.get_raw_handle() == h.handle
        handles[0].delete()
        handles[1].delete()
        assert len(graph.get_operations()) == size + 4    # a reader and a deleter, with holders
        with pytest.raises(TypeError, match="may have already been deleted"):
            handles[0].eval()
        with pytest.raises(TypeError, match="may have already been deleted"):
            handles[0].delete()
        np.testing.assert_array_equal(handles[2].eval(), [4, 6])


def test_two_handle_ops_of_one_value_are_not_merged(graph):
    """The ops are stateful: the optimizer neither folds a constant's handle nor merges
    two (each run stores anew)."""
    a = ds.constant(3.0)
    first, second = ds.get_session_handle(a), ds.get_session_handle(a)
    with ds.Session() as sess:
        h1, h2 = sess.run([first, second])
        again = sess.run(first)
        assert len({h1.handle, h2.handle, again.handle}) == 3
        assert h1.handle.startswith("GetSessionHandle;") and again.eval() == 3.0


def test_the_ops_import_and_export_as_tfs(graph):
    holder, read = ds.get_session_tensor("h", ds.float32, name="read")
    _, deleter = ds.delete_session_tensor("h")
    handle = ds.get_session_handle(read)
    nodes = {n.name: n for n in graph.as_graph_def().node}
    assert nodes["read"].op == "GetSessionTensor" and nodes["read"].attr["dtype"].type == 1
    assert "T" not in nodes[handle.op.name].attr         # inferred, as for every op here
    exported = {n.name: n for n in to_tf_graph_def(graph).node}
    assert exported[handle.op.name].attr["T"].type == 1  # what TF's NodeDef holds
    assert nodes[deleter.name].op == "DeleteSessionTensor"
    with ds.Graph().as_default() as g2:
        ds.import_graph_def(graph.as_graph_def(), name="")
        assert g2.get_operation_by_name("read").outputs[0].dtype == ds.float32
    with pytest.raises(ValueError, match="handle must be a string"):
        ds.get_default_graph().create_op("GetSessionTensor", [ds.constant(1.0)],
                                         {"dtype": ds.float32})
