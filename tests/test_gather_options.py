"""gather/gather_nd with ``batch_dims`` and embedding_lookup with ``max_norm``
(``ops/gather_options.py``): values against numpy loops over the batches (and the
cases TF 2.21 printed), gradients, build-time errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def numpy_batch_gather(params, indices, b, axis):
    out = np.empty(params.shape[:axis] + indices.shape[b:] + params.shape[axis + 1:],
                   params.dtype)
    for batch in np.ndindex(*params.shape[:b]):
        out[batch] = np.take(params[batch], indices[batch], axis=axis - b)
    return out


@pytest.mark.parametrize("p_shape, i_shape, b, axis", [
    ((3, 4), (3, 1), 1, 1),             # TF printed [[1], [4], [10]] for arange(12)
    ((2, 3, 5, 2), (2, 3, 4), 2, 2),    # two batch axes, several indices per batch
    ((2, 5, 3), (2, 2, 2), 1, 1),
    ((2, 3, 5), (2, 4), 1, 2),          # the gathered axis after another one
    ((2, 3, 5, 2), (2, 1, 3), 1, 2),
])
def test_gather_with_batch_dims_takes_each_batchs_own_rows(p_shape, i_shape, b, axis):
    rng = np.random.default_rng(4)
    params = rng.standard_normal(p_shape)
    indices = rng.integers(0, p_shape[axis], i_shape)
    p = ds.placeholder(ds.float64, [None] + list(p_shape[1:]))
    got_t = ds.gather(p, indices, axis=axis, batch_dims=b)
    want = numpy_batch_gather(params, indices, b, axis)
    assert got_t.shape.ndims == want.ndim
    (grad,) = ds.gradients(ds.reduce_sum(got_t * got_t), [p])
    with ds.Session() as sess:
        got, got_grad = sess.run([got_t, grad], {p: params})
    np.testing.assert_array_equal(got, want)
    want_grad = np.zeros_like(params)                  # d sum(g^2) = 2 g at each source
    for batch in np.ndindex(*p_shape[:b]):
        moved = np.moveaxis(want_grad[batch], axis - b, 0)
        for k, row in np.ndenumerate(indices[batch]):
            moved[row] += 2 * np.take(np.moveaxis(params[batch], axis - b, 0), row, axis=0)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12)


def test_gather_nd_with_batch_dims_indexes_each_batchs_slice():
    x = np.arange(12.0).reshape(3, 4)
    got = ds.gather_nd(x, [[1], [0], [2]], batch_dims=1)       # TF printed [1., 4., 10.]
    params = np.arange(60.0).reshape(2, 3, 5, 2)
    indices = np.array([[[[1, 0], [4, 1]], [[0, 1], [2, 0]], [[3, 1], [3, 0]]],
                        [[[0, 0], [1, 1]], [[2, 1], [4, 0]], [[1, 0], [0, 1]]]])
    deep = ds.gather_nd(params, indices, batch_dims=2)
    with ds.Session() as sess:
        got_value, deep_value = sess.run([got, deep])
    np.testing.assert_array_equal(got_value, [1.0, 4.0, 10.0])
    want = np.array([[[params[i, j][tuple(c)] for c in indices[i, j]] for j in range(3)]
                     for i in range(2)])
    np.testing.assert_array_equal(deep_value, want)


def test_embedding_lookup_clips_each_row_to_max_norm():
    table = np.arange(12.0).reshape(3, 4)
    ids = np.array([[0, 2], [1, 1]])
    rows = ds.nn.embedding_lookup(table, ids, max_norm=1.0)
    with ds.Session() as sess:
        got = sess.run(rows)
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    want = (table * np.minimum(1.0, 1.0 / np.maximum(norms, 1e-30)))[ids]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got[0, 0], [0.0, 0.267261, 0.534522, 0.801784], rtol=1e-5)


def test_bad_batch_dims_are_build_time_errors():
    params = ds.placeholder(ds.float32, [3, 4])
    with pytest.raises(ValueError, match="must not be less than batch_dims"):
        ds.gather(params, [[0], [1], [2]], axis=0, batch_dims=1)
    with pytest.raises(ValueError, match="batch dimensions of params"):
        ds.gather(params, [[0], [1]], axis=1, batch_dims=1)
    with pytest.raises(ValueError, match=r"batch_dims \(2\) must be in"):
        ds.gather_nd(params, [[0], [1], [2]], batch_dims=2)


def test_the_sparse_lookups_and_embedding_columns_clip_rows_to_max_norm():
    """embedding_lookup_sparse / safe_embedding_lookup_sparse (and so embedding_column)
    clip each looked-up row to ``max_norm`` before combining: TF 2.21's [[0.5897,
    0.8065]] for rows 1 and 2 of arange(6).reshape(3, 2), mean-combined, max_norm 1."""
    params = ds.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    ids = ds.SparseTensor([[0, 0], [0, 1]], ds.constant([1, 2], ds.int64), [1, 2])
    rows = np.arange(6, dtype=np.float64).reshape(3, 2)[1:]
    want = (rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1.0)).mean(0)
    column = ds.feature_column.embedding_column(
        ds.feature_column.categorical_column_with_identity("k", 3), 2, combiner="mean",
        initializer=ds.constant_initializer(np.arange(6.0).reshape(3, 2)), max_norm=1.0)
    layer = ds.feature_column.input_layer({"k": ids}, [column])
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got = sess.run([ds.nn.embedding_lookup_sparse(params, ids, None, combiner="mean",
                                                      max_norm=1.0),
                        ds.nn.safe_embedding_lookup_sparse(params, ids, combiner="mean",
                                                           max_norm=1.0), layer])
    for value in got:
        np.testing.assert_allclose(value, [want], rtol=1e-6)
    np.testing.assert_allclose(want, [0.5896976, 0.80645955], rtol=1e-6)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
def test_gather_gradient_of_params_of_unknown_rank(axis):
    """The gradient of a gather from params whose rank only the run knows (TF's, from
    Shape tensors) equals the one of the known rank; repeated ids add up."""
    params = np.random.default_rng(11).normal(size=(3, 4, 5)).astype(np.float32)
    ids = np.array([[0, 2], [2, 1]], np.int32)
    with ds.Graph().as_default():
        fed = ds.placeholder(ds.float32)
        known = ds.constant(params)
        grads = []
        for p in (fed, known):
            gathered = ds.gather(p, ids, axis=axis)
            weights = ds.cast(ds.reshape(ds.range(ds.size(gathered)), ds.shape(gathered)),
                              ds.float32)
            grads.append(ds.gradients(ds.reduce_sum(gathered * weights), p)[0])
        assert grads[0].shape.ndims is None
        with ds.Session() as sess:
            got, want = sess.run(grads, {fed: params})
    assert got.shape == params.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)
