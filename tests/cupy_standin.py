"""A numpy stand-in for cupy, so that ``kernels/cuda/`` runs in CI, which has no GPU.

``make_cupy()`` returns a module that ``sys.modules["cupy"]`` can be (``installed`` puts
it there, imports the real ``devsession.kernels.cuda`` against it and registers its
kernels for a fake GPU:0; ``run_kernel`` runs one node's GPU kernel through a shared
instance, which is how ``kernel_cases.DEVICES``' "gpu-standin" device works).  It
behaves like a GPU where a kernel module can get it wrong:

* **Memory.**  Device arrays (``ndarray``, a numpy subclass with ``device``, ``data``,
  ``get``/``set`` and ``__cuda_array_interface__``) live in blocks of a device pool;
  pinned host memory (``cuda.alloc_pinned_memory``) in a pinned pool.  Blocks are
  reused once their array dies, new ones are filled with 0xFF bytes (NaN, -1), and no
  block ever goes back to the OS, so a late copy into freed memory corrupts data
  instead of crashing the test process.  ``get_default_memory_pool().set_limit`` caps
  the bytes in use (``cuda.memory.OutOfMemoryError`` past it, with cupy's message).
* **Streams and events.**  ``runtime.memcpyAsync`` and
  ``MemoryPointer.copy_from_device_async`` between pool memory are queued on their
  stream and land only when something waits: ``Stream.synchronize``,
  ``Event.synchronize`` (up to where the event was recorded), ``Stream.wait_event``,
  ``Device.synchronize``/``runtime.deviceSynchronize``, a blocking call (``get``,
  ``set``, ``asnumpy``, ``asarray`` of host data), or a kernel launched later on the
  same stream (stream order).  So a missing wait before reusing a staging buffer, or
  before reading what a copy wrote, gives wrong data and a failing test.  A copy that
  involves pageable memory (a plain numpy array) is synchronous, as the driver makes
  it.  Kernels run when launched, after their stream's queued copies.
* **ElementwiseKernel** is ``cuda_host.ElementwiseKernel``: the CUDA C itself is
  compiled by g++ and run, with cupy's argument checks (``Type is mismatched``,
  ``Unsupported type`` for a numpy array, ``Wrong number of arguments``).
* **Emulated by the stand-in's own code**: ``ElementwiseKernel`` (above);
  ``empty``, ``zeros``, ``ones``, ``full`` and their ``*_like``; ``asarray``, ``array``,
  ``asnumpy``, ``ascontiguousarray`` (a 0-d array becomes 1-d, as in cupy); indexing
  (a single element is a 0-d array, never a scalar); ``get_default_memory_pool`` and
  the pinned one; ``cuda.Device``, ``Stream``, ``Event``, ``get_current_stream``,
  ``alloc_pinned_memory``, ``runtime.memcpy``/``memcpyAsync``/``deviceSynchronize``/
  ``getDeviceCount``, ``MemoryPointer.copy_*``; ``cuda.memory.OutOfMemoryError``.
* **Everything else** -- what the kernels call today: ``cupy.sum``, ``max``, ``min``,
  ``argmax``, ``matmul``, ``swapaxes``, ``take``, ``arange``, ``concatenate`` and the
  other array routines of ``reference/array*.py``, ufuncs and array methods; and any
  name numpy also has -- is numpy's function of that name on the same memory (a result
  that is a view of device memory stays a view; a new result is copied into the pool).
  Checks of those against the REF kernels compare numpy with numpy: they test our code
  around cupy's routines (shapes, dtypes, axes, empty inputs, views, errors), never
  cupy.  Like cupy, these refuse numpy arrays as operands (``TypeError``).
* **Not emulated**: ``RawKernel``, ``RawModule``, ``ReductionKernel``, ``fuse``,
  ``cupy.random`` and other cupy-only names.  They can be named and constructed (so
  kernel modules import), and raise ``StandinUnsupported`` when used; ``run_kernel``
  turns that into a skip naming the call.  One device only (GPU:0).
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
import types
import weakref

import numpy as np

import cuda_host
from standin_device import (DEVICE_POOL, PINNED_POOL, STREAMS, Device, Event, MemoryPointer,
                            OutOfMemoryError, Stream, blocking, copy, launched)

__all__ = ["make_cupy", "StandinUnsupported", "installed", "run_kernel", "registered_ops",
           "lookup_kernel", "shared_cupy", "shared_modules", "ndarray", "queue_registry_kernels"]

class StandinUnsupported(NotImplementedError):
    """A cupy feature the stand-in does not emulate."""


# ----------------------------------------------------------------- arrays

class ndarray(np.ndarray):
    """A device array: numpy memory from the device pool (``empty``)."""

    @property
    def device(self):
        return Device(0)

    @property
    def data(self):
        return MemoryPointer(self, self.ctypes.data)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "data": (self.ctypes.data, False), "stream": 1,
                "strides": None if self.flags.c_contiguous else self.strides}

    def get(self, stream=None, order="C", out=None):
        blocking()
        host = np.array(self.view(np.ndarray), order=order)
        if out is not None:
            out[...] = host
            return out
        return host

    def set(self, arr, stream=None):
        blocking()
        self.view(np.ndarray)[...] = arr.view(np.ndarray) if isinstance(arr, ndarray) \
            else np.asarray(arr)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        launched()
        outs = kwargs.pop("out", None)
        if outs is not None:
            kwargs["out"] = tuple(_operand(o) for o in outs)
        result = getattr(ufunc, method)(*[_operand(x) for x in inputs], **kwargs)
        if outs is not None:
            return outs[0] if len(outs) == 1 else outs
        return to_device(result)

    def __getitem__(self, key):
        """As in cupy, indexing never gives a scalar: a single element is a 0-d view."""
        result = super().__getitem__(key)
        if not isinstance(result, np.ndarray):
            key = key if isinstance(key, tuple) else (key,)
            if not any(k is Ellipsis for k in key):
                result = super().__getitem__(key + (Ellipsis,))
        return result

    # Reading a value on the host waits for the stream, as cupy's implicit copies do.
    def __int__(self):
        blocking()
        return int(self.view(np.ndarray))

    def __float__(self):
        blocking()
        return float(self.view(np.ndarray))

    def __bool__(self):
        blocking()
        return bool(self.view(np.ndarray))

    def item(self, *args):
        blocking()
        return self.view(np.ndarray).item(*args)

    def tolist(self):
        blocking()
        return self.view(np.ndarray).tolist()


def empty(shape, dtype=float, order="C") -> ndarray:
    """Uninitialised device memory (a reused block keeps its old bytes, as in cupy)."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dtype = np.dtype(dtype)
    block = DEVICE_POOL.allocate(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
    out = np.ndarray(shape, dtype, buffer=block, order=order).view(ndarray)
    weakref.finalize(out, DEVICE_POOL.release, block)
    return out


def to_device(value):
    """numpy results as device arrays: a view of device memory stays a view, anything
    new is copied into the device pool; scalars become 0-d arrays (as cupy's are)."""
    if isinstance(value, tuple):
        return tuple(to_device(v) for v in value)
    if isinstance(value, list):
        return [to_device(v) for v in value]
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        return value
    if isinstance(value, ndarray) or (value.size and DEVICE_POOL.owns(value.ctypes.data)):
        return value.view(ndarray)
    out = empty(value.shape, value.dtype)
    out.view(np.ndarray)[...] = value
    return out


def _operand(x):
    """A device array as numpy, for numpy to compute on; host arrays are refused."""
    if isinstance(x, ndarray):
        return x.view(np.ndarray)
    if isinstance(x, np.ndarray):
        raise TypeError(f"Unsupported type {type(x)}")
    if isinstance(x, (list, tuple)):
        return type(x)(_operand(v) for v in x)
    return x


def asarray(a, dtype=None, order=None):
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    if hasattr(a, "__cuda_array_interface__"):
        raise StandinUnsupported("the cupy stand-in cannot wrap another library's "
                                 "device arrays")
    blocking()
    return to_device(np.array(a, dtype=dtype, order=order or "K"))


def array(a, dtype=None, copy=True, order="K", ndmin=0):
    if isinstance(a, ndarray):
        launched()
        a = a.view(np.ndarray)
    else:
        blocking()
    return to_device(np.array(a, dtype=dtype, order=order, ndmin=ndmin))


def asnumpy(a, stream=None, order="C", out=None):
    return a.get(out=out) if isinstance(a, ndarray) else np.asarray(a)


def ascontiguousarray(a, dtype=None):
    """cupy's rules: ``a`` itself when it is C-contiguous already, except that a 0-d
    array becomes 1-d (as in numpy)."""
    if not isinstance(a, ndarray):
        raise TypeError(f"Unsupported type {type(a)}")
    if a.flags.c_contiguous and (dtype is None or np.dtype(dtype) == a.dtype):
        return a.reshape(1) if a.ndim == 0 else a
    launched()
    return to_device(np.ascontiguousarray(a.view(np.ndarray), dtype=dtype))


def _filled(fill):
    def make(shape, dtype=float, order="C"):
        out = empty(shape, dtype, order)
        out.view(np.ndarray)[...] = fill
        return out
    return make


def full(shape, fill_value, dtype=None, order="C"):
    dtype = np.asarray(fill_value).dtype if dtype is None else dtype
    return _filled(fill_value)(shape, dtype, order)


def _like(make):
    return lambda a, dtype=None, *args: make(a.shape, a.dtype if dtype is None else dtype,
                                             *args)


class ElementwiseKernel(cuda_host.ElementwiseKernel):
    """The host harness's kernel over device arrays, launched in stream order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, array_type=ndarray, allocate=empty, **kwargs)

    def __call__(self, *args, **kwargs):
        launched()
        return super().__call__(*args, **kwargs)


class PinnedMemoryPointer(np.ndarray):
    """Pinned host memory from the pinned pool: a buffer; ``ptr`` is its address."""

    @property
    def ptr(self) -> int:
        return self.ctypes.data


def alloc_pinned_memory(size: int) -> PinnedMemoryPointer:
    block = PINNED_POOL.allocate(size)
    memory = block[:size].view(PinnedMemoryPointer)
    weakref.finalize(memory, PINNED_POOL.release, block)
    return memory


class MemoryPool:
    """``cupy.get_default_memory_pool()`` (and the pinned one) over a stand-in pool."""

    def __init__(self, pool):
        self._pool = pool

    def set_limit(self, size=None, fraction=None):
        if fraction:
            raise StandinUnsupported("the cupy stand-in has no device size for fraction=")
        self._pool.limit = int(size or 0)

    def get_limit(self):
        return self._pool.limit

    def free_all_blocks(self, stream=None):
        self._pool.free_all_calls += 1         # blocks are kept: late copies must not crash

    def used_bytes(self):
        return self._pool.in_use

    def total_bytes(self):
        return self._pool.in_use + sum(b.size for bs in self._pool.free.values() for b in bs)

    def n_free_blocks(self):
        return sum(len(bs) for bs in self._pool.free.values())


# ------------------------------------------------------------------ the module

class _Unsupported:
    """A cupy name the stand-in does not emulate: it raises ``StandinUnsupported`` when
    used.  A ``constructor`` (``RawKernel``, ``fuse``...) can still be called once, as
    kernel modules do at import; what it builds raises when used."""

    def __init__(self, name: str, constructor: bool = False):
        self._name, self._constructor = name, constructor

    def __call__(self, *args, **kwargs):
        if self._constructor:
            return _Unsupported(self._name)
        raise StandinUnsupported(f"the cupy stand-in does not emulate cupy.{self._name}")

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Unsupported(f"{self._name}.{attr}")


def _numpy_function(name, fn):
    def call(*args, **kwargs):
        launched()
        return to_device(fn(*[_operand(a) for a in args],
                            **{k: _operand(v) for k, v in kwargs.items()}))
    call.__name__ = name
    return call


def _emulate(name, value):
    if isinstance(value, types.ModuleType):          # linalg, fft: wrap their functions
        space = types.ModuleType(f"cupy.{name}")
        space.__getattr__ = lambda attr: (_emulate(f"{name}.{attr}", getattr(value, attr))
                                          if hasattr(value, attr)
                                          else _Unsupported(f"{name}.{attr}"))
        return space
    if callable(value) and not isinstance(value, type):
        return _numpy_function(name, value)
    return value                                      # dtypes, constants


def _runtime():
    def device_synchronize():
        Device(0).synchronize()

    def set_device(index):
        Device(index)

    return types.SimpleNamespace(
        getDeviceCount=lambda: 1, getDevice=lambda: 0, setDevice=set_device,
        deviceSynchronize=device_synchronize,
        memcpy=lambda dst, src, size, kind: copy(dst, src, size, None, True),
        memcpyAsync=lambda dst, src, size, kind, stream: copy(dst, src, size, stream, False),
        memcpyHostToHost=0, memcpyHostToDevice=1, memcpyDeviceToHost=2,
        memcpyDeviceToDevice=3, memcpyDefault=4,
        runtimeGetVersion=lambda: 13000, driverGetVersion=lambda: 13000,
        getDeviceProperties=lambda i: {"name": b"numpy stand-in for cupy",
                                       "totalGlobalMem": 8 << 30, "major": 9, "minor": 0},
        CUDARuntimeError=RuntimeError)


def make_cupy() -> types.ModuleType:
    """A stand-in ``cupy`` module (the memory and streams are the one device's)."""
    cupy = types.ModuleType("cupy")
    memory_pool, pinned_memory_pool = MemoryPool(DEVICE_POOL), MemoryPool(PINNED_POOL)
    cupy.cuda = types.SimpleNamespace(
        runtime=_runtime(), Device=Device, Event=Event, Stream=Stream,
        get_current_stream=lambda device=None: STREAMS.current[-1],
        alloc_pinned_memory=alloc_pinned_memory, PinnedMemoryPointer=PinnedMemoryPointer,
        MemoryPointer=MemoryPointer,
        memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError,
                                     MemoryPointer=MemoryPointer),
        compiler=types.SimpleNamespace(CompileException=cuda_host.HostCompileError))
    cupy.__dict__.update(
        __version__="13.0.0-standin", __standin__=True,
        ndarray=ndarray, ElementwiseKernel=ElementwiseKernel, empty=empty,
        zeros=_filled(0), ones=_filled(1), full=full, empty_like=_like(empty),
        zeros_like=_like(_filled(0)), ones_like=_like(_filled(1)),
        asarray=asarray, array=array, asnumpy=asnumpy, ascontiguousarray=ascontiguousarray,
        get_default_memory_pool=lambda: memory_pool,
        get_default_pinned_memory_pool=lambda: pinned_memory_pool,
        get_array_module=lambda *xs: cupy if any(isinstance(x, ndarray) for x in xs) else np,
        random=_Unsupported("random"),
        **{name: _Unsupported(name, constructor=True)
           for name in ("RawKernel", "RawModule", "ReductionKernel", "fuse")})

    def fallback(name):
        if name.startswith("__"):
            raise AttributeError(name)
        if not hasattr(np, name):
            return _Unsupported(name)
        value = _emulate(name, getattr(np, name))
        setattr(cupy, name, value)
        return value

    cupy.__getattr__ = fallback
    return cupy


# --------------------------------------------------------- installing it

def cuda_modules() -> list:
    """The loaded modules of the kernels/cuda package (codegen/cuda.py is not one)."""
    return [m for m in sys.modules if m == "devsession.kernels.cuda"
            or m.startswith("devsession.kernels.cuda.")]


@contextlib.contextmanager
def _modules(cupy, kernel_modules: dict):
    """``cupy`` and ``kernel_modules`` in sys.modules for the duration (restored after)."""
    saved = {name: sys.modules.get(name) for name in ["cupy", *cuda_modules(), *kernel_modules]}
    parent = sys.modules.get("devsession.kernels")
    saved_attr = getattr(parent, "cuda", None)
    for name in cuda_modules():
        del sys.modules[name]
    sys.modules["cupy"] = cupy
    sys.modules.update(kernel_modules)
    try:
        yield
    finally:
        for name in ["cupy", *cuda_modules()]:
            sys.modules.pop(name, None)
        sys.modules.update({k: v for k, v in saved.items() if v is not None})
        if parent is not None:
            if saved_attr is None:
                parent.__dict__.pop("cuda", None)
            else:
                parent.cuda = saved_attr


_queued: list = []


def queue_registry_kernels() -> None:
    """Queue the kernel of every elementwise op and dtype (``cuda_programs``), so that
    the first launch compiles them all in one g++ run instead of one run each."""
    with _shared_lock:
        if _queued:
            return
        import cuda_programs
        from devsession.kernels.codegen import cuda as codegen

        for node in cuda_programs.registry_nodes():
            in_params, out_params, operation, preamble = codegen.render_cuda(
                cuda_programs.program_for(node))
            cuda_host.ElementwiseKernel(in_params, out_params, operation, preamble=preamble)
        _queued.append(True)


@contextlib.contextmanager
def installed(cupy=None):
    """The real ``devsession.kernels.cuda`` imported against the stand-in and registered
    for device type "GPU" (the registry and device discovery see one GPU, the stand-in);
    everything is restored after.  Yields the stand-in module."""
    from devsession import devices
    from fake_gpu import isolated_kernel_registry

    cupy = cupy or make_cupy()
    queue_registry_kernels()
    with _modules(cupy, {}), isolated_kernel_registry() as registry:
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
            yield cupy
        finally:
            devices.forget_gpu_probe()
            Device(0).synchronize()
            DEVICE_POOL.limit = 0


@dataclasses.dataclass
class _Shared:
    cupy: types.ModuleType
    modules: dict               # the stand-in's kernels/cuda modules
    builders: dict              # op -> GPU kernel builder


_shared: list = []
_shared_lock = threading.RLock()


def _shared_instance() -> _Shared:
    with _shared_lock:
        if not _shared:
            from devsession.kernels import registry

            with installed() as cupy:
                with registry._lock:
                    builders = {op: b for (op, dev), b in registry._builders.items()
                                if dev == "GPU"}
                modules = {name: sys.modules[name] for name in cuda_modules()}
            _shared.append(_Shared(cupy, modules, builders))
        return _shared[0]


def registered_ops() -> frozenset:
    """The ops the real kernels/cuda modules registered, imported against the stand-in."""
    return frozenset(_shared_instance().builders)


def lookup_kernel(op: str):
    """The GPU kernel builder of ``op``, bound to the stand-in (its kernels take and
    return the stand-in's device arrays: ``shared_cupy().asarray(...)``)."""
    from devsession.errors import NotFoundError

    builder = _shared_instance().builders.get(op)
    if builder is None:
        raise NotFoundError(f"no GPU kernel for op '{op}' (the cupy stand-in ran every "
                            f"kernels/cuda module)")
    return builder


@contextlib.contextmanager
def shared_modules():
    """The shared stand-in and its kernel modules in ``sys.modules`` for the duration, as
    ``run_kernel`` runs a kernel: for tests that call ``lookup_kernel``'s builders
    themselves.  Yields the stand-in module."""
    shared = _shared_instance()
    with _modules(shared.cupy, shared.modules):
        yield shared.cupy


def shared_cupy() -> types.ModuleType:
    """The stand-in module the shared kernels were imported against."""
    return _shared_instance().cupy


def run_kernel(node, *inputs):
    """``node``'s GPU kernel run on the stand-in (host arrays in, host arrays out);
    fails if the kernel changed an input, skips where the stand-in cannot emulate a
    cupy call the kernel makes."""
    import pytest

    from devsession.device_spec import Device as DeviceSpec

    shared = _shared_instance()
    cupy = shared.cupy
    node = dataclasses.replace(node, device=DeviceSpec("GPU", 0))
    builder = lookup_kernel(node.op)
    with _modules(cupy, shared.modules):
        try:
            device_inputs = [cupy.asarray(x) for x in inputs]
            result = builder(node)(*device_inputs)
            results = result if isinstance(result, tuple) else (result,)
            for r in results:
                assert isinstance(r, cupy.ndarray), f"{node.op} returned {type(r)}"
            for x, d in zip(inputs, device_inputs):
                np.testing.assert_array_equal(cupy.asnumpy(d), x,
                                              err_msg="a kernel mutated its input")
            out = tuple(cupy.asnumpy(r) for r in results)
        except StandinUnsupported as e:
            pytest.skip(f"{node.op}: {e}")
    return out if isinstance(result, tuple) else out[0]
