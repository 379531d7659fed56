"""Kernels of the ops the TF1 surface added, on every device against the numpy reference
(``kernel_cases.DEVICES``: the CPU here, a GPU where there is one), and the codegen
programs the GPU compiles against the reference (no GPU needed).

Elementwise: integer division and modulo (floor and truncating), rounding (half to even),
sign, rsqrt, reciprocal, sin, cos, logic, not_equal, on every dtype they take, the small integers
included (wrap-around as TF).  Reductions: Prod/All/Any/ArgMin, and axes settled at run
time (every axis of an input whose rank the graph did not know; negative axes).  Value-
sized outputs: Range, Unique, Where; Diag and MatrixDeterminant; the summary kernels.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from devsession.errors import InternalError, InvalidArgumentError
from devsession.kernels.codegen import cuda as cuda_codegen
from devsession.kernels.codegen.expressions import ELEMENTWISE_OPS
from devsession.kernels.registry import lookup_kernel
from kernel_cases import (BOOL, DEVICES, F16, F32, F64, I32, I64, check_against_ref, make_node,
                          random_array, rng_for, run_on)

I8, I16, U8, U16 = (np.dtype(t) for t in (np.int8, np.int16, np.uint8, np.uint16))
SMALL = [I8, I16, U8, U16]
INTS = [I32, I64] + SMALL
FLOATS = [F16, F32, F64]
DIVISIONS = ["FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod"]
FLOAT_UNARY = ["Floor", "Ceil", "Rsqrt", "Reciprocal", "Sin", "Cos"]
COVERED = set(DIVISIONS) | set(FLOAT_UNARY) | {
    "AddV2", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "Sign", "Round",
    "Prod", "All", "Any", "ArgMin", "Range", "Unique", "Where", "Diag", "MatrixDeterminant",
    "ScalarSummary", "HistogramSummary", "ImageSummary", "MergeSummary", "TensorSummaryV2",
    "AudioSummaryV2"}
pytestmark = pytest.mark.parametrize("device", DEVICES)


def operands(op, dtype, shape=(4, 7)):
    rng = rng_for(op, dtype)
    if dtype.kind == "u":
        x = rng.integers(0, np.iinfo(dtype).max, size=shape, endpoint=True).astype(dtype)
        y = rng.integers(0, 9, size=shape).astype(dtype)
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)
        y = rng.integers(-9, 9, size=shape).astype(dtype)
    else:
        x, y = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
        y.reshape(-1)[:3] = [2.0, -2.0, 0.0]
    if dtype.kind in "iu" and op in DIVISIONS:
        y[y == 0] = 3                       # a zero divisor is an error (tests below)
    return x, y


# --- elementwise --------------------------------------------------------------------------

@pytest.mark.parametrize("op,dtype", [(op, d) for op in DIVISIONS for d in INTS + FLOATS])
def test_integer_and_float_division(device, op, dtype):
    x, y = operands(op, dtype)
    check_against_ref(device, make_node(op, [dtype, dtype], dtype), x, y)


@pytest.mark.parametrize("dtype", [I32, F32])
def test_division_semantics_as_tf(device, dtype):
    x = np.array([7, -7, 7, -7, 0], dtype)
    y = np.array([2, 2, -2, -2, 3], dtype)
    expected = {"FloorDiv": [3, -4, -4, 3, 0], "FloorMod": [1, 1, -1, -1, 0],
                "TruncateDiv": [3, -3, -3, 3, 0], "TruncateMod": [1, -1, 1, -1, 0]}
    for op, want in expected.items():
        got = run_on(device, make_node(op, [dtype, dtype], dtype), x, y)
        np.testing.assert_array_equal(got, np.array(want, dtype), err_msg=op)


ZERO_DIVISION = {"FloorDiv": (InvalidArgumentError, "Integer division by zero"),
                 "FloorMod": (InvalidArgumentError, "Integer division by zero"),
                 "TruncateDiv": (InternalError, "Unexpected error in binary operator (only "
                                                "integer div and mod should have errors)"),
                 "TruncateMod": (InternalError, "Unexpected error in binary operator (only "
                                                "integer div and mod should have errors)")}


@pytest.mark.parametrize("dtype", [I32, U8])
def test_integer_division_by_zero_is_tfs_error_on_the_cpu(device, dtype):
    """TF 2.21's CPU kernels (classes and messages recorded): a zero divisor, also one
    broadcast from a scalar or a row, is an error naming the node; an empty output
    divides nothing.  TF's GPU kernels do not check: a zero divisor gives 0 there."""
    if device != "CPU" and dtype != I32:
        pytest.skip("one dtype is enough where nothing is checked")
    x = np.array([[7, 5, 3], [1, 2, 9]], dtype)
    divisors = [np.array([[2, 1, 1], [1, 0, 1]], dtype), np.array(0, dtype),
                np.array([1, 0, 3], dtype)]
    checked = ["REF", device] if device == "CPU" else ["REF"]
    for op, (error, message) in ZERO_DIVISION.items():
        node = make_node(op, [dtype, dtype], dtype, name="quotient")
        for y in divisors:
            for where in checked:
                with pytest.raises(error, match=f"^{op} node 'quotient': {re.escape(message)}$") \
                        as raised:
                    run_on(where, node, x, y)
                assert raised.value.node_name == "quotient"
            if device != "CPU":
                got = run_on(device, node, x, y)
                assert not got[np.broadcast_to(y, got.shape) == 0].any(), op
        empty = run_on(device, node, np.zeros((0, 3), dtype), np.zeros(3, dtype))
        assert empty.shape == (0, 3), op
        empty = run_on("REF", node, np.zeros((0, 3), dtype), np.zeros(3, dtype))
        assert empty.shape == (0, 3), op


def test_every_cpu_loop_form_counts_a_zero_divisor(device):
    """The generated loops count zero divisors in each way they read a divisor (whole,
    scalar, a row, a block, materialised; rows in parallel): one 0 anywhere is the error,
    and with it replaced the quotients are numpy's."""
    if device != "CPU":
        pytest.skip("the GPU kernels do not check")
    node = make_node("FloorDiv", [I32, I32], I32, name="q")
    x = np.arange(-256, 256, dtype=np.int32).reshape(4, 8, 16)
    shapes = [(4, 8, 16), (), (16,), (4, 1, 16), (4, 8, 1)]
    cases = [(x, np.full(shape, 3, np.int32)) for shape in shapes]
    big = np.arange(2048 * 64, dtype=np.int32).reshape(2048, 64)    # the parallel loop
    cases.append((big, np.arange(1, 65, dtype=np.int32)))
    for a, y in cases:
        np.testing.assert_array_equal(run_on(device, node, a, y), np.floor_divide(a, y))
        y = y.copy()
        y.reshape(-1)[-1] = 0
        with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
            run_on(device, node, a, y)


@pytest.mark.parametrize("dtype", [I8, I64])
def test_integer_pow_with_a_negative_exponent_is_tfs_error_on_the_cpu(device, dtype):
    """TF 2.21's CPU Pow of integers (recorded): any negative exponent, base 1 and -1
    too, whole, a broadcast scalar or a row, read by the whole and the row loops, is
    InvalidArgumentError naming the node; non-negative ones wrap as numpy.  TF's GPU
    kernel does not check: the truncated real result there (1, +-1, else 0)."""
    node = make_node("Pow", [dtype, dtype], dtype, name="power")
    x = np.array([[2, 1, -1], [3, -2, 0]], dtype)
    checked = ["REF", device] if device == "CPU" else ["REF"]
    np.testing.assert_array_equal(run_on(device, node, x, np.array([3, 0, 5], dtype)),
                                  np.array([[8, 1, -1], [27, 1, 0]], dtype))
    for y in (np.array([[1, -1, 2], [1, 2, 2]], dtype), np.array(-3, dtype),
              np.array([2, 2, -1], dtype)):
        for where in checked:
            with pytest.raises(InvalidArgumentError, match="^Pow node 'power': Integers to "
                               "negative integer powers are not allowed$") as raised:
                run_on(where, node, x, y)
            assert raised.value.node_name == "power"
    if device != "CPU":
        np.testing.assert_array_equal(run_on(device, node, x, np.array([-1, -1, -3], dtype)),
                                      np.array([[0, 1, -1], [0, 0, 0]], dtype))


@pytest.mark.parametrize("dtype", [I8, I16, I32, I64])
def test_signed_minimum_divided_by_minus_one_wraps_as_numpy(device, dtype):
    """MIN / -1 overflows (a trap on x86, undefined in C): numpy's MIN and 0 everywhere."""
    info = np.iinfo(dtype)
    x, y = np.array([info.min, info.max, -7], dtype), np.array([-1, -1, -1], dtype)
    want = {"FloorDiv": [info.min, -info.max, 7], "TruncateDiv": [info.min, -info.max, 7],
            "FloorMod": [0, 0, 0], "TruncateMod": [0, 0, 0]}
    for op, expected in want.items():
        got = check_against_ref(device, make_node(op, [dtype, dtype], dtype), x, y)
        np.testing.assert_array_equal(got, np.array(expected, dtype), err_msg=op)


@pytest.mark.parametrize("dtype", SMALL)
def test_small_integers_wrap_around(device, dtype):
    info = np.iinfo(dtype)
    x = np.array([info.max, info.min, 3], dtype)
    y = np.array([1, 1 if dtype.kind == "u" else -1, info.max], dtype)
    for op, fn in (("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)):
        got = check_against_ref(device, make_node(op, [dtype, dtype], dtype), x, y)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(got, fn(x, y), err_msg=op)


@pytest.mark.parametrize("op,dtype", [(op, d) for op in FLOAT_UNARY for d in FLOATS]
                         + [("Sign", d) for d in FLOATS + [I32, I64, I8, I16]]
                         + [("Round", d) for d in FLOATS + [I32, U8]])
def test_unary(device, op, dtype):
    x, _ = operands(op, dtype, (3, 7))
    check_against_ref(device, make_node(op, [dtype], dtype), x)


def test_round_is_half_to_even_and_sign_keeps_zero_and_nan(device):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, np.nan, -0.0], np.float32)
    np.testing.assert_array_equal(run_on(device, make_node("Round", [F32], F32), x),
                                  [-2, -2, -0.0, 0, 2, 2, np.nan, -0.0])
    assert np.signbit(run_on(device, make_node("Round", [F32], F32), x)[2])
    np.testing.assert_array_equal(run_on(device, make_node("Sign", [F32], F32), x),
                                  [-1, -1, -1, 1, 1, 1, np.nan, 0])


@pytest.mark.parametrize("op", ["LogicalAnd", "LogicalOr"])
def test_logical_binary(device, op):
    x, y = np.array([[True, False]]), np.array([[True], [False]])
    check_against_ref(device, make_node(op, [BOOL, BOOL], BOOL), x, y)


def test_logical_not_and_not_equal(device):
    check_against_ref(device, make_node("LogicalNot", [BOOL], BOOL), np.array([True, False]))
    for dtype in (F32, I8, BOOL):
        x, y = np.array([1, 0, 1], dtype), np.array([1, 1, 0], dtype)
        check_against_ref(device, make_node("NotEqual", [dtype, dtype], BOOL), x, y)


def test_add_v2_is_add(device):
    x, y = operands("AddV2", F32)
    np.testing.assert_array_equal(check_against_ref(device, make_node("AddV2", [F32, F32], F32),
                                                    x, y), x + y)


@pytest.mark.parametrize("op", sorted(set(ELEMENTWISE_OPS) & COVERED))
def test_gpu_programs_match_the_reference(device, op):
    """What the GPU compiles (the CUDA front end, evaluated with numpy) against REF."""
    names, expr = ELEMENTWISE_OPS[op]
    if op in ("LogicalAnd", "LogicalOr", "LogicalNot"):
        dtypes = [BOOL]
    elif op in FLOAT_UNARY:
        dtypes = [F32, F64]
    else:
        dtypes = [I8, U8, I16, I32, I64, F32]
    for dtype in dtypes:
        if op == "Sign" and dtype.kind == "u":
            continue                                  # not defined for unsigned (as TF)
        inputs = operands(op, dtype)[:len(names)]
        out = BOOL if op in ("NotEqual",) else dtype
        program = cuda_codegen.compile_expression(expr, list(zip(names, [dtype] * len(names))),
                                                  out)
        cuda_codegen.render_cuda(program)          # every instruction has a CUDA rendering
        ref = run_on("REF", make_node(op, [dtype] * len(names), out), *inputs)
        np.testing.assert_array_equal(cuda_codegen.evaluate(program, *inputs), ref,
                                      err_msg=f"{op} {dtype}")


# --- reductions --------------------------------------------------------------------------

def reduction(op, dtype, axis, keepdims=False, all_axes=False, out=None):
    attrs = {"axis": axis, "keepdims": keepdims}
    if all_axes:
        attrs["all_axes"] = True
    return make_node(op, [dtype], out or dtype, attrs)


@pytest.mark.parametrize("axis,keep", [((), False), ((0,), False), ((1,), True), ((0, 2), False),
                                       ((-1,), False), ((-3, -1), True)])
def test_prod_all_any(device, axis, keep):
    rng = rng_for("prod", axis)
    x = rng.integers(-3, 4, size=(2, 3, 4)).astype(np.int32)
    check_against_ref(device, reduction("Prod", I32, axis, keep), x)
    f = (rng.standard_normal((2, 3, 4)) * 0.5 + 1).astype(np.float32)
    check_against_ref(device, reduction("Prod", F32, axis, keep), f, rtol=1e-5)
    flags = rng.random((2, 3, 4)) < 0.7
    for op in ("All", "Any"):
        check_against_ref(device, reduction(op, BOOL, axis, keep, out=BOOL), flags)


def test_a_mean_of_nothing_is_tfs(device):
    """TF 2.21: the Mean of zero elements is 0 of integers and complex values (where
    devsession raised), NaN of floats."""
    for dtype, want in ((I32, 0), (np.dtype(np.uint8), 0), (I64, 0), (F32, np.nan),
                        (np.dtype(np.complex64), 0)):
        for axis, shape in (((1,), (2,)), ((0, 1), ())):
            node = make_node("Mean", [dtype], dtype, {"axis": axis, "keepdims": False})
            for where in ("REF", device):
                got = run_on(where, node, np.zeros((2, 0), dtype))
                np.testing.assert_array_equal(got, np.full(shape, want, dtype),
                                              err_msg=f"{where} {dtype}", strict=True)


def test_empty_prod_all_any(device):
    empty = np.zeros((0, 3), np.float32)
    np.testing.assert_array_equal(run_on(device, reduction("Prod", F32, (0,)), empty), [1, 1, 1])
    flags = np.zeros((2, 0), bool)
    np.testing.assert_array_equal(run_on(device, reduction("All", BOOL, (1,), out=BOOL), flags),
                                  [True, True])
    np.testing.assert_array_equal(run_on(device, reduction("Any", BOOL, (1,), out=BOOL), flags),
                                  [False, False])


@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min", "Prod"])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4)], ids=str)
def test_every_axis_of_an_input_of_unknown_rank(device, op, shape):
    x = random_array(rng_for(op, shape), shape, F32)
    node = reduction(op, F32, (), all_axes=True)
    got = check_against_ref(device, node, x, rtol=1e-5)
    assert got.shape == ()
    kept = run_on(device, reduction(op, F32, (), keepdims=True, all_axes=True), x)
    assert kept.shape == tuple(1 for _ in shape)


@pytest.mark.parametrize("op", ["Sum", "Max", "Any"])
def test_negative_axes_settled_per_input(device, op):
    dtype = BOOL if op == "Any" else F32
    node = reduction(op, dtype, (-1,), out=dtype)
    for shape in [(4,), (2, 5), (2, 3, 4)]:
        x = random_array(rng_for(op, shape), shape, dtype)
        assert check_against_ref(device, node, x).shape == shape[:-1]
    with pytest.raises(InvalidArgumentError, match="axis -2 is out of range"):
        run_on(device, reduction(op, dtype, (-2,), out=dtype), np.ones(3, dtype))


@pytest.mark.parametrize("dtype", [F32, I32, U8, F16])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmin(device, dtype, axis):
    x = random_array(rng_for("argmin", dtype, axis), (5, 6), dtype)
    x[2, :] = x.min() if dtype != BOOL else x[2, :]          # ties: the first wins
    for out in (I64, I32):
        node = make_node("ArgMin", [dtype], out, {"axis": axis, "output_type": out})
        check_against_ref(device, node, x)
    node = make_node("ArgMax", [dtype], I64, {"axis": axis})
    check_against_ref(device, node, x)


def test_argmin_of_a_big_row_and_nan(device):
    x = np.arange(1_000_003, dtype=np.float32)[::-1].copy()
    node = make_node("ArgMin", [F32], I64, {"axis": 0})
    assert int(run_on(device, node, x)) == x.size - 1
    x[10] = np.nan            # TF's kernel: a NaN never wins (the chunked path here)
    assert int(run_on(device, node, x)) == x.size - 1
    x[-5:] = np.inf
    x[20] = -np.inf
    assert int(run_on(device, make_node("ArgMax", [F32], I64, {"axis": 0}), x)) == x.size - 5
    x[:] = np.nan             # chunks of NaN name their first element, which never wins
    x[-3] = -1.0
    assert int(run_on(device, node, x)) == x.size - 3


# --- value-sized outputs, linear algebra, summaries ----------------------------------------

def test_range(device):
    node = make_node("Range", [I32, I32, I32], I32)
    np.testing.assert_array_equal(run_on(device, node, *(np.array(v, np.int32)
                                                         for v in (10, 2, -3))), [10, 7, 4])
    fnode = make_node("Range", [F32, F32, F32], F32)
    np.testing.assert_allclose(run_on(device, fnode, *(np.array(v, np.float32)
                                                       for v in (0, 1, 0.3))), [0, 0.3, 0.6, 0.9])
    with pytest.raises(InvalidArgumentError, match="delta must be non-zero"):
        run_on(device, node, *(np.array(v, np.int32) for v in (0, 5, -1)))


def test_unique_keeps_first_appearance_order(device):
    node = dataclasses.replace(make_node("Unique", [I32], I32), output_dtypes=(I32, I32))
    y, idx = run_on(device, node, np.array([4, 1, 4, 2, 1, 7], np.int32))
    np.testing.assert_array_equal(y, [4, 1, 2, 7])
    np.testing.assert_array_equal(idx, [0, 1, 0, 2, 1, 3])
    with pytest.raises(InvalidArgumentError, match="1-D"):
        run_on(device, node, np.ones((2, 2), np.int32))


def test_where_indices(device):
    x = np.array([[0.5, 0.0, 2.0], [0.0, 3.0, 0.0]], np.float32)
    got = check_against_ref(device, make_node("Where", [F32], I64), x)
    np.testing.assert_array_equal(got, [[0, 0], [0, 2], [1, 1]])
    assert run_on(device, make_node("Where", [BOOL], I64), np.zeros((2, 2), bool)).shape == (0, 2)


def test_diag_and_determinant(device):
    d = check_against_ref(device, make_node("Diag", [F32], F32), np.array([[1, 2], [3, 4]],
                                                                          np.float32))
    assert d.shape == (2, 2, 2, 2) and d[1, 0, 1, 0] == 3 and d[1, 0, 0, 1] == 0
    batch = np.array([[[1, 2], [3, 4]], [[0.5, 0], [0, 8]]], np.float32)
    got = check_against_ref(device, make_node("MatrixDeterminant", [F32], F32), batch, rtol=1e-6)
    np.testing.assert_allclose(got, [-2.0, 4.0], rtol=1e-6)
    with pytest.raises(InvalidArgumentError, match="square"):
        run_on(device, make_node("MatrixDeterminant", [F32], F32), np.ones((2, 3), np.float32))


def test_a_tensor_summary_holds_the_tensor_and_its_metadata(device):
    from devsession.proto.summary_pb2 import Summary, SummaryMetadata
    from devsession.tensor_codec import proto_to_array

    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    node = make_node("TensorSummaryV2", [np.dtype(object)] * 3, np.dtype(object))
    words = np.array([b"a", b"bc"], dtype=object)
    data = lookup_kernel("TensorSummaryV2", "REF")(node)(
        np.array(b"t", dtype=object), words,
        np.array(metadata.SerializeToString(), dtype=object))
    (value,) = Summary.FromString(data[()]).value
    assert (value.tag, value.metadata) == ("t", metadata)
    assert proto_to_array(value.tensor).tolist() == [b"a", b"bc"]
    with pytest.raises(InvalidArgumentError, match="not a serialized SummaryMetadata"):
        lookup_kernel("TensorSummaryV2", "REF")(node)(
            np.array(b"t", dtype=object), words, np.array(b"\xff\xff", dtype=object))


def test_summary_kernels_run_on_the_host(device):
    tags = np.array(b"t", dtype=object)
    for op, value in (("ScalarSummary", np.array(1.5, np.float32)),
                      ("HistogramSummary", np.arange(5, dtype=np.float32))):
        data = lookup_kernel(op, "REF")(make_node(op, [np.dtype(object), F32],
                                                  np.dtype(object)))(tags, value)
        assert data.dtype == object and isinstance(data[()], bytes)


# TF 2.21 registers RealDiv for floats and complex values only: tf.realdiv of integers
# builds (T=int32) and its run is "No OpKernel was registered ..." naming the node
@pytest.mark.parametrize("dtype", [I32, I64, U8])
def test_real_div_of_integers_has_no_kernel(device, dtype):
    node = make_node("RealDiv", [dtype, dtype], dtype, name="rd")
    enum = f"DT_{dtype.name.upper()}"
    for where in ("REF", device):
        with pytest.raises(InvalidArgumentError, match=re.escape(
                f"No OpKernel was registered to support Op 'RealDiv' used by {{{{node rd}}}} "
                f"with these attrs: [T={enum}]")):
            run_on(where, node, np.array([7, 3], dtype), np.array([2, 1], dtype))
