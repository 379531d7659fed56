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
