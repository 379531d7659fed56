"""GraphDefs holding TensorFlow's TensorArrays (TensorArrayV3 and the ops on its handle
and flow, what tf.scan, tf.map_fn and tf.nn.dynamic_rnn build under
``tf.disable_v2_behavior()``; made by tests/data/make_tf_tensor_arrays.py with
TensorFlow 2.21) import as devsession's value TensorArrays
(devsession/tf_tensor_array_import.py), their loops as While ops, and compute TF's
values; what does not map is refused naming the node."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.tensor_array import TF_TENSOR_ARRAY_OPS
from devsession.proto import graph_pb2
from devsession.tf_tensor_array_import import map_tensor_arrays
from tf_import_cases import WHILE_TYPES, assert_computes_cases, assert_refused, \
    assert_round_trips, body_types, imported, recorded_cases
from tf_recorded import DATA

FETCHES = ("cumsum_out", "rnn_scan_out", "map_out", "map_int_out", "written_out",
           "grown_size", "grown_out", "concat_out", "piece1_out")


def test_scan_map_fn_and_tensor_array_loops_compute_tfs_values_for_every_feed():
    graph = imported("tf_tensor_arrays", name="")
    cases = recorded_cases("tf_tensor_arrays")
    assert len(cases) == 3 and set(cases[0][1]) == {f"{f}:0" for f in FETCHES}
    assert_computes_cases(graph, cases, ("n",), rtol=1e-5, atol=1e-6)
    # the feeds reach the arrays: an empty dynamic array, one row through map_fn
    assert cases[1][1]["grown_out:0"].shape == (0, 2)
    assert cases[1][1]["map_out:0"].shape == (1,)


def test_the_tensor_arrays_become_devsessions_values_carried_by_while_loops():
    graph = imported("tf_tensor_arrays", name="")
    types = {op.type for op in graph.get_operations()}
    assert not types & TF_TENSOR_ARRAY_OPS
    assert not types & {"Enter", "Merge", "Switch", "NextIteration", "Exit"}
    assert {"_TensorArray", "_TensorArrayScatter", "_TensorArrayGather", "_TensorArraySplit",
            "_TensorArrayConcat", "_TensorArrayRead"} <= types
    scan = graph.get_operation_by_name("cumsum/while/While")
    assert scan.type in WHILE_TYPES
    assert {"_TensorArrayRead", "_TensorArrayWrite"} <= body_types(graph, "cumsum/while/While")
    # a flow loop variable is two: the array's values (its dtype, not TF's float flow)
    # and its lengths, TF's Exit and its twin beside it
    exit_values = graph.get_operation_by_name("map_int/while/Exit_2").outputs[0]
    exit_lengths = graph.get_operation_by_name("map_int/while/Exit_2/lengths").outputs[0]
    assert (exit_values.dtype, exit_lengths.dtype) == (ds.int32, ds.int32)
    assert exit_lengths.shape.ndims == 1
    assert graph.get_tensor_by_name("cumsum_out:0").shape.as_list() == [None, 4]


def test_a_frozen_dynamic_rnn_lstm_classifier_with_sequence_lengths_computes_tfs_values():
    data = np.load(f"{DATA}/tf_tensor_array_rnn.npz")
    graph = imported("tf_tensor_array_rnn", name="")
    assert graph.get_operation_by_name("rnn/while/While").type in WHILE_TYPES
    with ds.Session(graph=graph) as sess:
        for k in range(3):
            x, lengths = data[f"feed:x{k}"], data[f"feed:lengths{k}"]
            probs, outputs = sess.run(["probs:0", "outputs:0"],
                                      {"x:0": x, "lengths:0": lengths})
            message = f"x {x.shape}, lengths {lengths}"
            np.testing.assert_allclose(probs, data[f"fetch:probs{k}"], rtol=1e-5, atol=1e-6,
                                       err_msg=message)
            np.testing.assert_allclose(outputs, data[f"fetch:outputs{k}"], rtol=1e-5,
                                       atol=1e-6, err_msg=message)
    # past its length a sequence's outputs are zeros (dynamic_rnn's sequence_length)
    assert (data["fetch:outputs2"][0, int(data["feed:lengths2"][0]):] == 0).all()


def test_an_imported_tensor_array_loop_round_trips_and_takes_a_prefix():
    assert_round_trips("tf_tensor_arrays", 0, ["rnn_scan_out:0", "written_out:0", "grown_out:0"],
                       rtol=1e-5, atol=1e-6)


# --- hand-made arrays: the mapping, and what is refused --------------------------------------

def _array(*extra, rewire=None) -> graph_pb2.GraphDef:
    """``ta = TensorArray(float32, 2); w = ta.write(1, [5, 6]); ta.read(1)`` in TF's
    form (handle ``ta:0``, flow ``ta:1``), with ``extra`` nodes (name, op, inputs) and
    the inputs of ``rewire`` ({name: inputs}) changed."""
    with ds.Graph().as_default() as graph:
        ds.constant(2, name="size")
        ds.constant(1, name="index")
        ds.constant([5.0, 6.0], name="value")
    graph_def = graph.as_graph_def()
    ta = graph_def.node.add(name="ta", op="TensorArrayV3", input=["size"])
    ta.attr["dtype"].type = graph_pb2.DT_FLOAT
    nodes = [("w", "TensorArrayWriteV3", ["ta", "index", "value", "ta:1"]),
             ("r", "TensorArrayReadV3", ["ta", "index", "w"]),
             ("n", "TensorArraySizeV3", ["ta", "w"]), *extra]
    for name, op, inputs in nodes:
        graph_def.node.add(name=name, op=op, input=(rewire or {}).get(name, inputs))
    return graph_def


def test_a_hand_made_array_in_tfs_form_imports_and_the_graph_def_is_left_as_it_was():
    graph_def = _array(("close", "TensorArrayCloseV3", ["ta", "^r"]))
    before = graph_def.SerializeToString()
    graph = ds.Graph()
    ds.import_graph_def(graph_def, graph=graph)
    assert graph_def.SerializeToString() == before
    assert graph.get_operation_by_name("close").type == "NoOp"
    with ds.Session(graph=graph) as sess:
        value, size = sess.run(["r:0", "n:0"])
    np.testing.assert_array_equal(value, [5.0, 6.0])
    assert size == 2


def test_a_graph_def_without_tensor_arrays_is_not_copied():
    graph_def = _array()
    del graph_def.node[-4:]
    assert map_tensor_arrays(graph_def) is graph_def


@pytest.mark.parametrize("graph_def, node, message", [
    (_array(("g", "TensorArrayGradV3", ["ta", "w"])), "g",
     r"gradients of TensorArrays do not import"),
    (_array(("ta2", "TensorArrayV3", ["size"]), rewire={"r": ["ta2", "index", "w"]}), "r",
     r"takes the handle of the TensorArray 'ta2' without its flow"),
    (_array(rewire={"r": ["ta", "index", "value"]}), "r",
     r"takes the handle of the TensorArray 'ta' without its flow \('value'"),
    (_array(rewire={"w": ["size", "index", "value", "ta:1"]}), "w",
     r"its handle 'size' is not one a TensorArrayV3 of this GraphDef outputs"),
    (_array(("s", "Shape", ["ta:1"])), "s", r"reads the flow 'ta:1' of the TensorArray 'ta'"),
    (_array(("h", "Shape", ["ta"])), "h", r"reads the handle 'ta:0'"),
    (_array(("v2", "TensorArrayV2", ["size"])), "v2", r"only TF1's V3 TensorArray ops"),
    (_array(("m", "Merge", ["ta:1", "value"])), "m",
     r"joins a TensorArray's flow with 'value:0', which is none"),
])
def test_what_does_not_map_is_refused_naming_the_node(graph_def, node, message):
    assert_refused(graph_def, node, message)
