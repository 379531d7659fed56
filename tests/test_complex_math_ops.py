"""Complex elementwise math (ops/elementwise.py, elementwise_grad.py, backprops.py):
sigmoid, sign, tan, the inverse trigonometric and hyperbolic functions, sinh, cosh,
log1p, expm1, divide_no_nan, multiply_no_nan, xlogy, xdivy, xlog1py and
squared_difference on complex64 and complex128, their gradients in TF's conjugate
convention and the second derivatives through TF's backprop ops (SigmoidGrad, TanhGrad,
SqrtGrad, RsqrtGrad, ReciprocalGrad, which take complex values too), as TensorFlow
computes them: a GraphDef TF wrote (tests/data/make_tf_complex_math.py) imports and gives
TF's values, devsession builds the same program from the same source, and differentiates
TF's own backprop nodes again."""

from __future__ import annotations

import os

import numpy as np
import pytest

import complex_math_cases as cases
import devsession as ds
from gradient_check import numeric_gradient
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)
from tf_recorded import (DATA, assert_built_as_tf, assert_imported_as_tf, recorded_keys,
                         run_recorded)


@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_complex_math")


def _close(got, want, name):
    """TF's values; where TF's is not finite (x / 0 of complex values: nan+nanj or
    +-inf+-infj by the element's place in Eigen's vectorized loop), not finite too."""
    tolerance = 1e-12 if want.dtype == np.complex128 else 2e-5
    assert got.dtype == want.dtype and got.shape == want.shape, name
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isfinite(got), finite, err_msg=name)
    np.testing.assert_allclose(got[finite], want[finite], rtol=tolerance, atol=tolerance,
                               err_msg=name)


def test_a_graph_tf_wrote_gives_tfs_values(recorded):
    written = ds.read_graph_def(os.path.join(DATA, "tf_complex_math.pb"))
    assert {"Xlog1py", "SigmoidGrad", "RsqrtGrad", "ReciprocalGrad", "SqrtGrad", "TanhGrad",
            "Acosh", "DivNoNan"} <= {node.op for node in written.node}
    assert_imported_as_tf(recorded, _close)


def _built_by_ds(data, session):
    assert_built_as_tf(cases, data, session, _close, 110)


def test_ds_builds_tfs_values_and_gradients(recorded, make_session):
    graph = ds.Graph()
    with graph.as_default():
        _built_by_ds(recorded[3], lambda: make_session(graph))


def test_on_the_stand_in_gpu(recorded, standin):  # noqa: F811
    with ds.Graph().as_default():
        _built_by_ds(recorded[3], lambda: ds.Session(options=ds.SessionOptions(device="gpu:0")))


def test_tfs_backprop_nodes_differentiate_as_tfs(recorded):
    """The first gradients TF wrote are its backprop ops (SigmoidGrad...): devsession's
    gradients of those (backprops_grad.py) give TF's second derivatives."""
    graph, _, _, data = recorded
    keys = recorded_keys(data)
    with graph.as_default():
        y, w2 = graph.get_tensor_by_name("y:0"), graph.get_tensor_by_name("w2:0")
        firsts = {op: graph.get_tensor_by_name(keys[f"grad_{op}_y"])
                  for op in cases.BACKPROP_FORMS}
        assert {t.op.type for t in firsts.values()} == {
            "SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}
        seconds = {op: ds.gradients(t, y, grad_ys=w2)[0] for op, t in firsts.items()}
        with ds.Session(graph=graph) as sess:
            got = sess.run(seconds, {f"{k}:0": data[f"feed:{k}"] for k in cases.SHAPES})
    for op in cases.BACKPROP_FORMS:
        _close(got[op], data[f"fetch:{keys[f'grad2_{op}']}"], op)


def test_the_conjugate_convention_by_finite_differences():
    """TF's gradient of a real loss L(z) is dL/dRe(z) + 1j dL/dIm(z): checked for
    L = sum(Re(w * atanh(z))) and L = sum(Re(w * divide_no_nan(v, z))) on complex128
    (TF's xlogy, xdivy, xlog1py and multiply_no_nan gradients do not conjugate: those
    follow TF's formulas, checked against its recorded values above)."""
    rng = np.random.default_rng(3)
    z0 = 0.4 * (rng.normal(size=4) + 1j * rng.normal(size=4))
    w0 = rng.normal(size=4) + 1j * rng.normal(size=4)
    v0 = 1 + 0.3j + 0.2 * rng.normal(size=4)
    with ds.Graph().as_default():
        z = ds.placeholder(ds.complex128, [4])
        losses = [ds.reduce_sum(ds.real(w0 * ds.math.atanh(z))),
                  ds.reduce_sum(ds.real(w0 * ds.math.divide_no_nan(v0, z)))]
        grads = [ds.gradients(loss, z)[0] for loss in losses]
        with ds.Session() as sess:
            for loss, grad in zip(losses, grads):
                def value(parts, loss=loss):
                    return sess.run(loss, {z: parts[:4] + 1j * parts[4:]})
                numeric = numeric_gradient(value, np.concatenate([z0.real, z0.imag]))
                np.testing.assert_allclose(sess.run(grad, {z: z0}),
                                           numeric[:4] + 1j * numeric[4:], rtol=1e-6)


def test_what_tf_refuses_on_complex_values():
    with ds.Graph().as_default():
        z = ds.ones([2], ds.complex64)
        for build in (ds.math.atan2, ds.maximum, ds.math.floormod):
            with pytest.raises(TypeError, match="complex64"):
                build(z, z)
        with pytest.raises(TypeError, match="complex64"):
            ds.math.erf(z)
        with pytest.raises(TypeError, match="complex64"):
            ds.math.xlogy(z, ds.ones([2], ds.complex128))
