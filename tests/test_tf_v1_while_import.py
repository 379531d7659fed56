"""GraphDefs holding TF1's while loops (Enter/Merge/Switch/LoopCond/NextIteration/Exit,
what tf.while_loop builds under ``tf.disable_v2_behavior()``; made by
tests/data/make_tf_v1_while.py with TensorFlow 2.21) import as devsession's While ops
(devsession/tf_while_import.py) and compute TF's values; what does not import yet is
refused naming the node."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.proto import graph_pb2
from tf_import_cases import WHILE_TYPES, assert_computes_cases, assert_refused, \
    assert_round_trips, body_types, imported, recorded_cases
from tf_recorded import DATA

LOOPS = ("counter", "several", "to_n", "bounded", "with_cond", "nested", "same")


def test_loops_of_every_shape_compute_tfs_values_for_every_feed():
    graph = imported("tf_v1_whiles", name="")
    cases = recorded_cases("tf_v1_whiles")
    assert len(cases) == 3 and len(cases[0][1]) == 9
    assert_computes_cases(graph, cases, ("n", "m"), rtol=1e-6)
    # the feeds reach the loops: zero trips, and maximum_iterations cutting a loop short
    assert cases[1][1]["to_n/Exit_1:0"].shape == (0,)
    assert cases[2][1]["to_n/Exit_1:0"].shape == (3,)
    assert cases[1][1]["bounded/Exit_1:0"] != cases[2][1]["bounded/Exit_1:0"]


def test_the_whiles_have_the_loops_structure():
    graph = imported("tf_v1_whiles", name="")
    types = {op.type for op in graph.get_operations()}
    assert not types & {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit"}
    loops = {op.name for op in graph.get_operations() if op.type in WHILE_TYPES}
    assert loops == {f"{name}/While" for name in LOOPS}
    several = graph.get_operation_by_name("several/While")
    assert len(several.outputs) == 3              # one While for the three loop variables
    assert graph.get_operation_by_name("several/Exit_2").type == "Identity"  # TF's names
    assert "x" in {t.op.name for t in several.inputs[3:]}     # the invariant is captured
    # the nested loop is a While in the outer body; the cond an If in the body
    assert set(body_types(graph, "nested/While")) & set(WHILE_TYPES)
    assert {"If", "StatelessIf"} & body_types(graph, "with_cond/While")
    # a loop variable whose shape grows (TF1's shape_invariants) gets the shape both fit
    assert graph.get_tensor_by_name("to_n/Exit_1:0").shape.as_list() == [None]
    assert graph.get_tensor_by_name("several/Exit_1:0").shape.as_list() == [3]


def test_a_frozen_lstm_classifier_over_an_unknown_time_axis_computes_tfs_values():
    data = np.load(f"{DATA}/tf_v1_while_lstm.npz")
    graph = imported("tf_v1_while_lstm", name="")
    assert graph.get_operation_by_name("rnn/While").type in WHILE_TYPES
    with ds.Session(graph=graph) as sess:
        for k in range(3):
            x = data[f"feed:x{k}"]
            got = sess.run("probs:0", {"x:0": x})
            np.testing.assert_allclose(got, data[f"fetch:x{k}"], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{x.shape[1]} steps")


def test_an_imported_loop_round_trips_through_devsessions_format_and_takes_a_prefix():
    assert_round_trips("tf_v1_whiles", 0, ["nested/Exit_1:0", "with_cond/Exit_1:0",
                                           "to_n/Exit_1:0"], rtol=1e-6)


def test_input_map_reaches_into_the_loops():
    feeds, want = recorded_cases("tf_v1_whiles")[2]
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [3], name="mine")
        n = ds.constant(int(feeds["n:0"]), name="my_n")
        out = ds.import_graph_def(ds.read_graph_def(f"{DATA}/tf_v1_whiles.pb"), name="tf",
                                  input_map={"x:0": x, "n:0": n},
                                  return_elements=["nested/Exit_1:0", "several/Exit_1:0"])
    with ds.Session(graph=graph) as sess:
        got = sess.run(out, {x: feeds["x:0"], "tf/m:0": feeds["m:0"]})
    np.testing.assert_allclose(got[0], want["nested/Exit_1:0"], rtol=1e-6)
    np.testing.assert_allclose(got[1], want["several/Exit_1:0"], rtol=1e-6)


def test_a_loop_over_tensorflows_tensor_arrays_imports_and_scans():
    # tf.scan(lambda acc, row: acc * 0.5 + row, x): TensorArrays in the loop
    # (tests/test_tf_tensor_array_import.py has TF's values for more of them)
    graph = imported("tf_v1_while_scan", name="")
    assert graph.get_operation_by_name("scan/while/While").type in WHILE_TYPES
    x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    want = [x[0]]
    for row in x[1:]:
        want.append(want[-1] * 0.5 + row)
    with ds.Session(graph=graph) as sess:
        np.testing.assert_allclose(sess.run("out:0", {"x:0": x}), want, rtol=1e-6)


# --- hand-made loops: the form, and what is refused ---------------------------------------------

def _counter(*extra, replace=None, rewire=None) -> graph_pb2.GraphDef:
    """``i = 0; while i < 3: i += 3`` in TF1's form, with ``extra`` nodes (name, op,
    inputs[, is_constant of an Enter]), the ops of ``replace`` ({name: op}) and the
    inputs of ``rewire`` ({name: inputs}) changed."""
    with ds.Graph().as_default() as graph:
        ds.constant(0, name="zero")
        ds.constant(3, name="limit")
        ds.constant(True, name="t")
    graph_def = graph.as_graph_def()
    nodes = [("l/Enter", "Enter", ["zero"], False), ("l/lim", "Enter", ["limit"], True),
             ("l/Merge", "Merge", ["l/Enter", "l/Next"]),
             ("l/Less", "Less", ["l/Merge", "l/lim"]), ("l/LoopCond", "LoopCond", ["l/Less"]),
             ("l/Switch", "Switch", ["l/Merge", "l/LoopCond"]),
             ("l/Identity", "Identity", ["l/Switch:1"]),
             ("l/add", "AddV2", ["l/Identity", "l/lim"]),
             ("l/Next", "NextIteration", ["l/add"]), ("l/Exit", "Exit", ["l/Switch"]), *extra]
    for name, op, inputs, *constant in nodes:
        node = graph_def.node.add(name=name, op=(replace or {}).get(name, op),
                                  input=(rewire or {}).get(name, inputs))
        if constant:
            node.attr["frame_name"].s = b"l/while_context"
            node.attr["is_constant"].b = constant[0]
    return graph_def


def test_a_hand_made_loop_in_tf1s_form_imports():
    graph = ds.Graph()
    ds.import_graph_def(_counter(), graph=graph)
    with ds.Session(graph=graph) as sess:
        assert sess.run("l/Exit:0") == 3


@pytest.mark.parametrize("graph_def, node, message", [
    (_counter(replace={"l/Enter": "RefEnter"}), "l/Enter", "over a variable's reference"),
    (_counter(("l/leak", "Cast", ["l/LoopCond"]), rewire={"l/add": ["l/Identity", "l/lim", "^l/leak"]}),
     "l/LoopCond", "is read by its body"),
    (_counter(("l/check", "Assert", ["l/Less", "l/Identity"])), "l/check",
     "neither its cond nor its body needs it"),
    (_counter(("l/other", "Enter", ["zero"], False)), "l/other",
     "is not TF1's Enter -> Merge"),
    (_counter(("l/cond2", "LoopCond", ["l/Less"])), "l/Enter", "has 2 LoopCond nodes"),
])
def test_what_does_not_import_is_refused_naming_the_node(graph_def, node, message):
    assert_refused(graph_def, node, message)
