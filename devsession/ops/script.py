"""Python functions as graph ops: TF1's ``tf.py_func`` and ``tf.numpy_function``
(op types ``PyFunc`` and ``PyFuncStateless``, TF's, with TF's attrs ``token``, ``Tin``
and ``Tout``).

The function itself never enters the graph: it is kept in this process's registry
under a token, and the node holds only the token.  So a GraphDef with a PyFunc is still
data, and the node runs only in the process that built it (a direct session, or the
in-process servers of ``create_local_cluster``); a worker in another process, or a
graph imported into a new process, finds no function for the token and says so
(``FailedPreconditionError``), as TF's does.

The kernel calls the function with numpy arrays, one per input, and expects one value
per ``Tout`` dtype (a list or tuple is that many values), each of exactly its dtype as
TF requires (a Python float is float64): a mismatch is an ``InvalidArgumentError``
naming the node, with TF's message.  An exception raised
by the function becomes an ``UnknownError`` naming the node and carrying the
exception's text (``StopIteration``: ``OutOfRangeError``, so a py_func can end an
input loop).  Output shapes are unknown, as TF's; set them with ``set_shape``.  There is
no gradient: ``ds.gradients`` through one raises ``LookupError``, as TF1's does.  The op runs on the host: GPU sessions place it on
the CPU.
"""

from __future__ import annotations

import itertools
import threading
import uuid

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["py_func", "numpy_function", "registered_function", "PY_FUNC_OPS"]

PY_FUNC_OPS = ("PyFunc", "PyFuncStateless")

_functions: dict[str, object] = {}
_lock = threading.Lock()
_tokens = itertools.count()
# Tokens name this process too, so a graph built in another one (whose tokens count from
# 0 as well) never runs a function registered here under the same number.
_PROCESS = uuid.uuid4().hex[:12]


def registered_function(token: str):
    """The Python function registered under ``token`` in this process, or None."""
    with _lock:
        return _functions.get(token)


def _register_function(func) -> str:
    with _lock:
        token = f"pyfunc_{_PROCESS}_{next(_tokens)}"
        _functions[token] = func
        return token


def _py_func(inputs, attrs, node):
    if not attrs.get("token"):
        raise InferError(f"Op '{node}': a PyFunc needs the token of its function.")
    declared = tuple(attrs.get("Tin", ()))
    if declared and tuple(t.dtype for t in inputs) != declared:
        raise InferError(f"Op '{node}': its inputs are "
                         f"{[t.dtype.name for t in inputs]}, Tin says "
                         f"{[d.name for d in declared]}.")
    return [(dtypes.as_dtype(d), TensorShape(None)) for d in attrs["Tout"]]


register_op(OpDef("PyFunc", _py_func, None, stateful=True))
register_op(OpDef("PyFuncStateless", _py_func, None))
not_differentiable(*PY_FUNC_OPS)       # no gradient flows through them: None, as TF 2.21's


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803  (TF1's names)
    """``func`` called on the numpy values of ``inp`` when the node runs, as TF1's
    ``tf.py_func`` (see the module docstring): one tensor for a single ``Tout`` dtype,
    a list for a list of them."""
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {func!r}.")
    single = not isinstance(Tout, (list, tuple))
    out_types = tuple(dtypes.as_dtype(t) for t in ([Tout] if single else Tout))
    graph = get_default_graph()
    inputs = [convert_to_tensor(x, graph=graph) for x in inp]
    attrs = {"token": _register_function(func), "Tin": tuple(t.dtype for t in inputs),
             "Tout": out_types}
    op = graph.create_op("PyFunc" if stateful else "PyFuncStateless", inputs, attrs,
                         name=name or "PyFunc")
    outputs = list(op.outputs)
    if single:
        return outputs[0]
    return outputs if outputs else op


def numpy_function(func, inp, Tout, name=None):  # noqa: N803
    """TF's ``tf.numpy_function``: ``py_func`` (stateful)."""
    return py_func(func, inp, Tout, stateful=True, name=name)

