"""The CPU's vectorised Max/Min (``reduce.unrolled_extreme`` + its NaN/inf probe): NaN
anywhere in a slice (first, in the unrolled body, in the tail, past the first 2048-value
block) gives NaN as numpy does; infinities without a NaN are ordinary values; integer
extremes are exact.  Also run through the softmax rows, which share the probe."""

from __future__ import annotations

import numpy as np
import pytest

from devsession.kernels.registry import lookup_kernel
from kernel_cases import DEVICES, F32, F64, I32, I64, make_node, rng_for, run_on

SIZES = [1, 2, 7, 8, 9, 17, 2048, 2049, 4099]


def reduce_rows(op, x):
    node = make_node(op, [x.dtype], x.dtype, {"axis": (1,), "keepdims": False})
    return lookup_kernel(op, "CPU")(node)(x)


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("n", SIZES)
def test_nan_and_inf_anywhere(dtype, n):
    rng = rng_for("extremes", n, dtype)
    positions = sorted({0, n // 2, n - 1, min(2050, n - 1), min(9, n - 1)})
    rows = []
    for at in positions:
        for special in (np.nan, np.inf, -np.inf):
            row = rng.standard_normal(n).astype(dtype)
            row[at] = special
            rows.append(row)
    x = np.stack(rows)
    for op, want in (("Max", np.max(x, axis=1)), ("Min", np.min(x, axis=1))):
        np.testing.assert_array_equal(reduce_rows(op, x), want)


# Unsigned types compare unsigned: 200 > 100 in uint8, though its bits read -56 signed.
@pytest.mark.parametrize("dtype", [I32, I64, np.dtype(np.int8), np.dtype(np.uint8),
                                   np.dtype(np.uint32)], ids=str)
@pytest.mark.parametrize("n", SIZES)
def test_integer_extremes(dtype, n):
    info = np.iinfo(dtype)
    x = rng_for("ints", n, dtype).integers(info.min, info.max, (3, n), dtype=dtype,
                                           endpoint=True)
    x[0, -1], x[1, 0] = info.max, info.min
    np.testing.assert_array_equal(reduce_rows("Max", x), x.max(axis=1))
    np.testing.assert_array_equal(reduce_rows("Min", x), x.min(axis=1))


@pytest.mark.parametrize("n", [1, 9, 1024, 2049])
def test_softmax_rows_with_specials(n):
    x = rng_for("softmax specials", n).standard_normal((4, n)).astype(F32) * 30
    x[1, n // 2] = np.nan
    x[2, n - 1] = np.inf
    x[3, 0] = -np.inf
    node = make_node("Softmax", [F32], F32, {"axis": 1})
    got = lookup_kernel("Softmax", "CPU")(node)(x)
    want = lookup_kernel("Softmax", "REF")(node)(x)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-7, equal_nan=True)
    assert np.isnan(got[1]).all() and np.isnan(got[2]).all()    # numpy's formula: NaN rows
    assert np.isfinite(got[0]).all()
    if n > 1:
        assert got[3, 0] == 0 and np.isfinite(got[3]).all()


# TF 2.21: tf.reduce_max(tf.zeros([0])) is -inf, tf.reduce_min over an empty axis inf,
# and an integer's the dtype's lowest or highest value: each reduction's identity.
@pytest.mark.parametrize("device", ["REF", *DEVICES])
@pytest.mark.parametrize("dtype", [F32, F64, I32, I64], ids=str)
def test_an_empty_max_or_min_is_its_identity_as_tf(device, dtype):
    empty = np.zeros((3, 0), dtype)
    big = np.inf if dtype.kind == "f" else np.iinfo(dtype).max
    small = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
    for op, want in (("Max", small), ("Min", big)):
        node = make_node(op, [dtype], dtype, {"axis": (1,), "keepdims": False})
        got = run_on(device, node, empty)
        assert got.dtype == dtype and got.tolist() == [want] * 3, (op, device)
        whole = make_node(op, [dtype], dtype, {"axis": (0, 1), "keepdims": True})
        assert run_on(device, whole, empty).tolist() == [[want]], (op, device)
