"""``tf.sets`` (ops/set_operations.py): intersection, union, difference and size of the
sets along the last dimension, dense and sparse, against what TF 2.21's ``tf.compat.v1``
gave for the same inputs (written out below), and its static shapes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.registry import get_gradient
from kernel_cases import DEVICES, I32, I64, check_against_ref, make_node

COVERED = {"DenseToDenseSetOperation", "DenseToSparseSetOperation",
           "SparseToSparseSetOperation", "SetSize"}
InvalidArgumentError = ds.errors.InvalidArgumentError

A = [[1, 2, 2], [3, 4, 5]]
B = [[2, 7, 1, 1], [9, 9, 9, 9]]


def sparse_b():
    return ds.SparseTensor([[0, 0], [0, 1], [1, 2]], ds.constant([5, 1, 4], ds.int64), [2, 3])


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def triple(value) -> tuple:
    return value.indices.tolist(), value.values.tolist(), value.dense_shape.tolist()


@pytest.mark.parametrize("build, want", [
    (lambda a, b, s: ds.sets.set_intersection(a, b), ([[0, 0], [0, 1]], [1, 2], [2, 2])),
    (lambda a, b, s: ds.sets.union(a, b),
     ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]], [1, 2, 7, 3, 4, 5, 9], [2, 4])),
    (lambda a, b, s: ds.sets.difference(a, b), ([[1, 0], [1, 1], [1, 2]], [3, 4, 5],
                                                [2, 3])),     # row 0's set is empty
    (lambda a, b, s: ds.sets.difference(s, a), ([[0, 0]], [5], [2, 1])),       # swapped
    (lambda a, b, s: ds.sets.difference(a, s), ([[0, 0], [1, 0], [1, 1]], [2, 3, 5], [2, 2])),
    (lambda a, b, s: ds.sets.difference(a, s, aminusb=False), ([[0, 0]], [5], [2, 1])),
    (lambda a, b, s: ds.sets.intersection(s, s), ([[0, 0], [0, 1], [1, 0]], [1, 5, 4],
                                                  [2, 2])),
    (lambda a, b, s: ds.sets.union(s, a),
     ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], [1, 2, 5, 3, 4, 5], [2, 3])),
], ids=["intersection", "union", "difference", "sparse-minus-dense", "dense-minus-sparse",
        "b-minus-a", "sparse-sparse", "sparse-dense-union"])
def test_values_as_tf(build, want):
    a, b = ds.constant(A, ds.int64), ds.constant(B, ds.int64)
    result = build(a, b, sparse_b())
    assert isinstance(result, ds.SparseTensor)
    assert triple(run(result)) == want


def test_op_types_attrs_and_static_shapes_as_tf():
    a, b = ds.constant(A, ds.int64), ds.constant(B, ds.int64)
    r = ds.sets.set_intersection(a, b)
    assert (r.indices.op.type, r.indices.name) == ("DenseToDenseSetOperation",
                                                   "DenseToDenseSetOperation:0")
    assert (r.indices.shape.as_list(), r.values.shape.as_list(),
            r.dense_shape.shape.as_list()) == ([None, 2], [None], [2])
    flipped = ds.sets.difference(sparse_b(), a).indices.op
    assert flipped.type == "DenseToSparseSetOperation"
    assert flipped.get_attr("set_operation") in ("b-a", b"b-a")
    assert ds.sets.intersection(sparse_b(), sparse_b()).indices.op.type == \
        "SparseToSparseSetOperation"
    p = ds.placeholder(ds.int32, [None, None, 4])
    assert ds.sets.union(p, p).indices.shape.as_list() == [None, 3]
    unknown = ds.placeholder(ds.int32)
    assert ds.sets.union(unknown, unknown).indices.shape.as_list() == [None, None]
    size = ds.sets.size(sparse_b())
    assert (size.op.type, size.dtype, size.shape.ndims) == ("SetSize", ds.int32, None)


def test_size_and_nested_groups():
    assert run(ds.sets.size(sparse_b())).tolist() == [2, 1]
    v3 = ds.constant([[[1, 2], [2, 2]], [[3, 3], [1, 4]]])
    assert run(ds.sets.size(ds.sets.union(v3, v3))).tolist() == [[2, 1], [1, 2]]
    unordered = ds.SparseTensor([[0, 1], [0, 0]], ds.constant([5, 1]), [2, 3])
    assert run(ds.sets.size(unordered, validate_indices=False)).tolist() == [2, 0]


def test_strings_sort_and_empty_sets():
    st = ds.SparseTensor([[0, 0], [0, 1]], ds.constant([b"b", b"a"]), [1, 2])
    assert run(ds.sets.union(st, st)).values.tolist() == [b"a", b"b"]
    empty = ds.SparseTensor(ds.zeros([0, 2], ds.int64), ds.constant([], ds.int64), [2, 3])
    value = run(ds.sets.union(empty, empty))
    assert value.indices.shape == (0, 2) and value.dense_shape.tolist() == [2, 0]
    value = run(ds.sets.union(ds.constant([[1, 2], [3, 4]], ds.int64), empty))
    assert triple(value) == ([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 2, 3, 4], [2, 2])


def test_build_time_errors_as_tf():
    with pytest.raises(ValueError, match="at least rank 2 but is rank 1"):
        ds.sets.union(ds.constant([1, 2]), ds.constant([1, 2]))
    with pytest.raises(TypeError, match="'a' has invalid dtype"):
        ds.sets.union(ds.constant([[1.0, 2]]), ds.constant([[1.0, 2]]))
    with pytest.raises(TypeError, match="Types don't match, int32 vs int64"):
        ds.sets.union(ds.constant([[1, 2]]), ds.constant([[1, 2]], ds.int64))
    with pytest.raises(ValueError, match="must be equal"):
        ds.sets.union(ds.constant([[1, 2]]), ds.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="Expected `SparseTensor`"):
        ds.sets.size(ds.constant([[1, 2]]))
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        ds.sets.union(ds.constant([[1]], ds.int64),
                      ds.SparseTensor([[0, 0, 0]], ds.constant([1], ds.int64), [1, 3, 3]))


def test_run_time_errors_as_tf():
    p = ds.placeholder(ds.int32)
    union = ds.sets.union(p, ds.constant([[1, 2]]))
    with pytest.raises(InvalidArgumentError, match=r"Shape \[2\] has rank 1 < 2"):
        run(union, {p: [1, 2]})
    with pytest.raises(InvalidArgumentError, match=r"Mismatched shapes \[2\] vs \[1\]"):
        run(union, {p: [[1, 2], [3, 4]]})
    cases = [
        (ds.SparseTensor([[0]], ds.constant([1], ds.int64), [3]), "Invalid rank 1."),
        (ds.SparseTensor([[0, 5]], ds.constant([1], ds.int64), [3, 3]),
         r"indices\[0\] = \[0,5\] is out of bounds: need 0 <= index < \[3,3\]"),
        (ds.SparseTensor([[0, 1], [0, 0]], ds.constant([5, 1]), [2, 3]),
         r"indices\[1\] = \[0,0\] is out of order"),
    ]
    for sparse, message in cases:
        with pytest.raises(InvalidArgumentError, match=message) as info:
            run(ds.sets.size(sparse))
        assert "SetSize" in str(info.value)
    with pytest.raises(InvalidArgumentError, match=r"Mismatched shapes \[2\] vs \[3\]"):
        run(ds.sets.union(sparse_b(),
                          ds.SparseTensor([[0, 0]], ds.constant([1], ds.int64), [3, 3])))


def test_namespace_and_no_gradients():
    assert ds.sets.intersection is ds.sets.set_intersection
    assert ds.sets.size is ds.sets.set_size
    with pytest.raises(ds.unsupported.UnsupportedTF1Error, match="tf.sets.nothing"):
        ds.sets.nothing
    for op in COVERED:
        assert get_gradient(op) is None, op


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_on_every_device(device):
    a = np.array([[4, 1, 4], [0, 2, 2]], I64)
    b = np.array([[1, 9], [2, 3]], I64)
    indices, values, shape = (np.array([[0, 0], [0, 2], [1, 1]], I64),
                              np.array([4, 7, 0], I64), np.array([2, 3], I64))
    outputs = (I64, I64, I64)
    for operation in ("a-b", "b-a", "intersection", "union"):
        attrs = {"set_operation": operation, "validate_indices": True}
        for op, dtypes_in, inputs in [
                ("DenseToDenseSetOperation", [I64, I64], (a, b)),
                ("DenseToSparseSetOperation", [I64, I64, I64, I64], (a, indices, values, shape)),
                ("SparseToSparseSetOperation", [I64] * 6,
                 (indices, values, shape, indices[:1], values[:1], shape))]:
            node = make_node(op, dtypes_in, I64, attrs)
            node = node.__class__(**{**node.__dict__, "output_dtypes": outputs})
            check_against_ref(device, node, *inputs)
    node = make_node("SetSize", [I64, I64, I64], I32, {"validate_indices": True})
    check_against_ref(device, node, indices, values, shape)
