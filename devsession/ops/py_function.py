"""TF1's ``tf.py_function(func, inp, Tout, name=None)``: a Python function as an op, as
``py_func`` (``ops/script.py``: the function stays in this process, the node holds a
token), with TF's eager calling convention: ``func`` receives tensors that answer
``.numpy()`` (numpy arrays here, so numpy code works on them too) and may return numpy
arrays, Python values or such tensors, each converted to its ``Tout`` dtype (a Python
float for a float32 output is fine, unlike ``py_func``).  A ``Tout`` of one dtype gives a
tensor, a list gives a list (an empty one: the op).  Stateful, as TF's.  The node is a
``PyFunc`` (TF writes an ``EagerPyFunc``, whose function is no more portable).  Unlike a
``py_func`` (no gradient: None), its gradient is a LookupError: TF differentiates it on its
eager tape, which devsession does not have."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import get_default_graph
from .registry import register_gradient
from .script import py_func

__all__ = ["py_function", "EagerValue"]


class EagerValue(np.ndarray):
    """An input of a ``py_function``: a numpy array that also answers ``.numpy()``."""

    def numpy(self) -> np.ndarray:
        return np.asarray(self).copy()


def _as_output(value, dtype: dtypes.DType) -> np.ndarray:
    if hasattr(value, "numpy"):
        value = value.numpy()
    if dtype == dtypes.string:
        return dtypes.string_array(value)
    return np.asarray(value, dtype=dtype.np)


def py_function(func, inp, Tout, name=None):  # noqa: N803  (TF's names)
    """``func`` run eagerly on the values of ``inp`` when the node runs (see the module
    docstring)."""
    if not callable(func):
        raise TypeError(f"py_function: func must be callable, got {func!r}.")
    single = not isinstance(Tout, (list, tuple))
    out_types = [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]

    def call(*arrays):
        result = func(*[np.asarray(a).view(EagerValue) for a in arrays])
        values = [result] if single else ([] if not out_types else list(result))
        return [_as_output(v, t) for v, t in zip(values, out_types)]
    graph = get_default_graph()
    with graph.gradient_override_map({"PyFunc": _NO_EAGER_GRADIENT}):
        return py_func(call, inp, out_types[0] if single else out_types, stateful=True,
                       name=name or "EagerPyFunc")


_NO_EAGER_GRADIENT = "EagerPyFuncGradient"


@register_gradient(_NO_EAGER_GRADIENT)
def _no_eager_gradient(op, *dys):
    """TF differentiates ``py_function`` by running ``func`` on its eager tape, which
    devsession does not have: a clear error, never a silent None (a py_func's, TF's)."""
    raise LookupError(f"No gradient defined for py_function '{op.name}': TensorFlow "
                      f"differentiates it with its eager GradientTape, which devsession does "
                      f"not have; write the function with devsession ops, or wrap its input "
                      f"in ds.stop_gradient.")
