"""Kernels of TensorFlow's gradient ops (``ops/backprops.py``,
``ops/nn_batch_norm_backprop.py``, ``ops/run_time_attrs.py``) on every device against
the reference, the reference against hand-computed values, and their errors.  TF's own
values: test_tf_grad_ops.py (a recorded TF training graph).

Elementwise backprops: every float dtype, sizes 0, 1, 7, (3, 5) and 1,000,003, NaN and
infinities among the values.  BroadcastGradientArgs (TF's reduction indices, including
both-1 axes and equal shapes), ConcatOffset, PreventGradient, FusedBatchNormGrad (V2,
V3; training and inference, NHWC and NCHW, V3's NDHWC and NCDHW, float16 to float64),
``_RunTimeAttr``.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.ops.common import make_op
from kernel_cases import (BIG, DEVICES, F16, F32, F64, FLOATS, I32, I64, assert_same,
                          check_against_ref, make_node, random_array, rng_for, run_on)

ACTIVATION_GRADS = ["ReluGrad", "Relu6Grad", "LeakyReluGrad", "SoftplusGrad", "SoftsignGrad",
                    "EluGrad", "SeluGrad"]
OUTPUT_GRADS = ["SigmoidGrad", "TanhGrad", "RsqrtGrad", "SqrtGrad", "ReciprocalGrad", "InvGrad"]
BATCH_NORM_GRADS = ["FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"]
COVERED = set(ACTIVATION_GRADS) | set(OUTPUT_GRADS) | set(BATCH_NORM_GRADS) | {
    "BroadcastGradientArgs", "ConcatOffset", "PreventGradient"}
SHAPES = [(0,), (1,), (7,), (3, 5)]
pytestmark = pytest.mark.parametrize("device", DEVICES)


def operands(op, dtype, shape):
    rng = rng_for(op, dtype, shape)
    a, b = (random_array(rng, shape, dtype, specials=True) for _ in range(2))
    if a.size >= 7:
        b.reshape(-1)[[0, 4]] = (0, 6)          # the kinks of Relu and Relu6
    return a, b


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in ACTIVATION_GRADS + OUTPUT_GRADS
                                      for d in FLOATS])
def test_backprops(device, op, dtype, shape):
    attrs = {"alpha": 0.3} if op == "LeakyReluGrad" else {}
    check_against_ref(device, make_node(op, [dtype, dtype], dtype, attrs),
                      *operands(op, dtype, shape))


@pytest.mark.parametrize("op", ACTIVATION_GRADS + OUTPUT_GRADS)
def test_backprops_on_a_big_input(device, op):
    check_against_ref(device, make_node(op, [F32, F32], F32), *operands(op, F32, (BIG,)))


def test_the_reference_formulas(device):
    g = np.array([1.0, 2.0, -3.0, np.nan, 4.0], F64)
    f = np.array([-1.0, 0.0, 2.0, -5.0, 7.0], F64)
    expect = {
        "ReluGrad": [0, 0, -3, np.nan, 4], "Relu6Grad": [0, 0, -3, np.nan, 0],
        "LeakyReluGrad": [0.2, 0.4, -3, np.nan, 4],
        "SoftplusGrad": g / (np.exp(-f) + 1), "SoftsignGrad": g / (np.abs(f) + 1) ** 2,
        "EluGrad": np.where(f < 0, g * (f + 1), g),
        "SeluGrad": np.where(f < 0, g * (f + 1.7580993408473766), g * 1.0507009873554805),
        "SigmoidGrad": f * g * (1 - g), "TanhGrad": f * (1 - g * g),
        "RsqrtGrad": -0.5 * f * g ** 3, "SqrtGrad": 0.5 * f / g, "ReciprocalGrad": -f * g * g,
    }
    for op, want in expect.items():
        got = run_on(device, make_node(op, [F64, F64], F64), g, f)
        np.testing.assert_allclose(got, np.asarray(want, F64), rtol=1e-12, err_msg=op)


def test_math_backprops_are_zero_where_dy_is_zero(device):
    # tf.raw_ops.{Sqrt,Rsqrt,Reciprocal,Inv}Grad(y, dy) in TF 2.21: 0 where dy is 0, even
    # where y is 0, inf or NaN (the gradient of a masked tf.sqrt(0) is 0, not NaN)
    y = np.array([0.0, 0.0, 4.0, 0.0, np.nan, np.inf, 0.0, -0.0], F32)
    dy = np.array([0.0, 1.0, 0.0, -1.0, 0.0, 0.0, -0.0, 0.0], F32)
    want = {"SqrtGrad": [0, np.inf, 0, -np.inf, 0, 0, 0, 0], "RsqrtGrad": [0] * 8,
            "ReciprocalGrad": [0] * 8, "InvGrad": [0] * 8}
    for op, values in want.items():
        for dtype, on in ((F16, device), (F32, device), (F64, device), (F32, "REF")):
            got = run_on(on, make_node(op, [dtype, dtype], dtype), y.astype(dtype),
                         dy.astype(dtype))
            np.testing.assert_array_equal(got, np.array(values, dtype), err_msg=op)


def test_backprops_need_one_shape(device):
    with pytest.raises(InvalidArgumentError, match="same shape"):
        run_on("REF", make_node("ReluGrad", [F32, F32], F32), np.ones((2, 3), F32),
               np.ones(3, F32))
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match="same shape"):
            make_op("TanhGrad", [ds.zeros([2, 3]), ds.zeros([3])])
        with pytest.raises(TypeError, match="floating-point"):
            make_op("ReluGrad", [ds.constant([1]), ds.constant([1])])


@pytest.mark.parametrize("s0,s1,r0,r1", [
    ((2, 1, 3), (1,), [1], [0, 1, 2]), ((1,), (1,), [], []), ((4, 3), (3,), [], [0]),
    ((1, 1), (2, 1), [0, 1], [1]), ((), (2, 3), [0, 1], []), ((0, 3), (1, 3), [], [0])])
@pytest.mark.parametrize("dtype", [I32, I64])
def test_broadcast_gradient_args(device, s0, s1, r0, r1, dtype):
    node = make_node("BroadcastGradientArgs", [dtype, dtype], dtype,
                     output_dtypes=(dtype, dtype))
    got = run_on(device, node, np.array(s0, dtype), np.array(s1, dtype))
    assert_same(got[0], np.array(r0, dtype))
    assert_same(got[1], np.array(r1, dtype))


def test_broadcast_gradient_args_of_shapes_that_do_not_broadcast(device):
    node = make_node("BroadcastGradientArgs", [I32, I32], I32, output_dtypes=(I32, I32))
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[4,3\]"):
        run_on(device, node, np.array([2, 3], I32), np.array([4, 3], I32))


def test_concat_offset(device):
    node = make_node("ConcatOffset", [I32] * 4, I32, output_dtypes=(I32,) * 3)
    shapes = [np.array(s, I32) for s in ([2, 3, 5], [2, 4, 5], [2, 1, 5])]
    got = run_on(device, node, np.array(-2, I32), *shapes)
    for g, want in zip(got, ([0, 0, 0], [0, 3, 0], [0, 7, 0])):
        assert_same(g, np.array(want, I32))
    with pytest.raises(InvalidArgumentError, match="All dimensions except 1 must match"):
        run_on(device, node, np.array(1, I32), shapes[0], np.array([3, 4, 5], I32), shapes[2])
    with pytest.raises(InvalidArgumentError, match="Concat dim is out of range: 3 vs. 3"):
        run_on(device, node, np.array(3, I32), *shapes)


def test_prevent_gradient_passes_its_input_through(device):
    x = random_array(rng_for("PreventGradient"), (3, 4), F32)
    got = run_on(device, make_node("PreventGradient", [F32], F32, {"message": "m"}), x)
    assert_same(got, x)


def _batch_norm_operands(dtype, fmt, training):
    rng = rng_for("FusedBatchNormGrad", dtype, fmt, training)
    shape = {"NHWC": (2, 3, 4, 5), "NCHW": (2, 5, 3, 4), "NDHWC": (2, 3, 2, 2, 5),
             "NCDHW": (2, 5, 3, 1, 2)}[fmt]
    param = F64 if dtype == F64 else F32
    x, dy = (random_array(rng, shape, dtype) for _ in range(2))
    scale = random_array(rng, (5,), param)
    axis = 1 if fmt in ("NCHW", "NCDHW") else len(shape) - 1
    axes = tuple(a for a in range(len(shape)) if a != axis)
    if training:
        mean, var = x.astype(param).mean(axes), x.astype(param).var(axes)
    else:
        mean, var = random_array(rng, (5,), param), np.abs(random_array(rng, (5,), param)) + 1
    return (dy, x, scale, mean, var), axes, param


@pytest.mark.parametrize("op", BATCH_NORM_GRADS)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW", "NDHWC", "NCDHW"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", [F16, F32, F64])
def test_fused_batch_norm_grad(device, op, fmt, training, dtype):
    if op == "FusedBatchNormGrad" and dtype != F32:
        return
    if fmt in ("NDHWC", "NCDHW") and op != "FusedBatchNormGradV3":   # V3's formats only
        return
    inputs, axes, param = _batch_norm_operands(dtype, fmt, training)
    if op.endswith("V3"):
        inputs += (np.empty(0, param),)
    node = make_node(op, [i.dtype for i in inputs], dtype,
                     {"epsilon": 0.01, "data_format": fmt, "is_training": training},
                     output_dtypes=(dtype,) + (param,) * 4)
    got = check_against_ref(device, node, *inputs)
    dy, x, scale, mean, var = (a.astype(F64) for a in inputs[:5])
    shape = [1] * x.ndim
    shape[1 if fmt in ("NCHW", "NCDHW") else x.ndim - 1] = 5
    inv = (1 / np.sqrt(var + 0.01)).reshape(shape)
    xhat = (x - mean.reshape(shape)) * inv
    if training:
        want = scale.reshape(shape) * inv * (dy - dy.mean(axes, keepdims=True)
                                             - xhat * (dy * xhat).mean(axes, keepdims=True))
    else:
        want = dy * scale.reshape(shape) * inv
    tol = 2e-2 if dtype == F16 else 1e-4
    np.testing.assert_allclose(got[0].astype(F64), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(got[1], (dy * xhat).sum(axes), rtol=tol, atol=tol)
    np.testing.assert_allclose(got[2], dy.sum(axes), rtol=tol, atol=tol)
    assert got[3].shape == got[4].shape == (0,)


def test_fused_batch_norm_grad_errors(device):
    node = make_node("FusedBatchNormGradV2", [F32] * 5, F32, output_dtypes=(F32,) * 5)
    x, c = np.ones((2, 3, 3, 4), F32), np.ones(4, F32)
    with pytest.raises(InvalidArgumentError, match="x and y_backprop must have same shape"):
        run_on(device, node, np.ones((2, 3, 3, 5), F32), x, c, c, c)
    with pytest.raises(InvalidArgumentError, match="reserve_space_1 must have the same"):
        run_on(device, node, x, x, c, np.ones(3, F32), c)
    with ds.Graph().as_default():
        with pytest.raises(ValueError, match="must be 4-D"):
            make_op("FusedBatchNormGradV3", [ds.zeros([2, 3])] * 2 + [ds.zeros([3])] * 4)
        with pytest.raises(ValueError, match="has 5 elements"):
            make_op("FusedBatchNormGrad", [ds.zeros([1, 2, 2, 3])] * 2 + [ds.zeros([5])] * 3)


@pytest.mark.parametrize("op,attrs,value,want", [
    ("Sum", {"keepdims": False}, [1, -3], lambda x: x.sum((0, 1))),
    ("Mean", {"keepdims": True}, [2], lambda x: x.mean(2, keepdims=True)),
    ("Max", {"keepdims": False}, [], lambda x: x),
    ("Transpose", {}, [2, 0, 1], lambda x: x.transpose(2, 0, 1))])
def test_run_time_attr(device, op, attrs, value, want):
    x = random_array(rng_for("_RunTimeAttr", op), (2, 3, 4), F64)
    attr = "perm" if op == "Transpose" else "axis"
    node = make_node("_RunTimeAttr", [F64, I32], F64, {**attrs, "op": op, "attr": attr})
    for _ in range(2):                          # the second run reuses the built kernel
        got = run_on(device, node, x, np.array(value, I32))
        np.testing.assert_allclose(got, want(x), rtol=1e-12)


def test_run_time_attr_errors_are_the_wrapped_ops(device):
    node = make_node("_RunTimeAttr", [F32, I32], F32,
                     {"op": "Sum", "attr": "axis", "keepdims": False})
    with pytest.raises(InvalidArgumentError, match="_runtimeattr_node"):
        run_on(device, node, np.ones((2, 3), F32), np.array([2], I32))
    node = make_node("_RunTimeAttr", [F32, I32], F32, {"op": "Transpose", "attr": "perm"})
    with pytest.raises(InvalidArgumentError, match="not a permutation"):
        run_on(device, node, np.ones((2, 3), F32), np.array([0, 0], I32))
