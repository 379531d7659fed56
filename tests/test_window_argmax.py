"""MaxPoolWithArgmax and Dilation2D (with their gradient ops) and TF's pooling,
convolution and moment spellings built from existing ops (``ops/nn_nd.py``,
``ops/nn_moments.py``):

* TF 2.21's values (tests/data/make_tf_nn_spellings.py): the GraphDef TF wrote, imported
  and run (argmax layouts with ties, dilation's SAME/VALID padding with strides and
  rates), the same values from graphs ``ds.nn`` builds, and TF's gradients;
* the reference kernels against TF's recorded values and a NaN case written here; every
  device's kernels (CPU, a GPU where there is one, the CUDA module on the numpy
  stand-in) against the reference;
* gradients against finite differences (float64);
* ValueError when the graph is built, InvalidArgumentError naming the node when it runs.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from gradient_check import check_op_gradient
from kernel_cases import DEVICES, F16, F32, F64, I32, I64, check_against_ref, make_node, run_on
from tf_recorded import DATA, run_recorded, tf_static_shape

COVERED = frozenset({"MaxPoolWithArgmax", "MaxPoolGradWithArgmax",
                     "MaxPoolGradGradWithArgmax", "Dilation2D", "Dilation2DBackpropInput",
                     "Dilation2DBackpropFilter"})


def recorded():
    return np.load(f"{DATA}/tf_nn_spellings.npz")


def feeds(data):
    return {k[5:]: data[k] for k in data if k.startswith("feed:")}


def argmax_node(dtype, ksize, strides, padding, batch=False, op="MaxPoolWithArgmax",
                index=I64):
    attrs = {"ksize": (1, *ksize, 1), "strides": (1, *strides, 1), "padding": padding,
             "include_batch_in_index": batch, "Targmax": index}
    if op == "MaxPoolWithArgmax":
        return make_node(op, [dtype], dtype, attrs)
    return make_node(op, [dtype, dtype, index], dtype, attrs)


def dilation_node(dtype, strides, rates, padding, op="Dilation2D"):
    attrs = {"strides": (1, *strides, 1), "rates": (1, *rates, 1), "padding": padding}
    return make_node(op, [dtype] * (2 if op == "Dilation2D" else 3), dtype, attrs)


# ------------------------------------------------------------------- TF's values

def test_tfs_graph_def_runs_with_tfs_values_and_static_shapes():
    graph, names, values, data = run_recorded("tf_nn_spellings")
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        if want.dtype.kind == "i":
            np.testing.assert_array_equal(value, want, err_msg=name)
        else:
            np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=name)
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name


def _built_by_ds(t):
    """The recorded outputs, built by devsession's builders (keys as the make script's)."""
    x = t["x"]
    argmax = ds.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    argmax_b = ds.nn.max_pool_with_argmax(x, [1, 2, 3, 1], [1, 1, 2, 1], "VALID",
                                          include_batch_in_index=True)
    dilated = ds.nn.dilation2d(x, t["k"], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
    dilated_valid = ds.nn.dilation2d(x, t["k"], [1, 1, 2, 1], [1, 2, 1, 1], "VALID")
    eroded = ds.nn.erosion2d(x, t["k"], [1, 1, 1, 1], [1, 2, 2, 1], "SAME")
    counts, m_ss, v_ss, shift = ds.nn.sufficient_statistics(x, [0, 1], shift=0.5)
    outs = {
        "max_pool2d": ds.nn.max_pool2d(x, 3, 2, "SAME"),
        "avg_pool2d": ds.nn.avg_pool2d(x, [2, 3], 1, "VALID"),
        "max_pool1d": ds.nn.max_pool1d(t["x1"], 3, 2, "SAME"),
        "avg_pool1d": ds.nn.avg_pool1d(t["x1"], 2, 1, "SAME"),
        "max_pool_v2_3d": ds.nn.max_pool_v2(t["x3"], 2, 2, "VALID"),
        "avg_pool_v2_2d": ds.nn.avg_pool_v2(x, 2, 2, "SAME"),
        "pool_max_dilated": ds.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 3]),
        "pool_avg_dilated_1d": ds.nn.pool(t["x1"], [2], "AVG", "VALID", dilation_rate=[3]),
        "pool_avg_3d": ds.nn.pool(t["x3"], [2, 2, 2], "AVG", "SAME", strides=[1, 2, 2]),
        "pool_max_1d": ds.nn.pool(t["x1"], [3], "MAX", "SAME", strides=[2]),
        "convolution_2d": ds.nn.convolution(x, t["f2"], "SAME", dilation_rate=[2, 1]),
        "convolution_1d": ds.nn.convolution(t["x1"], t["f1"], "VALID", strides=[2]),
        "convolution_3d": ds.nn.convolution(t["x3"], t["f3"], "SAME", dilation_rate=2),
        "conv1d_transpose": ds.nn.conv1d_transpose(t["y1"], t["f1"], [2, 11, 3], 2, "VALID"),
        "conv_transpose": ds.nn.conv_transpose(t["y2"], t["f2"], [2, 7, 6, 3], 2, "SAME"),
        "argmax_output": argmax[0], "argmax_argmax": argmax[1],
        "argmax_b_output": argmax_b[0], "argmax_b_argmax": argmax_b[1],
        "dilation2d": dilated, "dilation2d_valid": dilated_valid,
        "ss_counts": counts, "ss_mean": m_ss, "ss_var": v_ss,
        "normalize_mean": ds.nn.normalize_moments(counts, m_ss, v_ss, shift)[0],
        "normalize_variance": ds.nn.normalize_moments(counts, m_ss, v_ss, None)[1],
        "weighted_mean": ds.nn.weighted_moments(x, [1, 2], t["w"])[0],
        "weighted_variance": ds.nn.weighted_moments(x, [1, 2], t["w"], keepdims=True)[1],
        "bn_global": ds.nn.batch_norm_with_global_normalization(
            x, ds.constant([0.5, 1.0, -1.0]), ds.constant([2.0, 0.5, 1.0]),
            ds.constant([0.1, 0.2, 0.3]), ds.constant([1.5, 2.0, 0.5]), 0.001, True),
    }

    def weighted(y):
        return ds.reduce_sum(y * ds.cast(ds.reshape(ds.range(ds.size(y)), ds.shape(y)),
                                         y.dtype))
    grads = {
        "argmax": [ds.gradients(weighted(argmax[0]), x)[0]],
        "argmax_b": [ds.gradients(weighted(argmax_b[0]), x)[0]],
        "dilation2d": ds.gradients(weighted(dilated), [x, t["k"]]),
        "dilation2d_valid": ds.gradients(weighted(dilated_valid), [x, t["k"]]),
        "erosion2d": ds.gradients(weighted(eroded), [x, t["k"]]),
    }
    return outs, grads, eroded


def test_ds_builders_give_tfs_values_and_gradients():
    data = recorded()
    graph = ds.Graph()
    with graph.as_default():
        t = {k: ds.placeholder(ds.float32, v.shape, name=k) for k, v in feeds(data).items()}
        outs, grads, eroded = _built_by_ds(t)
        with ds.Session() as sess:
            values, grad_values, eroded_value = sess.run(
                [outs, grads, eroded], {t[k]: v for k, v in feeds(data).items()})
    for key, value in values.items():
        want = data[f"fetch:{data[f'name:{key}'].item()}"]
        assert np.asarray(value).dtype == want.dtype, key
        assert np.shape(value) == want.shape, key
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=key)
    np.testing.assert_allclose(eroded_value, data["value:erosion2d"], rtol=1e-6)
    for key, value in grad_values.items():
        for i, v in enumerate(value):
            np.testing.assert_allclose(v, data[f"grad:{key}:{i}"], rtol=1e-5, atol=1e-5,
                                       err_msg=f"{key}:{i}")


def test_the_reference_kernels_give_tfs_values():
    data = recorded()
    x, k = data["feed:x"], data["feed:k"]

    def fetched(key):
        return data[f"fetch:{data[f'name:{key}'].item()}"]
    out, argmax = run_on("REF", argmax_node(F32, (3, 3), (2, 2), "SAME"), x)
    np.testing.assert_array_equal(out, fetched("argmax_output"))
    np.testing.assert_array_equal(argmax, fetched("argmax_argmax"))
    out, argmax = run_on("REF", argmax_node(F32, (2, 3), (1, 2), "VALID", batch=True), x)
    np.testing.assert_array_equal(argmax, fetched("argmax_b_argmax"))
    np.testing.assert_array_equal(
        run_on("REF", dilation_node(F32, (2, 1), (1, 2), "SAME"), x, k), fetched("dilation2d"))
    np.testing.assert_array_equal(
        run_on("REF", dilation_node(F32, (1, 2), (2, 1), "VALID"), x, k),
        fetched("dilation2d_valid"))


def test_argmax_ties_and_nan_follow_tfs_loop():
    # a tie goes to the first maximum; a NaN wins only as a window's first element
    x = np.array([[1.0, 3.0, 3.0, 0.0], [np.nan, 2.0, 5.0, np.nan]], np.float32)
    x = x.reshape(1, 2, 4, 1)
    for device in ("REF", "CPU"):
        out, argmax = run_on(device, argmax_node(F32, (2, 2), (2, 2), "VALID"), x)
        np.testing.assert_array_equal(out.reshape(-1), [3.0, 5.0])
        np.testing.assert_array_equal(argmax.reshape(-1), [1, 6])
        out, argmax = run_on(device, argmax_node(F32, (1, 2), (1, 2), "VALID"), x)
        np.testing.assert_array_equal(out.reshape(-1), [3.0, 3.0, np.nan, 5.0])
        np.testing.assert_array_equal(argmax.reshape(-1), [1, 2, 4, 6])
    # dilation: NaN sums never win; a window with nothing above the lowest is the lowest
    y = run_on("REF", dilation_node(F32, (1, 1), (1, 1), "VALID"),
               np.array([np.nan, -np.inf, 1.0], np.float32).reshape(1, 1, 3, 1),
               np.zeros((1, 2, 1), np.float32))
    np.testing.assert_array_equal(y.reshape(-1), [-np.inf, 1.0])


# ------------------------------------------------------------------- every device

ARGMAX_CASES = [((2, 7, 6, 3), (3, 3), (2, 2), "SAME"), ((1, 5, 5, 2), (2, 2), (2, 2), "VALID"),
                ((2, 4, 9, 1), (1, 3), (1, 2), "SAME"), ((0, 4, 4, 2), (2, 2), (1, 1), "SAME"),
                ((3, 1, 1, 4), (1, 1), (1, 1), "VALID")]
DILATION_CASES = [((2, 7, 6, 3), (3, 2), (2, 1), (1, 2), "SAME"),
                  ((1, 6, 6, 2), (2, 2), (1, 1), (2, 2), "VALID"),
                  ((2, 1, 2, 1), (2, 2), (1, 1), (3, 3), "SAME"),   # windows all padding
                  ((0, 4, 4, 2), (2, 2), (1, 1), (1, 1), "SAME")]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F32, F64, I32])
def test_argmax_pooling_on_every_device(device, dtype):
    rng = np.random.default_rng(3)
    for shape, ksize, strides, padding in ARGMAX_CASES:
        x = rng.integers(-4, 5, shape).astype(dtype)          # ties in every window
        for batch in (False, True):
            out, argmax = check_against_ref(
                device, argmax_node(dtype, ksize, strides, padding, batch), x)
            assert argmax.dtype == I64
            dy = rng.standard_normal(out.shape).astype(dtype if dtype.kind == "f" else F32)
            if dtype.kind != "f":
                continue
            check_against_ref(device, argmax_node(dtype, ksize, strides, padding, batch,
                                                  "MaxPoolGradWithArgmax"), x, dy, argmax,
                              rtol=1e-3 if dtype == F16 else 1e-6)
            grad = rng.standard_normal(x.shape).astype(dtype)
            check_against_ref(device, argmax_node(dtype, ksize, strides, padding, batch,
                                                  "MaxPoolGradGradWithArgmax"), x, grad,
                              argmax)


@pytest.mark.parametrize("device", DEVICES)
def test_int32_argmax(device):
    x = np.arange(2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3)
    out, argmax = check_against_ref(device, argmax_node(F32, (2, 2), (2, 2), "VALID", True,
                                                        index=I32), x)
    assert argmax.dtype == I32


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F32, F64, I32])
def test_dilation_on_every_device(device, dtype):
    rng = np.random.default_rng(4)
    for shape, filter_hw, strides, rates, padding in DILATION_CASES:
        x = rng.integers(-3, 4, shape).astype(dtype)
        f = rng.integers(-2, 3, (*filter_hw, shape[3])).astype(dtype)
        y = check_against_ref(device, dilation_node(dtype, strides, rates, padding), x, f)
        if dtype.kind != "f":
            continue
        dy = rng.standard_normal(y.shape).astype(dtype)
        tolerance = {"rtol": 1e-2, "atol": 1e-2} if dtype == F16 else {}
        for op in ("Dilation2DBackpropInput", "Dilation2DBackpropFilter"):
            check_against_ref(device, dilation_node(dtype, strides, rates, padding, op),
                              x, f, dy, **tolerance)


# ------------------------------------------------------------------- gradients

def test_gradients_against_finite_differences():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 5, 6, 2))                  # float64, no ties
    f = rng.standard_normal((2, 3, 2))
    check_op_gradient(lambda a: ds.nn.max_pool_with_argmax(a, [1, 2, 3, 1], [1, 2, 1, 1],
                                                           "SAME")[0], [x])
    check_op_gradient(lambda a, b: ds.nn.dilation2d(a, b, [1, 1, 2, 1], [1, 2, 1, 1], "SAME"),
                      [x, f])
    check_op_gradient(lambda a, b: ds.nn.dilation2d(a, b, [1, 2, 1, 1], [1, 1, 1, 1],
                                                    "VALID"), [x, f])


def test_the_argmax_gradient_op_is_linear_in_its_gradient():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 4, 3))
    _, argmax = run_on("REF", argmax_node(F64, (2, 2), (2, 2), "VALID"), x)
    check_op_gradient(
        lambda a, g: ds.get_default_graph().create_op(
            "MaxPoolGradWithArgmax", [a, g, ds.constant(argmax)],
            {"ksize": (1, 2, 2, 1), "strides": (1, 2, 2, 1), "padding": "VALID"}
        ).outputs[0], [x, rng.standard_normal((2, 2, 2, 3))])


# ------------------------------------------------------------------- errors

def test_build_time_errors_are_value_errors():
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, (1, 4, 4, 3))
        with pytest.raises(ValueError, match="same depth"):
            ds.nn.dilation2d(x, np.zeros((2, 2, 2), np.float32), [1, 1, 1, 1],
                             [1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="negative dimension"):
            ds.nn.dilation2d(x, np.zeros((3, 3, 3), np.float32), [1, 1, 1, 1],
                             [1, 2, 2, 1], "VALID")
        with pytest.raises(ValueError, match="negative dimension"):
            ds.nn.max_pool_with_argmax(x, [1, 5, 1, 1], [1, 1, 1, 1], "VALID")
        with pytest.raises(TypeError, match="Targmax"):
            ds.nn.max_pool_with_argmax(x, 2, 2, "SAME", Targmax=ds.float32)


def test_an_argmax_outside_the_input_is_an_invalid_argument_naming_the_node():
    with ds.Graph().as_default():
        x = ds.constant(np.zeros((1, 2, 2, 1), np.float32))
        bad = ds.get_default_graph().create_op(
            "MaxPoolGradWithArgmax", [x, ds.constant(np.ones((1, 1, 1, 1), np.float32)),
                                      ds.constant(np.array([[[[7]]]], np.int64))],
            {"ksize": (1, 2, 2, 1), "strides": (1, 2, 2, 1), "padding": "VALID"},
            name="scatter").outputs[0]
        with ds.Session() as sess, pytest.raises(InvalidArgumentError, match="scatter"):
            sess.run(bad)
