"""Sources and state: Const, Placeholder, PlaceholderWithDefault (its input unless
fed: ``placeholder_with_default``), NoOp (and ``group``) and variables (VariableV2,
Assign, AssignAdd, AssignSub, and ``ds.assign``/``assign_add``/``assign_sub``).  The
seeded random ops are ``ops/random.py``'s.

``ds.Variable`` (``devsession/variables.py``) builds its nodes from these.  Kernels:
``kernels/reference/state.py`` (the reference and the CPU's) and
``kernels/cuda/state.py``; variables and random streams live in the session's
resource containers (``devsession/runtime/resources.py``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import (Operation, Tensor, constant_from_array, convert_to_tensor,
                     different_graphs_error, get_default_graph, python_value_to_array)
from ..tensor_shape import TensorShape, as_shape, bracketed, merge_conflict
from .common import graph_of, make_op
from .registry import InferError, OpDef, register_op

__all__ = ["constant", "placeholder", "placeholder_with_default", "no_op", "group", "assign",
           "count_up_to", "is_variable_initialized", "assign_add", "assign_sub", "variable_ref"]


def _const(inputs, attrs, node):
    value = attrs["value"]
    if not isinstance(value, np.ndarray):
        raise TypeError(f"Op '{node}': a Const's value must be a tensor, not "
                        f"{type(value).__name__}.")
    return dtypes.as_dtype(value.dtype), TensorShape(value.shape)


def _placeholder(inputs, attrs, node):
    return dtypes.as_dtype(attrs["dtype"]), attrs["shape"]


def _variable(inputs, attrs, node):
    return dtypes.as_dtype(attrs["dtype"]), attrs["shape"]


def _read_variable(inputs, attrs, node):
    (ref,) = inputs
    return ref.dtype, ref.shape


def _assign(inputs, attrs, node):
    ref, value = inputs
    if ref.dtype != value.dtype:
        raise TypeError(f"Op '{node}': cannot assign {value.dtype.name} value '{value.name}' to "
                        f"{ref.dtype.name} variable '{ref.name}'.")
    if attrs.get("validate_shape", True) and not ref.shape.is_compatible_with(value.shape):
        raise InferError(f"Op '{node}': cannot assign value '{value.name}' with shape "
                         f"{value.shape} to variable '{ref.name}' with shape {ref.shape}.")
    return ref.dtype, ref.shape.merge_with(value.shape) if ref.shape.is_compatible_with(
        value.shape) else value.shape


def _count_up_to(inputs, attrs, node):
    (ref,) = inputs
    if not ref.dtype.is_integer or ref.shape.rank not in (None, 0):
        raise InferError(f"Op '{node}': count_up_to needs a scalar integer variable, got "
                         f"{ref.dtype.name} {ref.shape}.")
    return ref.dtype, TensorShape([])


def _is_initialized(inputs, attrs, node):
    return dtypes.bool_, TensorShape([])


def _no_output(inputs, attrs, node):
    return None


def _placeholder_with_default(inputs, attrs, node):
    (value,) = inputs
    shape = as_shape(attrs.get("shape"))
    conflict = merge_conflict(value.shape, shape)                # TF's words, then ours
    if conflict:
        raise InferError(f"{conflict} for '{node}' with input shapes: {bracketed(value.shape)}. "
                         f"Op '{node}': the default '{value.name}' has shape {value.shape}, "
                         f"not compatible with the placeholder's shape {shape}.")
    return value.dtype, shape


def _register() -> None:
    register_op(OpDef("Const", _const, 0))
    register_op(OpDef("Placeholder", _placeholder, 0))
    register_op(OpDef("NoOp", _no_output, 0, has_output=False))
    # stateful: never folded or merged, so that feeding it always replaces its input
    register_op(OpDef("PlaceholderWithDefault", _placeholder_with_default, 1, stateful=True,
                      attr_defaults={"shape": TensorShape(None)}))
    # A read of a variable at the point of the graph where it is built (under
    # control_dependencies): TF1 reads a ref variable's buffer when the reader runs.
    register_op(OpDef("_ReadVariable", _read_variable, 1, ref_inputs=(0,), stateful=True))
    register_op(OpDef("VariableV2", _variable, 0, stateful=True,
                      attr_defaults={"container": "", "shared_name": ""}))
    register_op(OpDef("Assign", _assign, 2, ref_inputs=(0,), stateful=True,
                      attr_defaults={"validate_shape": True}))
    register_op(OpDef("AssignAdd", _assign, 2, ref_inputs=(0,), stateful=True))
    register_op(OpDef("AssignSub", _assign, 2, ref_inputs=(0,), stateful=True))
    register_op(OpDef("CountUpTo", _count_up_to, 1, ref_inputs=(0,), stateful=True))
    register_op(OpDef("IsVariableInitialized", _is_initialized, 1, ref_inputs=(0,),
                      stateful=True))


_register()


def constant(value, dtype=None, shape=None, name: str = "Const", graph=None) -> Tensor:
    """A Const node holding ``value`` (broadcast to ``shape`` when given)."""
    array = python_value_to_array(value, dtype, strict=dtype is not None)
    if shape is not None:
        shape = tuple(as_shape(shape).as_list())
        if array.size == 1:
            array = np.broadcast_to(array.reshape(()), shape)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise ValueError(f"Cannot make a constant of shape {list(shape)} from a value with "
                             f"{array.size} elements.")
    return constant_from_array(array, name=name, graph=graph)


def placeholder(dtype, shape=None, name: str | None = None) -> Tensor:
    """A value fed at run time; ``shape`` may hold None for unknown dimensions."""
    return make_op("Placeholder", (), {"dtype": dtypes.as_dtype(dtype), "shape": as_shape(shape)},
               name or "Placeholder")


def placeholder_with_default(input, shape, name=None) -> Tensor:  # noqa: A002  (TF's name)
    """``input`` unless a value is fed in its place, as TF1's: e.g. a ``keep_prob``
    that is 1 unless training feeds 0.5.  ``shape`` (None dimensions allowed) is the
    static shape a fed value must have; ValueError if ``input``'s does not fit it."""
    value = convert_to_tensor(input)
    return make_op("PlaceholderWithDefault", [value], {"shape": as_shape(shape)},
                   name or "PlaceholderWithDefault")


def no_op(name=None) -> Operation:
    return get_default_graph().create_op("NoOp", (), name=name)


def group(*inputs, name=None) -> Operation:
    """An op that runs after all ``inputs`` (Tensors or Operations)."""
    flat = []
    for item in inputs:
        flat.extend(item if isinstance(item, (list, tuple)) else [item])
    graph = graph_of(*flat)
    elements = [x for x in flat if isinstance(x, (Tensor, Operation))]
    ops = []
    for item in flat:
        if (isinstance(item, (Tensor, Operation)) and item.graph is not graph
                and elements[0].graph is graph):
            raise different_graphs_error(item, elements[0])     # TF's message
        element = graph.as_graph_element(item)
        ops.append(element.op if isinstance(element, Tensor) else element)
    return graph.create_op("NoOp", (), name=name or "group_deps", control_inputs=ops)


# --- assignments ---------------------------------------------------------------------------

def variable_ref(ref, what: str = "assign") -> Tensor:
    """The ``VariableV2`` tensor ``ref`` names (a ``ds.Variable`` or that tensor);
    TypeError for anything else, as TF1 refuses a non-ref input."""
    if hasattr(ref, "_ref"):
        return ref._ref()
    if isinstance(ref, Tensor) and ref.op.type == "VariableV2":
        return ref
    raise TypeError(f"ds.{what} needs a ds.Variable (or its VariableV2 tensor) to assign to, "
                    f"not {ref!r}.")


def _assignment(op_type: str, what: str, ref, value, name, attrs=None) -> Tensor:
    target = variable_ref(ref, what)
    value = convert_to_tensor(value, dtype_hint=target.dtype, graph=target.graph)
    return target.graph.create_op(op_type, [target, value], attrs, name=name or op_type
                                  ).outputs[0]


def assign(ref, value, validate_shape=None, use_locking=None, name=None) -> Tensor:
    """An op setting variable ``ref`` to ``value``; fetching it gives the new value.
    ``use_locking`` is accepted and ignored (updates always hold the variable's lock).
    A slice of a variable (``v[key]``, which TF1 does not make a ref) is written by its
    own ``assign``, as TF's ``state_ops.assign`` does (``state_slices.py``)."""
    if isinstance(ref, Tensor) and callable(getattr(ref, "assign", None)):
        return ref.assign(value, name=name)
    attrs = None if validate_shape is None else {"validate_shape": bool(validate_shape)}
    return _assignment("Assign", "assign", ref, value, name, attrs)


def assign_add(ref, value, use_locking=None, name=None) -> Tensor:
    """An op adding ``value`` to variable ``ref``; fetching it gives the new value."""
    return _assignment("AssignAdd", "assign_add", ref, value, name)


def count_up_to(ref, limit, name=None) -> Tensor:
    """TF1's ``count_up_to``: an op adding 1 to the integer variable ``ref`` and giving
    its value before; once that value reached ``limit``, running it is
    ``OutOfRangeError`` (how ``limit_epochs`` ends an input)."""
    target = variable_ref(ref, "count_up_to")
    return target.graph.create_op("CountUpTo", [target], {"limit": int(limit)},
                                  name=name or "CountUpTo").outputs[0]


def is_variable_initialized(ref, name=None) -> Tensor:
    """TF1's ``is_variable_initialized``: a bool scalar, whether variable ``ref`` holds a
    value (run where the variable lives; reading nothing)."""
    target = variable_ref(ref, "is_variable_initialized")
    return target.graph.create_op("IsVariableInitialized", [target],
                                  name=name or "IsVariableInitialized").outputs[0]


def assign_sub(ref, value, use_locking=None, name=None) -> Tensor:
    """An op subtracting ``value`` from variable ``ref``; fetching it gives the new value."""
    return _assignment("AssignSub", "assign_sub", ref, value, name)
