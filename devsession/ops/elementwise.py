"""Elementwise ops: unary and binary math, comparisons, SelectV2 and Cast.

Each maps inputs to an output element by element with numpy broadcasting
(``OpDef.elementwise``), so the optimizer may fuse a region of them into one kernel
(``_FusedElementwise``, made only by ``devsession/optimizer/fusion.py``).  Kernels:
``kernels/{reference,cpu,cuda}/elementwise.py``; the expression each compiles from is
in ``kernels/codegen/expressions.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from .common import broadcast, graph_of, make_op, numeric, operands, same_dtype, unary_any
from .registry import OpDef, register_op

__all__ = ["negative", "abs", "exp", "log", "sqrt", "square", "tanh", "sigmoid", "relu", "add",
           "subtract", "multiply", "divide", "truediv", "pow", "maximum", "minimum", "equal",
           "less", "less_equal", "greater", "greater_equal", "where", "cast"]

UNARY_NUMERIC = ("Neg", "Abs", "Square", "Relu")


UNARY_FLOAT = ("Exp", "Log", "Sqrt", "Tanh", "Sigmoid")


BINARY_SAME = ("Add", "Sub", "Mul", "Pow", "Maximum", "Minimum", "RealDiv")


COMPARISONS = ("Equal", "Less", "LessEqual", "Greater", "GreaterEqual")


# --- shape and dtype inference ------------------------------------------------------

def _unary_numeric(inputs, attrs, node):
    numeric(inputs[0], node)
    return unary_any(inputs, attrs, node)


def _unary_float(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_floating:
        raise TypeError(
            f"Op '{node}' needs a floating-point input, but '{x.name}' is {x.dtype.name}; "
            f"use ds.cast(x, ds.float32) first.")
    return x.dtype, x.shape


def _binary_same(inputs, attrs, node):
    dtype = same_dtype(inputs, node)
    if dtype.is_bool:
        raise TypeError(f"Op '{node}' does not take bool inputs ('{inputs[0].name}').")
    return dtype, broadcast(inputs, node)


def _real_div(inputs, attrs, node):
    dtype, shape = _binary_same(inputs, attrs, node)
    return (dtype if dtype.is_floating else dtypes.float64), shape


def _equal(inputs, attrs, node):
    same_dtype(inputs, node)
    return dtypes.bool_, broadcast(inputs, node)


def _order(inputs, attrs, node):
    if same_dtype(inputs, node).is_bool:
        raise TypeError(f"Op '{node}' cannot order bool inputs ('{inputs[0].name}').")
    return dtypes.bool_, broadcast(inputs, node)


def _select(inputs, attrs, node):
    cond, x, y = inputs
    if not cond.dtype.is_bool:
        raise TypeError(f"Op '{node}': condition '{cond.name}' must be bool, not {cond.dtype.name}.")
    return same_dtype([x, y], node), broadcast(inputs, node)


def _cast(inputs, attrs, node):
    return dtypes.as_dtype(attrs["DstT"]), inputs[0].shape


def _internal(inputs, attrs, node):
    raise TypeError(f"Op '{node}': _FusedElementwise is made by the optimizer, not by graphs.")


def _register() -> None:
    for name in UNARY_NUMERIC:
        register_op(OpDef(name, _unary_numeric, 1, elementwise=True))
    for name in UNARY_FLOAT:
        register_op(OpDef(name, _unary_float, 1, elementwise=True))
    for name in BINARY_SAME:
        infer = _real_div if name == "RealDiv" else _binary_same
        register_op(OpDef(name, infer, 2, elementwise=True))
    for name in COMPARISONS:
        register_op(OpDef(name, _equal if name == "Equal" else _order, 2, elementwise=True))
    register_op(OpDef("SelectV2", _select, 3, elementwise=True))
    register_op(OpDef("Cast", _cast, 1, elementwise=True))
    register_op(OpDef("_FusedElementwise", _internal, None))  # optimizer/fusion.py


_register()


# --- builders ----------------------------------------------------------------------------

def _public(build, public_name: str, doc: str):
    """``build`` as users see it: named ``ds.<public_name>`` in tracebacks and help()."""
    build.__name__ = build.__qualname__ = public_name
    build.__doc__ = doc
    return build


def _unary(op_type: str, public_name: str):
    return _public(lambda x, name=None: make_op(op_type, operands(x), name=name),
                   public_name, f"Elementwise {op_type}.")


def _binary(op_type: str, public_name: str):
    return _public(lambda x, y, name=None: make_op(op_type, operands(x, y), name=name),
                   public_name, f"Elementwise {op_type} with numpy broadcasting.")


negative = _unary("Neg", "negative")
abs = _unary("Abs", "abs")  # noqa: A001  (TF1's name)
exp = _unary("Exp", "exp")
log = _unary("Log", "log")
sqrt = _unary("Sqrt", "sqrt")
square = _unary("Square", "square")
tanh = _unary("Tanh", "tanh")
sigmoid = _unary("Sigmoid", "sigmoid")
relu = _unary("Relu", "relu")
add = _binary("Add", "add")
subtract = _binary("Sub", "subtract")
multiply = _binary("Mul", "multiply")
divide = truediv = _binary("RealDiv", "divide")
pow = _binary("Pow", "pow")  # noqa: A001
maximum = _binary("Maximum", "maximum")
minimum = _binary("Minimum", "minimum")
equal = _binary("Equal", "equal")
less = _binary("Less", "less")
less_equal = _binary("LessEqual", "less_equal")
greater = _binary("Greater", "greater")
greater_equal = _binary("GreaterEqual", "greater_equal")


def where(condition, x, y, name=None) -> Tensor:
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (broadcasting)."""
    graph = graph_of(condition, x, y)
    cond = convert_to_tensor(condition, dtype=dtypes.bool_, graph=graph)
    x, y = operands(x, y)
    return make_op("SelectV2", [cond, x, y], name=name)


def cast(x, dtype, name=None) -> Tensor:
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return make_op("Identity", [x], name=name)
    return make_op("Cast", [x], {"DstT": dtype}, name=name)


# --- TF's spellings, for GraphDefs TensorFlow wrote (devsession/tf_graph.py) -------------------
# AddV2 is TF's Add (what TF2's tf.add and `+` build); LogicalAnd is tf.logical_and.

def _logical(inputs, attrs, node):
    for x in inputs:
        if not x.dtype.is_bool:
            raise TypeError(f"Op '{node}' takes bool inputs, but '{x.name}' is {x.dtype.name}.")
    return dtypes.bool_, broadcast(inputs, node)


register_op(OpDef("AddV2", _binary_same, 2, elementwise=True))
register_op(OpDef("LogicalAnd", _logical, 2, elementwise=True))
__all__ += ["logical_and"]


def logical_and(x, y, name=None) -> Tensor:
    """Elementwise ``x and y`` of bool tensors, with numpy broadcasting."""
    graph = graph_of(x, y)
    return make_op("LogicalAnd", [convert_to_tensor(v, dtype=dtypes.bool_, graph=graph)
                                  for v in (x, y)], name=name)
