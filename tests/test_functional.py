"""``ds.map_fn``, ``ds.scan``, ``ds.foldl``, ``ds.foldr``: structures, empty inputs,
the shape-unknown path and errors (values and gradients against TensorFlow:
tests/tf1_programs/p31_functional.py)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

ROWS = np.arange(12, dtype=np.float32).reshape(4, 3)


def test_map_fn_over_a_dict_returns_another_structure():
    x = ds.placeholder(ds.float32, [None, 3])
    k = ds.placeholder(ds.int64, [None])
    out = ds.map_fn(lambda e: {"scaled": e["x"] * ds.cast(e["k"], ds.float32),
                               "first": e["x"][0]}, {"x": x, "k": k})
    with ds.Session() as sess:
        got = sess.run(out, {x: ROWS, k: [1, 2, 3, 4]})
    np.testing.assert_array_equal(got["scaled"], ROWS * np.arange(1, 5)[:, None])
    np.testing.assert_array_equal(got["first"], ROWS[:, 0])


def test_zero_elements_give_empty_results_of_the_known_shape():
    x = ds.placeholder(ds.float32, [None, 3])
    mapped = ds.map_fn(lambda r: r * 2.0, x)
    scanned = ds.scan(lambda a, r: a + r, x, initializer=ds.zeros([3]))
    folded = ds.foldl(lambda a, r: a + r, x, initializer=ds.ones([3]))
    with ds.Session() as sess:
        got = sess.run([mapped, scanned, folded], {x: np.zeros((0, 3), np.float32)})
    assert got[0].shape == (0, 3) and got[1].shape == (0, 3)
    np.testing.assert_array_equal(got[2], np.ones(3))


def test_results_of_unknown_shape_run_from_a_first_element_outside_the_loop():
    x = ds.placeholder(ds.float32, [None, 3])
    n = ds.placeholder(ds.int32, [])
    cut = ds.map_fn(lambda r: r[:n], x)
    assert cut.shape.as_list() == [None, None]
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(cut, {x: ROWS, n: 2}), ROWS[:, :2])
        np.testing.assert_array_equal(sess.run(cut, {x: ROWS[:1], n: 3}), ROWS[:1])


def test_zero_elements_with_results_of_unknown_shape_are_unimplemented_as_tf():
    # TF's scan and map_fn stack TensorArrays: a zero-size one without a fully defined
    # element shape is UnimplementedError (the one-step CRF batch's scan over steps 1:)
    x = ds.placeholder(ds.float32, [None, None, 4])
    n = ds.placeholder(ds.int32, [])
    scanned = ds.scan(lambda a, e: a + e, ds.transpose(x[:, 1:], [1, 0, 2]),
                      initializer=x[:, 0])
    mapped = ds.map_fn(lambda r: r[:n], ds.zeros([0, 3]))
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(scanned, {x: np.ones((2, 3, 4))}),
                                      np.ones((2, 2, 4)) * [[[2.0]], [[3.0]]])
        with pytest.raises(ds.errors.UnimplementedError,
                           match=r"size zero, but element shape \[\?,4\] is not fully"):
            sess.run(scanned, {x: np.ones((2, 1, 4))})
        with pytest.raises(ds.errors.UnimplementedError,
                           match=r"size zero, but element shape \[\?\] is not fully"):
            sess.run(mapped, {n: 2})


def test_folds_without_an_initializer_start_from_an_end():
    x = ds.constant(ROWS)
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(ds.foldl(lambda a, r: a - r, x)),
                                      ROWS[0] - ROWS[1] - ROWS[2] - ROWS[3])
        np.testing.assert_array_equal(sess.run(ds.foldr(lambda a, r: a - r, x)),
                                      ROWS[3] - ROWS[2] - ROWS[1] - ROWS[0])
        np.testing.assert_array_equal(sess.run(ds.scan(lambda a, r: a * r, x, reverse=True)),
                                      np.cumprod(ROWS[::-1], axis=0)[::-1])


def test_bad_arguments_are_build_time_errors():
    with pytest.raises(ValueError, match="rank >= 1"):
        ds.map_fn(lambda r: r, ds.constant(1.0))
    with pytest.raises(ValueError, match="first dimensions differ"):
        ds.map_fn(lambda e: e[0], (ds.zeros([2, 3]), ds.zeros([3, 3])))
    with pytest.raises(TypeError, match="dtype says"):
        ds.map_fn(lambda r: r, ds.zeros([2, 3]), dtype=ds.int32)


def test_gradients_flow_through_loops_over_elements_of_static_length():
    # The accumulator a loop of known length stacks into grows from [0, 3] to [4, 3]: its
    # gradient has the start's shape, each iteration's the invariant's [None, 3].
    x = ds.constant(ROWS.astype(np.float64))
    w = ds.constant(np.array([0.5, -1.0, 2.0]))
    mapped = ds.map_fn(lambda r: r * r * w, x)
    scanned = ds.scan(lambda a, r: a * w + r, x, initializer=ds.zeros([3], ds.float64))
    assert mapped.shape.as_list() == [4, 3] and scanned.shape.as_list() == [4, 3]
    grads = ds.gradients(ds.reduce_sum(mapped) + ds.reduce_sum(scanned), [x, w])
    with ds.Session() as sess:
        grad_x, grad_w = sess.run(grads)
    rows, weights = ROWS.astype(np.float64), np.array([0.5, -1.0, 2.0])
    # scan: a_t = sum_{s<=t} r_s w^(t-s); d sum_t a_t / d r_s = sum_{t>=s} w^(t-s)
    powers = np.array([[weights ** (t - s) if t >= s else 0 * weights for t in range(4)]
                       for s in range(4)]).sum(axis=1)
    np.testing.assert_allclose(grad_x, 2 * rows * weights + powers, rtol=1e-12)
    scan_w = sum((t - s) * rows[s] * weights ** max(t - s - 1, 0)
                 for t in range(4) for s in range(t))
    np.testing.assert_allclose(grad_w, (rows ** 2).sum(axis=0) + scan_w, rtol=1e-12)
