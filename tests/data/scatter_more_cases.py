"""The variable scatters (ScatterMul/Div/Min/Max) and TensorScatterMin/Max cases that
make_scatter_more.py gives TensorFlow and tests/test_scatter_more.py gives devsession."""

from __future__ import annotations

import numpy as np

ROW_OPS = ("scatter_mul", "scatter_div", "scatter_min", "scatter_max")
TENSOR_OPS = ("tensor_scatter_nd_min", "tensor_scatter_nd_max")

# name -> variable value, indices, updates (the updates' dtype is the variable's)
ROW_CASES = {
    "f32_repeated": ([[1.0, -2.0], [3.0, 4.0], [5.0, 0.5]], [2, 0, 2],
                     [[2.0, 3.0], [-1.0, 0.25], [4.0, -8.0]]),
    "i32_negative": ([7, -7, 9, 100], [[0, 1], [3, 3]], [[2, 2], [-3, 5]]),
    "f64_vector": ([0.5, 2.0, -4.0], [1], [8.0]),
    "empty_indices": ([[1.0], [2.0]], np.zeros((0,), np.int32), np.zeros((0, 1))),
    "one_row": ([[3]], [0], [[-2]]),
}
ROW_DTYPES = {"f32_repeated": "float32", "i32_negative": "int32", "f64_vector": "float64",
              "empty_indices": "float32", "one_row": "int64"}

# name -> tensor, indices (coordinate tuples), updates
TENSOR_CASES = {
    "rows": ([[1.0, 5.0], [2.0, -1.0], [0.0, 0.0]], [[0], [2], [0]],
             [[3.0, 4.0], [-1.0, 1.0], [0.5, 9.0]]),
    "elements": ([[1.0, 5.0], [2.0, -1.0]], [[0, 1], [1, 0], [0, 1]], [5.0, 7.0, 2.0]),
    "ties": ([2.0, 2.0, 1.0], [[0], [0], [2]], [2.0, 3.0, 1.0]),
    "int": ([[4, -4]], [[0, 1]], [-9]),
    "empty": ([1.0, 2.0], np.zeros((0, 1), np.int32), np.zeros((0,), np.float32)),
}
