"""Reductions over inputs whose rank the graph does not know (issue 11): the node is built
as TF1 builds it and reduces every axis (or counts negative axes from the end) of the
value it gets at run time, on every session type, and so do their gradients; TF1's
spellings ``reduction_indices`` and ``keep_dims``; a tensor axis the graph knows."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

REDUCTIONS = [(ds.reduce_sum, np.sum), (ds.reduce_mean, np.mean), (ds.reduce_max, np.max),
              (ds.reduce_min, np.min), (ds.reduce_prod, np.prod)]


@pytest.mark.parametrize("build, reference", REDUCTIONS, ids=lambda f: f.__name__)
def test_every_axis_of_an_unshaped_placeholder(make_session, build, reference):
    x = ds.placeholder(ds.float32)                  # no shape at all
    y = build(x)
    kept = build(x, keep_dims=True)
    assert y.shape.as_list() == [] and kept.shape.ndims is None
    sess = make_session()
    for value in (np.float32(2.5), np.arange(1, 5, dtype=np.float32),
                  np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4) / 10):
        got, got_kept = sess.run([y, kept], {x: value})
        np.testing.assert_allclose(got, reference(value), rtol=1e-5)
        assert np.shape(got_kept) == np.shape(reference(value, keepdims=True))


def test_axes_of_an_unknown_rank_are_settled_per_run(make_session):
    x = ds.placeholder(ds.float32, None)
    last = ds.reduce_sum(x, axis=-1)
    first_and_last = ds.reduce_max(x, reduction_indices=[0, -1], keep_dims=True)
    arg = ds.argmax(x, axis=1)
    arg_last = ds.argmin(x, axis=-1)
    assert all(t.shape.ndims is None for t in (last, first_and_last, arg, arg_last))
    sess = make_session()
    for shape in [(3, 4), (2, 3, 4)]:
        v = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
        a, b, c, d = sess.run([last, first_and_last, arg, arg_last], {x: v})
        np.testing.assert_allclose(a, v.sum(-1), rtol=1e-5)
        np.testing.assert_array_equal(b, v.max(axis=(0, len(shape) - 1), keepdims=True))
        np.testing.assert_array_equal(c, v.argmax(1))
        np.testing.assert_array_equal(d, v.argmin(-1))


def test_an_axis_beyond_the_fed_rank_is_an_invalid_argument():
    x = ds.placeholder(ds.float32, None)
    y = ds.reduce_sum(x, axis=2)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="axis 2 is out of range"):
            sess.run(y, {x: np.ones((2, 2), np.float32)})


def test_tf1_spellings_and_tensor_axes():
    m = ds.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with ds.Session() as sess:
        assert sess.run(ds.reduce_sum(m, reduction_indices=1)).tolist() == [3.0, 12.0]
        assert sess.run(ds.reduce_mean(m, 0, keep_dims=True)).shape == (1, 3)
        assert sess.run(ds.reduce_sum(m, axis=ds.constant([0, 1]))) == 15.0
        assert sess.run(ds.reduce_all(ds.constant([[True, False]]), reduction_indices=[1])) \
            .tolist() == [False]
    with pytest.raises(ValueError, match="^Cannot specify both 'reduction_indices' and 'axis'"):
        ds.reduce_sum(m, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="^Cannot specify both 'keep_dims' and 'keepdims'"):
        ds.reduce_sum(m, keepdims=True, keep_dims=True)
    # TF's deprecated_argument_lookup names the old spelling first, everywhere
    sp = ds.SparseTensor([[0, 0]], [1.0], [2, 2])
    for build, old, new in [
            (lambda: ds.argmax(m, axis=0, dimension=0), "dimension", "axis"),
            (lambda: ds.sparse_reduce_sum(sp, axis=0, reduction_axes=0), "reduction_axes",
             "axis"),
            (lambda: ds.sparse.reduce_max(sp, 0, keepdims=True, keep_dims=True), "keep_dims",
             "keepdims"),
            (lambda: ds.reduce_join([["a"]], axis=0, reduction_indices=0), "reduction_indices",
             "axis"),
            (lambda: ds.reduce_join([["a"]], 0, keepdims=True, keep_dims=True), "keep_dims",
             "keepdims")]:
        with pytest.raises(ValueError, match=f"^Cannot specify both '{old}' and '{new}'"):
            build()
    # (an axis only a run knows: tests/test_unknown_rank.py)


GRADIENT_AXES = [None, 1, -1, (0, -1)]


@pytest.mark.parametrize("build", [ds.reduce_sum, ds.reduce_mean, ds.reduce_max,
                                   ds.reduce_min], ids=lambda f: f.__name__)
@pytest.mark.parametrize("axis", GRADIENT_AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True], ids=["", "keepdims"])
def test_gradients_over_an_unknown_rank_equal_those_over_the_known_shape(
        make_session, build, axis, keepdims):
    """The gradient puts the output gradient back along the axes the reduction went
    over, settled per run as the reduction settles them (every axis, or counted from the
    end); the same graph over a placeholder of known shape is the oracle."""
    value = np.array([[0.5, 3.0, 2.0], [3.0, -1.0, 0.25]], np.float32)   # a tie for max
    grads = []
    for shape in (None, value.shape):
        x = ds.placeholder(ds.float32, shape)
        y = build(x, axis=axis, keepdims=keepdims)
        grads.append((x, ds.gradients(y * 3.0, x)[0]))
    (unknown_x, unknown), (known_x, known) = grads
    sess = make_session()
    got, want = sess.run([unknown, known], {unknown_x: value, known_x: value})
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.abs(want).sum() > 0
