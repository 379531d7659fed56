"""ds.sparse_mask / ds.sparse.mask (TF's Python over ListDiff and a gather) and
ds.sparse_matmul (TF1's SparseMatMul op, MatMul's kernels, TF's gradient) against TF 2.21
(tests/data/sparse_more.json, written by make_sparse_more.py); SparseMatMul's kernels on
every device against the reference, its gradient against finite differences."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from kernel_cases import DEVICES, F32, check_against_ref, make_node
from sparse_more_cases import MASK_CASES, MATMUL_CASES, matmul_inputs

COVERED = {"SparseMatMul"}   # test_kernels.py's coverage check

with open(os.path.join(os.path.dirname(__file__), "data", "sparse_more.json")) as _f:
    TF = json.load(_f)


@pytest.mark.parametrize("name", sorted(MASK_CASES))
def test_sparse_mask_is_tfs(name):
    values, indices, shape, mask = MASK_CASES[name]
    want = TF["mask"][name]
    with ds.Graph().as_default():
        slices = ds.IndexedSlices(ds.constant(np.array(values, np.float32)),
                                  ds.constant(np.array(indices, np.int32)),
                                  None if shape is None else ds.constant(shape))
        masked = ds.sparse_mask(slices, np.array(mask, np.int32), name="masked")
        assert masked.values.shape.as_list() == want["static"]
        assert masked.values.name == "masked:0"
        assert masked.dense_shape is slices.dense_shape
        with ds.Session() as sess:
            got_values, got_indices = sess.run([masked.values, masked.indices])
    assert got_indices.tolist() == want["indices"]
    np.testing.assert_array_equal(got_values.reshape(-1), np.ravel(want["values"]))
    assert got_values.shape[1:] == np.array(values).shape[1:]


def test_sparse_mask_spellings():
    assert ds.sparse.mask is ds.sparse_mask


def _product(name):
    case = MATMUL_CASES[name]
    a_value, b_value = matmul_inputs(case)
    a, b = ds.constant(a_value), ds.constant(b_value)
    product = ds.sparse_matmul(a, b, transpose_a=case["transpose_a"],
                               transpose_b=case["transpose_b"],
                               a_is_sparse=case["a_is_sparse"],
                               b_is_sparse=case["b_is_sparse"])
    return a, b, product


@pytest.mark.parametrize("name", sorted(MATMUL_CASES))
def test_sparse_matmul_and_its_gradient_are_tfs(name):
    want = TF["matmul"][name]
    with ds.Graph().as_default():
        a, b, product = _product(name)
        assert product.op.type == want["op"] and product.dtype.name == want["dtype"]
        assert product.op.get_attr("a_is_sparse") == MATMUL_CASES[name]["a_is_sparse"]
        weights = np.arange(1, product.shape.num_elements() + 1, dtype=np.float32)
        da, db = ds.gradients(ds.reduce_sum(product * weights.reshape(
            product.shape.as_list())), [a, b])
        for options in (None, ds.SessionOptions(device="cpu")):
            with ds.Session(options=options) as sess:
                got = sess.run([product, da, db])
            for value, key in zip(got, ("product", "da", "db")):
                np.testing.assert_allclose(value, np.reshape(want[key], value.shape),
                                           err_msg=f"{name}/{key}")


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_sparse_matmul_gradient_against_finite_differences(transpose_a, transpose_b):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 2) if transpose_a else (2, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3) if transpose_b else (3, 4)).astype(np.float32)
    check_op_gradient(lambda x, y: ds.sparse_matmul(x, y, transpose_a=transpose_a,
                                                    transpose_b=transpose_b), [a, b],
                      eps=1e-2, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("device", DEVICES)
def test_sparse_matmul_kernels_match_the_reference(device):
    rng = np.random.default_rng(11)
    for (m, k, n) in ((1, 1, 1), (7, 5, 3), (4, 0, 2), (0, 3, 2), (33, 17, 9)):
        for ta in (False, True):
            for tb in (False, True):
                a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
                b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
                node = make_node("SparseMatMul", [F32, F32], F32,
                                 {"transpose_a": ta, "transpose_b": tb,
                                  "a_is_sparse": True, "b_is_sparse": False})
                check_against_ref(device, node, a, b, rtol=1e-5, atol=1e-5)


def test_build_time_errors_are_tfs_kinds():
    with ds.Graph().as_default():
        with pytest.raises(TypeError, match="float32, bfloat16"):
            ds.sparse_matmul(ds.constant([[1]]), ds.constant([[2]]))
        with pytest.raises(ValueError, match="rank 2"):
            ds.sparse_matmul(ds.constant([1.0]), ds.constant([[2.0]]))
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            ds.sparse_matmul(ds.zeros([2, 3]), ds.zeros([2, 3]))
