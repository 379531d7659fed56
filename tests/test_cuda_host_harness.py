"""The CUDA C the GPU kernels generate, executed in CI: compiled as host C++ by g++
(``cuda_host.py``) and compared with the reference kernels.

* every elementwise op of the registry with every dtype its OpDef accepts, and every
  Cast (``cuda_programs.registry_nodes``), on broadcast shapes, NaN, inf and integer
  wrap-around, against the op's REF kernel;
* the fused kernels the optimizer makes for random graphs, against the unfused graph;
* expressions of the language beyond single ops, against the numpy evaluator;
* the harness itself: its float16 conversions against numpy's, cupy's calling rules,
  undefined behaviour detection, and planted bugs in ``codegen/cuda.py`` (the
  rendering of ``sub``, ``max``/``min``, the unsigned wrap-around...) turning the same
  comparison red.

All kernels of the module compile in one g++ run (``build_pending``).
"""

from __future__ import annotations

import numpy as np
import pytest

import cuda_host
import cuda_programs
import kernel_cases as cases
from cuda_programs import inputs_for, label, program_for
from devsession.kernels.codegen import cuda as cg
from devsession.kernels.registry import lookup_kernel
from devsession.kernels.reference import elementwise as reference_elementwise
from kernel_cases import BOOL, F16, F32, F64, I32, I64, assert_same, rng_for

pytestmark = pytest.mark.skipif(bool(cuda_host.compiler_missing()),
                                reason=cuda_host.compiler_missing() or "-")

NODES = cuda_programs.registry_nodes()
FUSED_SEEDS = range(24)


def host_kernel(program: cg.Program, name="kernel") -> cuda_host.ElementwiseKernel:
    """The host twin of the ``cupy.ElementwiseKernel`` the GPU builds for ``program``."""
    in_params, out_params, operation, preamble = cg.render_cuda(program)
    return cuda_host.ElementwiseKernel(in_params, out_params, operation, name,
                                       preamble=preamble)


def tolerances(dtype) -> dict:
    return {"rtol": 2e-3, "atol": 2e-3} if dtype == F16 else {}


def check_node(node) -> None:
    """The host-compiled kernel of ``node`` against its REF kernel (raises on mismatch)."""
    xs = inputs_for(node)
    if node.op == "Pow" and node.output_dtype.kind == "i":
        # a negative exponent is REF's (TF's CPU's) error; the GPU's rule is REF's _pow
        want = reference_elementwise._pow(*xs).astype(node.output_dtype)
    else:
        want = lookup_kernel(node.op, "REF")(node)(*xs)
    got = host_kernel(program_for(node), label(node))(*xs)
    assert_same(got, want, **tolerances(node.output_dtype))


@pytest.fixture(scope="module")
def fused_cases():
    return cuda_programs.random_fused_cases(FUSED_SEEDS)


@pytest.fixture(scope="module", autouse=True)
def compiled_once(fused_cases):
    """Queue every kernel of the module, then compile them in one g++ run."""
    for node in NODES:
        host_kernel(program_for(node))
    for program in cuda_programs.language_programs():
        host_kernel(program)
    for case in fused_cases:
        host_kernel(program_for(case.node))
    cuda_host.build_pending()


# ------------------------------------------------------- generated code vs REF

@pytest.mark.parametrize("node", NODES, ids=label)
def test_every_registry_kernel_matches_the_reference(node):
    check_node(node)


def test_every_op_and_dtype_is_enumerated():
    signatures = {(n.op, n.input_dtypes) for n in NODES}
    for op in ("Add", "Sub", "Mul", "Maximum", "Minimum", "Pow", "Neg", "Abs", "Relu"):
        for d in (F16, F32, F64, I32, I64):
            assert (op, (d,) * (2 if op in ("Add", "Sub", "Mul", "Maximum", "Minimum",
                                            "Pow") else 1)) in signatures, (op, d)
    assert ("Equal", (BOOL, BOOL)) in signatures and ("Less", (BOOL, BOOL)) not in signatures
    assert ("SelectV2", (BOOL, I64, I64)) in signatures
    assert {d.name for d in cuda_programs.GPU_DTYPES} == {
        "bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "uint16"}
    k = len(cuda_programs.GPU_DTYPES)
    assert sum(n.op == "Cast" for n in NODES) == k * (k - 1)


def test_fused_kernels_of_random_graphs_match_the_unfused_graph(fused_cases):
    assert len(fused_cases) >= 20 and {c.seed for c in fused_cases} >= set(range(0, 24, 6))
    kinds = {d.kind for c in fused_cases for d in c.node.input_dtypes}
    assert kinds >= {"f", "i"}
    for case in fused_cases:
        got = host_kernel(program_for(case.node))(*case.inputs)
        dtype = case.expected.dtype
        tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == F32 else \
            {"rtol": 1e-9, "atol": 1e-12} if dtype == F64 else {}
        try:
            assert_same(got, case.expected, **tol)
        except AssertionError as e:
            raise AssertionError(f"seed {case.seed}: {case.node.attrs['expression']!r} "
                                 f"{case.node.input_dtypes}: {e}") from None


@pytest.mark.parametrize("program", cuda_programs.language_programs(),
                         ids=lambda p: p.expr.replace("\n", "; "))
def test_language_programs_match_the_numpy_evaluator(program):
    rng = rng_for("language", program.expr)
    xs = [cases.random_array(rng, (4, 6), d) for d in program.input_dtypes]
    got = host_kernel(program)(*xs)
    assert_same(got, cg.evaluate(program, *xs), **tolerances(program.out_dtype))


def test_integer_arithmetic_wraps_without_undefined_behaviour():
    a = np.array([2**31 - 1, -2**31, 7, -7, -2**31], np.int32)
    b = np.array([1, -1, 3, 2, -1], np.int32)
    for op in ("Add", "Sub", "Mul"):
        node = cases.make_node(op, [I32, I32], I32)
        want = lookup_kernel(op, "REF")(node)(a, b)
        assert_same(host_kernel(program_for(node))(a, b), want)
    neg = cases.make_node("Neg", [I64], I64)
    big = np.array([-2**63, 2**63 - 1], np.int64)
    assert_same(host_kernel(program_for(neg))(big), -big)
    # The same sum written plainly is undefined behaviour, and the harness says so.
    plain = cuda_host.ElementwiseKernel("int32 a, int32 b", "int32 c", "c = a + b", "plain")
    with pytest.raises(cuda_host.UndefinedBehaviour, match="plain"):
        plain(a, b)


# ---------------------------------------------------------------- the harness

def test_float16_conversions_round_like_numpy():
    import ctypes

    library = cuda_host.prelude_library()
    halves = np.arange(1 << 16, dtype=np.uint16)
    floats = np.empty(halves.size, np.float32)
    library.ds_float_from_half(ctypes.c_longlong(halves.size), ctypes.c_void_p(halves.ctypes.data),
                               ctypes.c_void_p(floats.ctypes.data))
    np.testing.assert_array_equal(floats, halves.view(np.float16).astype(np.float32))
    rng = np.random.default_rng(16)
    exact = halves.view(np.float16)[np.isfinite(halves.view(np.float16))].astype(np.float32)
    midpoints = ((exact[:-1].astype(np.float64) + exact[1:]) / 2).astype(np.float32)
    probes = np.concatenate([
        rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        exact, midpoints, np.nextafter(midpoints, np.float32(np.inf)),
        np.nextafter(midpoints, np.float32(-np.inf)),
        np.float32([65504, 65519.99, 65520, 1e-8, 2.98e-8, 2.99e-8, 6e-8, -0.0, np.inf,
                    -np.inf, np.nan])])
    out = np.empty(probes.size, np.uint16)
    library.ds_half_from_float(ctypes.c_longlong(probes.size),
                               ctypes.c_void_p(probes.ctypes.data),
                               ctypes.c_void_p(out.ctypes.data))
    with np.errstate(over="ignore"):
        want = probes.astype(np.float16)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(out.view(np.float16)), nan)
    np.testing.assert_array_equal(out[~nan], want.view(np.uint16)[~nan])


def test_kernels_follow_cupy_calling_rules():
    k = cuda_host.ElementwiseKernel("float32 x, T y", "T z", "z = (T)(x * 2) + y", "rules")
    x = np.arange(6, dtype=F32).reshape(2, 3)
    np.testing.assert_array_equal(k(x, np.ones(3, I64)), x.astype(I64) * 2 + 1)
    assert k(x, np.ones(3, F64)).dtype == F64
    with pytest.raises(TypeError, match="Type is mismatched. x"):
        k(x.astype(F64), np.ones(3, F64))
    with pytest.raises(TypeError, match="Type is mismatched. y .* T"):   # out binds T first
        k(x, np.ones(3, I64), np.empty((2, 3), I32))
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        k(x)
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        k(x, np.ones(3, I64), np.empty((3,), I64))
    with pytest.raises(TypeError, match="Cannot determine the type"):
        k(x, 1)
    out = np.empty((2, 3), F32)
    assert k(x, np.float32(0.5), out) is out                      # a scalar takes T=float
    np.testing.assert_array_equal(out, x * 2 + 0.5)
    strided = np.empty((2, 6), F32)[:, ::2]
    k(x, np.float32(1), strided)                                  # a non-contiguous out
    np.testing.assert_array_equal(strided, x * 2 + 1)
    assert k(np.zeros((0, 3), F32), np.ones(3, F32)).shape == (0, 3)


def test_raw_parameters_atomics_and_size_follow_cupy():
    histogram = cuda_host.ElementwiseKernel("int32 v", "raw int32 bins",
                                            "atomicAdd(&bins[v], 1)", "histogram")
    bins = np.zeros(4, I32)
    histogram(np.int32([0, 1, 1, 3, 3, 3]), bins)
    np.testing.assert_array_equal(bins, [1, 2, 0, 3])
    reverse = cuda_host.ElementwiseKernel("raw T x", "raw T y", "y[i] = x[x.size() - 1 - i]",
                                          "reverse")
    y = np.empty(10, F64)[::2]                                   # a strided raw output
    reverse(np.arange(5, dtype=F64), y, size=5)
    np.testing.assert_array_equal(y, [4, 3, 2, 1, 0])
    with pytest.raises(ValueError, match="Loop size is Undecided"):
        reverse(np.arange(5, dtype=F64), y)
    with pytest.raises(ValueError, match="only if all of the ndarray are 'raw'"):
        histogram(np.int32([0]), bins, size=1)
    long_add = cuda_host.ElementwiseKernel("int64 v", "raw int64 total",
                                           "atomicAdd(&total[0], v)", "no_such_atomic")
    with pytest.raises(cuda_host.HostCompileError, match="no_such_atomic"):
        long_add(np.int64([1]), np.zeros(1, I64))                # CUDA has none for int64


def test_a_kernel_that_does_not_compile_is_named_and_others_still_run():
    bad = cuda_host.ElementwiseKernel("float32 x", "float32 y", "x = 1; y = x", "writes_input")
    good = cuda_host.ElementwiseKernel("float32 x", "float32 y", "y = fmaxf(x, 0.5f)", "good")
    with pytest.raises(cuda_host.HostCompileError, match="writes_input"):
        bad(np.ones(3, F32))
    np.testing.assert_array_equal(good(np.float32([0, 1])), [0.5, 1])
    with pytest.raises(cuda_host.HostCompileError, match="undeclared|not declared"):
        cuda_host.ElementwiseKernel("float32 x", "float32 y", "y = no_such(x)", "u")(
            np.ones(2, F32))


# ----------------------------------------------------------- planted mutations

def _mutate(render, mutation):
    def mutated(ins, helpers):
        text = render(ins, helpers)
        if mutation == "integer sub as +" and ins.op == "sub" and ins.dtype.kind == "i":
            return text.replace(" - ", " + ")
        if mutation == "max and min swapped" and ins.op in ("max", "min"):
            return text.replace(">=", "<TMP>").replace("<=", ">=").replace("<TMP>", "<=")
        if mutation == "no unsigned wrap" and ins.op in ("add", "sub", "mul") \
                and ins.dtype.kind == "i":
            return f"{ins.args[0]} {dict(add='+', sub='-', mul='*')[ins.op]} {ins.args[1]}"
        if mutation == "max loses NaN" and ins.op == "max" and ins.dtype.kind == "f":
            return text.replace(f" || ({ins.args[0]} != {ins.args[0]})", "")
        if mutation == "select swapped" and ins.op == "select":
            return f"{ins.args[0]} ? {ins.args[2]} : {ins.args[1]}"
        if mutation == "less as less-equal" and ins.op == "lt":
            return text.replace(" < ", " <= ")
        return text
    return mutated


MUTATIONS = {
    "integer sub as +": {"Sub(int32,int32)->int32", "Sub(int64,int64)->int64"},
    "max and min swapped": {"Maximum(float32,float32)->float32",
                            "Minimum(int64,int64)->int64", "Relu(float16)->float16",
                            "Relu(int32)->int32"},
    "no unsigned wrap": {"Add(int32,int32)->int32", "Mul(int64,int64)->int64"},
    "max loses NaN": {"Maximum(float64,float64)->float64", "Relu(float32)->float32"},
    "select swapped": {"SelectV2(bool,float32,float32)->float32", "Sigmoid(float32)->float32"},
    "less as less-equal": {"Less(int32,int32)->bool"},
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_a_planted_mutation_turns_the_comparison_red(monkeypatch, mutation):
    monkeypatch.setattr(cg, "_render_instr", _mutate(cg._render_instr, mutation))
    chosen = [n for n in NODES if label(n) in MUTATIONS[mutation]]
    assert len(chosen) == len(MUTATIONS[mutation])
    if mutation == "no unsigned wrap":       # a kernel that overflows, on purpose
        a = np.array([2**31 - 1, 5], I32)
        with pytest.raises(cuda_host.UndefinedBehaviour):
            host_kernel(program_for(chosen[0]))(a, a)
    for node in chosen:
        with pytest.raises((AssertionError, cuda_host.UndefinedBehaviour)):
            check_node(node)
