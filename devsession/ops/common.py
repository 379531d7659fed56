"""What every op family shares: infer helpers for ``OpDef``s and builder helpers for
the functions users call.

Infer helpers raise ``InferError`` (a ValueError) for shape problems and TypeError for
dtype problems, naming the node and the operands, so the user sees which line of
graph-building code is wrong.  Builder helpers convert Python values to Tensors (a
Python scalar next to a tensor takes the tensor's dtype, as in TF1) and create the node.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Operation, Tensor, convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape, bracketed, broadcast_static
from .registry import InferError

__all__ = ["numeric", "same_dtype", "broadcast", "normalise_axis", "normalised_axis",
           "one_spelling", "unary_any", "graph_of", "make_op", "operands", "input_shapes"]


def numeric(x, node: str) -> None:
    if not x.dtype.is_numeric:
        raise TypeError(f"Op '{node}' needs a numeric input, but '{x.name}' is {x.dtype.name}.")


def same_dtype(inputs, node: str) -> dtypes.DType:
    first = inputs[0]
    for other in inputs[1:]:
        if other.dtype != first.dtype:
            raise TypeError(
                f"Op '{node}': input '{other.name}' has dtype {other.dtype.name}, which does not "
                f"match dtype {first.dtype.name} of input '{first.name}'. Cast one of them first "
                f"(ds.cast).")
    return first.dtype


def broadcast(inputs, node: str) -> TensorShape:
    shape = inputs[0].shape
    for other in inputs[1:]:
        try:
            shape = broadcast_static(shape, other.shape)
        except ValueError as conflict:
            # TF's sentence first (what TF1 code matches), then which tensors they were
            names = " and ".join(f"'{x.name}' with shape {x.shape}" for x in inputs)
            raise InferError(f"{conflict} for '{node}' with input shapes: "
                             f"{input_shapes(inputs)}. Op '{node}': incompatible shapes "
                             f"for broadcasting: {names}.") from None
    return shape


def input_shapes(inputs) -> str:
    """The inputs' shapes as TF's shape-function errors list them: [?,3], [4,2]."""
    return ", ".join(bracketed(x.shape) for x in inputs)


def normalise_axis(axis: int, rank: int | None, node: str) -> int:
    if rank is None:
        if axis < 0:
            raise InferError(f"Op '{node}': a negative axis needs an input of known rank.")
        return axis
    if not -rank <= axis < max(rank, 1):
        raise InferError(f"Op '{node}': axis {axis} is out of range for rank {rank}.")
    return axis % max(rank, 1)


def normalised_axis(axis, rank: int | None, node: str) -> int:
    """``normalise_axis`` for builders: a ValueError (not InferError) for a bad axis."""
    try:
        return normalise_axis(int(axis), rank, node)
    except InferError as e:
        raise ValueError(str(e)) from None


def one_spelling(value, old_value, name: str, old_name: str):
    """TF's ``deprecated_argument_lookup``: the argument given as ``name`` or as its TF1
    spelling ``old_name`` (``axis``/``dim``, ``keepdims``/``keep_dims``); ValueError, with
    TF's text, when both are given, even with the same value."""
    if old_value is None:
        return value
    if value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{name}'.")
    return old_value


def unary_any(inputs, attrs, node):
    (x,) = inputs
    return x.dtype, x.shape


def graph_of(*values):
    """The graph of the first tensor, operation or variable among ``values`` (a
    variable's own graph: asking for its tensor here would build a read)."""
    for v in values:
        if isinstance(v, (Tensor, Operation)) or hasattr(v, "_as_tensor"):
            return v.graph
    return get_default_graph()


def make_op(op_type: str, inputs, attrs=None, name=None) -> Tensor | Operation:
    graph = graph_of(*inputs)
    op = graph.create_op(op_type, inputs, attrs, name=name)
    return op.outputs[0] if op.outputs else op


def operands(*values, names=None):
    """Tensors for the operands of an elementwise op: Python values take the dtype of
    the first Tensor among them (float64_tensor * 3.0 stays float64).  ``names`` name the
    constants made from Python values (TF names them "x" and "y" in the op's scope)."""
    graph = graph_of(*values)
    hint = None
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            hint = v.dtype
            break
    names = names or [None] * len(values)
    return [convert_to_tensor(v, dtype_hint=hint, graph=graph, name=n)
            for v, n in zip(values, names)]
