"""The kernel of ``PyFunc``/``PyFuncStateless`` (``devsession/ops/script.py``): the
registered Python function called on the host with numpy arrays, its results checked
against the declared dtypes as TF checks them (a list or tuple is that many values; a
dtype must match exactly, a Python float is float64), for the reference device and the
CPU (``HOST``; GPU sessions place the op on the CPU).

An exception the function raises becomes the OpError TF's ``py_func.cc`` picks by its
class (subclasses included): ValueError and TypeError an InvalidArgumentError,
StopIteration an OutOfRangeError, MemoryError a ResourceExhaustedError,
NotImplementedError an UnimplementedError, anything else (an OpError too) an
UnknownError."""

from __future__ import annotations

import numpy as np

from devsession.errors import (FailedPreconditionError, InvalidArgumentError,
                               OutOfRangeError, ResourceExhaustedError, UnimplementedError,
                               UnknownError)
from devsession.ops.script import registered_function

from ..registry import HOST, register_kernel

__all__ = ["build_py_func", "python_error"]

# TF's order of checks (py_func.cc's DoCallPyFunc); the rest are UnknownError
_RAISED_AS = (((ValueError, TypeError), InvalidArgumentError),
              ((StopIteration,), OutOfRangeError),
              ((MemoryError,), ResourceExhaustedError),
              ((NotImplementedError,), UnimplementedError))


def python_error(node, exception: Exception, raiser: str):
    """The OpError naming ``node`` that TF makes of a Python ``exception`` (its class
    by ``_RAISED_AS``) that ``raiser`` raised: a ``from_generator``'s generator too."""
    error = next((error for classes, error in _RAISED_AS
                  if isinstance(exception, classes)), UnknownError)
    return error(f"'{node.name}': {raiser} raised {type(exception).__name__}: "
                 f"{exception}", node.name)


@register_kernel(("PyFunc", "PyFuncStateless"), HOST)
def build_py_func(node):
    token = node.attrs["token"]
    out_dtypes = [np.dtype(d) for d in node.output_dtypes]

    def py_func(*inputs):
        func = registered_function(token)
        if func is None:
            raise FailedPreconditionError(
                f"'{node.name}' runs the Python function registered as {token!r} in the "
                f"process that built the graph; this process has none (py_func runs only "
                f"where its graph was built).", node.name)
        try:
            result = func(*inputs)
        except Exception as e:
            raise python_error(node, e, "its Python function") from e
        values = [] if result is None and not out_dtypes else \
            list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(out_dtypes):
            raise InvalidArgumentError(f"'{node.name}' returns {len(values)} values, but "
                                       f"expects to see {len(out_dtypes)} values.", node.name)
        out = tuple(_checked(v, dtype, node, k)
                    for k, (v, dtype) in enumerate(zip(values, out_dtypes)))
        if not out:
            return None
        return out[0] if len(out) == 1 else out
    return py_func


def _checked(value, dtype: np.dtype, node, k: int) -> np.ndarray:
    """``value`` as an array of exactly ``dtype`` (TF converts nothing); strings may
    come as str or bytes and are stored as bytes objects."""
    array = np.asarray(value)
    if dtype.kind == "O" and array.dtype.kind in "SUO":
        return np.vectorize(_as_bytes, otypes=[object])(array) if array.size else \
            np.empty(array.shape, object)
    if array.dtype != dtype:
        raise InvalidArgumentError(f"{k}-th value returned by '{node.name}' is "
                                   f"{array.dtype}, but expects {dtype}.", node.name)
    return np.array(array, copy=True)


def _as_bytes(value) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)
