"""The kernel registry: which builder makes the kernel of an op on a device type.

A *kernel builder* is registered under ``(op type, device type)``.  When a session
builds its execution plan it calls the builder once per node with a ``KernelNode``
(the node's op, attrs and static dtypes/shapes) and gets back a plain callable
``kernel(*input_arrays) -> np.ndarray`` that it calls on every step.  The executor
knows nothing else about kernels: not numba, not cupy.

State is one dict ``(op, device_type) -> builder`` under one lock.  Device types are
registered cheaply: ``_DEVICE_MODULES`` names the module holding a device type's
kernels, and that module is imported on the first lookup for the device type (its
import registers everything).  So ``import devsession.kernels.registry`` imports
neither numba nor cupy, and a process that only uses ``"REF"`` never pays for numba.

Invariants and failure modes:

* Registering the same ``(op, device_type)`` twice raises ``AlreadyExistsError``.
* A device module that fails to import is remembered and every later lookup for that
  device type raises ``NotFoundError`` chained to the original error, with a hint
  naming the extra to install (no silent fallback to another device).
* The import happens without holding the registry lock: a device module calls
  ``register_kernel`` while it imports, and Python's per-module import lock already
  makes a second importing thread wait for the first.
* An unknown op raises ``NotFoundError`` naming the op, the device type, the device
  types that do have the op and the closest op names.  To name those device types the
  error path imports the other device modules (so a failed lookup on "REF" may import
  numba); use ``registered_ops`` to probe without that cost.

Example::

    from devsession.kernels.registry import KernelNode, lookup_kernel
    node = KernelNode("add", "Add", {}, (f32, f32), ((3,), (3,)), f32, (3,))
    kernel = lookup_kernel("Add", "CPU")(node)
    kernel(np.ones(3, f32), np.ones(3, f32))        # -> array([2., 2., 2.], float32)
"""

from __future__ import annotations

import difflib
import importlib
import threading
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from devsession.device_spec import HOST, Device
from devsession.errors import AlreadyExistsError, NotFoundError

__all__ = ["KernelNode", "KernelBuilder", "register_kernel", "lookup_kernel",
           "registered_ops", "has_kernel", "device_types", "HOST"]


@dataclass(frozen=True)
class KernelNode:
    """What a kernel builder sees of one graph node, resolved once when a plan is built.

    Shapes are static: a tuple of (int or None) per dimension, or None for unknown rank.
    The kernel must still check runtime shapes, which may be more specific.
    """

    name: str                       # node name, for error messages
    op: str                         # op type, e.g. "Add"
    attrs: Mapping[str, Any]        # python values: bool/int/float/tuple/np.dtype/np.ndarray
    input_dtypes: tuple             # tuple of np.dtype
    input_shapes: tuple             # tuple of (tuple of int-or-None) or None (unknown rank)
    output_dtype: np.dtype | None   # None for ops without an output
    output_shape: tuple | None      # static, same convention
    context: Any = None             # session state for stateful ops
    output_dtypes: tuple = ()       # every output's dtype, for ops with several outputs
    output_shapes: tuple = ()       # ... and static shape (a kernel then returns a tuple)
    device: Device = HOST           # where the kernel runs (picks the CUDA device)


KernelBuilder = Callable[[KernelNode], Callable[..., Any]]

# Kernels that are the same numpy code on the reference device and the CPU (data
# movement, state) register for both at once.
HOST = ("REF", "CPU")

# Device type -> module whose import registers that device type's kernels.
_DEVICE_MODULES = {
    "CPU": "devsession.kernels.cpu",          # numba kernels
    "REF": "devsession.kernels.reference",    # plain numpy: the test oracle
    "GPU": "devsession.kernels.cuda",         # cupy kernels
}
# What to tell a user whose device module failed to import.
_INSTALL_HINTS = {
    "CPU": "the CPU kernels need numba: pip install numba",
    "GPU": "the GPU kernels need cupy: pip install 'devsession[cuda]'",
}

_lock = threading.Lock()
_builders: dict[tuple[str, str], KernelBuilder] = {}
_loaded: set[str] = set()
_load_errors: dict[str, BaseException] = {}


def register_kernel(op_types: "str | tuple[str, ...]", device_types: "str | tuple[str, ...]"
                    ) -> Callable[[KernelBuilder], KernelBuilder]:
    """Decorator registering a kernel builder for every ``(op_type, device_type)`` pair.

    The one way kernels are registered, on every backend::

        @register_kernel("Softmax", "CPU")
        def build_softmax(node): ...

        @register_kernel(("Identity", "Reshape"), HOST)   # several ops, several devices
        def build_movement(node): ...

    Returns the builder unchanged.  Raises ``AlreadyExistsError`` if a pair has a
    builder already (and then registers none of the pairs).
    """
    ops = (op_types,) if isinstance(op_types, str) else tuple(op_types)
    devices = (device_types,) if isinstance(device_types, str) else tuple(device_types)

    def decorate(builder: KernelBuilder) -> KernelBuilder:
        keys = [(op, dev) for op in ops for dev in devices]
        with _lock:
            for key in keys:
                if key in _builders:
                    raise AlreadyExistsError(
                        f"a kernel for op '{key[0]}' on device type '{key[1]}' is "
                        f"registered already (by {_describe(_builders[key])})")
            for key in keys:
                _builders[key] = builder
        return builder
    return decorate


def lookup_kernel(op_type: str, device_type: str) -> KernelBuilder:
    """The builder registered for ``(op_type, device_type)``.

    Imports the device type's kernel module on first use.  Raises ``NotFoundError`` if
    the device type is unknown, its kernel module failed to import, or it has no kernel
    for the op (the message lists the device types that do).
    """
    _ensure_loaded(device_type)
    builder = _builders.get((op_type, device_type))
    if builder is not None:
        return builder
    raise NotFoundError(_missing_op_message(op_type, device_type))


def registered_ops(device_type: str) -> frozenset[str]:
    """The op types that have a kernel on ``device_type`` (importing its module first).

    Raises ``NotFoundError`` like ``lookup_kernel`` for an unknown device type or one
    whose kernel module failed to import.
    """
    _ensure_loaded(device_type)
    with _lock:
        return frozenset(op for op, dev in _builders if dev == device_type)


def has_kernel(op_type: str, device_type: str) -> bool:
    """Whether ``op_type`` has a kernel on ``device_type``: ``op_type in
    registered_ops(device_type)`` in one dict lookup (placement asks it once per node of
    every plan; building the whole set each time cost seconds on graphs of thousands of
    nodes).  Raises ``NotFoundError`` as ``registered_ops``."""
    _ensure_loaded(device_type)
    return (op_type, device_type) in _builders


def device_types() -> tuple[str, ...]:
    """Every device type known to the registry, loaded or not, sorted."""
    with _lock:
        return tuple(sorted(set(_DEVICE_MODULES) | {dev for _, dev in _builders}))


def _ensure_loaded(device_type: str) -> None:
    if device_type in _loaded:
        return
    error = _load_errors.get(device_type)
    if error is None:
        module = _DEVICE_MODULES.get(device_type)
        if module is None:
            if device_type in device_types():   # registered directly, no module
                return
            raise NotFoundError(
                f"unknown device type '{device_type}'; known device types: "
                f"{', '.join(device_types())}")
        try:
            importlib.import_module(module)
        except Exception as exc:  # remembered: every later lookup re-raises it
            with _lock:
                _load_errors[device_type] = error = exc
        else:
            with _lock:
                _loaded.add(device_type)
            return
    module = _DEVICE_MODULES[device_type]
    if isinstance(error, ModuleNotFoundError) and error.name == module:
        raise NotFoundError(f"device type '{device_type}' has no kernels yet ({module} "
                            f"does not exist)") from error
    hint = _INSTALL_HINTS.get(device_type, "")
    raise NotFoundError(
        f"the kernels of device type '{device_type}' are unavailable: importing "
        f"{_DEVICE_MODULES[device_type]} failed with {type(error).__name__}: {error}"
        + (f" ({hint})" if hint else "")) from error


def _missing_op_message(op_type: str, device_type: str) -> str:
    for other in _DEVICE_MODULES:       # so that the message can list every device type
        if other != device_type:
            try:
                _ensure_loaded(other)
            except NotFoundError:
                pass
    with _lock:
        having = sorted(dev for op, dev in _builders if op == op_type)
        ops_here = sorted(op for op, dev in _builders if dev == device_type)
    message = f"no kernel for op '{op_type}' on device type '{device_type}'"
    if having:
        message += f"; device types with a kernel for it: {', '.join(having)}"
    else:
        message += "; no device type has a kernel for it"
        close = difflib.get_close_matches(op_type, ops_here, n=3)
        if close:
            message += f"; did you mean {' or '.join(repr(c) for c in close)}?"
    return message


def _describe(builder: KernelBuilder) -> str:
    module = getattr(builder, "__module__", "?")
    return f"{module}.{getattr(builder, '__qualname__', repr(builder))}"
