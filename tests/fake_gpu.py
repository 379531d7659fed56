"""A fake GPU, so that placement, partitioning and transfers are tested in CI (no CUDA).

``fake_gpus(count)`` makes device discovery report ``count`` GPUs and registers, for
device type "GPU", a kernel for every op the numpy reference kernels ("REF") have: it
runs the REF kernel and tags its result as living on the node's GPU (``DeviceArray``,
an ndarray subclass with a ``device``).  Every fake kernel checks that each input
lives on its own device, so a missing or misplaced transfer fails loudly;
``_Transfer`` checks its source and records each copy; ``_FusedElementwise`` (the
optimizer's fused regions) runs ``cuda_codegen``'s program with its numpy evaluator.
Control-flow drivers (``If``, ``While``) are registered as they are: the functions they
run go through the fake kernels, which check what reaches them.
Leaving the context restores the kernel registry and the GPU probe exactly.

Also here: ``simulated_cupy(kind)`` for the "cupy not installed" and "cupy installed,
no device" machines, and ``isolated_kernel_registry()``.
"""

from __future__ import annotations

import contextlib
import sys
import types

import numpy as np

from devsession import devices
from devsession.kernels import registry
from devsession.ops.registry import get_op_def, registered_ops
from devsession.kernels.codegen.cuda import compile_expression, evaluate

HOST = "CPU:0"


class DeviceArray(np.ndarray):
    """A host array standing for one that lives on fake GPU ``device``."""

    device = None

    def __array_finalize__(self, obj):
        self.device = getattr(obj, "device", None)


def on_device(device: str, array) -> DeviceArray:
    out = np.asarray(array)
    if out.dtype.kind in "OSU":      # as cupy: a device array holds no strings
        raise AssertionError(f"a string array was put on fake GPU {device}; string "
                             f"tensors live on the host")
    out = out.view(DeviceArray)
    out.device = device
    return out


def where_is(x) -> str:
    return x.device if isinstance(x, DeviceArray) else HOST


@contextlib.contextmanager
def isolated_kernel_registry():
    """Restores the kernel registry (builders, loaded and failed device types) after.

    The host kernels are loaded first: a module imported inside would register only
    once per process, and restoring would then lose its kernels for good."""
    import devsession.direct_session  # noqa: F401  (registers the host state kernels)

    registry.registered_ops("REF")
    registry.registered_ops("CPU")
    with registry._lock:
        saved = (dict(registry._builders), set(registry._loaded), dict(registry._load_errors))
    try:
        yield registry
    finally:
        with registry._lock:
            registry._builders.clear()
            registry._builders.update(saved[0])
            registry._loaded.clear()
            registry._loaded.update(saved[1])
            registry._load_errors.clear()
            registry._load_errors.update(saved[2])


class FakeGpus:
    """What the fake devices saw: ``transfers`` [(src, dst, shape)], ``calls`` [(node,
    device)]."""

    def __init__(self, count: int, without: frozenset):
        self.count = count
        self.without = without
        self.transfers: list = []
        self.calls: list = []

    def _kernel(self, ref_builder):
        def build(node):
            host_kernel = ref_builder(node)

            def kernel(*xs):
                self._check_inputs(node, xs)
                self.calls.append((node.name, node.device.short_name))
                out = host_kernel(*[np.asarray(x) for x in xs])
                return None if out is None else on_device(node.device.short_name, out)
            return kernel
        return build

    def _check_inputs(self, node, xs):
        host_inputs = get_op_def(node.op).host_inputs if node.op in registered_ops() else ()
        for k, x in enumerate(xs):
            want = HOST if k in host_inputs else node.device.short_name
            if where_is(x) != want:
                raise AssertionError(f"node '{node.name}' on {node.device} got input {k} "
                                     f"living on {where_is(x)}: a transfer is missing")

    def _transfer(self, node):
        src, dst = node.attrs["src"].short_name, node.attrs["dst"].short_name

        def transfer(x):
            if where_is(x) != src:
                raise AssertionError(f"transfer {src}->{dst} got a value on {where_is(x)}")
            self.transfers.append((src, dst, np.shape(x)))
            copy = np.array(x, copy=True)            # a plain ndarray
            return copy if dst == HOST else on_device(dst, copy)
        return transfer

    def _fused(self, node):
        program = compile_expression(node.attrs["expression"],
                                     zip(node.attrs["input_names"], node.input_dtypes),
                                     node.output_dtype)

        def fused(*xs):
            self._check_inputs(node, xs)
            self.calls.append((node.name, node.device.short_name))
            return on_device(node.device.short_name,
                             evaluate(program, *[np.asarray(x) for x in xs]))
        return fused

    def install(self) -> None:
        ref_ops = registry.registered_ops("REF")
        with registry._lock:
            for key in [k for k in registry._builders if k[1] == "GPU"]:
                del registry._builders[key]
            registry._load_errors.pop("GPU", None)
            registry._loaded.add("GPU")
        for op in sorted(ref_ops - self.without):
            builder = registry.lookup_kernel(op, "REF")
            if op in registered_ops() and get_op_def(op).function_attrs:
                registry.register_kernel(op, "GPU")(builder)   # control flow: the driver as is,
                continue                                       # its functions run fake kernels
            registry.register_kernel(op, "GPU")(self._kernel(builder))
        for op, builder in (("_Transfer", self._transfer), ("_FusedElementwise", self._fused)):
            if op not in self.without:
                registry.register_kernel(op, "GPU")(builder)
        fake = [devices.DeviceAttributes(devices.local_device_name("GPU", i), "GPU", 16 << 30,
                                         "fake GPU for tests", (9, 0))
                for i in range(self.count)]
        with devices._lock:
            devices._gpu_probe = (fake, "")

    def transfers_between(self, src: str, dst: str) -> list:
        return [t for t in self.transfers if t[:2] == (src, dst)]


@contextlib.contextmanager
def fake_gpus(count: int = 1, without=()):
    """``count`` fake GPUs (kernels for every REF op except ``without``)."""
    with isolated_kernel_registry():
        fake = FakeGpus(count, frozenset(without))
        fake.install()
        try:
            yield fake
        finally:
            devices.forget_gpu_probe()


def plan_of(session):
    """The single plan a session has built (its run step's ``plan``)."""
    plans = list(session._steps.values())
    assert len(plans) == 1, f"expected one plan, the session has {len(plans)}"
    return plans[0].plan


@contextlib.contextmanager
def simulated_cupy(kind: str, monkeypatch):
    """A machine where cupy is ``"missing"`` (``import cupy`` fails), ``"no_driver"``
    (it imports but the runtime finds no usable driver) or ``"no_device"`` (it finds zero
    devices), or where GPUs are ``"hidden"`` (``DEVSESSION_VISIBLE_GPUS=""``).  The GPU
    probe is forgotten before and after."""
    monkeypatch.delenv("DEVSESSION_VISIBLE_GPUS", raising=False)
    if kind == "hidden":
        monkeypatch.setenv("DEVSESSION_VISIBLE_GPUS", "")
    elif kind == "missing":
        monkeypatch.setitem(sys.modules, "cupy", None)     # import cupy -> ImportError
    else:
        def count():
            if kind == "no_driver":
                raise RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is "
                                   "insufficient for CUDA runtime version")
            return 0
        fake = types.ModuleType("cupy")
        fake.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=count))
        monkeypatch.setitem(sys.modules, "cupy", fake)
    devices.forget_gpu_probe()
    try:
        yield
    finally:
        devices.forget_gpu_probe()
