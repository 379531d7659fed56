"""The optimizers' update kernels (ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyAdagrad,
ApplyAdagradV2, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdadelta, ApplyFtrl, ApplyFtrlV2,
ApplyProximalGradientDescent, ApplyProximalAdagrad, ApplyAdagradDA) and the
gradients' shape-of kernels, on every device against the numpy reference.

An update kernel works on variables in a resource manager, so each case sets up the
same variables for the reference and for the device, runs a few updates with fresh
gradients, and compares the variable and its slots; sizes cover empty, odd and
parallel-sized arrays, and float16 (the reference formulas on every device).
"""

from __future__ import annotations

import numpy as np
import pytest

from devsession.errors import FailedPreconditionError, InvalidArgumentError
from devsession.kernels.cpu.elementwise import PARALLEL_MIN_SIZE
from devsession.kernels.registry import KernelNode, lookup_kernel
from devsession.device_spec import Device
from devsession.runtime.resources import ResourceMgr
from devsession.runtime.state import StateContext
from kernel_cases import (DEVICES, F16, F32, F64, STANDIN, assert_same, check_against_ref,
                          make_node, rng_for, run_updates)

# op -> (slot names, scalar hyper-parameters in input order, grad position among values)
UPDATES = {
    "ApplyGradientDescent": ((), {"alpha": 0.1}, 1),
    "ApplyMomentum": (("accum",), {"lr": 0.05, "momentum": 0.9}, 1),
    "ApplyAdam": (("m", "v"), {"beta1_power": 0.9 ** 3, "beta2_power": 0.999 ** 3, "lr": 0.01,
                               "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7}, 6),
    "ApplyAdagrad": (("accum",), {"lr": 0.1}, 1),
    "ApplyAdagradV2": (("accum",), {"lr": 0.1, "epsilon": 0.01}, 2),
    "ApplyRMSProp": (("ms", "mom"), {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6},
                     4),
    "ApplyCenteredRMSProp": (("mg", "ms", "mom"), {"lr": 0.01, "rho": 0.9, "momentum": 0.5,
                                                   "epsilon": 0.1}, 4),
    "ApplyAdadelta": (("accum", "accum_update"), {"lr": 1.0, "rho": 0.95, "epsilon": 1e-6}, 3),
    "ApplyFtrl": (("accum", "linear"), {"lr": 0.1, "l1": 0.05, "l2": 0.02, "lr_power": -0.5},
                  0),
    "ApplyFtrlV2": (("accum", "linear"), {"lr": 0.1, "l1": 0.05, "l2": 0.02,
                                          "l2_shrinkage": 0.03, "lr_power": -0.7}, 0),
    "ApplyProximalGradientDescent": ((), {"alpha": 0.1, "l1": 0.05, "l2": 0.02}, 3),
    "ApplyProximalAdagrad": (("accum",), {"lr": 0.1, "l1": 0.0, "l2": 0.02}, 3),
    "ApplyAdagradDA": (("gradient_accumulator", "gradient_squared_accumulator"),
                       {"lr": 0.1, "l1": 0.05, "l2": 0.02, "global_step": 3}, 0),
}
FLAG_ATTRS = {"ApplyMomentum": "use_nesterov", "ApplyAdam": "use_nesterov",
              "ApplyAdagrad": "update_slots", "ApplyAdagradV2": "update_slots"}
SIZES = [(0,), (1,), (7,), (3, 5), (PARALLEL_MIN_SIZE + 3,)]


def _values(op, dtype, grad):
    slots, scalars, grad_at = UPDATES[op]
    values = [np.array(v, np.int64 if k == "global_step" else dtype)
              for k, v in scalars.items()]
    values.insert(grad_at, grad)
    return values


def _node(op, dtype, shape, resources, flag, device):
    slots = UPDATES[op][0]
    names = ("var",) + slots
    keys = tuple(("", f"{op}_{name}", np.dtype(dtype), shape) for name in names)
    n_inputs = len(names) + len(UPDATES[op][1]) + 1
    attrs = {"use_locking": False}
    if op in FLAG_ATTRS:
        attrs[FLAG_ATTRS[op]] = flag
    dtypes = (np.dtype(dtype),) * (n_inputs - 1) + \
        (np.dtype(np.int64) if "global_step" in UPDATES[op][1] else np.dtype(dtype),)
    return KernelNode(f"{op.lower()}_node", op, attrs, dtypes,
                      (shape,) * n_inputs, np.dtype(dtype), shape,
                      context=StateContext(resources, keys[0], keys), device=device)


def _run(device, op, dtype, shape, flag, initial, grads):
    """The variable and slots after one update per gradient, on ``device`` ("REF", "CPU",
    "GPU" or the cupy stand-in)."""
    on_gpu = device in ("GPU", STANDIN)
    node = _node(op, dtype, shape, ResourceMgr(), flag, Device("GPU" if on_gpu else "CPU"))
    return run_updates(device, node, initial, [_values(op, dtype, grad) for grad in grads])


# (op, dtype, the value of its flag attr: use_nesterov, update_slots, or None)
CASES = [(op, dtype, flag) for op in UPDATES for dtype in (F16, F32, F64)
         for flag in ((False, True) if op in FLAG_ATTRS else (None,))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SIZES, ids=str)
@pytest.mark.parametrize("op,dtype,flag", CASES, ids=str)
def test_updates_match_the_reference(device, op, dtype, flag, shape):
    rng = rng_for(op, dtype, flag, shape)
    slots = UPDATES[op][0]
    initial = [rng.standard_normal(shape).astype(dtype)]
    # slots start positive, and a centered mean gradient small next to its mean square
    initial += [np.abs(rng.standard_normal(shape)).astype(dtype) * (0.1 if s == "mg" else 1)
                + (1 if s == "ms" else 0) for s in slots]
    grads = [rng.standard_normal(shape).astype(dtype) for _ in range(3)]
    want = _run("REF", op, dtype, shape, flag, initial, grads)
    got = _run(device, op, dtype, shape, flag, initial, grads)
    # FTRL's linear sums terms ~100x its value: a last-bit difference of pow (numba's
    # against numpy's) shows as ~1e-5 there
    tolerance = {"atol": 1e-4} if op.startswith("ApplyFtrl") and dtype == F32 else {}
    for g, w in zip(got, want):
        assert_same(g, w, **tolerance)


def test_the_reference_is_tf1s_formula():
    var, m, v, g = np.array([1.0, -2.0]), np.array([0.1, 0.2]), np.array([0.3, 0.4]), \
        np.array([0.5, -0.5])
    got = _run("REF", "ApplyAdam", F64, (2,), False, [var, m, v], [g])
    scalars = UPDATES["ApplyAdam"][1]
    alpha = scalars["lr"] * np.sqrt(1 - scalars["beta2_power"]) / (1 - scalars["beta1_power"])
    m2 = 0.9 * m + 0.1 * g
    v2 = 0.999 * v + 0.001 * g * g
    np.testing.assert_allclose(got[1], m2, rtol=1e-14)
    np.testing.assert_allclose(got[2], v2, rtol=1e-14)
    np.testing.assert_allclose(got[0], var - alpha * m2 / (np.sqrt(v2) + 1e-7), rtol=1e-14)


def test_adagrad_v2_adds_epsilon_to_the_root():
    var, accum, g = np.array([1.0, -2.0]), np.array([0.1, 0.2]), np.array([0.5, -0.5])
    got = _run("REF", "ApplyAdagradV2", F64, (2,), True, [var, accum], [g])
    np.testing.assert_allclose(got[1], accum + g * g, rtol=1e-14)
    np.testing.assert_allclose(got[0], var - 0.1 * g / (np.sqrt(accum + g * g) + 0.01),
                               rtol=1e-14)


@pytest.mark.parametrize("device_type", ["REF", "CPU"])
def test_update_errors_name_the_node(device_type):
    resources = ResourceMgr()
    node = _node("ApplyMomentum", F32, (3,), resources, False, Device("CPU"))
    kernel = lookup_kernel("ApplyMomentum", device_type)(node)
    values = _values("ApplyMomentum", F32, np.ones(3, F32))
    with pytest.raises(FailedPreconditionError, match="uninitialized"):
        kernel(*values)
    var, accum = node.context.ref_resources()
    var.assign(np.zeros(3, F32), "init")
    with pytest.raises(FailedPreconditionError, match="ApplyMomentum_accum"):
        kernel(*values)
    accum.assign(np.zeros(3, F32), "init")
    with pytest.raises(InvalidArgumentError, match=r"applymomentum_node.*same shape") as info:
        kernel(*_values("ApplyMomentum", F32, np.ones(4, F32)))
    assert info.value.node_name == "applymomentum_node"
    bad = list(values)
    bad[0] = np.ones(2, F32)
    with pytest.raises(InvalidArgumentError, match="not a scalar"):
        kernel(*bad)
    np.testing.assert_array_equal(var.value, np.zeros(3, F32))    # nothing changed
    kernel(*values)
    np.testing.assert_allclose(var.value, -0.05 * np.ones(3))


@pytest.mark.parametrize("device", DEVICES)
def test_stop_gradient_is_an_identity(device):
    x = rng_for("stop").standard_normal((3, 4)).astype(F32)
    node = make_node("StopGradient", [F32], F32)
    np.testing.assert_array_equal(check_against_ref(device, node, x), x)


# --- shape-of kernels ------------------------------------------------------------------------

def _shape_node(op, dtypes, out, attrs=None, device="CPU"):
    dtypes = tuple(np.dtype(d) for d in dtypes)
    return KernelNode(f"{op.strip('_').lower()}_node", op, dict(attrs or {}), dtypes,
                      tuple(None for _ in dtypes), np.dtype(out), None, device=Device(device))


@pytest.mark.parametrize("device_type", ["REF", "CPU"])
def test_shape_of_kernels(device_type):
    rng = rng_for("shape_of")
    g = rng.standard_normal((2, 3, 4))

    def run(op, *inputs, attrs=None, out=F64):
        node = _shape_node(op, [x.dtype for x in inputs], out, attrs)
        return lookup_kernel(op, device_type)(node)(*inputs)

    np.testing.assert_allclose(run("_ReduceToShapeOf", g, np.zeros((3, 1), bool)),
                               g.sum(axis=(0, 2)).reshape(3, 1))
    assert run("_ReduceToShapeOf", g, np.zeros((2, 3, 4))) is g
    with pytest.raises(InvalidArgumentError, match="reducetoshapeof_node"):
        run("_ReduceToShapeOf", g, np.zeros((2, 4)))
    assert run("_ReshapeToShapeOf", g.reshape(6, 4), np.zeros((2, 3, 4)),
               attrs={"reduced_axes": ()}).shape == (2, 3, 4)
    assert run("_ReshapeToShapeOf", g.sum(axis=1), g,
               attrs={"reduced_axes": (1,)}).shape == (2, 1, 4)
    size = run("_ReducedSize", g, attrs={"axis": (0, 2), "dtype": F32}, out=F32)
    assert size.dtype == F32 and size == 8
    first, second = run("_SplitToShapesOf", g, np.zeros((2, 1, 4)), np.zeros((2, 2, 4)),
                        attrs={"axis": 1})
    np.testing.assert_array_equal(first, g[:, :1])
    np.testing.assert_array_equal(second, g[:, 1:])
    with pytest.raises(InvalidArgumentError, match="cannot cut"):
        run("_SplitToShapesOf", g, np.zeros((2, 1, 4)), attrs={"axis": 1})
    node = _shape_node("_BroadcastToShapeOf", [F64, bool], F64)
    got = lookup_kernel("_BroadcastToShapeOf", device_type)(node)(g[:1, :, :1],
                                                                  np.zeros((2, 3, 4), bool))
    np.testing.assert_array_equal(got, np.broadcast_to(g[:1, :, :1], (2, 3, 4)))
