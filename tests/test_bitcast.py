"""``tf.bitcast`` (ops/bitcast.py): TF's Bitcast, values and shapes as TF 2.21's
``tf.compat.v1`` gave them for the same inputs (written out below), and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.registry import get_gradient
from kernel_cases import DEVICES, F32, F64, I32, check_against_ref, make_node

COVERED = {"Bitcast"}
A = np.array([[1.0, -2.5], [0.1, 3e9]], np.float32)


@pytest.mark.parametrize("dtype, shape, head", [
    (ds.int32, [2, 2], [1065353216, -1071644672, 1036831949, 1328730206]),
    (ds.uint8, [2, 2, 4], [0, 0, 128, 63]),
    (ds.float64, [2], [-8.00000189e+00, 3.32413511e+73]),
    (ds.int16, [2, 2, 2], [0, 16256, 0, -16352]),
    (ds.float32, [2, 2], [1.0, -2.5, 0.1, 3e9]),
], ids=lambda v: getattr(v, "name", None) or str(v))
def test_values_and_shapes_as_tf(dtype, shape, head):
    y = ds.bitcast(ds.constant(A), dtype)
    assert (y.op.type, y.dtype, y.shape.as_list()) == ("Bitcast", dtype, shape)
    with ds.Session() as sess:
        got = sess.run(y)
    assert got.shape == tuple(shape)
    np.testing.assert_allclose(got.ravel()[:4].astype(np.float64), head, rtol=1e-7)
    np.testing.assert_array_equal(got.tobytes(), A.tobytes())


def test_static_shapes_and_errors_as_tf():
    p = ds.placeholder(ds.int16, [None, None])
    assert ds.bitcast(p, ds.int32).shape.as_list() == [None]
    assert ds.bitcast(p, ds.int8).shape.as_list() == [None, None, 2]
    with pytest.raises(ValueError, match="Cannot bitcast from 5 to 3 due to shape. 3 does "
                                         "not match 2"):
        ds.bitcast(ds.constant([1, 2, 3], ds.int16), ds.int32)
    with pytest.raises(ValueError, match="at least rank 1 but is rank 0"):
        ds.bitcast(ds.constant(1, ds.int16), ds.int32)
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        ds.bitcast(ds.constant([True]), ds.uint8)
    with ds.Session() as sess, pytest.raises(ds.errors.InvalidArgumentError,
                                             match=r"Cannot bitcast from int16 to int32"):
        sess.run(ds.bitcast(p, ds.int32), {p: np.zeros((2, 3), np.int16)})
    assert get_gradient("Bitcast") is None


@pytest.mark.parametrize("device", DEVICES)
def test_kernel_on_every_device(device):
    x = np.linspace(-3, 3, 12, dtype=F32).reshape(3, 4)
    for out in (I32, np.dtype(np.uint8), F32):
        check_against_ref(device, make_node("Bitcast", [F32], out, {"type": out}), x)
    check_against_ref(device, make_node("Bitcast", [F32], F64, {"type": F64}),
                      x.reshape(6, 2))
