"""The CUDA expression compiler (kernels/codegen/cuda.py).

``compile_expression`` types and lowers an expression to instructions; ``render_cuda``
prints them as CUDA C and ``evaluate`` runs them with numpy.  In CI, the numpy run is
compared with the reference kernels for every elementwise op and dtype, and with numpy
for random expression trees, so the typing and lowering the GPU kernels rely on are
checked (the rendered C itself is executed by ``test_cuda_host_harness.py``).  On a GPU
(the ``gpu`` mark; ``ci/gpu-check``), every kernel the registry can generate is
compiled by NVRTC through ``cupy.ElementwiseKernel``, run, and compared; a kernel NVRTC
refuses fails the test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cuda_programs
import kernel_cases as cases
from devsession.devices import gpu_devices
from devsession.kernels.codegen import cuda as cg
from devsession.kernels.codegen.expressions import ELEMENTWISE_OPS
from devsession.kernels.registry import lookup_kernel
from kernel_cases import (ALL, BOOL, EXPRESSION_TREES, F16, F32, F64, I32, I64,
                          NUMERIC, binary_inputs, make_node, numpy_value, out_dtype_of,
                          rng_for)

UNARY = {op: dtypes for op, dtypes in cases.UNARY.items() if op != "Identity"}
BINARY = cases.ARITHMETIC + cases.COMPARISON
SHAPES = [((7,), (7,)), ((3, 1), (1, 4)), ((5, 4), (4,)), ((), (7,))]


def random_array(rng, shape, dtype, low=-20, high=20, specials=True):
    return cases.random_array(rng, shape, dtype, low=low, high=high, specials=specials)


def ref(op, out_dtype, *xs, attrs=None):
    node = make_node(op, [x.dtype for x in xs], out_dtype, attrs)
    return lookup_kernel(op, "REF")(node)(*xs)


def program_for(op, dtypes, out_dtype):
    names, expr = ELEMENTWISE_OPS[op]
    return cg.compile_expression(expr, list(zip(names, dtypes)), out_dtype)


def assert_same(actual, expected):
    cases.assert_same(actual, expected, rtol=1e-3 if expected.dtype == F16 else 1e-6, atol=0)


# --------------------------------------------------------- the program vs REF

@pytest.mark.parametrize("op,dtype", [(op, d) for op, ds in UNARY.items() for d in ds])
def test_unary_programs_match_reference(op, dtype):
    x = random_array(rng_for(op, dtype), (3, 7), dtype)
    assert_same(cg.evaluate(program_for(op, [dtype], dtype), x), ref(op, dtype, x))


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in BINARY
                                      for d in (ALL if op == "Equal" else NUMERIC)])
def test_binary_programs_match_reference(op, dtype, shapes):
    x, y = binary_inputs(op, dtype, shapes)
    out = out_dtype_of(op, dtype)
    assert_same(cg.evaluate(program_for(op, [dtype, dtype], out), x, y), ref(op, out, x, y))


@pytest.mark.parametrize("dtype", ALL)
def test_select_program_matches_reference(dtype):
    rng = rng_for("select", dtype)
    c, x, y = rng.random((3, 1)) < 0.5, random_array(rng, (1, 4), dtype), \
        random_array(rng, (), dtype)
    program = program_for("SelectV2", [BOOL, dtype, dtype], dtype)
    assert_same(cg.evaluate(program, c, x, y), ref("SelectV2", dtype, c, x, y))


@pytest.mark.parametrize("src,dst", [(s, d) for s in ALL for d in ALL if s != d])
def test_cast_programs_match_reference(src, dst):
    x = random_array(rng_for("cast", src, dst), (3, 5), src, specials=False)
    if src.kind == "f":
        x[0, :3] = [0.0, -0.0, 2.75]
        x[1, :2] = [-2.75, 0.5]
    program = cg.compile_expression("x", [("x", src)], dst)
    assert_same(cg.evaluate(program, x), ref("Cast", dst, x, attrs={"DstT": dst}))


def test_integer_arithmetic_wraps_and_pow_follows_reference():
    a = np.array([2**31 - 1, -2**31, 7, -7], np.int32)
    b = np.array([1, -1, 3, 2], np.int32)
    for op in ("Add", "Sub", "Mul"):
        assert_same(cg.evaluate(program_for(op, [I32, I32], I32), a, b), ref(op, I32, a, b))
    neg = cg.evaluate(program_for("Neg", [I32], I32), a)
    np.testing.assert_array_equal(neg, [-(2**31 - 1), -2**31, -7, 7])
    np.testing.assert_array_equal(
        cg.evaluate(program_for("Pow", [I32, I32], I32), np.int32([2, 2, 1, -1, -1, 3]),
                    np.int32([10, -1, -5, -3, -2, 0])), [1024, 0, 1, -1, 1, 1])


# --------------------------------------------------------------------- typing

def test_typing_follows_the_cpu_code_generator():
    from devsession.kernels.codegen.cpu import compile_expression as cpu_compile

    cases = [("x / y", [("x", I32), ("y", I32)]), ("x * 0.5", [("x", I32)]),
             ("x + 2 * 3", [("x", I32)]), ("x < 2", [("x", F16)]), ("exp(x)", [("x", I64)]),
             ("where(c, x, 1)", [("c", BOOL), ("x", F32)]), ("x + y", [("x", F32), ("y", F64)]),
             ("cast(x, 'int32') + 1", [("x", F32)]), ("max(x, 1.5)", [("x", I64)]),
             ("sigmoid(x) * 2", [("x", F32)]), ("x ** 2", [("x", I32)])]
    for expr, inputs in cases:
        assert cg.compile_expression(expr, inputs).out_dtype == \
            cpu_compile(expr, inputs).out_dtype, expr
    for bad in ["x +", "y + 1", "x.real", "foo(x)", "x = 1\nx", "cast(x, 'nope')", "not x",
                "x & x", "'a'"]:
        with pytest.raises(cg.CodegenError):
            cg.compile_expression(bad, [("x", F32)])


def test_dag_programs_share_subexpressions():
    p = cg.compile_expression("t = exp(x - 1)\nt / (1 + t) + exp(x - 1)", [("x", F32)])
    assert sum(ins.op == "exp" for ins in p.instrs) == 1
    x = np.linspace(-2, 2, 9, dtype=F32)
    e = np.exp(x - np.float32(1))
    np.testing.assert_allclose(cg.evaluate(p, x), e / (1 + e) + e, rtol=1e-6)


def test_rendered_cuda_is_typed_and_wraps():
    p = cg.compile_expression("max(a * 1.5 + 0.25, 0) * b", [("a", F32), ("b", F32)])
    in_params, out_params, body, preamble = cg.render_cuda(p)
    assert in_params == "float32 x0, float32 x1" and out_params == "float32 out0"
    assert "1.5f" in body and "0.25f" in body and "double" not in body
    assert "(t1 != t1)" in body                                       # NaN propagates
    body = cg.render_cuda(cg.compile_expression("x * y - x", [("x", I32), ("y", I32)]))[2]
    assert "(unsigned int)" in body
    in_params, out_params, body, preamble = cg.render_cuda(
        cg.compile_expression("sigmoid(x)", [("x", F16)], F16))
    assert in_params == "float16 x0" and "const float v0 = (float)x0;" in body
    assert body.endswith("out0 = float16((float)(t7));") and "expf(" in body
    assert "_ds_ipow" in cg.render_cuda(cg.compile_expression("x ** y", [("x", I64),
                                                                         ("y", I64)]))[3]
    assert cg.c_literal(cg.Const(-2**31, I32)) == "(-2147483647 - 1)"
    assert cg.c_literal(cg.Const(float("-inf"), F32)) == "(-CUDART_INF_F)"
    assert cg.c_literal(cg.Const(0.1, F32)) == "0.10000000149011612f"


@pytest.mark.parametrize("op,dtype,args", [("frobnicate", F32, ("v0",)),
                                           ("hypot", F64, ("v0", "v0")),
                                           ("bitcount", I32, ("v0", "v0"))])
def test_an_op_the_renderer_does_not_know_raises_codegen_error_naming_it(op, dtype, args):
    """A front-end op without a CUDA rendering must fail at render time, saying which
    (it must not fall into the division renderer and fail there, or print wrong C)."""
    program = cg.Program(expr=f"{op}(x)", inputs=("x",), input_dtypes=(dtype,),
                         out_dtype=dtype, instrs=(cg.Instr("t0", dtype, op, args),),
                         result="t0")
    with pytest.raises(cg.CodegenError, match=rf"'{op}'"):
        cg.render_cuda(program)


# Random expression trees: the program against numpy evaluating the same tree.
@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(tree=EXPRESSION_TREES, dtype=st.sampled_from([F32, F64]))
def test_random_expressions_match_numpy(tree, dtype):
    expr, numpy_expr = tree
    rng = rng_for("expr", expr)
    a, b = random_array(rng, (3, 5), dtype, specials=False), \
        random_array(rng, (5,), dtype, specials=False)
    program = cg.compile_expression(expr, [("a", dtype), ("b", dtype)], dtype)
    expected = numpy_value(numpy_expr, a, b, (3, 5), dtype)
    np.testing.assert_allclose(cg.evaluate(program, a, b), expected,
                               rtol=1e-5 if dtype == F32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("op", cases.LOGICAL)
def test_logical_programs_match_reference(op):
    rng = rng_for(op, "program")
    x, y = rng.random((3, 1)) < 0.5, rng.random((1, 4)) < 0.5
    assert_same(cg.evaluate(program_for(op, [BOOL, BOOL], BOOL), x, y), ref(op, BOOL, x, y))


# ------------------------------------------------- NVRTC, on a GPU (ci/gpu-check)

GROUPS = sorted({n.op for n in cuda_programs.registry_nodes()}) + ["language", "fused"]


def kernels_of(group: str) -> list:
    """(label, program, inputs, expected, tolerances) of every kernel in ``group``."""
    if group == "language":
        rng = rng_for("nvrtc language")
        out = []
        for p in cuda_programs.language_programs():
            xs = [cases.random_array(rng, (4, 6), d) for d in p.input_dtypes]
            out.append((p.expr, p, xs, cg.evaluate(p, *xs), {}))
        return out
    if group == "fused":
        loose = {F32: {"rtol": 1e-4, "atol": 1e-5}, F64: {"rtol": 1e-9, "atol": 1e-12}}
        return [(c.node.attrs["expression"], cuda_programs.program_for(c.node), c.inputs,
                 c.expected, loose.get(c.expected.dtype, {}))
                for c in cuda_programs.random_fused_cases(range(12))]
    out = []
    for node in cuda_programs.registry_nodes():
        if node.op == group:
            xs = cuda_programs.inputs_for(node)
            out.append((cuda_programs.label(node), cuda_programs.program_for(node), xs,
                        ref(node.op, node.output_dtype, *xs, attrs=node.attrs), {}))
    return out


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_devices(), reason="no CUDA device")
@pytest.mark.parametrize("group", GROUPS)
def test_every_generated_kernel_compiles_with_nvrtc_and_matches(group):
    """Every kernel the registry can generate (each elementwise op with every dtype its
    OpDef accepts, every Cast, language programs, fused kernels of random graphs) is
    compiled by NVRTC through ``cupy.ElementwiseKernel`` and run on the GPU, against
    the reference.  A kernel that does not compile fails here, naming it."""
    import cupy

    failures = []
    kernels = kernels_of(group)
    assert kernels, f"nothing to compile in group {group}"
    for k, (label, program, xs, expected, tolerances) in enumerate(kernels):
        in_params, out_params, operation, preamble = cg.render_cuda(program)
        try:
            kernel = cupy.ElementwiseKernel(in_params, out_params, operation,
                                            name=f"nvrtc_check_{group}_{k}", preamble=preamble)
            got = cupy.asnumpy(kernel(*[cupy.asarray(x) for x in xs]))
        except Exception as e:
            failures.append(f"{label}: {type(e).__name__}: {str(e)[:3000]}")
            continue
        try:
            cases.assert_same(got, np.asarray(expected), **tolerances)
        except AssertionError as e:
            failures.append(f"{label}: wrong values on the GPU: {str(e)[:1500]}")
    assert not failures, f"{len(failures)} of {len(kernels)} kernels failed:\n" + \
        "\n\n".join(failures)

