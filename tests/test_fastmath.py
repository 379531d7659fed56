"""The generated kernels' float32 exp against numpy over the whole float32 range, and
their float32 tanh against TensorFlow's (bit for bit: TF 2.21's values recorded by
tests/data/make_tf_tanh.py) and numpy's (within 5 ulp)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import devsession as ds

from devsession.kernels.cpu.elementwise import ElementwiseKernel


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between same-sign finite float32 values."""
    return np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64))


def test_exp_float32_within_3_ulp_everywhere():
    kernel = ElementwiseKernel("exp(x)", [("x", np.float32)], np.float32)
    # every 389th float32 bit pattern: all exponents, both signs, subnormals included
    bits = np.arange(0, 2**32, 389, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    got = kernel(x)
    with np.errstate(all="ignore"):
        want = np.exp(x)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    finite = np.isfinite(want) & ~nan
    assert np.array_equal(np.isinf(got), np.isinf(want))
    normal = finite & (want >= np.finfo(np.float32).tiny)
    assert ulp_distance(got[normal], want[normal]).max() <= 3
    subnormal = finite & (want < np.finfo(np.float32).tiny)
    assert ulp_distance(got[subnormal], want[subnormal]).max() <= 2


def test_exp_float32_special_values():
    kernel = ElementwiseKernel("exp(x)", [("x", np.float32)], np.float32)
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 88.72, 88.73, -103.0, -104.0, -200.0],
                 np.float32)
    got = kernel(x)
    assert got[0] == np.inf and got[1] == 0.0 and np.isnan(got[2])
    assert got[3] == 1.0 and got[4] == 1.0
    assert np.isfinite(got[5]) and got[6] == np.inf
    assert 0 < got[7] < np.finfo(np.float32).tiny and got[9] == 0.0


def test_sigmoid_float32_is_stable_and_accurate():
    kernel = ElementwiseKernel("sigmoid(x)", [("x", np.float32)], np.float32)
    x = np.concatenate([np.linspace(-120, 120, 100_001, dtype=np.float32),
                        np.array([np.inf, -np.inf], np.float32)])
    got = kernel(x)
    xd = x.astype(np.float64)
    want = np.where(xd >= 0, 1 / (1 + np.exp(-np.abs(xd))),
                    np.exp(-np.abs(xd)) / (1 + np.exp(-np.abs(xd))))
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-45)


_RECORDED = np.load(Path(__file__).parent / "data" / "tf_tanh.npz")
# TF flushes subnormal floats to zero (its threads run with FTZ/DAZ); devsession does not.
_NORMAL = ~(np.abs(_RECORDED["x"]) < np.finfo(np.float32).tiny) | (_RECORDED["x"] == 0)
TF_TANH = {key: _RECORDED[key][_NORMAL] for key in ("x", "y")}


def test_tanh_float32_is_tensorflows_bit_for_bit():
    kernel = ElementwiseKernel("tanh(x)", [("x", np.float32)], np.float32)
    x, want = TF_TANH["x"], TF_TANH["y"]
    got = kernel(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(want)].view(np.int32),
                          want[~np.isnan(want)].view(np.int32))      # -0.0 stays -0.0


def test_tanh_float32_within_5_ulp_of_numpy_and_saturates():
    kernel = ElementwiseKernel("tanh(x)", [("x", np.float32)], np.float32)
    x = np.arange(0, 2**32, 997, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = x[np.isfinite(x)]
    got, want = kernel(x), np.tanh(x)
    same_sign = np.sign(got) == np.sign(want)
    assert same_sign.all()
    assert ulp_distance(np.abs(got), np.abs(want)).max() <= 5      # Eigen's approximation
    assert kernel(np.float32([8.0, 100.0, -8.0])).tolist() == [1.0, 1.0, -1.0]


def test_a_session_computes_tanh_and_its_fused_chains_as_tensorflow():
    x = TF_TANH["x"][np.isfinite(TF_TANH["x"])]
    g = ds.Graph()
    with g.as_default():
        p = ds.placeholder(ds.float32, [None])
        alone, chained = ds.tanh(p), ds.tanh(p * 1.0) * 2.0 + 1.0
    options = ds.SessionOptions(device="cpu", kernel_compile="eager")
    with ds.Session(graph=g, options=options) as sess:
        got_alone, got_chained = sess.run([alone, chained], {p: x})
    want = TF_TANH["y"][np.isfinite(TF_TANH["x"])]
    np.testing.assert_array_equal(got_alone, want)
    np.testing.assert_array_equal(got_chained, want * np.float32(2.0) + np.float32(1.0))
