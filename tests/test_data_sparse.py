"""Datasets whose elements hold SparseTensors (``devsession/data/structure.py``'s
SparseSpec): a ``map`` returning one, the functions of later stages receiving one,
``batch``/``unbatch`` of them as TF's BatchDataset (``kernels/reference/dataset_sparse.py``),
``zip``/``concatenate``/``filter`` passing them, and the stages that need dense
components refusing them.  Expected values are worked out in numpy here; the same
pipelines gave equal values under TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
import window_cases as _window

ROWS = np.array([[1, 0, 2], [0, 0, 3], [4, 5, 0]], np.int64)


def to_sparse(row):
    where = ds.where(ds.not_equal(row, 0))
    return ds.SparseTensor(where, ds.gather_nd(row, where), ds.shape(row, out_type=ds.int64))


def sparse_rows():
    return ds.data.Dataset.from_tensor_slices(ROWS).map(to_sparse)


def elements(dataset) -> list:
    return _window.values(ds, dataset)           # every element, run to the end


def entries(rows: np.ndarray) -> tuple:
    """(indices, values, dense_shape) of ``rows``' nonzero entries, row-major."""
    return np.argwhere(rows != 0), rows[rows != 0], np.array(rows.shape)


def assert_sparse(value, rows: np.ndarray):
    indices, values, shape = entries(rows)
    assert isinstance(value, ds.SparseTensorValue)
    np.testing.assert_array_equal(value.indices, indices)
    np.testing.assert_array_equal(value.values, values)
    np.testing.assert_array_equal(value.dense_shape, shape)


def test_a_map_returning_a_sparse_tensor_gives_sparse_elements_and_batches():
    with ds.Graph().as_default():
        single, batched = sparse_rows(), sparse_rows().batch(2)
        assert ds.data.get_output_classes(single) is ds.SparseTensor
        assert single.output_shapes.as_list() == [3]
        assert batched.output_shapes.as_list() == [None, 3]
        assert sparse_rows().batch(2, drop_remainder=True).output_shapes.as_list() == [2, 3]
        for value, row in zip(elements(single), ROWS):
            assert_sparse(value, row)
        first, last = elements(batched)
        assert_sparse(first, ROWS[:2])
        assert_sparse(last, ROWS[2:])


def test_later_functions_receive_sparse_elements():
    with ds.Graph().as_default():
        dense = sparse_rows().batch(2).map(lambda s: ds.sparse.to_dense(s) * 10)
        kept = sparse_rows().filter(lambda s: ds.size(s.values) > 1).map(ds.sparse.reduce_sum)
        assert [v.tolist() for v in elements(dense)] == [(ROWS[:2] * 10).tolist(),
                                                         (ROWS[2:] * 10).tolist()]
        assert elements(kept) == [ROWS[0].sum(), ROWS[2].sum()]


def test_zip_concatenate_and_dicts_carry_sparse_components():
    with ds.Graph().as_default():
        dense = ds.data.Dataset.from_tensor_slices(ROWS)
        (pair,) = elements(ds.data.Dataset.zip((sparse_rows(), dense)).batch(3))
        assert_sparse(pair[0], ROWS)
        np.testing.assert_array_equal(pair[1], ROWS)
        (twice,) = elements(sparse_rows().concatenate(sparse_rows()).batch(6))
        assert_sparse(twice, np.concatenate([ROWS, ROWS]))
        named = dense.map(lambda r: {"s": to_sparse(r), "n": ds.reduce_sum(r)}).batch(3)
        (both,) = elements(named)
        assert_sparse(both["s"], ROWS)
        np.testing.assert_array_equal(both["n"], ROWS.sum(axis=1))
        with pytest.raises(TypeError, match="concatenate"):
            sparse_rows().concatenate(dense)


def test_unbatch_splits_sparse_batches_as_they_were():
    with ds.Graph().as_default():
        dense = ds.data.Dataset.from_tensor_slices(ROWS)
        rows = ds.data.Dataset.zip((sparse_rows(), dense)).batch(2).unbatch()
        assert [s.as_list() for s in rows.output_shapes] == [[3], [3]]
        got = elements(rows)
        assert len(got) == 3
        for (sparse, row), expected in zip(got, ROWS):
            assert_sparse(sparse, expected)
            np.testing.assert_array_equal(row, expected)


def test_var_len_features_parsed_in_a_map_batch_as_sparse_tensors():
    def example(ids):
        feature = ds.train.Feature(int64_list=ds.train.Int64List(value=ids))
        return ds.train.Example(features=ds.train.Features(
            feature={"ids": feature})).SerializeToString()

    with ds.Graph().as_default():
        records = ds.data.Dataset.from_tensor_slices(
            np.array([example([1, 2]), example([]), example([7])], object))
        parsed = records.map(lambda r: ds.parse_single_example(
            r, {"ids": ds.VarLenFeature(ds.int64)})).batch(3)
        (batch,) = elements(parsed)
    assert_sparse(batch["ids"], np.array([[1, 2], [0, 0], [7, 0]]))


def test_sparse_tensors_of_different_ranks_do_not_batch():
    with ds.Graph().as_default():
        vectors = ds.data.Dataset.range(2).map(
            lambda n: ds.SparseTensor(ds.zeros([1, n + 1], ds.int64), [1.0],
                                      ds.fill([n + 1], np.int64(3))))
        assert vectors.output_shapes.ndims is None
        with pytest.raises(ds.errors.InvalidArgumentError, match="different ranks"):
            elements(vectors.batch(2))


def test_stages_that_need_dense_components_refuse_sparse_ones():
    with ds.Graph().as_default():
        for build, kind in ((lambda: sparse_rows().padded_batch(2, [3]), "padded_batch"),
                            (lambda: sparse_rows().window(2), "window"),
                            (lambda: sparse_rows().unique(), "unique"),
                            (lambda: sparse_rows().apply(ds.data.experimental.group_by_reducer(
                                lambda s: np.int64(0), ds.data.experimental.Reducer(
                                    lambda k: np.int64(0), lambda n, s: n, lambda n: n))),
                             "group_by_reducer")):
            with pytest.raises(TypeError, match=kind):
                build()
