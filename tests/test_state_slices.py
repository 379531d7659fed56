"""A strided slice of a variable written in place (``v[key].assign(x)``,
``ds.assign(v[key], x)``: StridedSliceAssign, ``ops/state_slices.py``): values against
numpy's slice assignment (strides, negative steps, ``...``, ``None``, a broadcast value),
TF's node names, TF's errors (a value that does not broadcast changes nothing), and the
same writes on the cupy stand-in's GPU (``kernels/cuda/state.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)

START = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
# (numpy's key, the value written): each applied in turn to one variable
WRITES = [((slice(None), 0, slice(None)), np.ones((2, 3), np.float32)),
          ((1, slice(1, 3)), np.array([[7, 8, 9], [1, 2, 3]], np.float32)),
          ((slice(None), slice(None, None, 2), 1), np.float32(5)),        # broadcast
          ((slice(None), slice(None, None, -1), 2), np.arange(8, dtype=np.float32)
           .reshape(2, 4) + 50),
          ((Ellipsis, None, 1), np.full((2, 4, 1), 3, np.float32))]


def _numpy_key(key):
    return tuple(np.newaxis if k is None else k for k in key)


def _written(device):
    """The fetched value after each write (one run each, in order) and the variable."""
    with ds.Graph().as_default(), ds.device(device):
        variable = ds.Variable(START)
        writes = [variable[key].assign(value) if i % 2 else ds.assign(variable[key], value)
                  for i, (key, value) in enumerate(WRITES)]
        with ds.Session(options=ds.SessionOptions(device=device)) as sess:
            sess.run(variable.initializer)
            return [sess.run(w) for w in writes], sess.run(variable)


def _numpy_writes():
    want, value = [], START.copy()
    for key, written in WRITES:
        value[_numpy_key(key)] = written
        want.append(value.copy())
    return want


def test_slices_of_a_variable_are_written_as_numpy_writes_them():
    got, final = _written("cpu")
    for step, (g, w) in enumerate(zip(got, _numpy_writes())):
        np.testing.assert_array_equal(g, w, err_msg=f"write {step}")
    np.testing.assert_array_equal(final, _numpy_writes()[-1])


def test_the_stand_in_gpu_writes_the_same(standin):  # noqa: F811
    got, final = _written("gpu:0")
    np.testing.assert_array_equal(np.asarray(final), _numpy_writes()[-1])


def test_the_op_is_tfs_named_and_shaped_and_a_constant_slice_has_no_assign():
    with ds.Graph().as_default():
        variable = ds.Variable(START)
        first = variable[:, 0].assign(np.zeros((2, 3), np.float32))
        named = variable[0].assign(np.zeros((4, 3), np.float32), name="dd")
        with ds.name_scope("scope"):
            scoped = variable[0, 0].assign([0.0, 0.0, 0.0])
        assert (first.op.type, first.name, named.name, scoped.name) == (
            "StridedSliceAssign", "strided_slice/_assign:0", "dd:0",
            "scope/scope/strided_slice/_assign:0")
        assert first.shape == (2, 4, 3) and first.op.inputs[0].op.type == "VariableV2"
        assert not hasattr(ds.constant(START)[0], "assign")
        with pytest.raises(TypeError, match="int32 that does not match type float32"):
            variable[0].assign(ds.zeros([4, 3], ds.int32))
        with pytest.raises(LookupError):
            ds.gradients(ds.reduce_sum(first), variable)


def test_a_value_that_does_not_broadcast_is_tfs_error_and_changes_nothing():
    with ds.Graph().as_default():
        variable = ds.Variable(START)
        bad = variable[:, 0, :].assign(np.ones((2, 4), np.float32))
        with ds.Session() as sess:
            sess.run(variable.initializer)
            with pytest.raises(InvalidArgumentError,
                               match=r"Cannot broadcast input shape \[2,4\] into final "
                                     r"shape \[2,3\]") as error:
                sess.run(bad)
            np.testing.assert_array_equal(sess.run(variable), START)
    assert error.value.node_name == "strided_slice/_assign"
