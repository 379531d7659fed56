"""The CUDA kernel modules' Python logic, run in CI on a numpy stand-in for cupy.

CI has no GPU, so ``kernels/cuda*.py`` would otherwise first run on a GPU machine.
Here ``sys.modules["cupy"]`` is a small numpy-backed stand-in (host memory plays device
memory; ``ElementwiseKernel`` runs the program ``cuda_codegen`` compiled, through its
numpy evaluator, instead of the CUDA C; raw copies are ``memmove``) and the real
``devsession.kernels.cuda`` is imported against it.  That runs every kernel builder,
shape check, dtype rule, empty-input path, the chunked pinned-memory transfers, the
device state kernels, out-of-memory mapping and whole sessions, and compares with the
reference kernels.  What it cannot check -- the CUDA C itself and cupy's real
behaviour -- test_gpu_codegen.py (NVRTC) and the gpu-marked tests cover.
"""

from __future__ import annotations

import ctypes
import sys
import types
import zlib

import numpy as np
import pytest

import devsession as ds
from devsession import devices
from devsession.device_spec import Device
from devsession.errors import InvalidArgumentError, ResourceExhaustedError
from devsession.kernels.codegen import cuda as cuda_codegen
from devsession.kernels.registry import KernelNode, lookup_kernel
from fake_gpu import isolated_kernel_registry

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)


# ------------------------------------------------------------------ the stand-in

def make_cupy(limit_holder: dict):
    cupy = types.ModuleType("cupy")
    programs: dict = {}            # CUDA operation text -> cuda_codegen Program

    class Device:
        def __init__(self, id=0):
            self.id = id

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def synchronize(self):
            pass

    class MemPtr:
        def __init__(self, array):
            self.ptr = array.ctypes.data

        def copy_from_device(self, src, size):
            ctypes.memmove(self.ptr, src.ptr, size)

        copy_from_device_async = lambda self, src, size, stream=None: \
            self.copy_from_device(src, size)  # noqa: E731

    class ndarray(np.ndarray):
        @property
        def device(self):
            return Device(0)

        @property
        def data(self):
            return MemPtr(self)

        def get(self, out=None):
            host = np.array(self).view(np.ndarray)
            if out is not None:
                out[...] = host
                return out
            return host

        def set(self, array, stream=None):
            self[...] = array

    class OutOfMemoryError(MemoryError):
        def __init__(self, size, total, limit=0):
            super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: "
                             f"{total:,} bytes, limit set to: {limit:,} bytes).")
            self._size, self._total, self._limit = size, total, limit

    def wrap(x):
        return np.asarray(x).view(ndarray)

    def allocate(shape, dtype):
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if limit_holder.get("limit") and nbytes > limit_holder["limit"]:
            raise OutOfMemoryError(nbytes, 0, limit_holder["limit"])
        return np.empty(shape, dtype).view(ndarray)

    class ElementwiseKernel:
        def __init__(self, in_params, out_params, operation, name="kernel", preamble=""):
            self.operation, self.nin = operation, len(in_params.split(","))

        def __call__(self, *args):
            inputs, out = args[:self.nin], args[self.nin] if len(args) > self.nin else None
            if self.operation == "q = (T)(s / n)":          # cuda_reduce's integer Mean
                s, n = np.asarray(inputs[0]), int(inputs[1])
                q = np.trunc(s / n).astype(s.dtype)
            else:
                program = programs[self.operation]
                q = cuda_codegen.evaluate(program, *[np.asarray(x) for x in inputs])
            if out is None:
                return wrap(q)
            out[...] = q
            return out

    class Pinned(bytearray):
        def __init__(self, size):
            super().__init__(size)
            self.ptr = ctypes.addressof((ctypes.c_char * size).from_buffer(self))

    class Event:
        def __init__(self, *a, **k):
            pass

        def record(self, stream=None):
            pass

        def synchronize(self):
            pass

    class Stream:
        ptr = 0

        def synchronize(self):
            pass

        def wait_event(self, event):
            pass

    class Pool:
        def set_limit(self, size=None, fraction=None):
            limit_holder["limit"] = size or 0

        def get_limit(self):
            return limit_holder.get("limit", 0)

        def free_all_blocks(self):
            limit_holder["freed"] = limit_holder.get("freed", 0) + 1

        used_bytes = total_bytes = lambda self: 0  # noqa: E731

    def memcpy(dst, src, size, kind, stream):
        ctypes.memmove(dst, src, size)

    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: 1, getDevice=lambda: 0, setDevice=lambda i: None,
        memcpyAsync=memcpy, memcpyHostToDevice=1, memcpyDeviceToHost=2, memcpyDefault=4)
    cupy.cuda = types.SimpleNamespace(
        runtime=runtime, Device=Device, Event=Event, get_current_stream=lambda: Stream(),
        alloc_pinned_memory=Pinned, memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError))
    pool, pinned_pool = Pool(), Pool()
    cupy.__dict__.update(
        ndarray=ndarray, ElementwiseKernel=ElementwiseKernel, float32=np.float32,
        empty=allocate, zeros=lambda s, d=float: wrap(np.zeros(s, d)),
        full=lambda s, v, d: wrap(np.full(s, v, d)),
        asarray=lambda x: wrap(np.array(x)),
        # cupy's keeps a 0-d array 0-d (numpy's makes it 1-d)
        ascontiguousarray=lambda x: wrap(np.ascontiguousarray(x).reshape(np.shape(x))),
        asnumpy=lambda x: np.array(x).view(np.ndarray),
        max=lambda x, axis=None, keepdims=False: wrap(np.max(x, axis=axis, keepdims=keepdims)),
        min=lambda x, axis=None, keepdims=False: wrap(np.min(x, axis=axis, keepdims=keepdims)),
        sum=lambda x, axis=None, keepdims=False, dtype=None: wrap(
            np.sum(x, axis=axis, keepdims=keepdims, dtype=dtype)),
        argmax=lambda x, axis=None: wrap(np.argmax(x, axis=axis)),
        matmul=lambda a, b: wrap(np.matmul(a, b)), swapaxes=lambda x, a, b: x.swapaxes(a, b),
        concatenate=lambda xs, axis=0, dtype=None: wrap(
            np.concatenate(xs, axis=axis, dtype=dtype)),
        get_default_memory_pool=lambda: pool,
        get_default_pinned_memory_pool=lambda: pinned_pool)
    cupy._programs = programs
    return cupy


def cupy_modules() -> list:
    """The modules that import cupy: the kernels/cuda package (codegen/cuda.py does
    not: it stays)."""
    return [m for m in sys.modules if m == "devsession.kernels.cuda"
            or m.startswith("devsession.kernels.cuda.")]


@pytest.fixture
def standin(monkeypatch):
    """The real devsession.kernels.cuda, imported against the stand-in, on one fake GPU."""
    state: dict = {}
    cupy = make_cupy(state)
    original_render = cuda_codegen.render_cuda

    def recording_render(program):
        rendered = original_render(program)
        cupy._programs[rendered[2]] = program
        return rendered

    monkeypatch.setattr(cuda_codegen, "render_cuda", recording_render)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    for name in sorted(cupy_modules(), reverse=True):   # children first
        monkeypatch.delitem(sys.modules, name)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:
            monkeypatch.delattr(sys.modules[parent], child, raising=False)   # from . import x
    with isolated_kernel_registry() as registry:
        with registry._lock:
            for key in [k for k in registry._builders if k[1] == "GPU"]:
                del registry._builders[key]
            registry._loaded.discard("GPU")
            registry._load_errors.pop("GPU", None)
        fake = devices.DeviceAttributes(devices.local_device_name("GPU", 0), "GPU", 8 << 30,
                                        "numpy stand-in for cupy", (9, 0))
        with devices._lock:
            devices._gpu_probe = ([fake], "")
        try:
            registry.registered_ops("GPU")            # imports kernels/cuda/
            yield state
        finally:
            devices.forget_gpu_probe()
            for name in sorted(cupy_modules(), reverse=True):   # children first
                del sys.modules[name]
                parent, _, child = name.rpartition(".")
                if hasattr(sys.modules.get(parent), child):
                    delattr(sys.modules[parent], child)


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
        (node("Max", [F32], F32, {"axis": (1,), "keepdims": False}, name="mx"),
         (np.ones((2, 0), F32),), "zero elements"),
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
    with ds.Session(options=ds.SessionOptions(device="cpu",
                                              gpu_memory_limit_bytes=1 << 30)) as sess:
        assert standin["limit"] == 1 << 30
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
                          sys.modules["cupy"].ndarray)       # the variable lives on the GPU
    assert standin["limit"] == 0 and standin["freed"] >= 1   # cap undone, memory released


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
