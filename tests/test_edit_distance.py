"""``tf.edit_distance`` (ops/edit_distance.py): TF's EditDistance, values as TF 2.21's
``tf.compat.v1.edit_distance`` gave them for the same SparseTensors (written out below:
normalized and not, an empty truth against a non-empty and an empty hypothesis, output
shapes the larger of the two), TF's errors, and a NodeDef TF wrote importing."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.kernels.reference.edit_distance import levenshtein
from devsession.ops.registry import get_gradient
from devsession.proto import graph_pb2

HYP = ([[0, 0, 0], [1, 0, 0], [1, 0, 1], [2, 1, 0]], ["a", "b", "c", "x"], [3, 2, 2])
TRUTH = ([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]], ["a", "b", "b", "y"], [3, 2, 2])


def _sparse(indices, values, shape, dtype=None):
    return ds.SparseTensor(indices, ds.constant(values, dtype), shape)


@pytest.mark.parametrize("normalize, expected", [
    (True, [[0.5, 0.0], [1.0, 1.0], [0.0, np.inf]]),
    (False, [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
])
def test_values_as_tf(normalize, expected, make_session):
    d = ds.edit_distance(_sparse(*HYP), _sparse(*TRUTH), normalize=normalize)
    assert (d.op.type, d.dtype, d.shape.as_list()) == ("EditDistance", ds.float32, [3, 2])
    got = make_session(d.graph).run(d)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)


def test_int_sequences_and_shapes_of_different_sizes_as_tf():
    hyp = _sparse([[0, 0], [0, 1], [0, 2]], [1, 2, 3], [1, 3], ds.int64)
    truth = _sparse([[0, 0], [0, 1]], [1, 3], [1, 2], ds.int64)
    wider_truth = ds.SparseTensor([[0, 0]], ["a"], [2, 1])
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(ds.edit_distance(hyp, truth)), [0.5])
        # the output takes the larger leading dimension: row 1 is empty on both sides
        np.testing.assert_array_equal(sess.run(ds.edit_distance(
            ds.SparseTensor([[0, 0]], ["a"], [1, 1]), wider_truth)), [0.0, 0.0])
        # a SparseTensorValue, with its entries out of order
        value = ds.SparseTensorValue([[0, 1], [0, 0]], np.array([b"b", b"a"], object), [1, 2])
        np.testing.assert_array_equal(sess.run(ds.edit_distance(value, wider_truth,
                                                                normalize=False)), [1.0, 0.0])


def test_errors_as_tf():
    with pytest.raises(TypeError, match="Input 'truth_values' of 'EditDistance' Op has type "
                                        "int64 that does not match type string of argument "
                                        "'hypothesis_values'"):
        ds.edit_distance(ds.SparseTensor([[0, 0]], ["a"], [1, 1]),
                         _sparse([[0, 0]], [1], [1, 1], ds.int64))
    with pytest.raises(TypeError, match="Hypothesis must be a SparseTensor"):
        ds.edit_distance(ds.constant([[1]]), _sparse([[0, 0]], [1], [1, 1]))
    with pytest.raises(TypeError, match="Truth must be a SparseTensor"):
        ds.edit_distance(_sparse([[0, 0]], [1], [1, 1]), ds.constant([[1]]))
    assert get_gradient("EditDistance") is None


def test_levenshtein_against_a_direct_count():
    assert levenshtein(list("kitten"), list("sitting")) == 3
    assert levenshtein([], list("abc")) == 3 and levenshtein(list("ab"), []) == 2
    assert levenshtein(list("flaw"), list("lawn")) == 2


def test_a_node_tensorflow_wrote_imports():
    """The NodeDef ``tf.edit_distance`` builds (its ``T``, ``normalize``)."""
    graph = ds.Graph()
    with graph.as_default():
        for prefix, (indices, values, shape) in (("h", HYP), ("t", TRUTH)):
            ds.constant(np.array(indices, np.int64), name=f"{prefix}/indices")
            ds.constant(np.array(values, object), name=f"{prefix}/values")
            ds.constant(np.array(shape, np.int64), name=f"{prefix}/shape")
        graph_def = graph.as_graph_def()
    node = graph_def.node.add(name="edit_distance", op="EditDistance",
                              input=[f"{p}/{k}" for p in "ht"
                                     for k in ("indices", "values", "shape")])
    node.attr["T"].type = ds.string.enum
    node.attr["normalize"].b = True
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph_pb2.GraphDef.FromString(graph_def.SerializeToString()),
                            name="")
    with ds.Session(graph=imported) as sess:
        np.testing.assert_array_equal(sess.run("edit_distance:0"),
                                      [[0.5, 0.0], [1.0, 1.0], [0.0, np.inf]])
