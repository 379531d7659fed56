"""Importing into a graph that has nodes already: inputs naming existing nodes,
TF1's ``input_map`` and ``return_elements``, all-or-nothing imports, and
``Session.extend`` after a run in every session type, with cached plans kept."""

from __future__ import annotations

import re

import numpy as np
import pytest

import devsession as ds
from devsession.distributed.master.session import MasterSession
from devsession.graph_codec import encode_attr


def base_graph():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 3), name="x")
        out = ds.multiply(x, 2.0, name="out")
    return g, x, out


def new_nodes_graph_def() -> ds.GraphDef:
    """New nodes in TF's form, reading the base graph's 'out' and 'x' (as TF1 scripts
    add summary or eval ops after the first step): Sum with its axes as an input, AddV2,
    inputs written without ':0', and a control input."""
    gd = ds.GraphDef()
    axes = gd.node.add(name="axes", op="Const")
    encode_attr(np.array([1], np.int32), axes.attr["value"])
    encode_attr(ds.int32, axes.attr["dtype"])
    total = gd.node.add(name="total", op="Sum", input=["out", "axes", "^out"])
    encode_attr(True, total.attr["keep_dims"])
    encode_attr(ds.float32, total.attr["T"])
    gd.node.add(name="scaled", op="AddV2", input=["total", "x:0"]).attr["T"].type = \
        ds.float32.enum
    return gd


XV = np.arange(6, dtype=np.float32).reshape(2, 3)


# --- import_graph_def into a graph with nodes --------------------------------------------------

def test_inputs_resolve_to_nodes_already_in_the_graph():
    g, x, out = base_graph()
    ds.import_graph_def(new_nodes_graph_def(), graph=g)
    total = g.get_operation_by_name("total")
    assert total.inputs[0] is out and total.control_inputs == (out.op,)
    with ds.Session(graph=g) as sess:
        got = sess.run("scaled:0", {x: XV})
    np.testing.assert_array_equal(got, (2 * XV).sum(axis=1, keepdims=True) + XV)


def test_nodes_of_the_graph_def_come_before_nodes_of_the_graph():
    g = ds.Graph()
    with g.as_default():
        ds.constant(1.0, name="a")
    gd = ds.GraphDef()
    encode_attr(np.array(5.0, np.float32), gd.node.add(name="a", op="Const").attr["value"])
    gd.node.add(name="b", op="Identity", input=["a"])
    ds.import_graph_def(gd, name="imp", graph=g)
    assert g.get_operation_by_name("imp/b").inputs[0].op.name == "imp/a"


def test_input_map_as_tf1_program_p22():
    src = ds.Graph()
    with src.as_default():
        a = ds.constant(2.0, name="a")
        b = ds.placeholder(ds.float32, (), name="b")
        ds.add(ds.multiply(a, b, name="c"), 1.0, name="d")
    gd = src.as_graph_def()
    g3 = ds.Graph()
    with g3.as_default():
        five = ds.constant(5.0, name="five")
        (d_imp,) = ds.import_graph_def(gd, input_map={"b:0": five}, return_elements=["d:0"],
                                       name="m")
        assert d_imp.name == "m/d:0"
        assert g3.get_operation_by_name("m/c").inputs[1] is five
        with ds.Session() as sess:
            assert sess.run(d_imp) == 11.0


def test_input_map_keys_without_index_and_control_keys():
    g, x, out = base_graph()
    with g.as_default():
        other = ds.constant(np.ones((1, 3), np.float32), name="other")
        marker = ds.no_op(name="marker")
    scaled, total = ds.import_graph_def(
        new_nodes_graph_def(), graph=g, input_map={"out": other, "^out": marker},
        return_elements=["scaled:0", "total"])
    assert total.inputs[0] is other and total.control_inputs == (marker,)
    with ds.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(scaled, {x: XV}), 3.0 + XV)


@pytest.mark.parametrize("input_map,error,message", [
    ({"nowhere:0": "T"}, ValueError, r"not found in graph_def: \[nowhere:0\]"),
    ({"out:0": 3.0}, TypeError, "it takes a Tensor"),
    ({1: "T"}, TypeError, "input names"),
    ({"out:0": "OTHER"}, ValueError, "not in the graph"),
])
def test_bad_input_maps(input_map, error, message):
    g, _, out = base_graph()
    with ds.Graph().as_default():
        elsewhere = ds.constant(1.0)
    values = {"T": out, "OTHER": elsewhere}
    input_map = {k: values.get(v, v) if isinstance(v, str) else v for k, v in input_map.items()}
    before = g.version
    with pytest.raises(error, match=message):
        ds.import_graph_def(new_nodes_graph_def(), graph=g, input_map=input_map)
    assert g.version == before


def test_an_input_map_of_the_wrong_dtype_is_a_value_error_as_tfs():
    """TF1's import_graph_def raises ValueError for a node it cannot create (an input
    mapped to a tensor of another dtype); devsession's error is an InvalidArgumentError
    naming the node as well, and the graph is left as it was."""
    g, _, _ = base_graph()
    with g.as_default():
        ints = ds.zeros([2, 3], ds.int32, name="ints")
    before = g.version
    for error in (ValueError, ds.errors.InvalidArgumentError):
        with pytest.raises(error, match="Cannot import node 'scaled'") as info:
            ds.import_graph_def(new_nodes_graph_def(), graph=g, input_map={"x:0": ints})
        assert info.value.node_name == "scaled"
    assert g.version == before


@pytest.mark.parametrize("name", ["out", "total:1", "^total", "missing:0"])
def test_return_elements_must_name_graph_def_nodes(name):
    g, _, _ = base_graph()
    with pytest.raises(ValueError, match=f"'{re.escape(name)}' was not found in the GraphDef"):
        ds.import_graph_def(new_nodes_graph_def(), graph=g, return_elements=[name])


def test_a_failed_import_leaves_the_graph_as_it_was():
    g, x, out = base_graph()
    before = g.get_operations()
    gd = new_nodes_graph_def()
    bad = gd.node.add(name="bad", op="Reshape", input=["scaled", "x"])  # a float32 shape
    bad.attr["T"].type = ds.float32.enum
    with pytest.raises(ds.errors.InvalidArgumentError, match="'bad'"):
        ds.import_graph_def(gd, graph=g)
    assert g.get_operations() == before
    assert "total" not in g
    with g.as_default():
        assert ds.constant(1.0, name="total").op.name == "total"  # the name is free again
    del gd.node[-1]
    gd.node[1].name = "total2"
    gd.node[2].input[0] = "total2"
    ds.import_graph_def(gd, graph=g)
    assert "scaled" in g


# --- Session.extend in every session type ------------------------------------------------------

def count_builds(sess, monkeypatch) -> list:
    """A list that grows by one each time ``sess`` builds a step (a plan)."""
    builds = []
    build = sess._build_step

    def counting(*args):
        builds.append(args)
        return build(*args)
    monkeypatch.setattr(sess, "_build_step", counting)
    return builds


def test_extend_after_a_run_reads_existing_nodes(make_session, monkeypatch):
    master_builds = []
    build = MasterSession._build
    monkeypatch.setattr(MasterSession, "_build",
                        lambda self, *a: master_builds.append(a) or build(self, *a))
    g, x, out = base_graph()
    sess = make_session(g)
    builds = count_builds(sess, monkeypatch)
    np.testing.assert_array_equal(sess.run(out, {x: XV}), 2 * XV)
    assert len(builds) == 1
    sess.extend(new_nodes_graph_def())
    got, again = sess.run(["scaled:0", out], {x: XV})
    np.testing.assert_array_equal(got, (2 * XV).sum(axis=1, keepdims=True) + XV)
    np.testing.assert_array_equal(again, 2 * XV)
    np.testing.assert_array_equal(sess.run(out, {x: XV}), 2 * XV)
    assert len(builds) == 2  # the first signature kept its plan; the new one built once
    assert len(master_builds) == (2 if sess.sess_str else 0)


def test_extend_twice_and_with_the_sessions_own_graph(make_session, monkeypatch):
    g, x, out = base_graph()
    sess = make_session(g)
    builds = count_builds(sess, monkeypatch)
    sess.run(out, {x: XV})
    sess.extend(new_nodes_graph_def())
    more = ds.GraphDef()
    more.node.add(name="again", op="Neg", input=["scaled"])
    sess.extend(more)
    with g.as_default():
        doubled = ds.multiply(g.get_tensor_by_name("again:0"), 2.0, name="doubled")
    sess.extend(g)  # the session's own graph: nothing to import
    for _ in range(2):
        got = sess.run(doubled, {x: XV})
    np.testing.assert_array_equal(got, -2 * ((2 * XV).sum(axis=1, keepdims=True) + XV))
    assert len(builds) == 2


def test_a_failed_extend_leaves_the_session_usable(make_session):
    g, x, out = base_graph()
    sess = make_session(g)
    sess.run(out, {x: XV})
    bad = new_nodes_graph_def()
    reshape = bad.node.add(name="bad", op="Reshape", input=["scaled", "x"])  # float32 shape
    reshape.attr["T"].type = ds.float32.enum
    with pytest.raises(ds.errors.InvalidArgumentError, match="'bad'"):
        sess.extend(bad)
    sess.extend(new_nodes_graph_def())  # nothing of the failed one was kept
    np.testing.assert_array_equal(sess.run(out, {x: XV}), 2 * XV)
    assert sess.run("scaled:0", {x: XV}).shape == (2, 3)
