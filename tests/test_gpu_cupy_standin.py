"""The CUDA kernel modules run in CI on a numpy stand-in for cupy (``cupy_standin.py``).

CI has no GPU, so ``kernels/cuda/`` would otherwise first run on a GPU machine.  Here
``sys.modules["cupy"]`` is the stand-in and the real ``devsession.kernels.cuda`` is
imported against it: every kernel builder, shape check, dtype rule and empty-input path
runs, elementwise kernels execute their generated CUDA C (compiled on the host by g++),
the chunked pinned-memory transfers run against streams whose copies land only when
waited for, and whole sessions run.  Results are compared with the reference kernels.
What the stand-in computes with numpy (cupy's reductions, matmul, concatenate...) is
numpy compared with numpy there: those checks test our code around cupy's routines.
What it cannot check -- NVRTC and cupy's real behaviour -- the gpu-marked tests cover
(``ci/gpu-check``).
"""

from __future__ import annotations

import sys
import zlib

import numpy as np
import pytest

import cuda_host
import cupy_standin
import devsession as ds
from devsession.device_spec import Device
from devsession.errors import InvalidArgumentError, ResourceExhaustedError
from devsession.kernels.registry import KernelNode, lookup_kernel

pytestmark = pytest.mark.skipif(bool(cuda_host.compiler_missing()),
                                reason=cuda_host.compiler_missing() or "-")

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)


@pytest.fixture
def standin():
    """The real devsession.kernels.cuda, imported against the stand-in, on one fake GPU;
    yields the stand-in cupy module."""
    with cupy_standin.installed() as cupy:
        yield cupy


# ---------------------------------------------------------------------- kernels

def rng_for(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def node(op, dtypes, out, attrs=None, name=None):
    return KernelNode(name or f"{op.lower()}_node", op, dict(attrs or {}),
                      tuple(np.dtype(d) for d in dtypes), tuple(None for _ in dtypes),
                      np.dtype(out), None, device=Device("GPU", 0))


def check(n, *inputs, rtol=1e-6):
    cupy = sys.modules["cupy"]
    want = lookup_kernel(n.op, "REF")(n)(*inputs)
    got = lookup_kernel(n.op, "GPU")(n)(*[cupy.asarray(x) for x in inputs])
    assert isinstance(got, cupy.ndarray), (n.op, type(got))
    got = cupy.asnumpy(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (n.op, got.dtype, got.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(F64), want.astype(F64), rtol=rtol,
                                   atol=1e-6, equal_nan=True)
    return got


def test_every_kernel_matches_the_reference(standin):
    rng = rng_for("standin")
    x = rng.standard_normal((4, 5)).astype(F32)
    y = rng.standard_normal((5,)).astype(F32)
    ints = rng.integers(-9, 9, (4, 5)).astype(I32)
    for op in ("Neg", "Abs", "Square", "Relu", "Exp", "Tanh", "Sigmoid", "Identity"):
        for d in (F16, F32, F64):
            check(node(op, [d], d), x.astype(d), rtol=2e-3 if d == F16 else 1e-6)
    for op in ("Add", "Sub", "Mul", "Maximum", "Minimum", "RealDiv", "Pow"):
        check(node(op, [F32, F32], F32), np.abs(x) + 0.5, y)
        check(node(op, [I32, I32], F64 if op == "RealDiv" else I32), ints,
              np.abs(ints[0]) if op == "Pow" else ints[0] + 10)
    for op in ("Equal", "Less", "LessEqual", "Greater", "GreaterEqual"):
        check(node(op, [F32, F32], BOOL), x, y)
    check(node("SelectV2", [BOOL, F32, F32], F32), x > 0, x, y)
    for src, dst in [(F32, I32), (I64, F16), (BOOL, F64), (F64, BOOL), (F32, F32)]:
        check(node("Cast", [src], dst, {"DstT": dst}), (x * 10).astype(src).T)
    check(node("MatMul", [F32, F32], F32, {"transpose_b": True}), x, x)
    check(node("MatMul", [F16, F16], F16), x.astype(F16), x.T.astype(F16), rtol=2e-3)
    check(node("MatMul", [I64, I64], I64), np.zeros((3, 0), I64), np.zeros((0, 2), I64))
    for op in ("Sum", "Mean", "Max", "Min"):
        for axes in [(), (0,), (1,), (0, 1)]:
            for d in (F16, F32, I32, I64):
                check(node(op, [d], d, {"axis": axes, "keepdims": axes == (1,)}),
                      (x * 7).astype(d), rtol=2e-3 if d == F16 else 1e-6)
        check(node(op, [F32], F32, {"axis": (1,), "keepdims": False}), np.zeros((0, 3), F32))
    check(node("Sum", [F32], F32, {"axis": (0,), "keepdims": False}), np.zeros((0, 3), F32))
    check(node("Mean", [F64], F64, {"axis": (0,), "keepdims": True}), np.zeros((0, 3), F64))
    check(node("Mean", [I32], I32, {"axis": (1,), "keepdims": False}),
          np.array([[-7, 0], [7, 0], [-5, -4]], I32))
    for d in (F16, F32, I64):
        check(node("ArgMax", [d], I64, {"axis": 1}), (x * 3).astype(d))
    check(node("ArgMax", [F32], I64, {"axis": 1}), np.zeros((0, 3), F32))
    for d in (F16, F32, F64):
        check(node("Softmax", [d], d, {"axis": 1}), (x * 1e4).astype(d), rtol=2e-3)
        check(node("Softmax", [d], d, {"axis": 0}), np.zeros((0, 3), d))
    check(node("Reshape", [F32], F32, {"shape": (5, -1)}), x)
    check(node("Transpose", [F32], F32, {"perm": (1, 0)}), x)
    check(node("ConcatV2", [F32, F32], F32, {"axis": 0}), x, x[:1])
    fused = {"expression": "t0 = i0 * i1 + 1\nt1 = sigmoid(t0)\nt1",
             "input_names": ("i0", "i1"), "members": ("m", "s")}
    want = lookup_kernel("_FusedElementwise", "CPU")(node("_FusedElementwise", [F32, F32],
                                                          F32, fused))(x, y)
    cupy = sys.modules["cupy"]
    got = lookup_kernel("_FusedElementwise", "GPU")(
        node("_FusedElementwise", [F32, F32], F32, fused))(cupy.asarray(x), cupy.asarray(y))
    np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-6)


def test_errors_name_the_node(standin):
    cupy = sys.modules["cupy"]
    cases = [
        (node("Add", [F32, F32], F32, name="my_add"), (np.ones(3, F32), np.ones(4, F32)),
         r"my_add.*\[3\] vs\. \[4\]"),
        (node("MatMul", [F32, F32], F32, name="mm"), (np.ones((2, 3), F32),
                                                       np.ones((4, 2), F32)), r"\[2,3\]"),
        (node("ArgMax", [np.dtype(np.int32)], np.dtype(np.int64), {"axis": 1}, name="mx"),
         (np.ones((2, 0), np.int32),), "empty axis"),
        (node("ConcatV2", [F32, F32], F32, {"axis": 0}, name="cc"),
         (np.ones((2, 3), F32), np.ones((2, 4), F32)), r"\[2,4\]"),
    ]
    for n, inputs, pattern in cases:
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            lookup_kernel(n.op, "GPU")(n)(*[cupy.asarray(x) for x in inputs])
        assert info.value.node_name == n.name


@pytest.mark.parametrize("nbytes", [0, 4, 4096 * 4 + 12, 10 * 4096 * 4 + 4])
def test_chunked_pinned_transfers_are_exact(standin, monkeypatch, nbytes):
    from devsession.kernels.cuda import transfer as cuda_transfer

    monkeypatch.setattr(cuda_transfer, "CHUNK_BYTES", 4096 * 4)
    host = np.arange(nbytes // 4, dtype=np.float32) * 1.5
    for pinned_min in (0, 1 << 30):            # staged through pinned buffers / directly
        on_gpu = cuda_transfer.upload(host, pinned_min_bytes=pinned_min)
        np.testing.assert_array_equal(np.asarray(on_gpu), host)
        back = cuda_transfer.download(on_gpu, pinned_min_bytes=pinned_min)
        assert type(back) is np.ndarray
        np.testing.assert_array_equal(back, host)
    strided = np.arange(40, dtype=np.int64).reshape(5, 8)[:, ::3]
    np.testing.assert_array_equal(
        cuda_transfer.download(cuda_transfer.upload(strided, pinned_min_bytes=0),
                               pinned_min_bytes=0), strided)


def test_async_copies_land_only_when_waited_for(standin):
    runtime = standin.cuda.runtime
    stream = standin.cuda.get_current_stream()
    staging = standin.cuda.alloc_pinned_memory(16)
    host = np.frombuffer(staging, np.float32, 4)
    host[:] = [1, 2, 3, 4]
    device = standin.full(4, -1, np.float32)
    runtime.memcpyAsync(device.data.ptr, staging.ptr, 16, runtime.memcpyHostToDevice,
                        stream.ptr)
    landed = standin.cuda.Event()
    landed.record(stream)
    host[:] = [5, 6, 7, 8]                  # refilled before the copy was waited for
    assert (device.view(np.ndarray) == -1).all()           # nothing has landed yet
    landed.synchronize()
    np.testing.assert_array_equal(device.get(), [5, 6, 7, 8])   # the copy read it late
    pageable = np.float32([9, 9, 9, 9])
    runtime.memcpyAsync(device.data.ptr, pageable.ctypes.data, 16,
                        runtime.memcpyHostToDevice, stream.ptr)        # synchronous
    np.testing.assert_array_equal(device.view(np.ndarray), pageable)


@pytest.mark.parametrize("direction", ["upload", "download"])
def test_a_missing_wait_in_the_transfers_corrupts_data(standin, monkeypatch, direction):
    from devsession.kernels.cuda import transfer as cuda_transfer

    class NoWaitEvent(standin.cuda.Event):
        def synchronize(self):            # as if the wait had been deleted
            pass

    monkeypatch.setattr(cuda_transfer, "CHUNK_BYTES", 1024)
    host = np.arange(8 * 256, dtype=np.float32)          # 8 chunks through 2 buffers
    on_gpu = cuda_transfer.upload(host, pinned_min_bytes=0)
    np.testing.assert_array_equal(cuda_transfer.download(on_gpu, pinned_min_bytes=0), host)
    monkeypatch.setattr(standin.cuda, "Event", NoWaitEvent)
    if direction == "upload":
        broken = cuda_transfer.upload(host, pinned_min_bytes=0).get()
    else:
        broken = cuda_transfer.download(on_gpu, pinned_min_bytes=0)
    assert not np.array_equal(broken, host)


def test_elementwise_kernels_check_argument_types_like_cupy(standin):
    add = lookup_kernel("Add", "GPU")(node("Add", [F32, F32], F32, name="my_add"))
    x = standin.asarray(np.ones(3, F32))
    np.testing.assert_array_equal(add(x, x).get(), [2, 2, 2])
    with pytest.raises(TypeError, match="Type is mismatched"):
        add(x, standin.asarray(np.ones(3, F64)))
    with pytest.raises(TypeError, match="Unsupported type"):
        add(x, np.ones(3, F32))                          # a host array, not a device one
    with pytest.raises(TypeError, match="Unsupported type"):
        x + np.ones(3, F32)                              # cupy's operators refuse them too


def test_a_session_on_the_standin(standin, monkeypatch):
    from devsession.kernels.cuda import transfer as cuda_transfer

    monkeypatch.setattr(cuda_transfer, "PINNED_MIN_BYTES", 64)
    monkeypatch.setattr(cuda_transfer, "CHUNK_BYTES", 1000)
    x = ds.placeholder(ds.float32, (None, 6), name="x")
    with ds.device("gpu:0"):
        w = ds.Variable(np.full((6, 3), 0.5, np.float32), name="w")
        h = ds.nn.relu(ds.matmul(x, w) + ds.random_normal((3,), seed=1) * 0.0 + 1.0)
    s = ds.reduce_sum(h, axis=1, keepdims=True)
    with ds.device("gpu:0"):
        z = ds.nn.softmax(h * s, name="z")
        bump = w.assign_add(np.ones((6, 3), np.float32))
    xv = np.random.default_rng(0).standard_normal((50, 6)).astype(np.float32)
    hv = np.maximum(xv @ np.full((6, 3), 0.5, np.float32) + 1, 0)
    t = hv * hv.sum(axis=1, keepdims=True)
    e = np.exp(t - t.max(axis=1, keepdims=True))
    pool = standin.get_default_memory_pool()
    frees = standin.get_default_memory_pool()._pool.free_all_calls
    with ds.Session(options=ds.SessionOptions(device="cpu",
                                              gpu_memory_limit_bytes=1 << 30)) as sess:
        assert pool.get_limit() == 1 << 30
        sess.run(ds.global_variables_initializer())
        got = sess.run(z, {x: xv})
        assert type(got) is np.ndarray
        np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5,
                                   atol=1e-7)
        plan = [step.plan for step in sess._steps.values()
                if any(st.name == "z" for st in step.plan.steps)][0]
        assert len([st for st in plan.steps if st.op_type == "_Transfer"]) == 4
        sess.run(bump)
        np.testing.assert_array_equal(sess.run(w), np.full((6, 3), 1.5, np.float32))
        assert isinstance(sess.resources.variable("", "w", F32, (6, 3)).value,
                          standin.ndarray)                   # the variable lives on the GPU
    assert pool.get_limit() == 0                             # cap undone, memory released
    assert standin.get_default_memory_pool()._pool.free_all_calls > frees


def test_out_of_memory_is_resource_exhausted_and_the_session_goes_on(standin):
    a = ds.placeholder(ds.float32, (None, 1), name="a")
    b = ds.placeholder(ds.float32, (1, None), name="b")
    with ds.device("gpu:0"):
        outer = ds.multiply(a, b, name="outer")
    with ds.Session(options=ds.SessionOptions(device="gpu:0",
                                              gpu_memory_limit_bytes=1 << 20)) as sess:
        big = np.ones((1000, 1), np.float32)
        with pytest.raises(ResourceExhaustedError, match=r"'outer'.*4,000,000 bytes") as info:
            sess.run(outer, {a: big, b: big.T})
        assert info.value.node_name == "outer" and "gpu_memory_limit_bytes" in str(info.value)
        small = np.ones((10, 1), np.float32)
        np.testing.assert_array_equal(sess.run(outer, {a: small, b: small.T}),
                                      np.ones((10, 10), np.float32))
