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
