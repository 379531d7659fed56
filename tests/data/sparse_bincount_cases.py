"""tf.sparse.bincount's cases, shared by make_sparse_bincount.py (TensorFlow) and
tests/test_sparse_bincount.py (devsession): name -> the input (a dense list, or a sparse
{"indices", "values", "shape"}), its dtype, and bincount's keyword arguments (weights as
a list in the input's layout)."""

from __future__ import annotations

CASES = {
    "vector": ([3, 1, 3, 0, 7], "int64", {}),
    "matrix_axis0": ([[1, 2, 2], [5, 1, 0]], "int32", {}),
    "matrix_rows": ([[1, 2, 2], [5, 1, 0]], "int32", {"axis": -1}),
    "weights_rows": ([[10, 20, 30, 20], [11, 101, 11, 10001]], "int64",
                     {"axis": -1, "weights": [[2, 0.25, 15, 0.5], [2, 17, 3, 0.9]]}),
    "binary": ([[1, 1, 4], [2, 2, 2]], "int64", {"axis": -1, "binary_output": True}),
    "minlength": ([1, 2], "int32", {"minlength": 6}),
    "maxlength": ([1, 5, 2, 9, 1], "int32", {"maxlength": 3}),
    "maxlength_unreached": ([1, 2], "int32", {"maxlength": 10, "minlength": 4}),
    "both_lengths": ([[0, 8], [3, 3]], "int64", {"axis": -1, "minlength": 5, "maxlength": 7}),
    "empty": ([], "int64", {}),
    "empty_rows": ([[], []], "int32", {"axis": -1, "minlength": 2}),
    "sparse_axis0": ({"indices": [[0, 3], [1, 7], [2, 4], [3, 0]], "values": [1, 1, 2, 3],
                      "shape": [8, 10]}, "int64", {}),
    "sparse_rows": ({"indices": [[0, 3], [0, 7], [1, 4], [2, 0], [2, 1]],
                     "values": [1, 1, 2, 3, 3], "shape": [3, 10]}, "int64",
                    {"axis": -1, "weights": [0.5, 1.5, 2.0, 1.0, 4.0]}),
    "sparse_rows_binary": ({"indices": [[0, 3], [0, 7], [2, 0]], "values": [4, 4, 1],
                            "shape": [3, 10]}, "int32", {"axis": -1, "binary_output": True}),
}

ERRORS = {
    "negative": ([1, -2, 3], "int32", {}),
}

VALUE_ERRORS = {
    "binary_and_weights": ([1, 2], "int32", {"binary_output": True, "weights": [1.0, 2.0]}),
    "axis_1": ([[1, 2]], "int32", {"axis": 1}),
}

# TF's raw DenseBincount(input, size, weights; binary_output) and SparseBincount(indices,
# values, dense_shape, size, weights; binary_output): name -> input (dense list or sparse
# dict), its dtype, size, weights (list or None) and binary_output
RAW = {
    "dense_vector": ([1, 4, 1, 7], "int32", 5, None, False),
    "dense_weights": ([1, 4, 1], "int64", 3, [0.5, 2.0, 1.25], False),
    "dense_rows_binary": ([[0, 2, 2], [3, 3, 1]], "int32", 4, None, True),
    "dense_rows_weights": ([[0, 2, 2], [3, 3, 1]], "int64", 4, [[1, 2, 3], [4, 5, 6]], False),
    "dense_empty": ([], "int32", 0, None, False),
    "sparse_vector": ({"indices": [[1], [4], [6]], "values": [2, 0, 2], "shape": [8]},
                      "int64", 3, [1.5, 2.5, 3.5], False),
    "sparse_rows": ({"indices": [[0, 1], [0, 3], [2, 0]], "values": [1, 1, 5],
                     "shape": [3, 4]}, "int32", 4, None, False),
    "sparse_rows_binary": ({"indices": [[0, 1], [0, 3], [2, 0]], "values": [1, 1, 2],
                            "shape": [3, 4]}, "int32", 3, None, True),
}
RAW_ERRORS = {
    "dense_negative": ([1, -1], "int32", 3, None, False),
}
