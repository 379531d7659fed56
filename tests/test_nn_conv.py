"""Convolution and pooling kernels (Conv2D, its gradient ops, MaxPool, AvgPool and theirs).

* The reference kernels against TensorFlow's values, recorded once by
  ``tests/data/nn_tf/record.py`` (SAME padding's odd element at the bottom/right,
  strides, kernel sizes 1/3/5, dilation, AvgPool's valid-only division).
* Every device's kernels against the reference on odd and empty sizes (batch 0/1/3,
  spatial 0/1/7, zero channels), SAME and VALID, strides 1 and 2, kernel sizes 1/3/5,
  float16/32/64 (``kernel_cases.DEVICES``).
* ``windows.py``'s array algorithms (what the CUDA kernels run on cupy) on numpy, and the
  CPU's chunked im2col with tiny chunks.

On a CPU ``register_gemm`` runs on, float32 (and float16's float32) convolutions take
``conv_fused``'s path and float64 the chunked one, so the cases cover both.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.kernels import windows
from devsession.kernels.registry import lookup_kernel
from kernel_cases import DEVICES, F16, F32, F64, I32, check_against_ref, make_node, rng_for

TF_VALUES = os.path.join(os.path.dirname(__file__), "data", "nn_tf", "tf_values.npz")

# (input shape, filter shape, stride, padding, dilation)
CONV_CASES = [
    ((1, 7, 7, 3), (3, 3, 3, 2), 1, "SAME", 1),
    ((3, 7, 6, 2), (5, 5, 2, 4), 2, "SAME", 1),
    ((3, 7, 7, 2), (1, 1, 2, 3), 1, "VALID", 1),
    ((3, 7, 7, 2), (1, 1, 2, 3), 2, "SAME", 1),
    ((1, 7, 5, 1), (5, 5, 1, 2), 1, "VALID", 1),
    ((3, 7, 7, 2), (3, 3, 2, 2), 2, "VALID", 1),
    ((1, 1, 1, 1), (1, 1, 1, 1), 1, "SAME", 1),
    ((1, 1, 1, 2), (3, 3, 2, 2), 2, "SAME", 1),
    ((1, 9, 8, 2), (3, 3, 2, 3), 1, "SAME", 2),
    ((2, 9, 9, 2), (3, 2, 2, 3), 2, "VALID", 2),
    ((0, 7, 7, 2), (3, 3, 2, 2), 1, "SAME", 1),
    ((2, 0, 5, 2), (3, 3, 2, 2), 1, "SAME", 1),
    ((2, 5, 5, 0), (3, 3, 0, 2), 1, "SAME", 1),
    ((2, 5, 5, 2), (3, 3, 2, 0), 2, "SAME", 1),
    # more channels than TRANSPOSED_MAX_CHANNELS: windows packed as rows
    ((2, 7, 6, 5), (3, 3, 5, 4), 2, "SAME", 1),
    ((1, 9, 8, 4), (3, 3, 4, 3), 1, "SAME", 2),
    ((2, 7, 7, 6), (5, 5, 6, 2), 1, "VALID", 1),
]
# stride 1: float32 reads the windows in place (the input gradient with >= 16 channels)
DIRECT_CASES = [
    ((2, 7, 6, 16), (5, 4, 16, 20), 1, "SAME", 1),     # even KW: padding uneven
    ((3, 9, 8, 32), (3, 3, 32, 24), 1, "VALID", 1),
    ((2, 5, 7, 64), (2, 1, 64, 70), 1, "SAME", 1),     # 70 outputs: a masked tail
    ((2, 6, 6, 3), (3, 3, 3, 8), 1, "SAME", 1),        # the input gradient packed
    ((3, 9, 7, 1), (5, 5, 1, 40), 1, "SAME", 1),       # one channel (a first layer)
    # the Deep MNIST layer 2: the filter (forward, input gradient) and dy (filter
    # gradient) are read in blocks that stay in L1 (conv_fused.L1_BLOCK)
    ((2, 14, 14, 32), (5, 5, 32, 64), 1, "SAME", 1),
    ((2, 9, 7, 16), (5, 3, 16, 100), 1, "SAME", 1),    # blocks of 1, 2 and 2 runs
    ((3, 31, 9, 5), (4, 2, 5, 110), 1, "SAME", 1),     # dy's rows in blocks of 7, 8, 8, 8
]
CONV_CASES += DIRECT_CASES
# (input shape, window, stride, padding)
POOL_CASES = [
    ((1, 7, 7, 3), 3, 1, "SAME"), ((3, 7, 6, 2), 3, 2, "SAME"), ((3, 7, 7, 2), 2, 2, "VALID"),
    ((1, 7, 7, 1), 5, 2, "SAME"), ((3, 7, 5, 2), 5, 1, "VALID"), ((1, 1, 1, 1), 1, 1, "VALID"),
    ((1, 1, 1, 2), 3, 2, "SAME"), ((3, 7, 7, 2), 1, 2, "SAME"), ((0, 7, 7, 2), 3, 2, "SAME"),
    ((2, 0, 7, 2), 3, 1, "SAME"), ((2, 5, 5, 0), 2, 2, "VALID"),
    # windows that tile the input (the CPU's own MaxPoolGrad loop): SAME padding on top
    # and on the left, and a last window cut short
    ((2, 7, 8, 3), 3, 3, "SAME"), ((2, 7, 7, 3), 2, 2, "SAME"),
]
CONV_OPS = ["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropInputV2", "Conv2DBackpropFilter",
            "Conv2DBackpropFilterV2"]


def conv_attrs(stride, padding, dilation):
    return {"strides": (1, stride, stride, 1), "padding": padding,
            "dilations": (1, dilation, dilation, 1)}


def pool_attrs(k, stride, padding):
    return {"ksize": (1, k, k, 1), "strides": (1, stride, stride, 1), "padding": padding}


def tolerance(dtype, depth):
    """Sums of ``depth`` products of N(0, 3) values, in different orders."""
    if dtype == F16:
        return {}
    eps = float(np.finfo(dtype).eps)
    return {"rtol": 64 * eps, "atol": 64 * eps * 9 * max(depth, 1)}


def conv_inputs(op, case, dtype):
    """The op's inputs for a case: (input or its sizes, filter or its sizes, dy)."""
    x_shape, f_shape, stride, padding, dilation = case
    rng = rng_for(op, case, dtype)
    x = (rng.standard_normal(x_shape) * 3).astype(dtype)
    f = (rng.standard_normal(f_shape) * 3).astype(dtype)
    node = make_node("Conv2D", [dtype, dtype], dtype, conv_attrs(stride, padding, dilation))
    y_shape = lookup_kernel("Conv2D", "REF")(node)(x, f).shape
    dy = (rng.standard_normal(y_shape) * 3).astype(dtype)
    if op == "Conv2D":
        return x, f
    if op == "Conv2DBackpropInput":
        return np.array(x_shape, np.int32), f, dy
    if op == "Conv2DBackpropFilter":
        return x, np.array(f_shape, np.int32), dy
    return x, f, dy


def conv_node(op, case, dtype):
    _, _, stride, padding, dilation = case
    dtypes = {"Conv2D": [dtype, dtype], "Conv2DBackpropInput": [I32, dtype, dtype],
              "Conv2DBackpropFilter": [dtype, I32, dtype]}.get(op, [dtype] * 3)
    return make_node(op, dtypes, dtype, conv_attrs(stride, padding, dilation))


# --------------------------------------------------------------- reference vs TensorFlow

@pytest.fixture(scope="module")
def tf_values():
    with np.load(TF_VALUES) as data:
        return dict(data)


TF_CONV = [("conv_same_s1_k3", 1, "SAME", 1), ("conv_same_s2_k3", 2, "SAME", 1),
           ("conv_same_s2_k4", 2, "SAME", 1), ("conv_valid_s2_k5", 2, "VALID", 1),
           ("conv_valid_s1_k1", 1, "VALID", 1), ("conv_same_s1_k3_d2", 1, "SAME", 2)]
TF_POOL = [("pool_same_k2_s2", 2, 2, "SAME"), ("pool_same_k3_s2", 3, 2, "SAME"),
           ("pool_valid_k3_s1", 3, 1, "VALID"), ("pool_same_k5_s1", 5, 1, "SAME")]


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
@pytest.mark.parametrize("name,stride,padding,dilation", TF_CONV)
def test_conv_matches_tensorflow(tf_values, device, name, stride, padding, dilation):
    from kernel_cases import run_on

    x, f, dy = (tf_values[f"{name}/{k}"] for k in ("x", "f", "dy"))
    attrs = conv_attrs(stride, padding, dilation)
    close = dict(rtol=1e-4, atol=1e-4)
    out = run_on(device, make_node("Conv2D", [F32, F32], F32, attrs), x, f)
    np.testing.assert_allclose(out, tf_values[f"{name}/out"], **close)
    dx = run_on(device, make_node("Conv2DBackpropInput", [I32, F32, F32], F32, attrs),
                np.array(x.shape, np.int32), f, dy)
    np.testing.assert_allclose(dx, tf_values[f"{name}/dx"], **close)
    df = run_on(device, make_node("Conv2DBackpropFilterV2", [F32] * 3, F32, attrs), x, f, dy)
    np.testing.assert_allclose(df, tf_values[f"{name}/df"], **close)


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
@pytest.mark.parametrize("name,k,stride,padding", TF_POOL)
def test_pools_match_tensorflow(tf_values, device, name, k, stride, padding):
    from kernel_cases import run_on

    x, dy = tf_values[f"{name}/x"], tf_values[f"{name}/dy"]
    attrs = pool_attrs(k, stride, padding)
    mx = run_on(device, make_node("MaxPool", [F32], F32, attrs), x)
    np.testing.assert_array_equal(mx, tf_values[f"{name}/max"])
    avg = run_on(device, make_node("AvgPool", [F32], F32, attrs), x)
    np.testing.assert_allclose(avg, tf_values[f"{name}/avg"], rtol=1e-6, atol=1e-6)
    dmax = run_on(device, make_node("MaxPoolGrad", [F32] * 3, F32, attrs), x, mx, dy)
    if device in ("REF", "CPU"):
        np.testing.assert_array_equal(dmax, tf_values[f"{name}/dmax"])
    else:       # the GPU adds overlapping windows' gradients in another order (atomics)
        np.testing.assert_allclose(dmax, tf_values[f"{name}/dmax"], rtol=1e-6, atol=1e-6)
    davg = run_on(device, make_node("AvgPoolGrad", [I32, F32], F32, attrs),
                  np.array(x.shape, np.int32), dy)
    np.testing.assert_allclose(davg, tf_values[f"{name}/davg"], rtol=1e-6, atol=1e-6)


def test_same_padding_puts_the_odd_element_at_the_bottom_right():
    # A 2x2 window at stride 1 over 2x2 needs one row and one column of padding.
    x = np.arange(4, dtype=F64).reshape(1, 2, 2, 1)
    node = make_node("AvgPool", [F64], F64, pool_attrs(2, 1, "SAME"))
    out = lookup_kernel("AvgPool", "REF")(node)(x)[0, :, :, 0]
    np.testing.assert_array_equal(out, [[1.5, 2.0], [2.5, 3.0]])   # padding below/right
    assert windows.output_size(4, 3, 2, 1, "SAME") == (2, 0, 1)


# ------------------------------------------------------------ every device vs reference

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", CONV_CASES, ids=str)
@pytest.mark.parametrize("op", CONV_OPS)
def test_conv_kernels_match_reference(device, op, case, dtype):
    depth = case[1][0] * case[1][1] * max(case[1][2], case[1][3])
    check_against_ref(device, conv_node(op, case, dtype), *conv_inputs(op, case, dtype),
                      **tolerance(dtype, depth * 3))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", CONV_OPS)
def test_conv_kernels_in_float16(device, op):
    case = CONV_CASES[1]
    check_against_ref(device, conv_node(op, case, F16), *conv_inputs(op, case, F16),
                      rtol=5e-3, atol=0.1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F32, F64, I32], ids=str)
@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_pool_kernels_match_reference(device, case, dtype):
    shape, k, stride, padding = case
    attrs = pool_attrs(k, stride, padding)
    rng = rng_for("pool", case, dtype)
    x = (rng.standard_normal(shape) * 3).astype(dtype) if dtype != I32 else \
        rng.permutation(np.prod(shape)).reshape(shape).astype(dtype)   # no ties
    y = check_against_ref(device, make_node("MaxPool", [dtype], dtype, attrs), x)
    dy = (rng.standard_normal(y.shape) * 3).astype(dtype) if dtype != I32 else \
        rng.integers(-9, 9, y.shape).astype(dtype)
    check_against_ref(device, make_node("MaxPoolGrad", [dtype] * 3, dtype, attrs), x, y, dy)
    grad = (rng.standard_normal(shape) * 3).astype(dtype) if dtype != I32 else \
        rng.integers(-9, 9, shape).astype(dtype)
    check_against_ref(device, make_node("MaxPoolGradGrad", [dtype] * 3, dtype, attrs), x, y, grad)
    if dtype != I32:
        check_against_ref(device, make_node("AvgPool", [dtype], dtype, attrs), x)
        check_against_ref(device, make_node("AvgPoolGrad", [I32, dtype], dtype, attrs),
                          np.array(shape, np.int32), dy)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, I32], ids=str)
def test_max_pool_gradients_never_route_to_the_padding(device, dtype):
    """A window whose maximum equals what the padding reads (-inf, INT_MIN) still sends
    its gradient to the first element on the input (an argmax over padded windows
    picked the padding, and the gradient was dropped)."""
    lowest = -np.inf if dtype == F32 else np.iinfo(dtype).min
    x = np.full((1, 3, 3, 1), lowest, dtype)
    attrs = pool_attrs(3, 1, "SAME")
    y = check_against_ref(device, make_node("MaxPool", [dtype], dtype, attrs), x)
    dy = np.ones(y.shape, dtype)
    dx = check_against_ref(device, make_node("MaxPoolGrad", [dtype] * 3, dtype, attrs),
                           x, y, dy)
    assert dx.sum() == dy.size and dx[0, 0, 0, 0] == 4            # 4 windows start there
    grad = np.arange(9, dtype=dtype).reshape(x.shape)
    gg = check_against_ref(device, make_node("MaxPoolGradGrad", [dtype] * 3, dtype, attrs),
                           x, y, grad)
    np.testing.assert_array_equal(gg[0, :, :, 0], [[0, 0, 1], [0, 0, 1], [3, 3, 4]])


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_propagates_nan_and_routes_ties_to_the_first(device):
    from kernel_cases import run_on

    x = np.array([[1.0, 5.0, 5.0], [np.nan, 2.0, 5.0], [0.0, 0.0, 0.0]], F32).reshape(1, 3, 3, 1)
    attrs = pool_attrs(2, 1, "VALID")
    y = run_on(device, make_node("MaxPool", [F32], F32, attrs), x)
    np.testing.assert_array_equal(y[0, :, :, 0], [[np.nan, 5.0], [np.nan, 5.0]])
    dy = np.arange(1, 5, dtype=F32).reshape(1, 2, 2, 1)
    dx = run_on(device, make_node("MaxPoolGrad", [F32] * 3, F32, attrs), x, y, dy)
    np.testing.assert_array_equal(dx[0, :, :, 0], [[0, 2, 0], [1 + 3, 0, 4], [0, 0, 0]])
    check_against_ref(device, make_node("MaxPoolGrad", [F32] * 3, F32, attrs), x, y, dy)


@pytest.mark.parametrize("device", DEVICES)
def test_tiling_max_pool_gradients_route_to_the_first_max_and_nan(device):
    from kernel_cases import run_on

    x = np.array([[1.0, 5.0, 5.0, 3.0], [5.0, 2.0, np.nan, 5.0], [0.0, 0.0, -1.0, -2.0],
                  [0.0, 0.0, -2.0, -1.0]], F32).reshape(1, 4, 4, 1)
    attrs = pool_attrs(2, 2, "VALID")
    y = run_on(device, make_node("MaxPool", [F32], F32, attrs), x)
    np.testing.assert_array_equal(y[0, :, :, 0], [[5.0, np.nan], [0.0, -1.0]])
    dy = np.arange(1, 5, dtype=F32).reshape(1, 2, 2, 1)
    dx = run_on(device, make_node("MaxPoolGrad", [F32] * 3, F32, attrs), x, y, dy)
    np.testing.assert_array_equal(dx[0, :, :, 0], [[0, 1, 0, 0], [0, 0, 2, 0], [3, 0, 4, 0],
                                                  [0, 0, 0, 0]])
    check_against_ref(device, make_node("MaxPoolGrad", [F32] * 3, F32, attrs), x, y, dy)


@pytest.mark.parametrize("case", DIRECT_CASES, ids=str)
def test_stride_one_float32_convolutions_read_windows_in_place(monkeypatch, case):
    """On any x86-64 CPU (``FORCE``): the direct loops run where they apply, and all
    three ops match the reference."""
    from devsession.kernels.cpu import conv_fused, register_gemm

    monkeypatch.setattr(register_gemm, "FORCE", True)
    if not register_gemm.usable():
        pytest.skip("register_gemm's kernels do not compile here (logged)")
    ran = []
    for name in ("_forward_direct", "_input_grad_direct", "_filter_grad_direct"):
        original = getattr(conv_fused, name)
        monkeypatch.setattr(conv_fused, name, lambda *a, _f=original, _n=name: (
            ran.append(_n), _f(*a)))
    (kh, kw, channels, outputs) = case[1]
    for op in ("Conv2D", "Conv2DBackpropInputV2", "Conv2DBackpropFilterV2"):
        check_against_ref("CPU", conv_node(op, case, F32), *conv_inputs(op, case, F32),
                          **tolerance(F32, kh * kw * max(channels, outputs) * 3))
    assert ran == ["_forward_direct"] + ["_input_grad_direct"] * (channels >= 16) + \
        ["_filter_grad_direct"]


def test_direct_convolutions_read_b_in_blocks_shared_evenly():
    """A run of B per block when one fills L1_BLOCK; else as few blocks as fit, even."""
    from devsession.kernels.cpu import conv_fused

    block = conv_fused.L1_BLOCK
    assert conv_fused._blocks(5, block) == [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1)]
    assert conv_fused._blocks(5, 2 * block) == [(k, 1) for k in range(5)]
    assert conv_fused._blocks(14, 14 * 64 * 4) == [(0, 7), (7, 7)]
    assert conv_fused._blocks(5, 640) == [(0, 5)]
    assert conv_fused._blocks(0, 640) == []


@pytest.mark.parametrize("channels", [3, 5], ids=["as-columns", "as-rows"])
def test_chunked_packing_matches_one_chunk(monkeypatch, channels):
    from devsession.kernels.cpu import nn_conv

    assert (channels <= nn_conv.TRANSPOSED_MAX_CHANNELS) == (channels == 3)
    case = ((5, 7, 6, channels), (3, 3, channels, 4), 2, "SAME", 1)
    want = {op: lookup_kernel(op, "REF")(conv_node(op, case, F64))(*conv_inputs(op, case, F64))
            for op in CONV_OPS}
    monkeypatch.setattr(nn_conv, "CHUNK_ELEMENTS", 100)     # one image per chunk
    for op in CONV_OPS:
        got = lookup_kernel(op, "CPU")(conv_node(op, case, F64))(*conv_inputs(op, case, F64))
        np.testing.assert_allclose(got, want[op], rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------- runtime errors

@pytest.mark.parametrize("device", ["REF", "CPU"])
def test_shape_errors_name_the_node(device):
    cases = [
        ("Conv2D", [F32, F32], conv_attrs(1, "SAME", 1),
         (np.ones((1, 4, 4, 3), F32), np.ones((3, 3, 2, 2), F32)),
         "input depth must be evenly divisible by filter depth: 3 vs 2"),
        ("Conv2D", [F32, F32], conv_attrs(1, "VALID", 1),
         (np.ones((1, 2, 2, 1), F32), np.ones((3, 3, 1, 1), F32)), "does not fit"),
        ("Conv2D", [F32, F32], conv_attrs(1, "SAME", 1),
         (np.ones((4, 4, 3), F32), np.ones((3, 3, 3, 1), F32)), "4-dimensional"),
        ("Conv2DBackpropInputV2", [F32] * 3, conv_attrs(1, "SAME", 1),
         (np.ones((1, 4, 4, 1), F32), np.ones((3, 3, 1, 1), F32), np.ones((1, 3, 4, 1), F32)),
         r"out_backprop has shape \[1,3,4,1\], expected \[1,4,4,1\]"),
        ("MaxPoolGrad", [F32] * 3, pool_attrs(2, 2, "VALID"),
         (np.ones((1, 4, 4, 1), F32), np.ones((1, 2, 2, 1), F32), np.ones((1, 2, 3, 1), F32)),
         "grad has shape"),
    ]
    for op, dtypes, attrs, inputs, pattern in cases:
        node = make_node(op, dtypes, F32, attrs, name="bad_node")
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            lookup_kernel(op, device)(node)(*inputs)
        assert info.value.node_name == "bad_node"
        assert "bad_node" in str(info.value)


# -------------------------------------------- windows.py's algorithms (the GPU's) on numpy

@pytest.mark.parametrize("case", CONV_CASES[:10], ids=str)
def test_window_algorithms_on_numpy_match_reference(case):
    x, f, dy = conv_inputs("Conv2DBackpropInputV2", case, F64)
    params = windows.ConvParams(conv_node("Conv2D", case, F64))
    g = params.geometry(x.shape, f.shape)
    ref = {op: lookup_kernel(op, "REF")(conv_node(op, case, F64)) for op in CONV_OPS}
    np.testing.assert_allclose(windows.conv2d(np, x, f, g), ref["Conv2D"](x, f), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(windows.conv2d_input_grad(np, f, dy, g),
                               ref["Conv2DBackpropInputV2"](x, f, dy), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(windows.conv2d_filter_grad(np, x, dy, g),
                               ref["Conv2DBackpropFilterV2"](x, f, dy), rtol=1e-12, atol=1e-11)


@pytest.mark.parametrize("case", POOL_CASES[:8], ids=str)
def test_window_pooling_on_numpy_matches_reference(case):
    shape, k, stride, padding = case
    attrs = pool_attrs(k, stride, padding)
    x = (rng_for("wpool", case).standard_normal(shape) * 3)
    g = windows.PoolParams(make_node("MaxPool", [F64], F64, attrs)).geometry(shape)
    counts = windows.window_counts(g)
    ref = {op: lookup_kernel(op, "REF")(make_node(op, [F64] * 3, F64, attrs))
           for op in ("MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad")}
    y = windows.max_pool(np, x, g, -np.inf)
    np.testing.assert_array_equal(y, ref["MaxPool"](x))
    np.testing.assert_allclose(windows.avg_pool(np, x, g, counts), ref["AvgPool"](x), rtol=1e-12)
    dy = rng_for("wpool dy", case).standard_normal(y.shape)
    np.testing.assert_allclose(windows.max_pool_grad(np, x, dy, g, -np.inf),
                               ref["MaxPoolGrad"](x, y, dy), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(windows.avg_pool_grad(np, dy, g, counts),
                               ref["AvgPoolGrad"](np.array(shape), dy), rtol=1e-12, atol=1e-12)


# --- conv2d_transpose (nn and layers) ---------------------------------------------------------

def numpy_conv2d_transpose(x, f, out_hw, stride, padding):
    """Scatter-add: each input pixel adds ``f[a, b] @ x[i, j]`` at ``(i*s + a, j*s + b)``
    less the padding the forward convolution of that output size would use (float64)."""
    n, h, w, _ = x.shape
    kh, kw, out_channels, _ = f.shape
    (oh, ow), s = out_hw, stride
    top = max((h - 1) * s + kh - oh, 0) // 2 if padding == "SAME" else 0
    left = max((w - 1) * s + kw - ow, 0) // 2 if padding == "SAME" else 0
    out = np.zeros((n, oh + kh + h * s, ow + kw + w * s, out_channels))
    for i in range(h):
        for j in range(w):
            for a in range(kh):
                for b in range(kw):
                    out[:, i * s + a, j * s + b] += x[:, i, j].astype(np.float64) @ \
                        f[a, b].astype(np.float64).T
    return out[:, top:top + oh, left:left + ow]


@pytest.mark.parametrize("padding,stride,out_hw", [("SAME", 2, (10, 8)), ("VALID", 2, (11, 9)),
                                                   ("SAME", 1, (5, 4)), ("VALID", 3, (15, 13))],
                         ids=str)
def test_conv2d_transpose_scatters_the_filter_and_is_conv2ds_adjoint(padding, stride, out_hw):
    rng = rng_for("deconv", padding, stride)
    x = rng.standard_normal((2, 5, 4, 3)).astype(F32)
    f = rng.standard_normal((3, 3, 6, 3)).astype(F32)
    y = ds.nn.conv2d_transpose(x, f, [2, *out_hw, 6], [1, stride, stride, 1], padding)
    assert y.op.name == "conv2d_transpose" and y.op.type == "Conv2DBackpropInput"
    probe = rng.standard_normal((2, *out_hw, 6)).astype(F32)
    forward = ds.nn.conv2d(probe, f, [1, stride, stride, 1], padding)   # f: [h, w, in=6, out=3]
    with ds.Session() as sess:
        got, conv = sess.run([y, forward])
    np.testing.assert_allclose(got, numpy_conv2d_transpose(x, f, out_hw, stride, padding),
                               rtol=1e-4, atol=1e-4)
    # <conv2d(probe), x> == <probe, conv2d_transpose(x)>
    np.testing.assert_allclose(np.sum(conv.astype(F64) * x), np.sum(probe.astype(F64) * got),
                               rtol=1e-4)


def test_conv2d_transpose_checks_channels_at_build():
    x = ds.placeholder(ds.float32, (2, 5, 4, 3))
    with pytest.raises(ValueError, match=r"channels of value .* \(3\) do not match .* \(4\)"):
        ds.nn.conv2d_transpose(x, np.ones((3, 3, 6, 4), F32), [2, 10, 8, 6], [1, 2, 2, 1])
    with pytest.raises(ValueError, match="output_shape .* 5 channels but the filter makes 6"):
        ds.nn.conv2d_transpose(x, np.ones((3, 3, 6, 3), F32), [2, 10, 8, 5], [1, 2, 2, 1])


def test_an_output_shape_stacked_from_a_run_time_batch_keeps_the_sizes_it_names():
    # tf.stack([tf.shape(x)[0], 10, 8, 6]): TF infers (?, 10, 8, 6), so layers after it
    # (which need the channels) build; also for the 3-D op.
    rng = rng_for("deconv", "stacked")
    x = ds.placeholder(ds.float32, (None, 5, 4, 3))
    f = rng.standard_normal((3, 3, 6, 3)).astype(F32)
    y = ds.nn.conv2d_transpose(x, f, ds.stack([ds.shape(x)[0], 10, 8, 6]), [1, 2, 2, 1])
    assert y.shape.as_list() == [None, 10, 8, 6]
    x3 = ds.placeholder(ds.float32, (None, 2, 3, 4, 3))
    y3 = ds.nn.conv3d_transpose(x3, np.ones((2, 2, 2, 5, 3), F32),
                                ds.stack([ds.shape(x3)[0], 4, 6, 8, 5]), [1, 2, 2, 2, 1])
    assert y3.shape.as_list() == [None, 4, 6, 8, 5]
    value = rng.standard_normal((2, 5, 4, 3)).astype(F32)
    with ds.Session() as sess:
        got = sess.run(y, {x: value})
    np.testing.assert_allclose(got, numpy_conv2d_transpose(value, f, (10, 8), 2, "SAME"),
                               rtol=1e-4, atol=1e-4)


def test_an_int64_output_shape_tensor_is_tfs_type_error_but_the_3d_ops_take_it():
    # TF's Conv2DBackpropInput, AvgPoolGrad and the depthwise backprops take int32 sizes
    # only (tf.shape(x, out_type=tf.int64) is a TypeError at build); Conv3DBackpropInputV2
    # has a Tshape attr of int32 or int64.
    x = ds.placeholder(ds.float32, (None, 4, 4, 8))
    f = np.ones((3, 3, 1, 8), F32)
    batch = ds.shape(x, out_type=ds.int64)[0]
    with pytest.raises(TypeError, match="must be int32, not int64"):
        ds.nn.conv2d_transpose(x, f, ds.stack([batch, 8, 8, 1]), [1, 2, 2, 1])
    with pytest.raises(TypeError, match="must be int32, not int64"):
        ds.nn.conv2d_backprop_input(ds.constant([2, 8, 8, 1], ds.int64), f,
                                    np.ones((2, 4, 4, 8), F32), [1, 2, 2, 1], "SAME")
    y = ds.nn.conv2d_transpose(x, f, np.array([2, 8, 8, 1], np.int64), [1, 2, 2, 1])
    x3 = ds.placeholder(ds.float32, (None, 2, 3, 4, 3))
    y3 = ds.nn.conv3d_transpose(x3, np.ones((2, 2, 2, 5, 3), F32),
                                ds.constant([2, 4, 6, 8, 5], ds.int64), [1, 2, 2, 2, 1])
    assert [y.shape.as_list(), y3.shape.as_list()] == [[None, 8, 8, 1], [2, 4, 6, 8, 5]]
    dx = ds.nn.depthwise_conv2d_native_backprop_input(
        np.array([2, 8, 8, 1]), np.ones((3, 3, 1, 1), F32), np.ones((2, 4, 4, 1), F32),
        [1, 2, 2, 1], "SAME")      # a numpy array (int64) is converted to int32, as TF's op
    assert dx.op.inputs[0].dtype == ds.int32 and y.op.inputs[0].dtype == ds.int32


def test_sizes_that_do_not_fit_out_backprop_build_and_fail_at_run_as_tfs():
    # TF's shape functions of Conv2DBackpropInput/Filter check only the batch and the
    # out-channels: a conv2d_transpose whose output_shape its input and strides cannot
    # make (4x4 by stride 2 SAME is 7x7 or 8x8, not 5x5) builds, with TF's static shape,
    # and its kernel raises InvalidArgumentError when it runs (TF's
    # "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed").
    x = ds.placeholder(ds.float32, (None, 4, 4, 8))
    f = np.ones((3, 3, 1, 8), F32)
    static = ds.nn.conv2d_transpose(x, f, [2, 5, 5, 1], [1, 2, 2, 1], "SAME")
    dynamic = ds.nn.conv2d_transpose(x, f, ds.stack([ds.shape(x)[0], 13, 8, 1]), [1, 2, 2, 1])
    tiny = ds.nn.conv2d_transpose(x, f, [2, 2, 2, 1], [1, 1, 1, 1], "VALID")
    dw = ds.nn.conv2d_backprop_filter(np.ones((2, 5, 5, 1), F32), [3, 3, 1, 8],
                                      np.ones((2, 4, 4, 8), F32), [1, 2, 2, 1], "SAME")
    assert [t.shape.as_list() for t in (static, dynamic, tiny, dw)] == [
        [None, 5, 5, 1], [None, 13, 8, 1], [None, 2, 2, 1], [3, 3, 1, 8]]
    with ds.Session() as sess:
        for t in (static, dynamic, tiny, dw):
            with pytest.raises(InvalidArgumentError, match="out_backprop|does not fit"):
                sess.run(t, {x: np.ones((2, 4, 4, 8), F32)})
    # What TF's shape function does check stays a ValueError at build.
    with pytest.raises(ValueError, match="batch of input_sizes and of out_backprop"):
        ds.nn.conv2d_transpose(np.ones((2, 4, 4, 8), F32), f, [3, 8, 8, 1], [1, 2, 2, 1])
    with pytest.raises(ValueError, match="out_backprop's channels and the filter's"):
        ds.nn.conv2d_backprop_input([2, 8, 8, 1], f, np.ones((2, 4, 4, 3), F32),
                                    [1, 2, 2, 1], "SAME")


@pytest.mark.parametrize("padding,stride", [("same", 2), ("valid", 2), ("valid", 1)], ids=str)
def test_conv2d_transpose_layer_grows_the_image_as_keras(make_session, padding, stride):
    rng = rng_for("deconv layer", padding, stride)
    xv = rng.standard_normal((2, 5, 4, 3)).astype(F32)
    x = ds.placeholder(ds.float32, (None, 5, 4, 3))
    y = ds.layers.conv2d_transpose(x, 4, (3, 2), strides=stride, padding=padding,
                                   bias_initializer=ds.constant_initializer(0.5))
    grow = {"same": lambda n, k: n * stride, "valid": lambda n, k: n * stride + max(k - stride, 0)}
    out_hw = (grow[padding](5, 3), grow[padding](4, 2))
    assert y.shape.as_list() == [None, *out_hw, 4]
    kernel, bias = ds.global_variables()
    assert (kernel.op.name, bias.op.name) == ("conv2d_transpose/kernel", "conv2d_transpose/bias")
    assert kernel.shape.as_list() == [3, 2, 4, 3]
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    got, k = sess.run([y, kernel], {x: xv})
    want = numpy_conv2d_transpose(xv, k, out_hw, stride, padding.upper()) + 0.5
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
