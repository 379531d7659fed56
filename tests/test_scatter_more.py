"""ds.scatter_mul / scatter_div / scatter_min / scatter_max (ScatterMul/Div/Min/Max on
reference variables) and ds.tensor_scatter_nd_min / max (TensorScatterMin/Max, with TF's
gradient) against TF 2.21 (tests/data/scatter_more.json, written by
make_scatter_more.py), on the host and on the cupy stand-in's GPU; gradients also
against finite differences."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from gradient_check import check_op_gradient
from kernel_cases import DEVICES, F16, F32, F64, I32, I64, check_against_ref, make_node
from scatter_more_cases import ROW_CASES, ROW_DTYPES, ROW_OPS, TENSOR_CASES, TENSOR_OPS
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)
from test_scans_and_nd import SCATTER_CASES, scatter_inputs, values_of

COVERED = {"TensorScatterMin", "TensorScatterMax"}   # test_kernels.py's coverage check

with open(os.path.join(os.path.dirname(__file__), "data", "scatter_more.json")) as _f:
    TF = json.load(_f)


def _row_results(device: str) -> dict:
    """Every (op, case) of ROW_CASES applied once to a fresh variable, in one run."""
    fetches = {}
    with ds.Graph().as_default():
        with ds.device(device):
            for op in ROW_OPS:
                for name, (value, indices, updates) in ROW_CASES.items():
                    dtype = ROW_DTYPES[name]
                    variable = ds.Variable(np.array(value, dtype))
                    fetches[f"{op}/{name}"] = getattr(ds, op)(
                        variable, np.array(indices, np.int32), np.array(updates, dtype))
        with ds.Session(options=ds.SessionOptions(device=device)) as sess:
            sess.run(ds.global_variables_initializer())
            return sess.run(fetches)


def test_variable_scatters_are_tfs():
    got = _row_results("cpu")
    for key, want in TF["rows"].items():
        dtype = ROW_DTYPES[key.split("/")[1]]
        assert got[key].dtype == np.dtype(dtype), key
        np.testing.assert_allclose(got[key], np.array(want, dtype).reshape(got[key].shape),
                                   rtol=1e-6, err_msg=key)


def test_the_stand_in_gpu_scatters_as_tf(standin):  # noqa: F811
    got = _row_results("gpu:0")
    for key, want in TF["rows"].items():
        np.testing.assert_allclose(got[key], np.reshape(want, got[key].shape), rtol=1e-6,
                                   err_msg=key)


@pytest.mark.parametrize("op", ROW_OPS)
def test_a_bad_row_is_tfs_error_and_changes_nothing(op):
    want = TF["errors"][op]
    with ds.Graph().as_default():
        variable = ds.Variable(np.ones((3, 2), np.float32))
        bad = getattr(ds, op)(variable, [0, 3], np.full((2, 2), 2, np.float32),
                              name=f"{op}_bad_index")
        with ds.Session() as sess:
            sess.run(variable.initializer)
            with pytest.raises(InvalidArgumentError) as error:
                sess.run(bad)
            np.testing.assert_array_equal(sess.run(variable), np.ones((3, 2)))
    assert want["message"] in str(error.value)
    assert error.value.node_name == want["node"]


def test_an_integer_scatter_div_by_zero_is_tfs_error_and_changes_nothing():
    """TF 2.21's (resource) ScatterDiv: integer updates holding a 0 are an
    InvalidArgumentError before any row changes (its ref ScatterDiv dies of SIGFPE); a
    float 0 divides to inf."""
    with ds.Graph().as_default():
        ints = ds.Variable(np.array([10, 20, 30], np.int32))
        floats = ds.Variable(np.array([10.0, 20.0], np.float32))
        updates = ds.placeholder_with_default(np.array([2, 0], np.int32), [2])
        bad = ds.scatter_div(ints, [0, 1], updates, name="divide_rows")
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            with pytest.raises(InvalidArgumentError, match="^ScatterDiv node 'divide_rows': "
                               "updates must not contain 0$") as error:
                sess.run(bad)
            assert error.value.node_name == "divide_rows"
            assert sess.run(ints).tolist() == [10, 20, 30]
            assert sess.run(bad, {updates: [2, -3]}).tolist() == [5, -6, 30]
            assert sess.run(ds.scatter_div(floats, [0], [0.0])).tolist() == [np.inf, 20.0]


def test_variable_scatters_run_twice_and_keep_use_locking():
    with ds.Graph().as_default():
        variable = ds.Variable(np.array([2.0, 3.0], np.float32))
        op = ds.scatter_mul(variable, [1, 1], [2.0, 2.0], use_locking=False)
        assert op.op.get_attr("use_locking") is False
        with ds.Session() as sess:
            sess.run(variable.initializer)
            assert sess.run(op).tolist() == [2.0, 12.0]
            assert sess.run(op).tolist() == [2.0, 48.0]


def test_dtypes_tf_refuses_are_type_errors():
    with ds.Graph().as_default():
        flags = ds.Variable([True, False])
        with pytest.raises(TypeError, match="bool"):
            ds.scatter_mul(flags, [0], [True])
        with pytest.raises(TypeError, match="complex64"):
            ds.scatter_max(ds.Variable(np.ones(2, np.complex64)), [0],
                           np.ones(1, np.complex64))
        with pytest.raises(TypeError, match="bool"):
            ds.tensor_scatter_nd_min([True], [[0]], [False])
        with pytest.raises(TypeError, match="ds.Variable"):
            ds.scatter_div(ds.constant([1.0]), [0], [1.0])


def _tensor_case(name):
    tensor, indices, updates = TENSOR_CASES[name]
    dtype = np.int32 if name == "int" else np.float32
    return (np.array(tensor, dtype), np.array(indices, np.int32),
            np.array(updates, dtype).reshape(-1 if not np.size(updates) else np.shape(updates)))


@pytest.mark.parametrize("op", TENSOR_OPS)
def test_tensor_scatter_extremes_and_gradients_are_tfs(op):
    with ds.Graph().as_default():
        fetches = {}
        for name in TENSOR_CASES:
            tensor, indices, updates = _tensor_case(name)
            x, y = ds.constant(tensor), ds.constant(updates)
            result = getattr(ds, op)(x, indices, y)
            fetches[name] = {"value": result}
            if tensor.dtype.kind == "f":
                weights = np.arange(1, tensor.size + 1, dtype=np.float32).reshape(tensor.shape)
                fetches[name]["dx"], fetches[name]["dy"] = ds.gradients(
                    ds.reduce_sum(result * weights), [x, y])
        with ds.Session() as sess:
            got = sess.run(fetches)
    for name, values in got.items():
        want = TF["tensor"][f"{op}/{name}"]
        for key, value in values.items():
            np.testing.assert_allclose(value, np.reshape(want[key], np.shape(value)),
                                       err_msg=f"{op}/{name}/{key}")


@pytest.mark.parametrize("op", TENSOR_OPS)
def test_tensor_scatter_gradient_against_finite_differences(op):
    rng = np.random.default_rng(3)
    tensor = rng.standard_normal((4, 3))
    updates = rng.standard_normal((3, 3))
    indices = np.array([[2], [0], [2]], np.int32)
    check_op_gradient(lambda x, u: getattr(ds, op)(x, indices, u), [tensor, updates])


@pytest.mark.parametrize("op", TENSOR_OPS)
def test_tensor_scatter_bad_index_is_tfs_error(op):
    want = TF["errors"][op]
    with ds.Graph().as_default():
        where = ds.placeholder(ds.int32, [None, 1])
        bad = getattr(ds, op)(ds.zeros([3, 2]), where, ds.ones([2, 2]),
                              name=f"{op}_bad_index")
        with ds.Session() as sess, pytest.raises(InvalidArgumentError) as error:
            sess.run(bad, {where: [[0], [5]]})
    assert want["message"] in str(error.value)
    assert error.value.node_name == want["node"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F16, F64, I32, I64], ids=str)
def test_tensor_scatter_extreme_kernels_match_the_reference(device, dtype):
    """Every device's kernel against the numpy reference, repeated coordinates and sizes
    0 and 1 among the cases (test_scans_and_nd.py's)."""
    for shape, count, k in SCATTER_CASES:
        indices, updates = scatter_inputs(shape, count, k, dtype, device)
        base = values_of(dtype, shape, "base")
        for op in sorted(COVERED):
            check_against_ref(device, make_node(op, [dtype, I32, dtype], dtype), base,
                              indices, updates)
