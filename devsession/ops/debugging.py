"""Numeric checks and prints: ``check_numerics`` (TF's ``CheckNumerics`` op),
``verify_tensor_all_finite``, TF1's ``add_check_numerics_ops`` and ``Print``.

``CheckNumerics`` passes its float input through unchanged and fails the step with an
``InvalidArgumentError`` ("<message> : Tensor had NaN values", "Inf values" or "Inf and
NaN values", as TF's kernel words it, naming the node) when the input holds a NaN or an
infinity.  Its gradient checks the incoming gradient the same way, as TF's does.
``Print`` passes its first input through and writes ``message`` and its data tensors
(``[1 2 3...]``, TF's summaries, ``kernels/reference/summarize.py``) to stderr each time
it runs, the first ``first_n`` times only when that is set; the gradient passes through.
Kernels: ``kernels/reference/debugging.py`` (the host's) and ``kernels/cuda/debugging.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import (Operation, Tensor, control_dependencies, convert_to_tensor,
                     get_default_graph, name_scope)
from ..tf_signatures import tf_signature
from .array import identity
from .common import make_op
from .control_flow import IF_OPS, WHILE_OPS
from .registry import OpDef, register_op

__all__ = ["check_numerics", "verify_tensor_all_finite", "add_check_numerics_ops", "Print"]


def _check_numerics(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_floating:
        raise TypeError(f"Op '{node}' (CheckNumerics) checks floating-point tensors, but "
                        f"'{x.name}' is {x.dtype.name}.")
    return x.dtype, x.shape


register_op(OpDef("CheckNumerics", _check_numerics, 1, attr_defaults={"message": ""}))


def check_numerics(tensor, message, name=None) -> Tensor:
    """``tensor`` itself, after checking at run time that it holds no NaN and no Inf
    (``InvalidArgumentError`` "<message> : Tensor had NaN values" otherwise).  A
    non-float tensor is a ``TypeError``, as in TF."""
    return make_op("CheckNumerics", [convert_to_tensor(tensor)], {"message": str(message)},
                   name=name or "CheckNumerics")


def verify_tensor_all_finite(t, msg, name=None) -> Tensor:
    """An identity of ``t`` that runs ``check_numerics(t, msg)`` first (TF1's
    ``tf.verify_tensor_all_finite``, ``tf.debugging.assert_all_finite``)."""
    with name_scope(name or "VerifyFinite"):
        t = convert_to_tensor(t)
        checked = check_numerics(t, msg)
        with control_dependencies([checked.op]):
            return identity(t, name="control_dependency")


_CHECKED_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)   # TF's list
_CONTROL_FLOW_MESSAGE = ("`tf.add_check_numerics_ops() is not compatible with TensorFlow "
                         "control flow operations such as `tf.cond()` or `tf.while_loop()`.")


def add_check_numerics_ops() -> Operation:
    """A ``NoOp`` that runs a ``check_numerics`` of every float16/32/64 tensor of the
    default graph (TF1's ``tf.add_check_numerics_ops``), as TF builds them: one per
    tensor in the order the graph's ops were built, message ``"<op>:<index>"``, each
    after the one before (a chain of control dependencies, so NaNs are reported at the
    first tensor holding them), the NoOp ("group_deps") after the last.

    Running it computes every such tensor, placeholders included (feed them).  The
    tensors TF1 holds as references (a variable's, an assign's result) are not
    checked, as in TF1, and a graph with a ``cond``/``while_loop`` carrying floats is
    a ValueError, as TF1's control flow is.
    """
    graph = get_default_graph()
    last: list = []
    for op in graph.get_operations():
        for output in op.outputs:
            if output.dtype not in _CHECKED_DTYPES or _is_tf_ref(op, output.value_index):
                continue
            if op.type in IF_OPS + WHILE_OPS:
                raise ValueError(_CONTROL_FLOW_MESSAGE)
            with control_dependencies(last):
                last = [check_numerics(output, message=f"{op.name}:{output.value_index}")]
        if op.type in IF_OPS + WHILE_OPS and any(
                t.dtype in _CHECKED_DTYPES for t in op.inputs):
            raise ValueError(_CONTROL_FLOW_MESSAGE)   # TF1 switches them into its context
    return graph.create_op("NoOp", (), name="group_deps", control_inputs=[t.op for t in last])


def _is_tf_ref(op, index: int) -> bool:
    """Whether TF1's op gives output ``index`` as a reference (``float32_ref``): a
    variable's, an assign's; devsession's dtypes have no references to say it."""
    signature = tf_signature(op.type)
    outputs = signature["outputs"] if signature else []
    if any("number_attr" in o or "type_list_attr" in o for o in outputs):
        return False
    return index < len(outputs) and bool(outputs[index].get("is_ref"))


def _print(inputs, attrs, node):
    return inputs[0].dtype, inputs[0].shape


register_op(OpDef("Print", _print, None, stateful=True,
                  attr_defaults={"message": "", "first_n": -1, "summarize": 3}))


def Print(input_, data, message=None, first_n=None, summarize=None, name=None) -> Tensor:
    """``input_`` itself; each time it is computed, ``message`` followed by every tensor
    of ``data`` (TF's ``[1 2 3...]``, ``summarize`` elements, 3 by default) is written to
    stderr, only the first ``first_n`` times when that is given (TF1's ``tf.Print``)."""
    with name_scope(name or "Print") as scope:
        x = convert_to_tensor(input_)
        values = [convert_to_tensor(d, name=f"data_{k}") for k, d in enumerate(data)]
        attrs = {"message": "" if message is None else str(message),
                 "first_n": -1 if first_n is None else int(first_n),
                 "summarize": 3 if summarize is None else int(summarize)}
        return make_op("Print", [x, *values], attrs, name=scope)
