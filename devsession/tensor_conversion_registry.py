"""TF1's ``tf.register_tensor_conversion_function(base_type, conversion_func,
priority=100)``: let ``convert_to_tensor`` (and so every op) take values of a user type.

``conversion_func(value, dtype=None, name=None, as_ref=False)`` returns a Tensor, or
``NotImplemented`` to let the next function try; functions are tried by ascending
``priority``, then in the order they were registered, for every registered base type the
value is an instance of.  When none converts, the value is converted as any other
(numpy).  TF's errors: a ``base_type`` that is no type, or a Python number or numpy type
(their conversion is built in), is a TypeError; a function returning something else than
a Tensor, or a Tensor of another dtype than asked, a RuntimeError naming it.

``graph.convert_to_tensor`` asks ``convert(...)`` only when something is registered,
passing its Tensor class (this module sits below graph.py and imports only dtypes).
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from .dtypes import as_dtype

__all__ = ["register_tensor_conversion_function", "convert", "has_functions"]

_UNCONVERTIBLE = (int, float, np.generic, np.ndarray)
_LOCK = threading.Lock()
_FUNCTIONS: list = []          # (priority, order, base_type, function), sorted
_ORDER = itertools.count()


def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Register ``conversion_func`` for instances of ``base_type`` (a type or a tuple of
    types); see the module docstring."""
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not types or not all(isinstance(t, type) for t in types):
        raise TypeError(f"Argument `base_type` must be a type or a tuple of types. "
                        f"Obtained: {base_type}")
    if any(issubclass(t, _UNCONVERTIBLE) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy "
                        "scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError("Argument `conversion_func` must be callable. Received "
                        f"{conversion_func}.")
    with _LOCK:
        _FUNCTIONS.append((priority, next(_ORDER), base_type, conversion_func))
        _FUNCTIONS.sort(key=lambda entry: entry[:2])


def has_functions() -> bool:
    return bool(_FUNCTIONS)


def convert(value, dtype, name, tensor_type):
    """The Tensor (a ``tensor_type``) a registered function makes of ``value``, or None
    when none applies."""
    with _LOCK:
        entries = [e for e in _FUNCTIONS if isinstance(value, e[2])]
    for _, _, base_type, function in entries:
        tensor = function(value, dtype=dtype, name=name, as_ref=False)
        if tensor is NotImplemented:
            continue
        if not isinstance(tensor, tensor_type):
            raise RuntimeError(f"Conversion function {function!r} for type {base_type} "
                               f"returned non-Tensor: {tensor!r}")
        if dtype is not None and tensor.dtype != as_dtype(dtype):
            raise RuntimeError(f"Conversion function {function!r} for type {base_type} "
                               f"returned incompatible dtype: requested = "
                               f"{as_dtype(dtype).name}, actual = {tensor.dtype.name}")
        return tensor
    return None

