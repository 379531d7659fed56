"""Kernels of the TF1 math ops (branch tf1-math) on every device against the numpy
reference (``kernel_cases.DEVICES``: the CPU, a GPU where there is one, the CUDA kernels
on the cupy stand-in), the programs the GPU compiles against the reference, and the
reference against TF's values.

Elementwise: Log1p, Expm1, Erf, Erfc, Tan, Asin, Acos, Atan, Sinh, Cosh (every float
dtype), IsNan/IsInf/IsFinite (bool out), Atan2, Xlogy, DivNoNan (broadcasting); sizes 0,
1, 7 and 1,000,003 with NaN and infinities among the values.  CheckNumerics: the input
passed through, and TF's messages.  BroadcastTo (the one array op of the branch): every
dtype, sizes 0 and 1, leading axes added, and its error.  Print: its input passed
through, TF's text on stderr, ``first_n``.
"""

from __future__ import annotations

import numpy as np
import pytest

from devsession.errors import InvalidArgumentError
from devsession.kernels.codegen import cuda as cuda_codegen
from devsession.kernels.codegen.expressions import ELEMENTWISE_OPS
from kernel_cases import (ALL, BIG, BOOL, BROADCASTS, DEVICES, F16, F32, F64, FLOATS, I32,
                          array_module, assert_same, kernel_on,
                          check_against_ref, make_node, random_array, rng_for, run_on)

MATH_UNARY = ["Log1p", "Expm1", "Erf", "Erfc", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh"]
PREDICATES = ["IsNan", "IsInf", "IsFinite"]
MATH_BINARY = ["Atan2", "Xlogy", "DivNoNan"]
COVERED = set(MATH_UNARY) | set(PREDICATES) | set(MATH_BINARY) | {"CheckNumerics",
                                                                     "BroadcastTo", "Print"}
SHAPES = [(0,), (1,), (7,), (3, 5)]
pytestmark = pytest.mark.parametrize("device", DEVICES)


def unary_input(op, dtype, shape):
    """N(0, 3) values with NaN and +-inf; Asin and Acos mostly inside [-1, 1]."""
    x = random_array(rng_for(op, dtype, shape), shape, dtype, specials=True)
    return (x / 4).astype(dtype) if op in ("Asin", "Acos") else x


def binary_input(op, dtype, shapes):
    """Random operands with NaN and +-inf, and zeros where Xlogy and DivNoNan branch."""
    rng = rng_for(op, dtype, shapes)
    x, y = (random_array(rng, s, dtype, specials=True) for s in shapes)
    for a in (x, y):
        if a.size >= 4:
            a.reshape(-1)[[0, 2]] = 0
    return x, y


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in MATH_UNARY for d in FLOATS])
def test_math_unary(device, op, dtype, shape):
    check_against_ref(device, make_node(op, [dtype], dtype), unary_input(op, dtype, shape))


@pytest.mark.parametrize("op", MATH_UNARY + PREDICATES)
def test_math_unary_on_a_big_input(device, op):
    x = unary_input(op, F32, (BIG,))
    check_against_ref(device, make_node(op, [F32], BOOL if op in PREDICATES else F32), x)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in PREDICATES for d in FLOATS])
def test_predicates(device, op, dtype, shape):
    got = check_against_ref(device, make_node(op, [dtype], BOOL),
                            unary_input(op, dtype, shape))
    assert got.dtype == BOOL


@pytest.mark.parametrize("shapes", [((0,), (0,)), ((1,), (1,)), ((7,), (7,))] + BROADCASTS,
                         ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in MATH_BINARY for d in FLOATS])
def test_math_binary(device, op, dtype, shapes):
    got = check_against_ref(device, make_node(op, [dtype, dtype], dtype),
                            *binary_input(op, dtype, shapes))
    assert got.shape == np.broadcast_shapes(*shapes)


def test_values_as_tf(device):
    """TF 2.21's tf.compat.v1 values (the reference and each device alike)."""
    nan, inf = np.nan, np.inf
    cases = [
        ("Xlogy", [[0, 0, 0, 1, 2, 2], [0, nan, -1, 0, -1, np.e]], [0, 0, 0, -inf, nan, 2]),
        ("DivNoNan", [[1, 0, nan, 1, 6], [0, 0, 0, inf, 3]], [0, 0, 0, 0, 2]),
        ("Atan2", [[1, -1, 0, 1], [0, 0, -1, 1]], [np.pi / 2, -np.pi / 2, np.pi, np.pi / 4]),
        ("Erfc", [[-1, 0, 5, 30]], [1.8427007, 1, 1.53746e-12, 0]),
        ("Erf", [[0, 1, -inf]], [0, 0.8427008, -1]),
        ("Log1p", [[0, -1, 1e-10]], [0, -inf, 1e-10]),
        ("Expm1", [[0, 1e-10, -inf]], [0, 1e-10, -1]),
        ("IsNan", [[1, nan, inf, -inf]], [False, True, False, False]),
        ("IsInf", [[1, nan, inf, -inf]], [False, False, True, True]),
        ("IsFinite", [[1, nan, inf, -inf]], [True, False, False, False]),
    ]
    for op, inputs, want in cases:
        out = BOOL if op in PREDICATES else F32
        node = make_node(op, [F32] * len(inputs), out)
        arrays = [np.array(a, F32) for a in inputs]
        for where in ("REF", device):
            got = run_on(where, node, *arrays)
            assert_same(got, np.array(want, out), rtol=1e-6)


@pytest.mark.parametrize("op", sorted(set(ELEMENTWISE_OPS) & COVERED))
def test_gpu_programs_match_the_reference(device, op):
    """What the GPU compiles (the CUDA front end, evaluated with numpy) against REF."""
    names, expr = ELEMENTWISE_OPS[op]
    out = BOOL if op in PREDICATES else None
    for dtype in (F16, F32, F64):
        if len(names) == 1:
            inputs = [unary_input(op, dtype, (4, 7))]
        else:
            inputs = list(binary_input(op, dtype, ((4, 7), (4, 7))))
        program = cuda_codegen.compile_expression(expr, [(n, dtype) for n in names],
                                                  out or dtype)
        cuda_codegen.render_cuda(program)          # every instruction has a CUDA rendering
        ref = run_on("REF", make_node(op, [dtype] * len(names), out or dtype), *inputs)
        assert_same(cuda_codegen.evaluate(program, *inputs), ref)


# --- CheckNumerics ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (2, 3)], ids=str)
def test_check_numerics_passes_finite_values_through(device, dtype, shape):
    x = random_array(rng_for("CheckNumerics", dtype, shape), shape, dtype)
    node = make_node("CheckNumerics", [dtype], dtype, {"message": "m"})
    np.testing.assert_array_equal(check_against_ref(device, node, x), x)


@pytest.mark.parametrize("values,what", [([1, np.nan], "NaN"), ([np.inf, 2], "Inf"),
                                         ([-np.inf, np.nan], "Inf and NaN")])
def test_check_numerics_fails_with_tf_message(device, values, what):
    node = make_node("CheckNumerics", [F32], F32, {"message": "loss"}, name="checked")
    for where in ("REF", device):
        with pytest.raises(InvalidArgumentError,
                           match=f"'checked': loss : Tensor had {what} values$") as info:
            run_on(where, node, np.array(values, F32))
        assert info.value.node_name == "checked"


# --- BroadcastTo -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape,target", [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (0,)),
                                          ((1,), (1,)), ((1, 0), (3, 0)), ((2, 1, 3), (4, 2, 5, 3)),
                                          ((7,), (7,))], ids=str)
def test_broadcast_to(device, dtype, shape, target):
    x = random_array(rng_for("BroadcastTo", dtype, shape), shape, dtype)
    node = make_node("BroadcastTo", [dtype, I32], dtype)
    got = check_against_ref(device, node, x, np.array(target, np.int32))
    np.testing.assert_array_equal(got, np.broadcast_to(x, target))


def test_broadcast_to_refuses_shapes_that_do_not_broadcast(device):
    node = make_node("BroadcastTo", [F32, I32], F32, name="bt")
    for where in ("REF", device):
        for shape, target in (((2, 3), (2, 4)), ((2, 3), (3,)), ((1,), (-1,))):
            with pytest.raises(InvalidArgumentError, match=r"'bt': unable to broadcast tensor "
                                                           r"of shape \["):
                run_on(where, node, np.ones(shape, F32), np.array(target, np.int32))


# --- Print -----------------------------------------------------------------------------------

def test_print_passes_its_input_and_writes_tf_text(device, capfd):
    node = make_node("Print", [F32, I32, F32], F32,
                     {"message": "step: ", "first_n": 2, "summarize": 2})
    x = np.array([1.5, -2.0, 3.0], F32)
    data = (np.arange(6, dtype=np.int32).reshape(2, 3), np.array(0.25, F32))
    np.testing.assert_array_equal(run_on(device, node, x, *data), x)
    xp = array_module(device)
    kernel = kernel_on(device, node)                  # first_n counts one kernel's runs
    for _ in range(3):
        out = kernel(*(xp.asarray(a) for a in (x, *data)))
        np.testing.assert_array_equal(out if xp is np else xp.asnumpy(out), x)
    lines = capfd.readouterr().err.splitlines()
    assert lines == ["step: [[0 1...]...][0.25]"] * 3             # first_n: 2 of 3 runs


def test_print_shows_strings_on_the_host(device, capfd):
    if device != "CPU":
        pytest.skip("strings stay on the host (sessions place string ops there)")
    node = make_node("Print", [F32, np.dtype(object)], F32, {"message": "m"})
    run_on("CPU", node, np.zeros(1, F32), np.array([b"a", b"bc"], object))
    assert capfd.readouterr().err == "m[a bc]\n"
