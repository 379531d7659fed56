"""Sparse updates of variables in place (``ds.scatter_update/add/sub``,
``ds.scatter_nd_update/add/sub``): values against numpy, repeated indices, bad indices
leaving the variable unchanged, build-time errors, fetched values never changing
afterwards, and the same updates on the cupy stand-in's GPU (``kernels/cuda/state.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)

START = np.arange(12, dtype=np.float32).reshape(4, 3)
ROWS = np.array([[3], [0], [3]], np.int64)           # row 3 twice
ROW_UPDATES = np.arange(9, dtype=np.float32).reshape(3, 1, 3) + 100
COORDS = np.array([[1, 2], [3, 0], [1, 2]], np.int32)  # (1, 2) twice
POINT_UPDATES = np.array([5.0, -1.0, 7.0], np.float32)


def numpy_scatter(op: str, value, index, updates):
    """The effect of ``op`` as a loop over the index entries (repeats accumulate)."""
    out = value.copy()
    nd = "Nd" in op
    entries = index.reshape(-1, index.shape[-1]) if nd else index.reshape(-1)
    slices = updates.reshape((len(entries),) + out.shape[index.shape[-1] if nd else 1:])
    for entry, u in zip(entries.tolist(), slices):
        where = tuple(entry) if nd else entry
        if op.endswith("Update"):
            out[where] = u
        elif op.endswith("Add"):
            out[where] += u
        else:
            out[where] -= u
    return out


CASES = [(ds.scatter_add, "ScatterAdd", ROWS, ROW_UPDATES),
         (ds.scatter_sub, "ScatterSub", ROWS, ROW_UPDATES),
         (ds.scatter_update, "ScatterUpdate", ROWS[:2], ROW_UPDATES[:2]),
         (ds.scatter_nd_add, "ScatterNdAdd", COORDS, POINT_UPDATES),
         (ds.scatter_nd_sub, "ScatterNdSub", COORDS, POINT_UPDATES),
         (ds.scatter_nd_update, "ScatterNdUpdate", COORDS[:2], POINT_UPDATES[:2])]


def run_twice(build, index, updates, device="cpu"):
    """The op's fetched value after one and after two runs, and the variable's value."""
    with ds.device(device):
        variable = ds.Variable(START)
        op = build(variable, index, updates)
    with ds.Session(options=ds.SessionOptions(device=device)) as sess:
        sess.run(ds.global_variables_initializer())
        first = sess.run(op)
        second = sess.run(op)
        return first, second, sess.run(variable)


@pytest.mark.parametrize("build,op,index,updates", CASES, ids=[c[1] for c in CASES])
def test_scatters_change_the_variable_as_numpy_says(build, op, index, updates):
    first, second, final = run_twice(build, index, updates)
    once = numpy_scatter(op, START, index, updates)
    np.testing.assert_array_equal(first, once)          # fetched before the second run
    np.testing.assert_array_equal(second, numpy_scatter(op, once, index, updates))
    np.testing.assert_array_equal(final, second)


@pytest.mark.parametrize("build,op,index,updates", CASES, ids=[c[1] for c in CASES])
def test_the_stand_in_gpu_updates_the_same_way(standin, build, op, index, updates):  # noqa: F811
    first, second, final = run_twice(build, index, updates, device="gpu:0")
    once = numpy_scatter(op, START, index, updates)
    np.testing.assert_array_equal(first, once)
    np.testing.assert_array_equal(final, numpy_scatter(op, once, index, updates))


def test_a_bad_index_names_the_node_and_changes_nothing():
    variable = ds.Variable(START)
    bad_row = ds.scatter_add(variable, [1, 4], np.ones((2, 3), np.float32))
    bad_point = ds.scatter_nd_update(variable, [[0, 0], [0, 3]], [1.0, 2.0])
    wrong_updates = ds.scatter_update(variable, ds.placeholder(ds.int32, [None]),
                                      ds.placeholder(ds.float32, [None, 3]))
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = 4 is not in \[0, 4\)"):
            sess.run(bad_row)
        with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = \[0, 3\] does not "
                                                       r"index into shape \[4,3\]"):
            sess.run(bad_point)
        with pytest.raises(InvalidArgumentError, match="updates must have shape"):
            sess.run(wrong_updates, {"Placeholder:0": [0, 1],
                                     "Placeholder_1:0": np.ones((3, 3))})
        np.testing.assert_array_equal(sess.run(variable), START)


def test_build_time_errors():
    variable = ds.Variable(START)
    with pytest.raises(TypeError, match="ds.Variable"):
        ds.scatter_update(ds.constant(START), [0], START[:1])
    with pytest.raises(TypeError, match="int32 or int64"):
        ds.scatter_add(variable, [0.5], START[:1])
    with pytest.raises(ValueError, match="updates .* have shape"):
        ds.scatter_sub(variable, [0, 1], START[:1])
    with pytest.raises(ValueError, match="length 3, more than the rank 2"):
        ds.scatter_nd_add(variable, [[0, 1, 2]], [1.0])
    with pytest.raises(ValueError, match="scalar"):
        ds.scatter_update(ds.Variable(1.0), [0], [2.0])


def test_scatters_are_not_differentiable():
    variable = ds.Variable(START)
    updates = ds.placeholder(ds.float32, [1, 3])
    assert ds.gradients(ds.scatter_add(variable, [0], updates), updates) == [None]
