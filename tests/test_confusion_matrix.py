"""``ds.confusion_matrix`` / ``ds.math.confusion_matrix``: TF1's counts of (label,
prediction) pairs; the expected matrices are what TF 2.21 printed for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def test_counts_weighted_counts_and_the_size_found_from_the_ids():
    weighted = ds.math.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=5,
                                        weights=[1.0, 2.0, 3.0])
    found = ds.confusion_matrix([1, 2, 4], [2, 2, 4])
    as_float = ds.confusion_matrix(ds.constant([0, 1, 1], ds.int64), [1, 1, 0], 2,
                                   dtype=ds.float32, weights=[0.5, 0.25, 2.0])
    assert weighted.dtype == ds.int32 and as_float.dtype == ds.float32
    want = np.zeros((5, 5), np.int32)
    want[1, 2], want[2, 2], want[4, 4] = 1, 2, 3          # TF truncates weights to int32
    with ds.Session() as sess:
        got_weighted, got_found, got_float = sess.run([weighted, found, as_float])
    np.testing.assert_array_equal(got_weighted, want)
    np.testing.assert_array_equal(got_found, np.minimum(want, 1))
    np.testing.assert_array_equal(got_float, [[0.0, 0.5], [2.0, 0.25]])


def test_ids_out_of_range_and_bad_shapes_are_tfs_errors():
    ids = ds.placeholder(ds.int32, [None])
    matrix = ds.confusion_matrix(ids, [0, 1], num_classes=2)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="`labels` out of bound"):
            sess.run(matrix, {ids: [0, 2]})
        with pytest.raises(ds.errors.InvalidArgumentError, match="negative values"):
            sess.run(matrix, {ids: [0, -1]})
    with pytest.raises(ValueError, match="must be a vector"):
        ds.confusion_matrix([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match="differ in length"):
        ds.confusion_matrix([0, 1, 1], [0, 1])
