"""Every CUDA kernel against the numpy reference kernels ("REF"), on a real GPU.

Sizes 0, 1, 7 and 1,000,003, broadcast shapes, every dtype the op takes.  Skipped
with "no CUDA device" where there is none (CI); ``ci/gpu-check`` runs them.  To keep
the first run's kernel compilation (one NVRTC compile per op, dtype and rank) short,
broadcast shapes are tried for float32, int32 and float16, every dtype on 1-D sizes.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from devsession.device_spec import Device
from devsession.devices import gpu_devices
from devsession.errors import InvalidArgumentError, ResourceExhaustedError
from devsession.kernels.registry import lookup_kernel, registered_ops
import kernel_cases as cases
from kernel_cases import (ALL, ARITHMETIC, BIG, BOOL, BROADCASTS, COMPARISON, F16, F32, F64,
                          FLOATS, I32, I64, MATMUL_CASES, NUMERIC, REDUCE_CASES, UNARY,
                          assert_same, binary_inputs, out_dtype_of, random_array, rng_for,
                          reduction_tolerance)

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_devices(), reason="no CUDA device")]

SIZES = [0, 1, 7, BIG]
BROADCAST_DTYPES = [F32, I32, F16]


def make_node(op, input_dtypes, output_dtype, attrs=None, name=None, device=Device("GPU", 0)):
    return cases.make_node(op, input_dtypes, output_dtype, attrs, name, device=device)


def run_gpu(node, *inputs):
    import cupy

    index = node.device.index
    with cupy.cuda.Device(index):
        device_inputs = [cupy.asarray(x) for x in inputs]
    result = lookup_kernel(node.op, "GPU")(node)(*device_inputs)
    assert isinstance(result, cupy.ndarray), type(result)
    assert result.device.id == index
    for x, d in zip(inputs, device_inputs):
        np.testing.assert_array_equal(cupy.asnumpy(d), x, err_msg="a kernel mutated its input")
    return cupy.asnumpy(result)


def check(node, *inputs, **tolerances):
    ref = lookup_kernel(node.op, "REF")(node)(*inputs)
    gpu = run_gpu(node, *inputs)
    assert_same(gpu, ref, **tolerances)
    return gpu


# ------------------------------------------------------------------ elementwise

@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op,dtype", [(op, d) for op, ds in UNARY.items() for d in ds])
def test_unary(op, dtype, size):
    x = random_array(rng_for(op, dtype, size), (size,), dtype, specials=True)
    check(make_node(op, [dtype], dtype), x)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in ARITHMETIC + COMPARISON
                                      for d in (ALL if op == "Equal" else NUMERIC)])
def test_binary(op, dtype, size):
    x, y = binary_inputs(op, dtype, ((size,), (size,)))
    check(make_node(op, [dtype, dtype], out_dtype_of(op, dtype)), x, y)


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in ARITHMETIC + COMPARISON
                                      for d in BROADCAST_DTYPES])
def test_binary_broadcasting(op, dtype, shapes):
    x, y = binary_inputs(op, dtype, shapes)
    gpu = check(make_node(op, [dtype, dtype], out_dtype_of(op, dtype)), x, y)
    assert gpu.shape == np.broadcast_shapes(*shapes)


@pytest.mark.parametrize("shapes", [((7,), (7,), (7,)), ((0,), (0,), (0,)), ((), (), ()),
                                    ((3, 1), (1, 4), ()), ((BIG,), (BIG,), (1,))], ids=str)
@pytest.mark.parametrize("dtype", ALL)
def test_select(dtype, shapes):
    rng = rng_for("SelectV2", dtype, shapes)
    cond = random_array(rng, shapes[0], BOOL)
    x, y = (random_array(rng, s, dtype) for s in shapes[1:])
    check(make_node("SelectV2", [BOOL, dtype, dtype], dtype), cond, x, y)


@pytest.mark.parametrize("src,dst", [(s, d) for s in ALL for d in ALL])
def test_cast(src, dst):
    x = random_array(rng_for("Cast", src, dst), (3, 5), src)
    if src.kind == "f":
        x[0, :3] = [0.0, -0.0, 2.75]
        x[1, :2] = [-2.75, 0.5]
    node = make_node("Cast", [src], dst, {"DstT": dst})
    check(node, x)
    check(node, x.T)               # a non-contiguous input


def test_fused_elementwise_and_out_argument():
    import cupy

    from devsession.kernels.cuda.elementwise import ElementwiseKernel

    expr = "t0 = i0 * 1.5 + 0.25\nt1 = max(t0, 0) * sigmoid(i0)\nt1 + 0.5 * i0 * i0"
    node = make_node("_FusedElementwise", [F32], F32,
                     {"expression": expr, "input_names": ("i0",), "members": ("a", "b")})
    x = random_array(rng_for("fused"), (BIG,), F32)
    got = run_gpu(node, x)
    cpu = lookup_kernel("_FusedElementwise", "CPU")(node)(x)
    assert_same(got, cpu, rtol=1e-5, atol=1e-5)
    k = ElementwiseKernel("a * b", [("a", F32), ("b", F32)], F32, name="k")
    a, b = cupy.ones((5, 4), cupy.float32), cupy.arange(4, dtype=cupy.float32)
    out = cupy.empty((5, 4), cupy.float32)
    assert k(a, b, out=out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), np.tile(np.arange(4), (5, 1)))
    with pytest.raises(InvalidArgumentError, match=r"'k'.*\[3\] vs\. \[4\]"):
        k(cupy.ones(3, cupy.float32), cupy.ones(4, cupy.float32))


# ------------------------------------------------------------ structural ops

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("a_shape,b_shape,ta,tb", [
    *MATMUL_CASES, ((300, 257), (257, 129), False, False)], ids=str)
def test_matmul(dtype, a_shape, b_shape, ta, tb):
    rng = rng_for("MatMul", dtype, a_shape, b_shape)
    a = random_array(rng, a_shape, dtype, low=-5, high=5)
    b = random_array(rng, b_shape, dtype, low=-5, high=5)
    node = make_node("MatMul", [dtype, dtype], dtype, {"transpose_a": ta, "transpose_b": tb})
    tolerance = {F16: {"rtol": 5e-3, "atol": 5e-2}, F32: {"rtol": 1e-4, "atol": 1e-4},
                 F64: {"rtol": 1e-10, "atol": 1e-10}}.get(dtype, {})
    check(node, a, b, **tolerance)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("in_shape,target", [
    ((6,), (2, 3)), ((2, 3), (-1,)), ((2, 3, 4), (4, -1)), ((0, 3), (3, 0)), ((1,), ()),
    ((), (1, 1))], ids=str)
def test_reshape(dtype, in_shape, target):
    x = random_array(rng_for("Reshape", in_shape), in_shape, dtype)
    check(make_node("Reshape", [dtype], dtype, {"shape": target}), x)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("in_shape,perm", [
    ((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 1, 2)), ((0, 3), (1, 0)),
    ((), ())], ids=str)
def test_transpose(dtype, in_shape, perm):
    x = random_array(rng_for("Transpose", in_shape), in_shape, dtype)
    check(make_node("Transpose", [dtype], dtype, {"perm": perm}), x)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shapes,axis", [
    (((2, 3), (2, 4)), 1), (((1, 3), (2, 3), (0, 3)), 0), (((7,),), 0),
    (((2, 0, 2), (2, 5, 2)), 1)], ids=str)
def test_concat(dtype, shapes, axis):
    rng = rng_for("ConcatV2", shapes)
    xs = [random_array(rng, s, dtype) for s in shapes]
    check(make_node("ConcatV2", [dtype] * len(xs), dtype, {"axis": axis}), *xs)


# ---------------------------------------------------------------- reductions

FULL_CASES = [case for case in REDUCE_CASES if case[0] == (3, 4, 5)]  # the axis matrix
LARGE_REDUCE_CASES = [((BIG,), (0,), False), ((1000, 1001), (1,), True),
                      ((1000, 1001), (0,), False)]


@pytest.mark.parametrize("shape,axes,keepdims", REDUCE_CASES + LARGE_REDUCE_CASES, ids=str)
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min"])
def test_reduction(op, dtype, shape, axes, keepdims):
    if (shape, axes, keepdims) in FULL_CASES and dtype not in (F32, I32) \
            and axes not in [(1,), (0, 1, 2)]:
        pytest.skip("full axis matrix for float32 and int32 only (compile time)")
    x = random_array(rng_for(op, dtype, shape, axes), shape, dtype)
    node = make_node(op, [dtype], dtype, {"axis": axes, "keepdims": keepdims})
    empty = 0 in [shape[a] for a in axes]
    if empty and (op in ("Max", "Min") or (op == "Mean" and dtype.kind == "i")):
        with pytest.raises(InvalidArgumentError, match=node.name):
            run_gpu(node, x)
        return
    check(node, x, **reduction_tolerance(op, dtype, x, axes))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["Max", "Min", "Sum"])
def test_reduction_nan_propagates(op, dtype):
    x = random_array(rng_for(op, dtype), (4, 9), dtype)
    x[1, 4] = np.nan
    x[2, 0] = np.nan
    node = make_node(op, [dtype], dtype, {"axis": (1,), "keepdims": False})
    got = check(node, x, **reduction_tolerance(op, dtype, x, (1,)))
    assert np.isnan(got[[1, 2]]).all() and not np.isnan(got[[0, 3]]).any()


def test_integer_mean_truncates_toward_zero():
    x = np.array([[-7, 0], [7, 0], [-5, -4], [2**31 - 1, 1]], np.int32)
    node = make_node("Mean", [I32], I32, {"axis": (1,), "keepdims": False})
    np.testing.assert_array_equal(run_gpu(node, x), [-3, 3, -4, -(2**30)])


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape,axis", [((7,), 0), ((1,), 0), ((3, 4, 5), 0), ((3, 4, 5), 1),
                                        ((3, 4, 5), 2), ((0, 4), 1), ((BIG,), 0)], ids=str)
def test_argmax(dtype, shape, axis):
    x = random_array(rng_for("ArgMax", dtype, shape), shape, dtype, low=-2, high=3)  # ties
    check(make_node("ArgMax", [dtype], I64, {"axis": axis}), x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_argmax_nan_ties_and_empty(dtype):
    x = np.array([[1, 3, 3, 2], [1, np.nan, 5, np.nan], [np.nan, 9, 9, 9]], dtype)
    node = make_node("ArgMax", [dtype], I64, {"axis": 1})
    np.testing.assert_array_equal(run_gpu(node, x), [1, 1, 0])
    with pytest.raises(InvalidArgumentError, match="argmax_node"):
        run_gpu(node, np.zeros((2, 0), dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis", [((7,), 0), ((1,), 0), ((3, 4, 5), 0), ((3, 4, 5), 1),
                                        ((3, 4, 5), 2), ((2, 0), 1), ((0, 3), 1),
                                        ((4, 250_001), 1)], ids=str)
def test_softmax(dtype, shape, axis):
    x = random_array(rng_for("Softmax", dtype, shape), shape, dtype)
    got = check(make_node("Softmax", [dtype], dtype, {"axis": axis}), x,
                **({"atol": 1e-6} if dtype == F32 else {}))
    if got.size:
        np.testing.assert_allclose(got.astype(F64).sum(axis=axis), 1.0, rtol=3e-3)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_huge_inputs_stay_finite(dtype):
    x = np.array([[1e4, -1e4, 0.0, 1e4], [-1e4, -1e4, -1e4, -1e4]], dtype)
    y = run_gpu(make_node("Softmax", [dtype], dtype, {"axis": 1}), x)
    assert np.isfinite(y).all()
    assert_same(y, np.array([[0.5, 0, 0, 0.5], [0.25] * 4], dtype))


# ------------------------------------------------------- errors, coverage, threads

def test_runtime_errors_name_the_node():
    cases = [
        (make_node("Add", [F32, F32], F32, name="my_add"),
         (np.ones(3, F32), np.ones(4, F32)), r"my_add.*\[3\] vs\. \[4\]"),
        (make_node("MatMul", [F32, F32], F32, name="mm"),
         (np.ones((2, 3), F32), np.ones((4, 2), F32)), r"\[2,3\]"),
        (make_node("Reshape", [F32], F32, {"shape": (5, -1)}, name="rs"),
         (np.ones((2, 3), F32),), r"\[2,3\]"),
        (make_node("Sum", [F32], F32, {"axis": (3,), "keepdims": False}, name="sm"),
         (np.ones((2, 3), F32),), "axis 3"),
        (make_node("ConcatV2", [F32, F32], F32, {"axis": 0}, name="cc"),
         (np.ones((2, 3), F32), np.ones((2, 4), F32)), r"\[2,4\]"),
    ]
    for node, inputs, pattern in cases:
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            run_gpu(node, *inputs)
        assert info.value.node_name == node.name


def test_every_cpu_op_has_a_gpu_kernel():
    missing = registered_ops("CPU") - registered_ops("GPU")
    assert not missing, f"ops without a GPU kernel: {sorted(missing)}"
    assert "_Transfer" in registered_ops("GPU")


def test_out_of_memory_names_the_node_and_the_bytes():
    import cupy

    from devsession.kernels.cuda import memory as cuda_memory

    previous = cuda_memory.set_pool_limit(0, 64 << 20)
    try:
        node = make_node("Add", [F32, F32], F32, name="too_big")
        kernel = lookup_kernel("Add", "GPU")(node)
        a = cupy.ones((20_000, 1), cupy.float32)
        b = cupy.ones((1, 20_000), cupy.float32)
        with pytest.raises(ResourceExhaustedError, match=r"'too_big'.*1,600,000,000 bytes"):
            kernel(a, b)
        assert kernel(a[:10], b[:, :10]).shape == (10, 10)      # still works
    finally:
        cuda_memory.set_pool_limit(0, previous)


def test_kernels_from_eight_threads():
    import cupy

    add = lookup_kernel("Add", "GPU")(make_node("Add", [F32, F32], F32))
    total = lookup_kernel("Sum", "GPU")(make_node("Sum", [F32], F32,
                                                  {"axis": (1,), "keepdims": False}))
    x = cupy.arange(BIG, dtype=cupy.float32)
    rows = cupy.ones((64, 4096), cupy.float32)
    expected = cupy.asnumpy(x) + 0
    errors, barrier = [], threading.Barrier(8)

    def work(k):
        try:
            barrier.wait()
            for _ in range(5):
                np.testing.assert_array_equal(
                    cupy.asnumpy(add(x, cupy.asarray(np.float32(k)))), expected + np.float32(k))
                np.testing.assert_array_equal(cupy.asnumpy(total(rows * k)),
                                              np.full(64, 4096.0 * k))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.skipif(len(gpu_devices()) < 2, reason="needs two CUDA devices")
def test_kernels_run_on_the_second_gpu():
    x = random_array(rng_for("gpu1"), (1000,), F32)
    got = run_gpu(make_node("Exp", [F32], F32, device=Device("GPU", 1)), x)
    np.testing.assert_allclose(got, np.exp(x), rtol=2e-6)


@pytest.mark.parametrize("shapes", [((BIG,), (BIG,))] + BROADCASTS, ids=str)
def test_logical_and(shapes):
    rng = rng_for("LogicalAnd", shapes)
    x, y = (random_array(rng, s, BOOL) for s in shapes)
    gpu = check(make_node("LogicalAnd", [BOOL, BOOL], BOOL), x, y)
    np.testing.assert_array_equal(gpu, np.logical_and(x, y))
