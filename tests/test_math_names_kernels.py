"""Kernels of the TF1 math names (branch tf1-math-names) on every device against the
numpy reference (``kernel_cases.DEVICES``), the programs the GPU compiles against the
reference, and the reference against TF 2.21's values.

Elementwise: Acosh, Asinh, Atanh, Rint (every float dtype, NaN and infinities among the
values), Xdivy, Xlog1py, MulNoNan (broadcasting, zeros where they branch); the bitwise
ops on every integer dtype, shift counts below 0 and past the width included.
EuclideanNorm (a reduction: axes, keepdims, none, integers) and CumulativeLogsumexp (a
scan: exclusive, reverse, an axis, -inf and +inf).
"""

from __future__ import annotations

import numpy as np
import pytest

from devsession.kernels.codegen import cuda as cuda_codegen
from devsession.kernels.codegen.expressions import ELEMENTWISE_OPS
from kernel_cases import (BIG, BROADCASTS, DEVICES, F16, F32, F64, FLOATS, I32,
                          assert_same, check_against_ref, make_node, random_array, rng_for,
                          run_on)

UNARY = ["Acosh", "Asinh", "Atanh", "Rint"]
BINARY = ["Xdivy", "Xlog1py", "MulNoNan"]
BITWISE = ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"]
INTEGERS = [np.dtype(d) for d in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16)]
COVERED = {*UNARY, *BINARY, *BITWISE, "Invert", "EuclideanNorm", "CumulativeLogsumexp"}
SHAPES = [(0,), (1,), (7,), (3, 5)]
pytestmark = pytest.mark.parametrize("device", DEVICES)


def unary_input(op, dtype, shape):
    """N(0, 3) values with NaN and +-inf: Acosh gets |x| + 0.5 (some below 1), Atanh
    x / 4 (mostly inside (-1, 1)), Rint halves (ties both ways)."""
    x = random_array(rng_for(op, dtype, shape), shape, dtype, specials=True)
    return {"Acosh": lambda v: np.abs(v) + 0.5, "Atanh": lambda v: v / 4,
            "Rint": lambda v: np.round(v * 2) / 2}.get(op, lambda v: v)(x).astype(dtype)


def binary_input(op, dtype, shapes):
    rng = rng_for(op, dtype, shapes)
    x, y = (random_array(rng, s, dtype, specials=True) for s in shapes)
    for a in (x, y):
        if a.size >= 4:
            a.reshape(-1)[[0, 2]] = 0
    return x, y


def bitwise_input(op, dtype, shapes):
    """Values across the dtype's range; shift counts from -3 to the width + 3."""
    rng = rng_for(op, dtype, shapes)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shapes[0], endpoint=True).astype(dtype)
    if op.endswith("Shift"):
        low = 0 if dtype.kind == "u" else -3
        y = rng.integers(low, dtype.itemsize * 8 + 4, size=shapes[1]).astype(dtype)
    else:
        y = rng.integers(info.min, info.max, size=shapes[1], endpoint=True).astype(dtype)
    return x, y


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in UNARY for d in FLOATS])
def test_unary(device, op, dtype, shape):
    check_against_ref(device, make_node(op, [dtype], dtype), unary_input(op, dtype, shape))


@pytest.mark.parametrize("op", UNARY)
def test_unary_on_a_big_input(device, op):
    check_against_ref(device, make_node(op, [F32], F32), unary_input(op, F32, (BIG,)))


@pytest.mark.parametrize("shapes", [((0,), (0,)), ((7,), (7,))] + BROADCASTS, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in BINARY for d in FLOATS])
def test_binary(device, op, dtype, shapes):
    got = check_against_ref(device, make_node(op, [dtype, dtype], dtype),
                            *binary_input(op, dtype, shapes))
    assert got.shape == np.broadcast_shapes(*shapes)


@pytest.mark.parametrize("shapes", [((0,), (0,)), ((1,), (1,)), ((64,), (64,)),
                                    ((3, 1), (1, 4)), ((), (7,))], ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in BITWISE for d in INTEGERS])
def test_bitwise(device, op, dtype, shapes):
    check_against_ref(device, make_node(op, [dtype, dtype], dtype),
                      *bitwise_input(op, dtype, shapes))


@pytest.mark.parametrize("dtype", INTEGERS)
def test_invert(device, dtype):
    x, _ = bitwise_input("Invert", dtype, ((65,), ()))
    got = check_against_ref(device, make_node("Invert", [dtype], dtype), x)
    np.testing.assert_array_equal(got, ~x)


def test_values_as_tf(device):
    """TF 2.21's values (the reference and each device alike)."""
    nan, inf = np.nan, np.inf
    cases = [
        ("Xdivy", F32, [[0, 0, 1, nan, 6], [0, nan, 0, 1, 3]], [0, 0, inf, nan, 2]),
        ("Xlog1py", F32, [[0, 0, 1, 2], [-1, nan, -1, np.e - 1]], [0, 0, -inf, 2]),
        ("MulNoNan", F32, [[nan, inf, 1, 2], [0, 0, nan, 3]], [0, 0, nan, 6]),
        ("Rint", F32, [[0.5, 1.5, 2.5, -0.5, -1.5]], [0, 2, 2, -0.0, -2]),
        ("Acosh", F32, [[1, 0.5, inf]], [0, nan, inf]),
        ("Atanh", F32, [[0, 1, -1, 2]], [0, inf, -inf, nan]),
        ("LeftShift", np.dtype(np.int8), [[1, -8, 5, 127, -128], [-1, 3, 8, 9, 1]],
         [1, -64, -128, -128, 0]),
        ("RightShift", np.dtype(np.int8), [[1, -8, 5, 127, -128], [-1, 1, 8, 9, 100]],
         [1, -4, 0, 0, -1]),
        ("LeftShift", np.dtype(np.uint8), [[1, 3], [9, 7]], [128, 128]),
        ("RightShift", np.dtype(np.uint8), [[200, 3], [9, 7]], [1, 0]),
        ("BitwiseXor", I32, [[5, -1], [3, 7]], [6, -8]),
    ]
    for op, dtype, inputs, want in cases:
        node = make_node(op, [dtype] * len(inputs), dtype)
        arrays = [np.array(a, dtype) for a in inputs]
        for where in ("REF", device):
            assert_same(run_on(where, node, *arrays), np.array(want, dtype), rtol=1e-6)


@pytest.mark.parametrize("op", sorted(set(ELEMENTWISE_OPS) & COVERED))
def test_gpu_programs_match_the_reference(device, op):
    """What the GPU compiles (the CUDA front end, evaluated with numpy) against REF."""
    names, expr = ELEMENTWISE_OPS[op]
    dtypes = INTEGERS if op in BITWISE or op == "Invert" else (F16, F32, F64)
    for dtype in dtypes:
        if op in BITWISE or op == "Invert":
            inputs = list(bitwise_input(op, dtype, ((4, 7), (4, 7))))[:len(names)]
        elif len(names) == 1:
            inputs = [unary_input(op, dtype, (4, 7))]
        else:
            inputs = list(binary_input(op, dtype, ((4, 7), (4, 7))))
        program = cuda_codegen.compile_expression(expr, [(n, dtype) for n in names], dtype)
        cuda_codegen.render_cuda(program)          # every instruction has a CUDA rendering
        ref = run_on("REF", make_node(op, [dtype] * len(names), dtype), *inputs)
        assert_same(cuda_codegen.evaluate(program, *inputs), ref)


# --- EuclideanNorm ---------------------------------------------------------------------------

def norm_node(dtype, axis, keepdims=False):
    return make_node("EuclideanNorm", [dtype], dtype, {"axis": axis, "keepdims": keepdims})


@pytest.mark.parametrize("axis,keep", [((), False), ((0,), False), ((1,), True),
                                       ((0, 2), False), ((-1,), False), ((0, 1, 2), True)])
@pytest.mark.parametrize("dtype", [F16, F32, F64])
def test_euclidean_norm(device, axis, keep, dtype):
    x = random_array(rng_for("norm", axis, dtype), (2, 3, 4), dtype)
    got = check_against_ref(device, norm_node(dtype, axis, keep), x, rtol=2e-3 if dtype == F16
                            else 1e-5)
    axes = tuple(a % 3 for a in axis)
    want = np.sqrt(np.sum(x.astype(F64) ** 2, axis=axes, keepdims=keep))
    np.testing.assert_allclose(got.astype(F64), want, rtol=2e-3 if dtype == F16 else 1e-5)


def test_euclidean_norm_of_integers_and_of_nothing(device):
    """TF's: integers truncated ([3, 4] -> 5, [1, 1] -> 1), |x| over no axes, 0 over an
    empty axis."""
    ints = np.array([[3, 4], [1, 1]], np.int32)
    for where in ("REF", device):
        np.testing.assert_array_equal(run_on(where, norm_node(I32, (1,)), ints), [5, 1])
        np.testing.assert_array_equal(run_on(where, norm_node(F32, ()),
                                             np.array([-3, 4], F32)), [3, 4])
        np.testing.assert_array_equal(run_on(where, norm_node(F32, (0,)),
                                             np.zeros((0, 2), F32)), [0, 0])


# --- CumulativeLogsumexp ---------------------------------------------------------------------

def scan_node(dtype, exclusive=False, reverse=False, axis_dtype=I32):
    return make_node("CumulativeLogsumexp", [dtype, axis_dtype], dtype,
                     {"exclusive": exclusive, "reverse": reverse})


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOATS)
def test_cumulative_logsumexp(device, exclusive, reverse, axis, dtype):
    x = random_array(rng_for("cle", exclusive, reverse, axis, dtype), (3, 5), dtype)
    node = scan_node(dtype, exclusive, reverse)
    got = check_against_ref(device, node, x, np.array(axis, np.int32),
                            rtol=2e-3 if dtype == F16 else 1e-6)
    # oracle: log of a running sum of exp in float64
    x64 = np.flip(x.astype(F64), axis) if reverse else x.astype(F64)
    total = np.cumsum(np.exp(x64), axis=axis)
    if exclusive:
        total = total - np.exp(x64)
    with np.errstate(divide="ignore"):
        want = np.log(total)
    want = np.flip(want, axis) if reverse else want
    np.testing.assert_allclose(got.astype(F64), want, rtol=2e-3 if dtype == F16 else 1e-5,
                               atol=1e-6)


def test_cumulative_logsumexp_values_as_tf(device):
    """TF 2.21's values: no underflow of the running total, -inf and +inf, exclusive and
    reverse starting from -inf, an empty axis."""
    x = np.array([-1000, 0, -np.inf, np.inf], F32)
    small = np.array([1, 2, 3], F32)
    for where in ("REF", device):
        np.testing.assert_array_equal(run_on(where, scan_node(F32), x, np.int32(0)),
                                      [-1000, 0, 0, np.inf])
        np.testing.assert_allclose(run_on(where, scan_node(F32, True, True), small,
                                          np.int64(0)), [3.3132617, 3, -np.inf], rtol=1e-6)
        np.testing.assert_allclose(run_on(where, scan_node(F32, True), small, np.int32(0)),
                                   [-np.inf, 1, 2.3132617], rtol=1e-6)
        assert run_on(where, scan_node(F64), np.zeros((2, 0)), np.int32(1)).shape == (2, 0)
