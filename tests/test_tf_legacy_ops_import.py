"""Op types older TF 1.x releases wrote into frozen models, and TF's image color and math
ops devsession builds from others (``devsession/tf_legacy_ops.py``), imported from a
GraphDef TensorFlow 2.21 wrote (tests/data/tf_legacy_ops.pb, by
tests/data/make_tf_legacy_ops.py) and run against TF's values; what cannot be built is
refused naming the node."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.tf_legacy_ops import COMPOSITES, REWRITES
from tf_import_cases import imported
from tf_recorded import DATA

TF = np.load(f"{DATA}/tf_legacy_ops.npz")
FETCHES = sorted(k[len("fetch:"):] for k in TF.files)


@pytest.fixture(scope="module")
def values():
    graph = imported("tf_legacy_ops")
    with ds.Session(graph=graph) as sess:
        return dict(zip(FETCHES, sess.run(FETCHES)))


@pytest.mark.parametrize("fetch", FETCHES)
def test_values_are_tfs(values, fetch):
    got, want = values[fetch], TF[f"fetch:{fetch}"]
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_every_mapped_type_is_recorded():
    graph_def = ds.read_graph_def(f"{DATA}/tf_legacy_ops.pb")
    assert set(COMPOSITES) | set(REWRITES) <= {node.op for node in graph_def.node}


def _node(op: str, name: str, inputs, **attrs):
    node = ds.NodeDef(name=name, op=op)
    node.input.extend(inputs)
    for key, value in attrs.items():
        node.attr[key].CopyFrom(value)
    return node


def _graph_def(*nodes):
    graph_def = ds.GraphDef()
    graph_def.node.extend(nodes)
    return graph_def


def _const(name, value):
    return _node("Const", name, [], value=ds.AttrValue(tensor=ds.make_tensor_proto(value)),
                 dtype=ds.AttrValue(type=ds.as_dtype(np.asarray(value).dtype).as_datatype_enum))


def test_inputs_needed_while_building_must_be_constants():
    x = _node("Placeholder", "x", [], dtype=ds.AttrValue(type=ds.float32.as_datatype_enum))
    dims = _node("Placeholder", "dims", [], dtype=ds.AttrValue(type=ds.bool.as_datatype_enum))
    reverse = _node("Reverse", "old_reverse", ["x", "dims"])
    with ds.Graph().as_default():
        with pytest.raises(ds.errors.UnimplementedError, match="old_reverse.*the dims"):
            ds.import_graph_def(_graph_def(x, dims, reverse), name="")


def test_unique_v2_over_another_axis_is_refused():
    x = _const("x", np.array([[1, 2], [1, 2]], np.int32))
    axis = _const("axis", np.array([1], np.int32))
    unique = _node("UniqueV2", "unique", ["x", "axis"])
    with ds.Graph().as_default():
        with pytest.raises(ds.errors.UnimplementedError, match="'unique' \\(UniqueV2\\)"):
            ds.import_graph_def(_graph_def(x, axis, unique), name="")


def _div_graph(op: str, dtype, divisors):
    """x (a placeholder of ``dtype``, fed) ``op`` y (a Const), as a TF GraphDef holds it."""
    x = _node("Placeholder", "x", [], dtype=ds.AttrValue(type=ds.as_dtype(dtype).as_datatype_enum))
    y = _const("y", np.array(divisors, dtype))
    division = _node(op, "old_" + op.lower(), ["x", "y"],
                     T=ds.AttrValue(type=ds.as_dtype(dtype).as_datatype_enum))
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(_graph_def(x, y, division), name="")
    return graph


# tf.raw_ops.Div / Mod in TF 2.21: truncating, and x by 0 is "Integer division by zero"
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op, want", [("Div", [3, -3, -3, 0]), ("Mod", [1, -1, 1, 0])])
def test_integer_div_and_mod_truncate(op, want, dtype):
    graph = _div_graph(op, dtype, [2, 2, -2, 5])
    with ds.Session(graph=graph) as sess:
        got = sess.run(f"old_{op.lower()}:0", {"x:0": np.array([7, -7, 7, 0], dtype)})
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op", ["Div", "Mod"])
def test_integer_div_and_mod_by_zero_is_tfs_invalid_argument(op, dtype):
    graph = _div_graph(op, dtype, [2, 0, 0])
    with ds.Session(graph=graph) as sess:
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match=f"old_{op.lower()}.*Integer division by zero"):
            sess.run(f"old_{op.lower()}:0", {"x:0": np.array([7, -7, 3], dtype)})


def test_integer_div_of_an_empty_output_by_zero_divides_nothing():
    graph = _div_graph("Div", np.int32, [0])
    with ds.Session(graph=graph) as sess:
        got = sess.run("old_div:0", {"x:0": np.zeros([0], np.int32)})
    assert got.shape == (0,)
