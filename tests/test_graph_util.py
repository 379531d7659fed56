"""``ds.graph_util``: TF1's freeze (``convert_variables_to_constants``) and GraphDef pruning
(``extract_sub_graph``, ``remove_training_nodes``), with TF's rules and errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.unsupported import TF1_NAMESPACES, UnsupportedTF1Error


def node_names(graph_def) -> list:
    return [node.name for node in graph_def.node]


def test_names_and_namespace():
    assert "graph_util" not in TF1_NAMESPACES
    assert ds.graph_util.import_graph_def is ds.import_graph_def
    with pytest.raises(UnsupportedTF1Error, match=r"^tf\.graph_util\.nope is not supported"):
        ds.graph_util.nope


# --- freezing ------------------------------------------------------------------------------

def model():
    """A small model with an int64 and a float64 variable beside the float32 ones, an
    optimizer and a saver: what the frozen graph must leave out."""
    x = ds.placeholder(ds.float32, (None, 3), name="x")
    w = ds.get_variable("w", (3, 2), initializer=ds.initializers.orthogonal(seed=1))
    b = ds.get_variable("b", (2,), initializer=ds.constant_initializer([0.5, -0.5]))
    offset = ds.Variable(np.int64(4), name="offset")
    scale = ds.Variable(np.float64(2.0), name="scale")
    y = ds.matmul(x, w) + b
    out = ds.identity(ds.cast(scale, ds.float32) * y, name="out")
    index = ds.identity(ds.argmax(out, axis=1) + offset, name="index")
    loss = ds.reduce_sum(out * out)
    train = ds.train.GradientDescentOptimizer(0.01).minimize(loss)
    ds.train.Saver()
    return x, out, index, train


def test_frozen_graph_imports_and_computes_what_the_session_did(graph):
    x, out, index, train = model()
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(train, {x: feed})                      # values moved from the initial ones
        want = sess.run([out, index], {x: feed})
        frozen = ds.graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), ["out", "index"])
    ops = {node.name: node.op for node in frozen.node}
    assert {ops[name] for name in ("w", "b", "offset", "scale")} == {"Const"}
    assert not {"VariableV2", "Assign", "ApplyGradientDescent", "SaveV2"} & set(ops.values())
    assert all(not name.startswith(("save/", "gradients/", "GradientDescent")) for name in ops)
    order = node_names(graph.as_graph_def())
    kept = [name for name in node_names(frozen) if name in order]
    assert kept == sorted(kept, key=order.index)                               # order kept
    nodes = {node.name: node for node in frozen.node}          # in TF's form (test_tf_export)
    assert nodes["ArgMax"].input[1] == "ArgMax/dimension" and "T" in nodes["ArgMax"].attr
    with ds.Graph().as_default() as fresh:
        out2, index2 = ds.import_graph_def(frozen, return_elements=["out:0", "index:0"],
                                           name="")
        assert fresh.get_tensor_by_name("offset:0").dtype == ds.int64
        assert fresh.get_tensor_by_name("scale:0").dtype == ds.float64
        with ds.Session() as sess:
            got = sess.run([out2, index2], {"x:0": feed})
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_whitelist_and_blacklist_choose_the_variables(graph):
    _, _, _, _ = model()
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        only_w = ds.graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), ["out"], variable_names_whitelist=["w"])
        not_w = ds.graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), ["out"], variable_names_blacklist=["w"])
    assert {n.name: n.op for n in only_w.node if n.name in ("w", "b", "scale")} == {
        "w": "Const", "b": "VariableV2", "scale": "VariableV2"}
    assert {n.name: n.op for n in not_w.node if n.name in ("w", "b", "scale")} == {
        "w": "VariableV2", "b": "Const", "scale": "Const"}


def test_an_uninitialized_variable_cannot_be_frozen(graph):
    model()
    with ds.Session() as sess:
        with pytest.raises(ds.errors.FailedPreconditionError):
            ds.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["out"])


def test_a_graph_without_variables_freezes_to_its_subgraph(graph):
    a = ds.placeholder(ds.float32, (), name="a")
    ds.identity(a * 2.0, name="double")
    ds.identity(a + 1.0, name="unused")
    with ds.Session() as sess:
        frozen = ds.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(),
                                                              ["double"])
    assert "unused" not in node_names(frozen) and "double" in node_names(frozen)


# --- extract_sub_graph ---------------------------------------------------------------------

def test_extract_sub_graph_follows_inputs_and_control_inputs(graph):
    a = ds.placeholder(ds.float32, (), name="a")
    side = ds.identity(a, name="side")
    with ds.control_dependencies([side]):
        ds.identity(a * 3.0, name="tripled")
    ds.identity(a - 1.0, name="other")
    sub = ds.graph_util.extract_sub_graph(graph.as_graph_def(), ["tripled"])
    # "side" only through the control input; "other" and its inputs not at all
    assert node_names(sub) == ["a", "side", "mul/y", "mul", "tripled"]


def test_extract_sub_graph_follows_colocation_hints():
    graph_def = ds.GraphDef()
    graph_def.node.add(name="a", op="NoOp")
    hinted = graph_def.node.add(name="b", op="NoOp")
    hinted.attr["_class"].list.s.append(b"loc:@a")
    graph_def.node.add(name="c", op="NoOp")
    assert node_names(ds.graph_util.extract_sub_graph(graph_def, ["b"])) == ["a", "b"]


def test_extract_sub_graph_errors():
    graph_def = ds.GraphDef()
    graph_def.node.add(name="a", op="NoOp")
    with pytest.raises(TypeError, match="dest_nodes must be an iterable of strings"):
        ds.graph_util.extract_sub_graph(graph_def, "a")
    with pytest.raises(TypeError, match="graph_def must be a graph_pb2.GraphDef"):
        ds.graph_util.extract_sub_graph(b"", ["a"])
    with pytest.raises(AssertionError, match="missing is not in graph"):
        ds.graph_util.extract_sub_graph(graph_def, ["missing"])


# --- remove_training_nodes -----------------------------------------------------------------

def test_remove_training_nodes_splices_identities_and_drops_check_numerics(graph):
    x = ds.placeholder(ds.float32, (None,), name="x")
    a = ds.identity(x, name="a")
    b = ds.stop_gradient(ds.identity(a, name="b"), name="sg")
    c = ds.identity(b * 2.0, name="kept")
    checked = ds.check_numerics(c, "bad", name="checked")
    side = ds.identity(x, name="side")
    with ds.control_dependencies([side]):
        ds.identity(c + 1.0, name="controlled")
    pruned = ds.graph_util.remove_training_nodes(graph.as_graph_def(), protected_nodes=["kept"])
    nodes = {node.name: node for node in pruned.node}
    assert not {"a", "b", "sg", "checked"} & set(nodes)
    assert {"kept", "side", "controlled"} <= set(nodes)    # protected, or in a control edge
    assert list(nodes["mul"].input)[0] == "x"              # a -> b -> sg spliced out
    with ds.Graph().as_default():
        ds.import_graph_def(pruned, name="")
        with ds.Session() as sess:
            got = sess.run("kept:0", {"x:0": [1.0, 2.0]})
    np.testing.assert_array_equal(got, [2.0, 4.0])
    assert checked.op.type == "CheckNumerics"


def test_remove_training_nodes_drops_the_inputs_naming_a_check_numerics():
    graph_def = ds.GraphDef()
    graph_def.node.add(name="a", op="NoOp")
    graph_def.node.add(name="check", op="CheckNumerics", input=["a"])
    graph_def.node.add(name="user", op="NoOp", input=["check", "a", "^check"])
    pruned = ds.graph_util.remove_training_nodes(graph_def)
    assert node_names(pruned) == ["a", "user"]
    assert list(pruned.node[1].input) == ["a"]           # dropped, not rewired (TF's rule)
    kept = ds.graph_util.remove_training_nodes(graph_def, protected_nodes=["check"])
    assert kept == graph_def


# --- small helpers -------------------------------------------------------------------------

def test_tensor_shape_from_node_def_name(graph):
    ds.placeholder(ds.float32, (None, 7), name="x")
    assert ds.graph_util.tensor_shape_from_node_def_name(graph, "x") == (None, 7)
    assert ds.graph_util.tensor_shape_from_node_def_name(graph, "x:0") == (None, 7)


def test_must_run_on_cpu(graph):
    ints = ds.constant([1, 2], name="ints")
    floats = ds.constant([1.0], name="floats")
    words = ds.constant(["a"], name="words")
    cast = ds.cast(ints, ds.float32)
    v = ds.Variable(1.0, name="v")
    rule = ds.graph_util.must_run_on_cpu
    assert rule(ints.op) and rule(words.op) and not rule(floats.op)
    assert rule(cast.op) and not rule(ds.cast(floats, ds.int32).op)
    assert not rule(v.op) and rule(v.op, pin_variables_on_cpu=True)
    node_defs = {node.name: node for node in graph.as_graph_def().node}
    assert rule(node_defs["ints"]) and not rule(node_defs["floats"])
