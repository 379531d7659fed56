"""What the kernel test suites share: dtypes, op lists, seeded inputs, comparisons, and
one way to run a kernel on any device.

Kernel tests are written once and parametrised over ``DEVICES`` (CuPy's and dask's
habit: one test body, every backend): ``check_against_ref(device, node, *inputs)`` runs
the node's kernel on the CPU, or on a GPU where there is one (the GPU case carries the
``gpu`` mark and skips with "no CUDA device" elsewhere), and compares it with the numpy
reference kernel: exact for integers and bool, close (NaN where NaN) for floats.

The third device, ``"GPU-standin"``, runs the real CUDA kernel module on the numpy
stand-in for cupy (``cupy_standin.py``), so every GPU kernel is exercised in CI too:
its generated CUDA C compiled on the host, its Python logic, its copies.  cupy's own
routines are numpy there (see that module), and a kernel using a cupy feature the
stand-in does not emulate skips, saying which.  A test body must reach the kernel
through ``run_on``/``check_against_ref`` for the device to mean anything.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import strategies as st

from cuda_host import compiler_missing
from devsession.device_spec import Device
from devsession.devices import gpu_devices
from devsession.kernels.registry import KernelNode, lookup_kernel, registered_ops
from devsession.runtime.plan import ALIASING_OPS

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)
FLOATS = [F16, F32, F64]
NUMERIC = FLOATS + [I32, I64]
ALL = NUMERIC + [BOOL]
BIG = 1_000_003

UNARY = {"Identity": ALL, "Neg": NUMERIC, "Abs": NUMERIC, "Square": NUMERIC,
         "Relu": NUMERIC, "Exp": FLOATS, "Log": FLOATS, "Sqrt": FLOATS, "Tanh": FLOATS,
         "Sigmoid": FLOATS}
ARITHMETIC = ["Add", "Sub", "Mul", "Pow", "Maximum", "Minimum", "RealDiv", "AddV2"]
COMPARISON = ["Equal", "Less", "LessEqual", "Greater", "GreaterEqual"]
LOGICAL = ["LogicalAnd"]  # bool inputs only
BROADCASTS = [((3, 1), (1, 4)), ((5, 4), (4,)), ((), (7,)), ((2, 1, 3), (1, 4, 1))]
MATMUL_CASES = [
    ((2, 3), (3, 4), False, False), ((3, 2), (3, 4), True, False),
    ((2, 3), (4, 3), False, True), ((3, 2), (4, 3), True, True),
    ((1, 1), (1, 1), False, False), ((7, 7), (7, 1), False, False),
    ((2, 0), (0, 3), False, False), ((0, 3), (3, 2), False, False),
    ((2, 1, 3, 4), (5, 4, 2), False, False), ((5, 3, 4), (3, 2), True, False),
]
REDUCE_CASES = [((3, 4, 5), axes, keep) for axes in [(), (0,), (1,), (2,), (0, 2), (1, 2),
                                                      (0, 1, 2)] for keep in (False, True)]
REDUCE_CASES += [((0,), (0,), False), ((1,), (0,), False), ((7,), (0,), True),
                 ((0, 3), (1,), False), ((3, 0), (0,), True), ((), (), False)]


# The devices a kernel test runs on; the reference ("REF") is what they are compared with.
STANDIN = "GPU-standin"
DEVICES = [pytest.param("CPU", id="cpu"),
           pytest.param("GPU", id="gpu", marks=[
               pytest.mark.gpu, pytest.mark.skipif(not gpu_devices(), reason="no CUDA device")]),
           pytest.param(STANDIN, id="gpu-standin", marks=[
               pytest.mark.skipif(bool(compiler_missing()), reason=compiler_missing() or "-")])]


def on_device(node: KernelNode, device: str) -> KernelNode:
    """``node`` placed on ``device`` ("CPU", "GPU" = GPU:0, or a ``Device``)."""
    import dataclasses

    if isinstance(device, str):
        device = Device(device)
    return dataclasses.replace(node, device=device)


def registered_on(device) -> frozenset:
    """The ops with a kernel on ``device`` (a registry device type, or ``STANDIN``)."""
    if device == STANDIN:
        import cupy_standin

        return cupy_standin.registered_ops()
    return registered_ops(device)


def kernel_on(device, node: KernelNode):
    """``node``'s kernel on ``device``, taking and returning ``array_module(device)``'s
    arrays (a test that calls it directly rather than through ``run_on``)."""
    if device == STANDIN:
        import cupy_standin

        return cupy_standin.lookup_kernel(node.op)(on_device(node, "GPU"))
    return lookup_kernel(node.op, device)(on_device(node, device))


def array_module(device):
    """numpy, cupy, or the cupy stand-in: the arrays ``kernel_on(device, ...)`` takes."""
    if device == STANDIN:
        import cupy_standin

        return cupy_standin.shared_cupy()
    if device == "GPU" or isinstance(device, Device):
        import cupy

        return cupy
    return np


def run_updates(device, node: KernelNode, initial: list, steps: list, host=()) -> list:
    """The values of the variables ``node`` (an optimizer update) changes, after its
    kernel on ``device`` ("REF", "CPU", "GPU" or the stand-in) ran once per entry of
    ``steps`` (its non-ref inputs, numpy; those at positions ``host`` stay numpy, as a
    host input does), from ``initial`` (one per ref input).  Also checks that the
    kernel's output is the variable."""
    import contextlib

    on_gpu = device in ("GPU", STANDIN)
    frame = contextlib.nullcontext()
    if device == STANDIN:
        import cupy_standin

        frame = cupy_standin.shared_modules()
    with frame:
        xp = array_module(device)
        to_device, to_host = (xp.asarray, xp.asnumpy) if on_gpu else (np.asarray, np.asarray)
        resources = node.context.resources
        for key, value in zip(node.context.refs, initial):
            resources.variable(*key).assign(to_device(value), "init")
        kernel = lookup_kernel(node.op, "REF")(node) if device == "REF" \
            else kernel_on(device, node)
        for inputs in steps:
            result = kernel(*[v if k in host else to_device(v) for k, v in enumerate(inputs)])
        final = [to_host(r.value) for r in node.context.ref_resources()]
        np.testing.assert_array_equal(to_host(result), final[0])
    return final


def run_on(device, node: KernelNode, *inputs) -> np.ndarray:
    """The kernel of ``node`` on ``device`` ("REF", "CPU", "GPU", a GPU ``Device`` or
    ``STANDIN``), given and returning host arrays; fails if the kernel changed an input,
    or (on the host) returned an input's memory when its op is not one the plan copies
    fetches of (``plan.ALIASING_OPS``): a fetch would then share a feed or a variable."""
    if isinstance(device, Device) or device == "GPU":
        return _run_on_gpu(on_device(node, device), *inputs)
    if device == STANDIN:
        import cupy_standin

        return cupy_standin.run_kernel(node, *inputs)
    before = [x.copy() for x in inputs]
    result = lookup_kernel(node.op, device)(node)(*inputs)
    for x, b in zip(inputs, before):
        np.testing.assert_array_equal(x, b, err_msg="a kernel mutated its input")
    if node.op not in ALIASING_OPS and not _cast_to_own_dtype(node):
        for out in result if isinstance(result, tuple) else (result,):
            assert not any(np.shares_memory(out, x) for x in inputs
                           if isinstance(out, np.ndarray) and isinstance(x, np.ndarray)), \
                f"{device} {node.op} returned an input's memory"
    return result


def _cast_to_own_dtype(node: KernelNode) -> bool:
    """A Cast to its input's dtype may return a view (the plan copies its fetches)."""
    return node.op == "Cast" and node.input_dtypes[0] == np.dtype(node.output_dtype)


def _run_on_gpu(node: KernelNode, *inputs):
    import cupy

    index = node.device.index
    with cupy.cuda.Device(index):
        device_inputs = [cupy.asarray(x) for x in inputs]
    result = lookup_kernel(node.op, "GPU")(node)(*device_inputs)
    results = result if isinstance(result, tuple) else (result,)
    for r in results:
        assert isinstance(r, cupy.ndarray), type(r)
        assert r.device.id == index
    for x, d in zip(inputs, device_inputs):
        np.testing.assert_array_equal(cupy.asnumpy(d), x, err_msg="a kernel mutated its input")
    out = tuple(cupy.asnumpy(r) for r in results)
    return out if isinstance(result, tuple) else out[0]


def check_against_ref(device, node: KernelNode, *inputs, **tolerances):
    """``device``'s kernel against the reference kernel on the same inputs (each output
    of a kernel with several); returns what ``device`` computed."""
    ref = run_on("REF", node, *inputs)
    got = run_on(device, node, *inputs)
    if isinstance(ref, tuple):
        assert isinstance(got, tuple) and len(got) == len(ref), "outputs missing"
        for g, r in zip(got, ref):
            assert_same(g, r, **tolerances)
    else:
        assert ref.dtype == node.output_dtype
        assert_same(got, ref, **tolerances)
    return got


def rng_for(*key) -> np.random.Generator:
    """A generator seeded by ``key``: each test case gets its own, stable inputs."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def random_array(rng, shape, dtype, *, low=-20, high=20, specials=False):
    """Random values of ``dtype``: integers in [low, high) (unsigned ones in [0, high)),
    floats ~ N(0, 3); with ``specials``, elements 1, 3 and 5 of a float array become nan,
    inf and -inf (when there are 7)."""
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return rng.random(shape) < 0.5
    if dtype.kind == "i":
        return rng.integers(low, high, size=shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(max(low, 0), high, size=shape).astype(dtype)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    if specials and x.size >= 7:
        x.reshape(-1)[[1, 3, 5]] = [np.nan, np.inf, -np.inf]
    return x


def make_node(op, input_dtypes, output_dtype, attrs=None, name=None, **device):
    """A ``KernelNode`` named ``<op>_node`` unless ``name`` is given (``device=`` too)."""
    input_dtypes = tuple(np.dtype(d) for d in input_dtypes)
    return KernelNode(name or f"{op.lower()}_node", op, dict(attrs or {}), input_dtypes,
                      tuple(None for _ in input_dtypes), np.dtype(output_dtype), None,
                      **device)


def out_dtype_of(op, dtype):
    """The output dtype of elementwise binary ``op`` on two ``dtype`` inputs."""
    if op in COMPARISON or op in LOGICAL:
        return BOOL
    return F64 if op == "RealDiv" and dtype.kind in "ib" else dtype


def binary_inputs(op, dtype, shapes):
    """Inputs for binary ``op``: small exponents for integer Pow (none negative: that is
    the CPU's error, ``test_tf1_kernels.py``), no specials for Pow."""
    rng = rng_for(op, dtype, shapes)
    if op == "Pow" and dtype.kind == "i":
        return (random_array(rng, shapes[0], dtype, low=-5, high=6),
                random_array(rng, shapes[1], dtype, low=0, high=7))
    return tuple(random_array(rng, s, dtype, specials=op != "Pow") for s in shapes)


def assert_same(actual, expected, dtype=None, *, rtol=None, atol=None):
    """Same dtype and shape; exact for ints/bool; close (NaN where NaN) for floats, with
    per-dtype default tolerances (``dtype`` picks them; default ``expected.dtype``)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    dtype = np.dtype(dtype or expected.dtype)
    if dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
        return
    default_rtol, default_atol = {F16: (2e-3, 2e-3), F32: (2e-5, 1e-6),
                                  F64: (1e-12, 1e-12)}[dtype]
    np.testing.assert_allclose(actual.astype(F64), expected.astype(F64), equal_nan=True,
                               rtol=default_rtol if rtol is None else rtol,
                               atol=default_atol if atol is None else atol)


def reduction_tolerance(op, dtype, x, axes):
    """Error bound for a sum: a few eps of the sum of |x| (per output), over the count."""
    if dtype.kind != "f" or op in ("Max", "Min"):
        return {}
    eps = float(np.finfo(np.float32 if dtype == F16 else dtype).eps)
    scale = np.max(np.nansum(np.abs(x.astype(F64)), axis=axes), initial=0.0)
    count = max(int(np.prod([x.shape[a] for a in axes])), 1) if op == "Mean" else 1
    default = {F16: 2e-3, F32: 1e-6, F64: 1e-12}[dtype]
    return {"atol": max(64 * eps * scale / count, default)}


# Random expression trees for the code generators: (expression, the numpy formula).
_LEAVES = st.one_of(st.sampled_from([("a", "a"), ("b", "b")]),
                    st.floats(-4, 4).map(lambda v: (repr(round(v, 2)),) * 2))


def _extend(children):
    binary = st.tuples(st.sampled_from(["+", "-", "*"]), children, children).map(
        lambda t: (f"({t[1][0]} {t[0]} {t[2][0]})", f"({t[1][1]} {t[0]} {t[2][1]})"))
    extreme = st.tuples(st.sampled_from(["max", "min"]), children, children).map(
        lambda t: (f"{t[0]}({t[1][0]}, {t[2][0]})", f"np.{t[0]}imum({t[1][1]}, {t[2][1]})"))
    select = st.tuples(children, children, children, children).map(
        lambda t: (f"({t[2][0]} if {t[0][0]} < {t[1][0]} else {t[3][0]})",
                   f"np.where({t[0][1]} < {t[1][1]}, {t[2][1]}, {t[3][1]})"))
    unary = st.tuples(st.sampled_from(["abs", "tanh"]), children).map(
        lambda t: (f"{t[0]}({t[1][0]})", f"np.{t[0]}({t[1][1]})"))
    return st.one_of(binary, extreme, select, unary)


EXPRESSION_TREES = st.recursive(_LEAVES, _extend, max_leaves=8)


def numpy_value(numpy_expr: str, a, b, shape, dtype):
    """The numpy formula of an ``EXPRESSION_TREES`` example, broadcast to ``shape``."""
    with np.errstate(all="ignore"):
        value = eval(numpy_expr, {"np": np, "a": a, "b": b})  # noqa: S307
        return np.broadcast_to(value, shape).astype(dtype)


def _read_only(array):
    array.flags.writeable = False
    return array


# (why, make) of float32 products no engine of plain products takes (register_gemm,
# blas_shares): make(a, b, out) -> the operands; out is left as it was.
PRODUCTS_TURNED_AWAY = [
    ("float64", lambda a, b, out: (a.astype(np.float64), b.astype(np.float64),
                                   out.astype(np.float64))),
    ("batched", lambda a, b, out: (a[None], b[None], out[None])),
    ("C overlaps A", lambda a, b, out: (a, b, a[:, :b.shape[1]])),
    ("read-only C", lambda a, b, out: (a, b, _read_only(out))),
    ("reversed rows", lambda a, b, out: (a[::-1], b, out)),
    ("C's rows overlap", lambda a, b, out: (a, b, np.lib.stride_tricks.as_strided(
        out, out.shape, (4, 4)))),
]
