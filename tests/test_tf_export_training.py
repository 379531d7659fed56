"""Training graphs in TensorFlow's form (``devsession/tf_export_gradients.py``,
``tf_export_ordering.py``): the gradient nodes devsession writes that TF cannot run
become TF's ops, and a variable's reads come before its updates.

Without TensorFlow: every exported node is TF's op with its attrs, no private op is
left, the export imports back into devsession and trains with the losses of the
original graph, step for step; each private op exported alone computes what it
computes on shapes its static shape left open.  That TensorFlow 2.21 trains these
exports with devsession's losses was checked by hand:
``tests/data/tf_export/check_tf_trains_export.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.tf_export import to_tf_graph_def
from devsession.tf_export_gradients import GRADIENT_FORMS
from test_tf_export import assert_tf_readable
from tf_export_training_cases import CASES, train_losses


def built(name):
    graph = ds.Graph()
    with graph.as_default():
        case = CASES[name]()
    return graph, case


def imported(graph_def) -> ds.Graph:
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def.SerializeToString(), name="")
    return graph


# --- whole training graphs ---------------------------------------------------------------

def test_the_cases_hold_every_op_the_export_rewrites():
    held = set()
    for name in CASES:
        graph, _ = built(name)
        held |= {op.type for op in graph.get_operations()}
    assert set(GRADIENT_FORMS) <= held


@pytest.mark.parametrize("name", CASES)
def test_a_training_graph_exports_as_tfs_ops_only(name):
    graph, _ = built(name)
    graph_def = to_tf_graph_def(graph)
    assert_tf_readable(graph_def)
    ops = {node.op for node in graph_def.node}
    assert not {op for op in ops if op.startswith("_")} and not ops & set(GRADIENT_FORMS)


@pytest.mark.parametrize("name", CASES)
def test_the_export_trains_with_the_losses_of_the_graph(name):
    graph, case = built(name)
    with ds.Session(graph=graph) as sess:
        want = train_losses(sess.run, case)
    with ds.Session(graph=imported(to_tf_graph_def(graph))) as sess:
        got = train_losses(sess.run, case)
    assert want[-1] < want[0]                                 # it trains
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_each_rewritten_node_keeps_its_name_with_tfs_helpers_under_it():
    ops = {}
    for name in ("shapes", "convnet", "embedding"):
        graph, _ = built(name)
        graph_def = to_tf_graph_def(graph)
        nodes = {node.name: node for node in graph_def.node}
        for op in graph.get_operations():
            if op.type in GRADIENT_FORMS:
                helpers = sorted(nodes[n].op for n in nodes if n.startswith(op.name + "/"))
                ops.setdefault(op.type, set()).add((nodes[op.name].op, tuple(helpers)))
    # BroadcastArgs where the static shapes leave open which of the two is wider
    assert ops["_BroadcastToShapeOf"] == {("BroadcastTo", ("Shape",)),
                                          ("BroadcastTo", ("BroadcastArgs", "Shape", "Shape"))}
    assert ops["_ReduceToShapeOf"] == {("Reshape", ("BroadcastGradientArgs", "Shape",
                                                    "Shape", "Sum"))}
    assert ("Reshape", ("Shape",)) not in ops["_ReshapeToShapeOf"]   # all have reduced axes
    assert ("Reshape", ("Const", "Const", "DynamicStitch", "OnesLike", "Shape")) in \
        ops["_ReshapeToShapeOf"]                                     # known rank
    assert ("Cast", ("Size",)) in ops["_ReducedSize"]                # every axis
    assert ("Cast", ("Const", "Const", "Const", "FloorMod", "GatherV2", "Prod", "Rank",
                     "Shape")) in ops["_ReducedSize"]               # axis -1, rank unknown
    assert ops["_SplitToShapesOf"] == {("IdentityN", ("ConcatOffset", "Const", "ShapeN",
                                                      "Slice", "Slice"))}
    assert ops["Conv2DBackpropInputV2"] == {("Conv2DBackpropInput", ("Shape",))}
    assert ops["Conv2DBackpropFilterV2"] == {("Conv2DBackpropFilter", ("Shape",))}


# --- each private op alone, on shapes known only at run time ------------------------------

def _forms(graph):
    """Each private shape op on placeholders of open shapes: {output name: feeds}."""
    f32 = ds.float32
    x = ds.placeholder(f32, None, name="x")                  # rank unknown
    m = ds.placeholder(f32, (None, None), name="m")
    col = ds.placeholder(f32, (None, 1), name="col")
    row = ds.placeholder(f32, (None, None), name="row")
    make = graph.create_op
    make("_BroadcastToShapeOf", [ds.constant(2.0), x], name="bcast_scalar")
    make("_BroadcastToShapeOf", [col, m], name="bcast")            # col widens
    make("_BroadcastToShapeOf", [m, col], name="bcast_wider")      # the value is wider
    make("_ReduceToShapeOf", [m, col], name="reduce_to")
    make("_ReduceToShapeOf", [x, row], name="reduce_lead")         # leading axes too
    make("_ReshapeToShapeOf", [ds.reduce_sum(x, axis=[-1]), x], {"reduced_axes": (-1,)},
         name="reshape_neg")
    make("_ReshapeToShapeOf", [ds.reduce_sum(x), x], {"all_axes": True}, name="reshape_all")
    make("_ReshapeToShapeOf", [ds.reshape(x, [-1]), x], name="reshape_plain")
    make("_ReducedSize", [x], {"axis": (0, -1), "dtype": ds.float32}, name="size_axes")
    make("_ReducedSize", [x], {"axis": (), "all_axes": True, "dtype": ds.int32},
         name="size_all")
    make("_SplitToShapesOf", [m, col, row], {"axis": 1}, name="split")
    make("_SplitToShapesOf", [m, m], {"axis": 0}, name="split_one")   # checked by form
    rng = np.random.default_rng(1)
    values = {"x": rng.standard_normal((2, 3, 4)), "m": rng.standard_normal((2, 5)),
              "col": rng.standard_normal((2, 1)), "row": rng.standard_normal((2, 4))}
    return {f"{k}:0": v.astype(np.float32) for k, v in values.items()}


@pytest.mark.parametrize("fetch", ["bcast_scalar", "bcast", "bcast_wider", "reduce_to", "reduce_lead",
                                   "reshape_neg", "reshape_all", "reshape_plain",
                                   "size_axes", "size_all", "split", "split:1"])
def test_each_private_op_exported_computes_what_it_computes(graph, fetch):
    feeds, fetch = _forms(graph), fetch if ":" in fetch else f"{fetch}:0"
    if fetch == "reduce_lead:0":
        feeds["x:0"] = feeds["x:0"][:, :2]                       # (2, 2, 4): sums axis 0
        feeds["row:0"] = np.ones((2, 4), np.float32)
    with ds.Session(graph=graph) as sess:
        want = sess.run(fetch, feeds)
    graph_def = to_tf_graph_def(graph)
    assert_tf_readable(graph_def)
    with ds.Session(graph=imported(graph_def)) as sess:
        got = sess.run(fetch, feeds)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_forms_chosen_by_static_shapes(graph):
    _forms(graph)
    nodes = {node.name: node for node in to_tf_graph_def(graph).node}
    assert nodes["bcast_scalar"].input[1] == "bcast_scalar/Shape"
    # the static shapes leave open which is wider: both shapes broadcast
    assert nodes["bcast"].input[1] == "bcast/BroadcastArgs"
    assert list(nodes["bcast/BroadcastArgs"].input) == ["bcast/Shape_x", "bcast/Shape"]
    assert nodes["split"].op == "IdentityN" and nodes["split_one"].op == "Identity"
    assert nodes["size_all"].op == "Identity" and nodes["size_all/Size"].op == "Size"


# --- reads before updates -------------------------------------------------------------------

def test_an_update_waits_for_the_gradient_reading_its_variable_and_not_for_a_saver():
    graph, _ = built("mlp_adam")
    with graph.as_default():
        ds.train.Saver()
    nodes = {node.name: node for node in to_tf_graph_def(graph).node}
    update = nodes["Adam/update_logits/kernel/ApplyAdam"]
    reader = "gradients/logits/MatMul_grad/MatMul"          # d loss / d hidden: kernel^T
    assert "logits/kernel/read" in nodes[reader].input
    assert f"^{reader}" in update.input
    assert not any("save" in name for name in update.input)
    # the forward MatMul precedes the update already: no edge is added for it
    assert "^logits/MatMul" not in update.input
    assert to_tf_graph_def(graph) == to_tf_graph_def(graph.as_graph_def())


def test_reads_and_updates_whose_order_cannot_be_kept_are_refused(graph):
    a, b = ds.Variable(1.0, name="a"), ds.Variable(2.0, name="b")
    update_a = ds.assign_add(a, 1.0, name="update_a")
    with ds.control_dependencies([update_a]):
        read_b = ds.multiply(b, 2.0, name="read_b")          # b read after a's update
    update_b = ds.assign_add(b, 1.0, name="update_b")
    with ds.control_dependencies([update_b]):
        read_a = ds.multiply(a, 3.0, name="read_a")          # and a after b's
    ds.group(read_a, read_b, name="both")
    with pytest.raises(ds.errors.UnimplementedError, match="cannot be made to keep") as e:
        to_tf_graph_def(graph)
    assert e.value.node_name in ("update_a", "update_b")
