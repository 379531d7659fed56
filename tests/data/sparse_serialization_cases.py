"""The SparseTensors and bad inputs that make_sparse_serialization.py gives TensorFlow and
tests/test_sparse_serialization.py gives devsession (shared so that both see the same)."""

from __future__ import annotations

import numpy as np

# name -> indices, values (with their dtype) and dense shape
SPARSE = {
    "f32_2d": {"indices": [[0, 1], [2, 0], [2, 3]], "values": [1.5, -2, 3],
               "dtype": "float32", "shape": [3, 4]},
    "i32_3d": {"indices": [[0, 0, 1], [1, 1, 0], [1, 1, 2], [3, 0, 0]],
               "values": [7, -1, 0, 2**31 - 1], "dtype": "int32", "shape": [4, 2, 3]},
    "strings": {"indices": [[0, 0], [1, 2]], "values": ["a", ""], "dtype": "string",
                "shape": [2, 3]},
    "long_strings": {"indices": [[0, 0], [0, 1]], "values": ["x" * 200, "\u00e9z"],
                     "dtype": "string", "shape": [1, 2]},
    "bool": {"indices": [[1, 0]], "values": [True], "dtype": "bool", "shape": [2, 1]},
    "f64_vector": {"indices": [[2], [5]], "values": [0.25, -1e300], "dtype": "float64",
                   "shape": [6]},
    "f32_vector": {"indices": [[1]], "values": [2.0], "dtype": "float32", "shape": [3]},
    "empty": {"indices": np.zeros((0, 2), np.int64), "values": [], "dtype": "float32",
              "shape": [3, 2]},
    "no_rows": {"indices": np.zeros((0, 2), np.int64), "values": [], "dtype": "int64",
                "shape": [0, 5]},
    "one_row": {"indices": [[0, 4]], "values": [9], "dtype": "int64", "shape": [1, 5]},
}

# name -> (what fails, its input): serialize_many_sparse of a bad SparseTensor, or
# deserialize_many_sparse of rows (the serialize_sparse bytes of SPARSE cases, or raw hex)
ERRORS = {
    "many_rank1": ("serialize_many_sparse", SPARSE["f64_vector"]),
    "many_out_of_range": ("serialize_many_sparse",
                          {"indices": [[0, 1], [3, 0]], "values": [1.0, 2.0],
                           "dtype": "float32", "shape": [3, 4]}),
    "many_unsorted": ("serialize_many_sparse",
                      {"indices": [[2, 1], [0, 0]], "values": [1.0, 2.0],
                       "dtype": "float32", "shape": [3, 4]}),
    "many_negative": ("serialize_many_sparse",
                      {"indices": [[-1, 1]], "values": [1.0], "dtype": "float32",
                       "shape": [3, 4]}),
    "des_dtype": ("deserialize_many_sparse", {"rows_of": ["f32_2d"], "dtype": "int32"}),
    "des_ranks": ("deserialize_many_sparse", {"rows_of": ["f32_2d", "f32_vector"],
                                              "dtype": "float32"}),
    "des_garbage": ("deserialize_many_sparse", {"raw": ["ff01", "00", "01"],
                                                "dtype": "float32"}),
    "des_not_rows_of_3": ("deserialize_many_sparse", {"raw": ["", ""], "dtype": "float32",
                                                      "shape": [1, 2]}),
    "des_no_rows": ("deserialize_many_sparse", {"raw": [], "dtype": "float32",
                                                "shape": [0, 3]}),
}


def sparse_value(case: dict):
    """(indices int64 [N, R], values of the case's dtype, dense shape int64)."""
    dtype = object if case["dtype"] == "string" else np.dtype(case["dtype"])
    values = case["values"]
    if dtype is object:
        values = np.array([v.encode() for v in values], object).reshape(-1)
    else:
        values = np.array(values, dtype).reshape(-1)
    indices = np.array(case["indices"], np.int64).reshape(-1, len(case["shape"]))
    return indices, values, np.array(case["shape"], np.int64)


def error_rows(case: dict, serialized: dict) -> np.ndarray:
    """The string array a deserialize error case feeds: each named SPARSE case's
    serialize_sparse bytes (``serialized[name]``: three hex strings) as a row, or the
    raw hex strings in the case's shape."""
    if "rows_of" in case:
        rows = [[bytes.fromhex(s) for s in serialized[name]] for name in case["rows_of"]]
        return np.array(rows, object).reshape(len(rows), 3)
    return np.array([bytes.fromhex(s) for s in case["raw"]], object).reshape(
        case.get("shape", [-1]))
