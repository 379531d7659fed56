"""Graphs frozen the TF 2 way (``convert_variables_to_constants_v2``, how TF 2 users freeze
Keras models) import and run with TF's outputs: their ``While`` loops come lowered into
TF1's loop ops carrying TensorLists, each list carried as two loop variables (its values,
and a twin ``<node>/lengths`` for its lengths), and the unread ``variant`` placeholders
freezing leaves behind are dropped.  Before, such a graph was refused at its first
TensorList op.

The graphs and TF's outputs were recorded by tests/data/make_tf_lowered_loops.py (TF 2.21,
tf_keras): Embedding-LSTM-GRU-Dense, a transposed convolution and batch norm before a
bidirectional SimpleRNN, and tf.scan / tf.map_fn / a while_loop growing a TensorArray.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import devsession as ds
from devsession.proto import graph_pb2

DATA = Path(__file__).parent / "data"
RECORDED = np.load(DATA / "tf_lowered_loops.npz")
MODELS = ["keras_rnns", "conv_bidirectional_rnn", "scans"]
CASES = [(name, k) for name in MODELS for k in range(3) if f"{name}/x{k}" in RECORDED]


def frozen(name: str) -> ds.GraphDef:
    graph_def = ds.GraphDef()
    graph_def.ParseFromString((DATA / f"tf_lowered_{name}.pb").read_bytes())
    return graph_def


def imported(graph_def) -> ds.Graph:
    graph = ds.Graph()
    ds.import_graph_def(graph_def, name="", graph=graph)
    return graph


@pytest.mark.parametrize("name,case", CASES)
def test_a_graph_frozen_with_lowered_loops_runs_as_in_tensorflow(name, case):
    want = RECORDED[f"{name}/y{case}"]
    with ds.Session(graph=imported(frozen(name))) as sess:
        got = sess.run(str(RECORDED[f"{name}/output"]),
                       {str(RECORDED[f"{name}/input"]): RECORDED[f"{name}/x{case}"]})
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(want).max()))


def test_the_recorded_graphs_hold_what_this_file_is_about():
    for name in MODELS:
        graph_def = frozen(name)
        ops = {node.op for node in graph_def.node}
        assert {"Enter", "NextIteration", "TensorListReserve", "TensorListSetItem"} <= ops
        assert not graph_def.library.function
    unread = [n for n in frozen("keras_rnns").node if n.name.startswith("unused_control_flow")]
    assert any(n.attr["dtype"].type == graph_pb2.DT_VARIANT for n in unread)


def test_each_list_becomes_two_loop_variables_of_one_while():
    graph = imported(frozen("scans"))
    loops = [op for op in graph.get_operations() if op.type in ("While", "StatelessWhile")]
    assert len(loops) == 3                                    # scan, map_fn, the while_loop
    twins = [op for op in graph.get_operations() if op.name.endswith("/lengths")]
    assert twins and all(op.outputs[0].dtype == ds.int32 for op in twins)
    assert all(op.type in ("While", "StatelessWhile") for twin in twins
               for op in [twin.inputs[0].op] if twin.type == "Identity")


def _with_list_in_a_loop(reader_op: str) -> ds.GraphDef:
    """A lowered loop whose body writes a TensorList, and ``reader_op`` reading the list
    after the loop: a TensorListStack imports; anything else is refused, naming it."""
    graph_def = frozen("scans")
    stacks = [n for n in graph_def.node if n.op == "TensorListStack"]
    stacks[0].op = reader_op
    return graph_def


def test_a_list_read_after_the_loop_by_another_op_is_refused_by_name():
    with pytest.raises(ds.errors.UnimplementedError, match="reads the TensorList"):
        imported(_with_list_in_a_loop("Shape"))


def test_a_merge_joining_a_list_with_a_tensor_is_refused_by_name():
    graph_def = frozen("scans")
    nodes = {n.name: n for n in graph_def.node}
    merge = next(n for n in graph_def.node if n.op == "Merge" and any(
        nodes[i.split(":")[0]].op == "Enter" and nodes[nodes[i.split(":")[0]].input[0].split(
            ":")[0]].op == "TensorListReserve" for i in n.input))
    back = nodes[merge.input[1].split(":")[0]]
    assert back.op == "NextIteration"
    back.input[0] = "Const"                       # a tensor, where the list was
    with pytest.raises(ds.errors.UnimplementedError, match="joins a TensorList"):
        imported(graph_def)


def test_a_variant_placeholder_that_is_read_is_still_refused():
    graph_def = ds.GraphDef()
    graph_def.node.add(name="v", op="Placeholder").attr["dtype"].type = graph_pb2.DT_VARIANT
    graph_def.node.add(name="y", op="Identity", input=["v"])
    with pytest.raises(ds.errors.UnimplementedError, match="variant"):
        imported(graph_def)
