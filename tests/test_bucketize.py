"""TF's ``Bucketize`` (ops/bucketize.py): values as TF 2.21's ``math_ops.bucketize`` gave
them for the same inputs (written out below: NaN in the last bucket, an int64 compared
as the float32 it converts to, a double against a float boundary), TF's errors, a
NodeDef TF wrote importing, and the kernel on every device."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.bucketize import bucketize
from devsession.ops.registry import get_gradient
from devsession.proto import graph_pb2
from devsession.tf_export import to_tf_graph_def
from kernel_cases import DEVICES, F32, I32, check_against_ref, make_node

COVERED = {"Bucketize"}


@pytest.mark.parametrize("values, boundaries, expected", [
    (np.array([[-1., 0., 0.5, 1., 2., np.nan, 10.]], np.float32), [0., 1., 2.],
     [[0, 1, 1, 2, 3, 3, 3]]),
    (np.array([16777217, -3, 0, 2], np.int64), [0., 16777216.], [2, 0, 1, 1]),
    (np.array([1.5], np.float64), [1.4999999999], [1]),
    (np.array([1.0], np.float32), [], [0]),
    (np.zeros((0, 3), np.float32), [1.], np.zeros((0, 3), np.int32)),
], ids=["float32", "int64", "float64", "no-boundaries", "empty"])
def test_values_as_tf(values, boundaries, expected):
    y = bucketize(ds.constant(values), boundaries)
    assert (y.op.type, y.dtype, y.shape.as_list()) == ("Bucketize", ds.int32,
                                                       list(values.shape))
    with ds.Session() as sess:
        got = sess.run(y)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


def test_errors_as_tf():
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values: "
                                        "int32, int64, float32, float64"):
        bucketize(ds.constant([True]), [1.])
    with pytest.raises(TypeError, match="DataType int8 not in list"):
        bucketize(ds.constant([1], ds.int8), [1.])
    with ds.Session() as sess, pytest.raises(ds.errors.InvalidArgumentError,
                                             match="Expected sorted boundaries") as e:
        sess.run(bucketize(ds.constant([1.0]), [0., 2., 1.], name="unsorted"))
    assert "unsorted" in str(e.value)
    assert get_gradient("Bucketize") is None


def test_a_node_tensorflow_wrote_imports():
    """The NodeDef ``math_ops.bucketize`` builds (its ``T`` attr, float boundaries)."""
    graph_def = graph_pb2.GraphDef()
    x = graph_def.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = ds.float32.enum
    node = graph_def.node.add(name="Bucketize", op="Bucketize", input=["x"])
    node.attr["T"].type = ds.float32.enum
    node.attr["boundaries"].list.f.extend([0.0, 1.0, 2.0])
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    with ds.Session(graph=graph) as sess:
        got = sess.run("Bucketize:0", {"x:0": np.array([-1., 0.5, 2.5], np.float32)})
    np.testing.assert_array_equal(got, [0, 1, 3])


@pytest.mark.parametrize("device", DEVICES)
def test_kernel_on_every_device(device):
    x = np.array([[-2., 0., 0.25], [1., 3., np.nan]], F32)
    check_against_ref(device, make_node("Bucketize", [F32], I32,
                                        {"boundaries": (-1.0, 0.0, 1.0, 2.5)}), x)
    check_against_ref(device, make_node("Bucketize", [np.dtype(np.int64)], I32,
                                        {"boundaries": (0.0, 4.0)}),
                      np.array([-5, 0, 4, 9], np.int64))


def test_it_exports_in_tensorflows_form():
    graph = ds.Graph()
    with graph.as_default():
        bucketize(ds.placeholder(ds.int64, [None], name="x"), [0, 4], name="b")
    (node,) = [n for n in to_tf_graph_def(graph).node if n.name == "b"]
    assert node.attr["T"].type == ds.int64.enum
    assert list(node.attr["boundaries"].list.f) == [0.0, 4.0]
