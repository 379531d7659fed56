"""Gradients of TensorFlow's gradient ops (``ops/backprops_grad.py``: TF's second
derivatives) against central differences in float64; SoftsignGrad has none (as TF), and
differentiating PreventGradient is TF's LookupError."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.kernels.reference.backprops import BACKPROPS
from devsession.ops.backprops import ACTIVATION_GRADS, OUTPUT_GRADS
from devsession.ops.common import make_op
from gradient_check import numeric_gradient

DIFFERENTIABLE = [op for op in (*ACTIVATION_GRADS, *OUTPUT_GRADS) if op != "SoftsignGrad"]




def _operands(op, rng):
    """(first, second) away from the kinks: second is features or outputs for the
    activations' backprops, first is the forward output y for the math ops'."""
    a, b = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))
    b[np.abs(b) < 0.1] = 0.5
    if op in ("Relu6Grad",):
        b = rng.uniform(0.2, 5.8, (3, 4)) * np.where(rng.random((3, 4)) < 0.3, -1, 1)
    if op in ("EluGrad", "SeluGrad"):
        b = rng.uniform(-0.9, 2, (3, 4))        # an Elu's outputs are > -1
    if op in ("RsqrtGrad", "SqrtGrad", "ReciprocalGrad", "InvGrad", "SigmoidGrad"):
        a = rng.uniform(0.2, 0.9, (3, 4))
    return a, b


@pytest.mark.parametrize("op", DIFFERENTIABLE)
def test_backprop_gradients_match_finite_differences(op):
    rng = np.random.default_rng(sum(map(ord, op)))
    av, bv = _operands(op, rng)
    wv = rng.uniform(-1, 1, (3, 4))
    attrs = {"alpha": 0.3} if op == "LeakyReluGrad" else {}
    with ds.Graph().as_default():
        a, b = ds.placeholder(ds.float64, (3, 4)), ds.placeholder(ds.float64, (3, 4))
        y = make_op(op, [a, b], attrs)
        ga, gb = ds.gradients(y, [a, b], grad_ys=ds.constant(wv))
        with ds.Session() as sess:
            got_a, got_b = sess.run([ga, gb], {a: av, b: bv})

    class Node:
        attrs = {"alpha": 0.3}
    f = BACKPROPS[op](Node)
    np.testing.assert_allclose(got_a, numeric_gradient(lambda v: wv * f(v, bv), av),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got_b, numeric_gradient(lambda v: wv * f(av, v), bv),
                               rtol=1e-6, atol=1e-8)


def test_softsign_grad_has_no_gradient_as_in_tf():
    with ds.Graph().as_default():
        a = ds.placeholder(ds.float32, (2,))
        with pytest.raises(LookupError):
            ds.gradients(make_op("SoftsignGrad", [a, a]), a)


def test_differentiating_prevent_gradient_is_tfs_lookup_error():
    with ds.Graph().as_default():
        a = ds.placeholder(ds.float32, (2,))
        y = make_op("PreventGradient", [a], {"message": "no second derivative here"})
        with pytest.raises(LookupError, match="Gradient explicitly disabled. Reason: no "
                                              "second derivative here"):
            ds.gradients(y * 2.0, a)
