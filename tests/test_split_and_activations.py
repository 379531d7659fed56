"""TF1 spellings training scripts use: ``tf.split`` (Split and SplitV, with their
gradients), ``tf.nn.swish``, ``xw_plus_b`` and ``weighted_cross_entropy_with_logits``
(composites), checked against numpy; the elementwise activations Relu6, Selu and
Softsign are in test_nn_ops.py and test_nn_grad.py with the others.  The same values and
gradients as TF 2.21's (to 5e-6) were checked once beside TensorFlow; TF is not a test
dependency."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from kernel_cases import DEVICES, F16, F32, F64, I32, check_against_ref, make_node, rng_for, \
    run_on


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F32, F64, I32], ids=str)
@pytest.mark.parametrize("shape,axis,num", [((6, 4), 0, 3), ((2, 6, 3), -2, 2), ((0, 4), 1, 4),
                                            ((5,), 0, 1)], ids=str)
def test_split_kernels(device, dtype, shape, axis, num):
    x = (rng_for("split", dtype, shape).standard_normal(shape) * 10).astype(dtype)
    node = make_node("Split", [I32, dtype], dtype, {"num_split": num})
    got = check_against_ref(device, node, np.array(axis, I32), x)
    want = np.split(x, num, axis=axis)
    assert len(got) == num
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sizes,axis", [([1, 2, 3], 1), ([2, -1, 0], 1), ([4], 0),
                                        ([0, 4], 0)], ids=str)
def test_split_v_kernels(device, sizes, axis):
    x = rng_for("splitv", str(sizes)).standard_normal((4, 6)).astype(F32)
    node = make_node("SplitV", [F32, I32, I32], F32, {"num_split": len(sizes)})
    got = check_against_ref(device, node, x, np.array(sizes, I32), np.array(axis, I32))
    filled = [x.shape[axis] - sum(s for s in sizes if s != -1) if s == -1 else s for s in sizes]
    for g, w in zip(got, np.split(x, np.cumsum(filled)[:-1], axis=axis)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("device", ["REF", *DEVICES])
def test_split_errors_name_the_node(device):
    x = np.ones((4, 6), F32)
    split = make_node("Split", [I32, F32], F32, {"num_split": 4}, name="sp")
    with pytest.raises(InvalidArgumentError, match=r"sp.*evenly divide.*size = 6.*4") as info:
        run_on(device, split, np.array(1, I32), x)
    assert info.value.node_name == "sp"
    with pytest.raises(InvalidArgumentError, match=r"sp.*split_dim \[2\]"):
        run_on(device, split, np.array(2, I32), x)
    split_v = make_node("SplitV", [F32, I32, I32], F32, {"num_split": 2}, name="spv")
    with pytest.raises(InvalidArgumentError, match=r"spv.*Determined shape.*\[2, 2\]"):
        run_on(device, split_v, x, np.array([2, 2], I32), np.array(1, I32))


def test_split_builds_tf1s_ops_shapes_and_gradients(make_session):
    x = ds.placeholder(ds.float32, (4, None, 6))
    halves = ds.split(x, 2, axis=-1)
    parts = ds.split(x, [1, -1, 2], axis=2)
    assert [t.op.type for t in (halves[0], parts[0])] == ["Split", "SplitV"]
    assert [t.shape.as_list() for t in halves] == [[4, None, 3]] * 2
    assert [t.shape.as_list() for t in parts] == [[4, None, 1], [4, None, 3], [4, None, 2]]
    rows = ds.split(x, 4)
    assert [t.shape.as_list() for t in rows] == [[1, None, 6]] * 4
    loss = ds.reduce_sum(halves[0] * 3.0) + ds.reduce_sum(parts[1] * parts[1])
    dx, = ds.gradients(loss, [x])
    xv = rng_for("split grad").standard_normal((4, 2, 6)).astype(F32)
    sess = make_session()
    got_parts, got_dx = sess.run([parts, dx], {x: xv})
    for g, w in zip(got_parts, np.split(xv, [1, 4], axis=2)):
        np.testing.assert_array_equal(g, w)
    want = np.zeros_like(xv)
    want[..., :3] += 3
    want[..., 1:4] += 2 * xv[..., 1:4]
    np.testing.assert_allclose(got_dx, want, rtol=1e-6)


def test_split_static_errors_are_value_errors():
    x = ds.placeholder(ds.float32, (4, 6))
    with pytest.raises(ValueError, match="evenly divide.*size = 6.*num_split 4"):
        ds.split(x, 4, axis=1)
    with pytest.raises(ValueError, match="must sum to dimension 1"):
        ds.split(x, [2, 2], axis=1)
    with pytest.raises(ValueError, match="one -1"):
        ds.split(x, [-1, -1], axis=1)
    with pytest.raises(ValueError, match="split_dim 2 is out of range"):
        ds.split(x, 2, axis=2)
    with pytest.raises(ValueError, match="Cannot infer argument `num`"):
        ds.split(x, ds.placeholder(ds.int32, (None,)), axis=1)
    assert len(ds.split(x, ds.placeholder(ds.int32, (None,)), axis=1, num=3)) == 3


def sigmoid_xent_weighted(x, z, q):
    x = x.astype(F64)
    return (1 - z) * x + (1 + (q - 1) * z) * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))


def test_composite_activations_and_the_weighted_cross_entropy(make_session):
    rng = rng_for("composites")
    xv = rng.standard_normal((3, 5)).astype(F32) * 4
    zv = rng.random((3, 5)).astype(F32)
    wv, bv = rng.standard_normal((5, 2)).astype(F32), rng.standard_normal(2).astype(F32)
    x, z = ds.constant(xv), ds.constant(zv)
    weighted = ds.nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=2.5)
    older = ds.nn.weighted_cross_entropy_with_logits(targets=z, logits=x, pos_weight=0.5)
    dx, = ds.gradients(ds.reduce_sum(weighted), [x])
    fetches = [ds.nn.swish(x), ds.nn.xw_plus_b(x, wv, bv), weighted, older, dx]
    swish, affine, w25, w05, grad = make_session().run(fetches)
    np.testing.assert_allclose(swish, xv / (1 + np.exp(-xv.astype(F64))), rtol=1e-6)
    np.testing.assert_allclose(affine, xv @ wv + bv, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w25, sigmoid_xent_weighted(xv, zv, 2.5), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(w05, sigmoid_xent_weighted(xv, zv, 0.5), rtol=1e-6, atol=1e-7)
    sig = 1 / (1 + np.exp(-xv.astype(F64)))       # d/dx: (1 - z) - (1 + (q-1) z)(1 - sigmoid)
    np.testing.assert_allclose(grad, (1 - zv) - (1 + 1.5 * zv) * (1 - sig), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError, match="needs labels"):
        ds.nn.weighted_cross_entropy_with_logits(logits=x, pos_weight=1.0)
    with pytest.raises(ValueError, match="same shape"):
        ds.nn.weighted_cross_entropy_with_logits(labels=ds.zeros((5, 3)), logits=x,
                                                 pos_weight=1.0)
