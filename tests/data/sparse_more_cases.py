"""The cases make_sparse_more.py gives TensorFlow and tests/test_sparse_more.py gives
devsession: tf.sparse_mask's IndexedSlices and masks, tf.sparse_matmul's operands."""

from __future__ import annotations

import numpy as np

# name -> IndexedSlices values, indices, dense_shape (or None), mask_indices
MASK_CASES = {
    "tf_doc": ([[1, 2], [3, 4], [5, 6]], [12, 26, 37], [1000, 2], [12, 45]),
    "all_masked": ([[1.0], [2.0]], [0, 1], [2, 1], [1, 0]),
    "none_masked": ([[1.0, 2.0, 3.0]], [4], None, []),
    "repeated": ([[1.0], [2.0], [3.0]], [5, 5, 2], [6, 1], [2]),
}

# name -> operand shapes (before any transpose) and SparseMatMul's attrs
MATMUL_CASES = {
    "plain": {"a": [2, 3], "b": [3, 4], "transpose_a": False, "transpose_b": False,
              "a_is_sparse": True, "b_is_sparse": False},
    "transpose_a": {"a": [3, 2], "b": [3, 4], "transpose_a": True, "transpose_b": False,
                    "a_is_sparse": False, "b_is_sparse": True},
    "transpose_b": {"a": [2, 3], "b": [4, 3], "transpose_a": False, "transpose_b": True,
                    "a_is_sparse": True, "b_is_sparse": True},
    "both": {"a": [3, 2], "b": [4, 3], "transpose_a": True, "transpose_b": True,
             "a_is_sparse": False, "b_is_sparse": False},
    "one_by_one": {"a": [1, 1], "b": [1, 1], "transpose_a": False, "transpose_b": False,
                   "a_is_sparse": True, "b_is_sparse": False},
    "empty_inner": {"a": [2, 0], "b": [0, 3], "transpose_a": False, "transpose_b": False,
                    "a_is_sparse": True, "b_is_sparse": False},
}


def matmul_inputs(case: dict):
    """float32 operands, mostly zeros (what the sparse hints are for)."""
    rng = np.random.default_rng(len(case["a"]) * 7 + sum(case["a"]) + sum(case["b"]))
    out = []
    for shape in (case["a"], case["b"]):
        values = rng.integers(-3, 4, shape).astype(np.float32)
        values[rng.random(shape) < 0.5] = 0
        out.append(values)
    return out
