"""The nn family's CUDA kernels (``kernels/cuda/nn.py``, ``nn_conv.py``) run on the numpy
stand-in for cupy of ``test_gpu_cupy_standin.py``, against the reference kernels.

That runs their Python logic in CI (shape checks, dtype handling, the window algorithms
on "device" arrays, the fused elementwise programs, label checks); the stand-in is
extended here with the few cupy functions these kernels call that it lacks.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from devsession.errors import InvalidArgumentError
from devsession.kernels.registry import lookup_kernel
from test_gpu_cupy_standin import node, standin  # noqa: F401  (standin is a fixture)

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64 = np.dtype(np.int32), np.dtype(np.int64)
EXTRA = ("arange", "where", "broadcast_to", "take_along_axis", "any", "log")


@pytest.fixture
def cupy(standin, monkeypatch):
    stand_in = sys.modules["cupy"]

    def device_fn(fn):
        return lambda *args, **kwargs: np.asarray(fn(*args, **kwargs)).view(stand_in.ndarray)

    for name in EXTRA:
        if not hasattr(stand_in, name):
            monkeypatch.setattr(stand_in, name, device_fn(getattr(np, name)), raising=False)
    return stand_in


def check(cupy, n, *inputs, rtol=1e-6, atol=1e-6):
    want = lookup_kernel(n.op, "REF")(n)(*inputs)
    got = lookup_kernel(n.op, "GPU")(n)(*[cupy.asarray(x) for x in inputs])
    wants, gots = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(gots) == len(wants)
    for g, w in zip(gots, wants):
        assert isinstance(g, cupy.ndarray), (n.op, type(g))
        g = cupy.asnumpy(g)
        assert g.dtype == w.dtype and g.shape == w.shape, (n.op, g.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g.astype(F64), w.astype(F64), rtol=rtol, atol=atol,
                                   equal_nan=True)


def rng():
    return np.random.default_rng(7)


CONV = [((2, 7, 6, 3), (3, 3, 3, 4), 2, "SAME", 1), ((1, 6, 6, 2), (1, 1, 2, 3), 1, "VALID", 1),
        ((1, 9, 8, 2), (3, 3, 2, 2), 1, "SAME", 2), ((0, 5, 5, 2), (3, 3, 2, 2), 1, "SAME", 1),
        ((2, 5, 5, 2), (3, 3, 2, 0), 1, "SAME", 1)]


@pytest.mark.parametrize("dtype", [F16, F32, F64], ids=str)
def test_conv_kernels(cupy, dtype):
    tol = {"rtol": 5e-3, "atol": 0.05} if dtype == F16 else {"rtol": 1e-5, "atol": 1e-4}
    for x_shape, f_shape, stride, padding, dilation in CONV:
        attrs = {"strides": (1, stride, stride, 1), "padding": padding,
                 "dilations": (1, dilation, dilation, 1)}
        x = rng().standard_normal(x_shape).astype(dtype)
        f = rng().standard_normal(f_shape).astype(dtype)
        y = lookup_kernel("Conv2D", "REF")(node("Conv2D", [dtype] * 2, dtype, attrs))(x, f)
        dy = rng().standard_normal(y.shape).astype(dtype)
        check(cupy, node("Conv2D", [dtype] * 2, dtype, attrs), x, f, **tol)
        check(cupy, node("Conv2DBackpropInputV2", [dtype] * 3, dtype, attrs), x, f, dy, **tol)
        check(cupy, node("Conv2DBackpropFilterV2", [dtype] * 3, dtype, attrs), x, f, dy, **tol)
        sized = node("Conv2DBackpropInput", [I32, dtype, dtype], dtype, attrs)
        want = lookup_kernel(sized.op, "REF")(sized)(np.array(x_shape, np.int32), f, dy)
        got = lookup_kernel(sized.op, "GPU")(sized)(np.array(x_shape, np.int32),  # host input
                                                    cupy.asarray(f), cupy.asarray(dy))
        np.testing.assert_allclose(cupy.asnumpy(got).astype(F64), want.astype(F64), **tol)


@pytest.mark.parametrize("dtype", [F16, F32, F64, I32], ids=str)
def test_pool_kernels(cupy, dtype):
    for shape, k, stride, padding in [((2, 7, 6, 3), 3, 2, "SAME"), ((1, 6, 5, 2), 2, 1, "VALID"),
                                      ((0, 4, 4, 1), 2, 2, "SAME")]:
        attrs = {"ksize": (1, k, k, 1), "strides": (1, stride, stride, 1), "padding": padding}
        x = rng().permutation(int(np.prod(shape))).reshape(shape).astype(dtype)
        y = lookup_kernel("MaxPool", "REF")(node("MaxPool", [dtype], dtype, attrs))(x)
        dy = rng().integers(-5, 5, y.shape).astype(dtype)
        check(cupy, node("MaxPool", [dtype], dtype, attrs), x)
        check(cupy, node("MaxPoolGrad", [dtype] * 3, dtype, attrs), x, y, dy)
        check(cupy, node("MaxPoolGradGrad", [dtype] * 3, dtype, attrs), x, y, x[::-1].copy())
        if dtype != I32:
            tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == F16 else {"rtol": 1e-6, "atol": 1e-6}
            check(cupy, node("AvgPool", [dtype], dtype, attrs), x, **tol)
            sizes = np.array(shape, np.int32)
            want = lookup_kernel("AvgPoolGrad", "REF")(node("AvgPoolGrad", [I32, dtype], dtype,
                                                            attrs))(sizes, dy)
            got = lookup_kernel("AvgPoolGrad", "GPU")(node("AvgPoolGrad", [I32, dtype], dtype,
                                                           attrs))(sizes, cupy.asarray(dy))
            np.testing.assert_allclose(cupy.asnumpy(got).astype(F64), want.astype(F64), **tol)


@pytest.mark.parametrize("dtype", [F16, F32, F64], ids=str)
def test_softmax_family_losses_and_bias(cupy, dtype):
    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == F16 else {"rtol": 1e-5, "atol": 1e-6}
    x = (rng().standard_normal((4, 7)) * 4).astype(dtype)
    labels = rng().dirichlet(np.ones(7), 4).astype(dtype)
    check(cupy, node("Softmax", [dtype], dtype), x, **tol)               # no axis attr: the last
    check(cupy, node("LogSoftmax", [dtype], dtype), x, **tol)
    check(cupy, node("SoftmaxCrossEntropyWithLogits", [dtype] * 2, dtype), x, labels, **tol)
    check(cupy, node("SoftmaxCrossEntropyWithLogits", [dtype] * 2, dtype), x, labels[:1], **tol)
    for label_dtype in (I32, I64):
        check(cupy, node("SparseSoftmaxCrossEntropyWithLogits", [dtype, label_dtype], dtype), x,
              np.array([6, 0, 3, 3], label_dtype), **tol)
    check(cupy, node("L2Loss", [dtype], dtype), x, **tol)
    check(cupy, node("BiasAdd", [dtype] * 2, dtype, {"data_format": "NHWC"}), x, x[0], **tol)
    check(cupy, node("BiasAdd", [dtype] * 2, dtype, {"data_format": "NCHW"}), x.reshape(2, 2, 7),
          x[0, :2], **tol)
    check(cupy, node("BiasAddGrad", [dtype], dtype, {"data_format": "NHWC"}), x, **tol)
    check(cupy, node("LeakyRelu", [dtype], dtype, {"alpha": 0.3}), x, **tol)
    check(cupy, node("Softplus", [dtype], dtype), x, **tol)
    for empty in [np.zeros((0, 3), dtype), np.zeros((2, 0), dtype)]:
        check(cupy, node("LogSoftmax", [dtype], dtype), empty)
        check(cupy, node("SoftmaxCrossEntropyWithLogits", [dtype] * 2, dtype), empty, empty)


def test_sparse_label_out_of_range_names_the_node(cupy):
    n = node("SparseSoftmaxCrossEntropyWithLogits", [F32, I32], F32, name="gpu_xent")
    with pytest.raises(InvalidArgumentError, match=r"gpu_xent.*label value of 5") as info:
        lookup_kernel(n.op, "GPU")(n)(cupy.asarray(np.zeros((2, 3), F32)),
                                      cupy.asarray(np.array([0, 5], np.int32)))
    assert info.value.node_name == "gpu_xent"
