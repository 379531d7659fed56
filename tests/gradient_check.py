"""Gradient functions checked against central finite differences, in float64.

``check_op_gradient(build, inputs)`` builds ``ys = build(*xs)`` (one tensor or several)
from placeholders fed with ``inputs``, calls the gradient function registered for the
op that made the first of ``ys`` with random output gradients ``dys``, and compares
each input gradient it returns with the finite-difference derivative of
``sum(dy * y)``, the vector-Jacobian product a gradient function must compute.  It
needs no autodiff engine: it checks one op's gradient function, which is what each
op's test needs (``ds.gradients`` chains them and is tested on whole graphs).

Inputs that should get no gradient (integer indices, shapes) are given in
``no_gradient``; the function must return None for them.
"""

from __future__ import annotations

import numpy as np

import devsession as ds
from devsession.ops.registry import get_gradient


def numeric_gradient(f, x, eps=1e-6):
    """d sum(f(x)) / dx by central differences (f: numpy in, numpy or a number out)."""
    out = np.zeros_like(x)
    for i in range(x.size):
        plus, minus = x.copy(), x.copy()
        plus.flat[i] += eps
        minus.flat[i] -= eps
        out.flat[i] = (np.sum(f(plus)) - np.sum(f(minus))) / (2 * eps)
    return out


def _as_list(ys):
    return list(ys) if isinstance(ys, (list, tuple)) else [ys]


def check_op_gradient(build, inputs, *, no_gradient=(), eps=1e-6, rtol=1e-5, atol=1e-7,
                      seed=0):
    """See the module docstring; returns the gradients the function computed."""
    rng = np.random.default_rng(seed)
    inputs = [np.asarray(x) for x in inputs]
    graph = ds.Graph()
    with graph.as_default():
        xs = [ds.placeholder(ds.as_dtype(x.dtype), x.shape, name=f"x{k}")
              for k, x in enumerate(inputs)]
        ys = _as_list(build(*xs))
        op = ys[0].op
        dys = [ds.placeholder(y.dtype, y.shape, name=f"dy{k}") for k, y in enumerate(op.outputs)]
        grads = get_gradient(op.type)(op, *dys)
        assert len(grads) == len(op.inputs), (len(grads), len(op.inputs))
    positions = {xs[k]: k for k in range(len(xs))}
    with ds.Session(graph=graph) as sess:
        feed = {x: v for x, v in zip(xs, inputs)}
        outs = sess.run(list(op.outputs), feed)
        dy_values = [rng.standard_normal(np.shape(o)).astype(o.dtype)
                     if np.asarray(o).dtype.kind == "f" else np.zeros(np.shape(o), o.dtype)
                     for o in outs]
        feed.update(zip(dys, dy_values))

        def objective(values):
            f = {x: v for x, v in zip(xs, values)}
            got = sess.run(list(op.outputs), f)
            return sum(float(np.sum(dy.astype(np.float64) * np.asarray(g, np.float64)))
                       for dy, g in zip(dy_values, got) if dy.dtype.kind == "f")

        computed = []
        for index, (t, grad) in enumerate(zip(op.inputs, grads)):
            k = positions.get(t)
            if k is None or k in no_gradient:
                assert k is None or grad is None, f"input {index} should get no gradient"
                computed.append(None)
                continue
            assert grad is not None, f"input {index} ({t.name}) got no gradient"
            value = sess.run(grad, feed)
            assert value.shape == inputs[k].shape, (value.shape, inputs[k].shape)
            numeric = np.zeros(inputs[k].shape)
            flat = numeric.reshape(-1)
            for i in range(inputs[k].size):
                plus = [v.copy() for v in inputs]
                minus = [v.copy() for v in inputs]
                plus[k].reshape(-1)[i] += eps
                minus[k].reshape(-1)[i] -= eps
                flat[i] = (objective(plus) - objective(minus)) / (2 * eps)
            np.testing.assert_allclose(value, numeric, rtol=rtol, atol=atol,
                                       err_msg=f"gradient of {op.type} input {index}")
            computed.append(value)
    return computed
