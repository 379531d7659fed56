"""CPU-only kernel behaviour: parallel and chunked loops on large inputs, summation
accuracy, the BLAS thread policy of the convolution and float16 MatMul products, the
reference kernels against direct numpy formulas, the kernel registry, the elementwise
code generator and its disk cache.  Every op's conformance (CPU and GPU
against the reference) is in ``test_kernels.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from threadpoolctl import threadpool_limits

from devsession.errors import AlreadyExistsError, InvalidArgumentError, NotFoundError
from devsession.kernels.registry import lookup_kernel, register_kernel
from kernel_cases import (BIG, BOOL, EXPRESSION_TREES, F16, F32, F64, I32, I64, assert_same,
                          check_against_ref, make_node, numpy_value, random_array,
                          reduction_tolerance, rng_for, run_on)

REDUCTIONS = ["Sum", "Mean", "Max", "Min"]


# ------------------------------------------------------------ large inputs (parallel)

BIG_CASES = [
    ("Add", [F32, F32], F32, {}, [(BIG,), (BIG,)]),
    ("Mul", [F32, F32], F32, {}, [(1000, 1001), (1001,)]),       # rows x bias, parallel
    ("Sigmoid", [F64], F64, {}, [(BIG,)]),
    ("Cast", [F32], I32, {"DstT": I32}, [(BIG,)]),
    ("Sum", [F32], F32, {"axis": (0,), "keepdims": False}, [(BIG,)]),   # chunked
    ("Sum", [I32], I32, {"axis": (0,), "keepdims": False}, [(BIG,)]),
    ("Mean", [F64], F64, {"axis": (1,), "keepdims": True}, [(1000, 1001)]),  # rows
    ("Max", [F64], F64, {"axis": (0,), "keepdims": False}, [(BIG,)]),
    ("ArgMax", [F32], I64, {"axis": 0}, [(BIG,)]),
    ("Softmax", [F32], F32, {"axis": 1}, [(4, 250_001)]),
]


@pytest.mark.parametrize("op,in_dtypes,out_dtype,attrs,shapes", BIG_CASES,
                         ids=[case[0] for case in BIG_CASES])
def test_large_inputs(op, in_dtypes, out_dtype, attrs, shapes):
    rng = rng_for("big", op)
    xs = [random_array(rng, s, d) for s, d in zip(shapes, in_dtypes)]
    node = make_node(op, in_dtypes, out_dtype, attrs)
    tolerance = reduction_tolerance(op, np.dtype(out_dtype), xs[0], attrs.get("axis", ())) \
        if op in REDUCTIONS else {}
    check_against_ref("CPU", node, *xs, **tolerance)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_chunked_max_and_argmax_keep_their_semantics(dtype):
    x = np.zeros(BIG, dtype)
    x[[600_000, 900_000]] = 5                     # a tie across chunks: the first wins
    argmax = make_node("ArgMax", [dtype], I64, {"axis": 0})
    maximum = make_node("Max", [dtype], dtype, {"axis": (0,), "keepdims": False})
    assert run_on("CPU", argmax, x) == 600_000
    x[800_000] = np.nan          # Max propagates it as numpy; ArgMax skips it as TF's
    assert run_on("CPU", argmax, x) == 600_000 == run_on("REF", argmax, x)
    assert np.isnan(run_on("CPU", maximum, x))


def test_float32_sum_is_more_accurate_than_naive():
    x = np.full(BIG, 0.1, np.float32)
    node = make_node("Sum", [F32], F32, {"axis": (0,), "keepdims": False})
    exact = np.float32(np.sum(x.astype(F64)))
    assert run_on("CPU", node, x) == exact           # float64 accumulation: correctly rounded


@pytest.mark.parametrize("op", ["Sum", "Mean"])
def test_a_sum_over_the_batch_shares_its_columns_with_the_same_bits(monkeypatch, op):
    """A bias gradient's Sum over the leading axis, big enough to share its columns among
    the threads (blocks of ``COLUMN_BLOCK``, the last one short): each column adds its
    rows in the same order as the one-thread loop, so the same float64 totals."""
    from devsession.kernels.cpu import reduce
    from devsession.kernels.cpu.numba_setup import num_threads

    if num_threads() < 2:
        pytest.skip("one numba thread: the columns are never shared")
    shared = []
    real = reduce.sum_columns_parallel
    monkeypatch.setattr(reduce, "sum_columns_parallel",
                        lambda *a: (shared.append(a[-1]), real(*a))[1])
    rows, cols = 300, 2 * reduce.COLUMN_BLOCK + 37
    x = random_array(rng_for("column sums", op), (rows, cols), F32)
    node = make_node(op, [F32], F32, {"axis": (0,), "keepdims": False})
    got = run_on("CPU", node, x)
    assert shared == [reduce.COLUMN_BLOCK]
    totals = np.zeros(cols)
    reduce.sum_columns(x.reshape(-1), rows, totals)
    want = (totals / rows if op == "Mean" else totals).astype(F32)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, getattr(np, op.lower())(x.astype(F64), axis=0), rtol=1e-6,
                               atol=1e-6)


def test_reduce_sum_over_an_axis_named_twice_reduces_it_once():
    """Through a session: ``axis=[1, -1]`` (the builder folds it to ``(1,)``), a node
    made with ``create_op`` that names axis 1 twice, and a placeholder of unknown rank
    (its node keeps ``(-1, 1)``; the kernel settles them per input), all as numpy's
    ``axis=1``."""
    import devsession as ds

    x = random_array(rng_for("axis named twice"), (3, 20), F32)
    g = ds.Graph()
    with g.as_default():
        c = ds.constant(x)
        folded = ds.reduce_sum(c, axis=[1, -1])
        repeated = g.create_op("Sum", [c], attrs={"axis": (1, 1), "keepdims": False})
        unknown = ds.placeholder(ds.float32, None)
        settled = ds.reduce_sum(unknown, axis=[1, -1])
    with ds.Session(graph=g) as sess:
        results = sess.run([folded, repeated.outputs[0], settled], {unknown: x})
    for got in results:
        np.testing.assert_allclose(got, x.sum(axis=1), rtol=1e-6, atol=1e-5)


# ------------------------------------------------------- REF against numpy formulas

def test_reference_matches_direct_formulas():
    rng = rng_for("formulas")
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    ref = lambda op, *xs, dtype=F64, **attrs: run_on(  # noqa: E731
        "REF", make_node(op, [a.dtype for a in xs], dtype, attrs), *xs)
    np.testing.assert_allclose(ref("Add", x, y), x + y, rtol=0)
    np.testing.assert_allclose(ref("Sigmoid", x), 1 / (1 + np.exp(-x)), rtol=1e-14)
    np.testing.assert_allclose(ref("Sigmoid", np.array([-1000.0, 1000.0])), [0.0, 1.0])
    np.testing.assert_allclose(ref("Relu", x), np.where(x > 0, x, 0))
    np.testing.assert_allclose(ref("Softmax", x, axis=0), np.exp(x) / np.exp(x).sum(),
                               rtol=1e-12)
    np.testing.assert_allclose(ref("Sum", x, axis=(0,), keepdims=False), math_fsum(x),
                               rtol=1e-14)
    ints = np.array([7, -7, 2, 0], np.int32)
    np.testing.assert_array_equal(ref("RealDiv", ints, np.int32([2, 2, 0, 0]), dtype=F64),
                                  [3.5, -3.5, np.inf, np.nan])
    np.testing.assert_array_equal(
        ref("Pow", np.int32([2, 2, 1, -1, -1, 3]), np.int32([10, 1, 5, 3, 2, 0]),
            dtype=I32), [1024, 2, 1, -1, 1, 1])
    with pytest.raises(InvalidArgumentError, match="negative integer powers"):  # TF's CPU's
        ref("Pow", np.int32([1, 2]), np.int32([-1, 2]), dtype=I32)
    np.testing.assert_array_equal(ref("Add", np.int32([2**31 - 1]), np.int32([1]), dtype=I32),
                                  [-(2**31)])     # wraps


def math_fsum(x):
    import math
    return math.fsum(x.tolist())


# ----------------------------------------------------------------------- registry

def test_registry_duplicates_and_unknown_ops():
    def builder(node):
        return lambda x: x
    register_kernel("TestOnlyOp", "TEST_DEVICE")(builder)
    with pytest.raises(AlreadyExistsError, match="TestOnlyOp"):
        register_kernel("TestOnlyOp", "TEST_DEVICE")(builder)
    assert lookup_kernel("TestOnlyOp", "TEST_DEVICE") is builder
    with pytest.raises(NotFoundError, match="TestOnlyOp.*'CPU'.*TEST_DEVICE"):
        lookup_kernel("TestOnlyOp", "CPU")
    with pytest.raises(NotFoundError, match="NoSuchOp.*'REF'"):
        lookup_kernel("NoSuchOp", "REF")
    with pytest.raises(NotFoundError, match="did you mean 'Sum'"):
        lookup_kernel("Summ", "CPU")
    with pytest.raises(NotFoundError, match="unknown device type 'XPU'.*CPU.*REF"):
        lookup_kernel("Add", "XPU")


def test_has_kernel_is_registered_ops_membership():
    from devsession.kernels.registry import has_kernel, registered_ops

    for device_type in ("REF", "CPU"):
        ops = registered_ops(device_type)
        assert all(has_kernel(op, device_type) for op in ops)
        assert not has_kernel("NoSuchOp", device_type)
    assert not has_kernel("TestOnlyOp", "REF")
    with pytest.raises(NotFoundError, match="unknown device type 'XPU'"):
        has_kernel("Add", "XPU")


def test_placement_looks_kernels_up_without_listing_the_registry(monkeypatch):
    """Placement asks has_kernel once per node: building the op set of a device type
    (registered_ops) for each node cost seconds on graphs of thousands of nodes."""
    import devsession as ds
    from devsession.kernels import registry

    registry.registered_ops("REF"), registry.registered_ops("CPU")    # both loaded first
    original = registry._builders

    class NoScan(dict):
        def __iter__(self):
            raise AssertionError("the kernel registry was listed while placing nodes")

    monkeypatch.setattr(registry, "_builders", NoScan(original))
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float64, [3])
        y = ds.reduce_sum(ds.square(x) + 1.0)
        with ds.Session() as sess:
            assert sess.run(y, {x: [1.0, 2.0, 3.0]}) == 17.0
    assert registry._builders.keys() == original.keys()     # nothing registered meanwhile


def test_registry_import_is_lazy():
    code = (
        "import sys, numpy as np\n"
        "import devsession.kernels.registry as r\n"
        "assert 'numba' not in sys.modules, 'registry imported numba'\n"
        "f = np.dtype('float32')\n"
        "n = r.KernelNode('a', 'Add', {}, (f, f), (None, None), f, None)\n"
        "out = r.lookup_kernel('Add', 'REF')(n)(np.ones(2, f), np.ones(2, f))\n"
        "assert out.tolist() == [2.0, 2.0]\n"
        "assert 'numba' not in sys.modules, 'REF kernels imported numba'\n"
        "r.registered_ops('CPU')\n"
        "assert 'numba' in sys.modules\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# ---------------------------------------------------------- elementwise codegen

def test_fused_expression_kernel():
    from devsession.kernels.cpu.elementwise import ElementwiseKernel
    kernel = ElementwiseKernel("max(a * 1.5 + 0.25, 0) * b",
                               [("a", F32), ("b", F32)], F32, name="fused")
    a = random_array(rng_for("fused"), (5, 4), F32, specials=True)
    b = np.arange(4, dtype=F32)
    expected = np.maximum(a * np.float32(1.5) + np.float32(0.25), np.float32(0)) * b
    assert_same(kernel(a, b), expected)
    out = np.empty((5, 4), F32)
    assert kernel(a, b, out=out) is out
    assert_same(out, expected)
    assert "np.float32(1.5)" in kernel.program.body[0]           # typed constant
    assert all("float64" not in line for line in kernel.program.body)


@pytest.mark.parametrize("g_shape,r_shape,mode", [
    ((16, 1, 1, 64), (16, 56, 56, 64), "block"),     # a global mean's gradient, parallel
    ((4, 1, 32), (4, 3, 32), "block"),               # serial
    ((2, 1, 3, 1, 32), (2, 5, 3, 1, 32), "block"),   # a 1 of the output inside the run
    ((3, 1, 8), (3, 4, 8), "full"),                  # rows too short: materialised
    ((1, 64), (9, 64), "suffix"),
])
def test_a_broadcast_over_middle_axes_is_read_in_place(g_shape, r_shape, mode):
    """(N, 1, 1, C) over (N, H, W, C): each output row reads its input row where it lies
    (a BLOCK), instead of a materialised copy of the broadcast."""
    from devsession.kernels.cpu.elementwise import ElementwiseKernel, _input_modes
    kernel = ElementwiseKernel("where(r > 0, g / 3136, 0) + r * g",
                               [("g", F32), ("r", F32)], F32)
    rng = rng_for("block", g_shape, r_shape)
    g, r = (random_array(rng, s, F32) for s in (g_shape, r_shape))
    expected = np.where(r > 0, g / np.float32(3136), np.float32(0)) + r * g
    assert_same(kernel(g, r), expected, rtol=1e-6, atol=1e-6)
    assert_same(kernel(r, g), np.where(g > 0, r / np.float32(3136), np.float32(0)) + g * r,
                rtol=1e-6, atol=1e-6)     # the block as the second input
    modes, materialised, _ = _input_modes((g_shape, r_shape), expected.shape, expected.size)
    assert modes[0] == mode and materialised[0] == (mode == "full" and g.size < r.size)


def test_codegen_dag_cse_and_types():
    from devsession.kernels.codegen.cpu import CodegenError, compile_expression
    p = compile_expression("t = exp(x - 1)\n t / (1 + t) + exp(x - 1)", [("x", F32)])
    assert sum("exp" in line for line in p.body) == 1             # shared subexpression
    assert p.out_dtype == F32
    assert compile_expression("x / y", [("x", I32), ("y", I32)]).out_dtype == F64
    assert compile_expression("x * 0.5", [("x", I32)]).out_dtype == F64     # NEP 50
    assert compile_expression("x + 2 * 3", [("x", I32)]).out_dtype == I32   # folded
    assert compile_expression("x < 2", [("x", F16)]).out_dtype == BOOL
    for bad in ["x +", "y + 1", "x.real", "foo(x)", "x = 1\nx", "cast(x, 'nope')"]:
        with pytest.raises(CodegenError):
            compile_expression(bad, [("x", F32)])


def test_fused_integer_chain_wraps_like_numpy():
    from devsession.kernels.cpu.elementwise import ElementwiseKernel
    kernel = ElementwiseKernel("where(a > 0, a * 3 + b, -a)", [("a", I32), ("b", I32)], I32)
    a = np.array([2**30, -5, 7, 0], np.int32)
    b = np.array([1, 2, 3, 4], np.int32)
    with np.errstate(over="ignore"):
        expected = np.where(a > 0, a * np.int32(3) + b, -a)
    np.testing.assert_array_equal(kernel(a, b), expected)


def test_generated_kernels_are_cached_on_disk_across_processes(tmp_path):
    code = (
        "import numpy as np\n"
        "from devsession.kernels.cpu.elementwise import ElementwiseKernel, _loops\n"
        "k = ElementwiseKernel('x * 3 - y', [('x', 'float64'), ('y', 'float64')], 'float64')\n"
        "assert k(np.ones(3), np.ones(3)).tolist() == [2.0, 2.0, 2.0]\n"
        "serial, _ = _loops(k.program, ('full', 'full'))\n"
        "print(sum(serial.stats.cache_hits.values()), sum(serial.stats.cache_misses.values()))\n")
    env = dict(os.environ, DEVSESSION_CACHE_DIR=str(tmp_path))
    outputs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=120) for _ in range(2)]
    assert all(o.returncode == 0 for o in outputs), [o.stderr for o in outputs]
    assert outputs[0].stdout.split() == ["0", "1"]     # compiled and saved
    assert outputs[1].stdout.split() == ["1", "0"]     # loaded from disk
    assert len(list(tmp_path.glob("ew_*.py"))) == 1
    assert not list(tmp_path.glob("*.tmp"))


# Random expression trees: the code generator against numpy evaluating the same tree.
@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(tree=EXPRESSION_TREES, dtype=st.sampled_from([F32, F64]))
def test_random_expressions_match_numpy(tree, dtype):
    from devsession.kernels.cpu.elementwise import ElementwiseKernel
    expr, numpy_expr = tree
    rng = rng_for("expr", expr)
    a = random_array(rng, (3, 5), dtype)
    b = random_array(rng, (5,), dtype)
    kernel = ElementwiseKernel(expr, [("a", dtype), ("b", dtype)], dtype)
    expected = numpy_value(numpy_expr, a, b, (3, 5), dtype)
    assert_same(kernel(a, b), expected, rtol=1e-5 if dtype == F32 else 1e-12, atol=1e-5)


def test_a_mean_over_middle_axes_sums_slabs_without_a_transpose():
    """Global average pooling (Mean over H and W of NHWC): ``Layout.slabs`` takes it, and
    it equals numpy's float64 mean; a batch smaller than the threads takes the
    transposing path, with the same result."""
    from devsession.kernels.cpu.reduce import Layout

    rng = np.random.default_rng(4)
    for shape in [(16, 56, 56, 64), (1, 20, 20, 64)]:
        x = rng.standard_normal(shape).astype(np.float32)
        node = make_node("Mean", [F32], F32, {"axis": (1, 2), "keepdims": False})
        got = run_on("CPU", node, x)
        np.testing.assert_allclose(got, x.astype(np.float64).mean(axis=(1, 2)), rtol=1e-5,
                                   atol=1e-7)
        takes_slabs = Layout(node, (1, 2), False, False).slabs(x) is not None
        assert takes_slabs == (shape[0] >= 16)


@pytest.mark.parametrize("host", ["REF", "CPU"])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_matmul_of_inf_and_huge_values_is_quiet(host, dtype):
    """inf * 0 is NaN and 1e300 * 1e300 is inf, as TF's MatMul gives them: no numpy
    RuntimeWarning from the host's product (numpy's loop checks the FPU flags when BLAS
    runs on the calling thread: always so here, whatever thread count a session holds)."""
    a = np.where(np.eye(3) > 0, np.inf, 0).astype(dtype)
    huge = np.full((3, 3), np.finfo(dtype).max / 2, dtype)
    with np.errstate(all="ignore"):
        expected = [np.matmul(x.astype(F64), x).astype(dtype) for x in (a, huge)]
    node = make_node("MatMul", [dtype, dtype], dtype, {"transpose_a": False,
                                                        "transpose_b": False})
    with warnings.catch_warnings(), threadpool_limits(1, user_api="blas"):
        warnings.simplefilter("error")
        for x, want in zip((a, huge), expected):
            assert_same(run_on(host, node, x, x), want)
