"""Local response normalization (``ds.nn.lrn``; LRN and LRNGrad): the reference against
a loop over channels written here, every device's kernel against the reference (the
cupy stand-in runs the GPU's), the gradient against finite differences, and the errors.
TensorFlow's values: tests/tf1_programs/p35_cifar10_lrn.py."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from kernel_cases import DEVICES, F16, F32, check_against_ref, make_node, run_on

PARAMS = [dict(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5),
          dict(depth_radius=2, bias=2.0, alpha=0.1, beta=0.75),
          dict(depth_radius=0, bias=1.0, alpha=0.5, beta=1.0)]


def loop_lrn(x, depth_radius, bias, alpha, beta):
    out = np.empty_like(x, dtype=np.float64)
    channels = x.shape[-1]
    for c in range(channels):
        lo, hi = max(0, c - depth_radius), min(channels, c + depth_radius + 1)
        norm = bias + alpha * np.sum(x[..., lo:hi].astype(np.float64) ** 2, axis=-1)
        out[..., c] = x[..., c] * norm ** -beta
    return out


def lrn_node(op, dtype, params, inputs=1):
    return make_node(op, [dtype] * inputs, dtype, params)


def images(shape, dtype=F32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("params", PARAMS, ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 4, 7), (1, 1, 1, 1), (0, 2, 2, 3), (1, 2, 2, 12)],
                         ids=str)
def test_reference_matches_a_loop(params, shape):
    x = images(shape)
    np.testing.assert_allclose(run_on("REF", lrn_node("LRN", F32, params), x),
                               loop_lrn(x, **params), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_kernels_match_the_reference(device, dtype, params):
    x, dy = images((2, 3, 4, 9), dtype), images((2, 3, 4, 9), dtype, seed=1)
    y = run_on("REF", lrn_node("LRN", dtype, params), x)
    check_against_ref(device, lrn_node("LRN", dtype, params), x)
    check_against_ref(device, lrn_node("LRNGrad", dtype, params, 3), dy, x, y)


@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_gradient_matches_finite_differences(params):
    x = images((1, 2, 2, 6), np.float32)
    check_op_gradient(lambda t: ds.nn.lrn(t, **params), [x], eps=1e-3, rtol=2e-3,
                      atol=2e-4)


def test_bad_inputs():
    with pytest.raises(ValueError, match="must be 4-D"):
        ds.nn.lrn(ds.zeros([2, 3]))
    with pytest.raises(TypeError, match="float16 or float32"):
        ds.nn.lrn(ds.zeros([1, 2, 2, 3], ds.float64))
    with pytest.raises(ValueError, match="depth_radius must be >= 0"):
        ds.nn.lrn(ds.zeros([1, 2, 2, 3]), depth_radius=-1)
    with pytest.raises(ds.errors.InvalidArgumentError, match="4-dimensional"):
        run_on("REF", lrn_node("LRN", F32, PARAMS[0]), np.zeros((2, 3), np.float32))
