"""Static values of integer arithmetic, so shapes computed in a graph stay known when it
is built: ``constant_value`` of an ``AddV2``/``Sub``/``Mul``/``FloorDiv``/``FloorMod``/
``Maximum``/``Minimum``/``Neg`` of int32/int64 tensors, and of a ``Cast`` to an integer
dtype, whose values the graph alone determines (TF's shape inference evaluates the same
small subgraphs).  TF's framing (``tf.signal.frame``) builds its outer shape as ``rank -
axis - 1`` from Sub nodes; without this a GraphDef TensorFlow wrote would reach its SplitV
with unknown split sizes, and every op after it with an unknown rank.

Only small integer values are computed (``small``, the limit every static value keeps to);
a division by zero is left to the run, which raises as TF does."""

from __future__ import annotations

import numpy as np

__all__ = ["STATIC_VALUE_LIMIT", "small", "INT_ARITHMETIC", "int_arithmetic_value",
           "int_cast_value"]

# Static values (shape arithmetic) are worked out at build time only for small arrays:
# they are kept on the tensor, and a big constant is the optimizer's business.
STATIC_VALUE_LIMIT = 4096

INT_ARITHMETIC = {
    "Add": np.add, "AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Maximum": np.maximum, "Minimum": np.minimum, "FloorDiv": np.floor_divide,
    "FloorMod": np.mod, "Neg": np.negative,
}


def small(value) -> bool:
    """Whether a static value is small enough to compute others from at build time."""
    return value is not None and np.size(value) <= STATIC_VALUE_LIMIT


def int_arithmetic_value(op, value_of):
    """``op``'s output from its inputs' static values (``OpDef.static_value``), or None."""
    dtype = op.outputs[0].dtype
    if not dtype.is_integer:
        return None
    values = [value_of(t) for t in op.inputs]
    if not all(small(v) for v in values):
        return None
    if op.type in ("FloorDiv", "FloorMod") and np.any(np.asarray(values[1]) == 0):
        return None
    with np.errstate(over="ignore"):
        return np.asarray(INT_ARITHMETIC[op.type](*[np.asarray(v, dtype.np) for v in values]),
                          dtype.np)


def int_cast_value(op, value_of):
    """A Cast to an integer dtype of a value the graph alone determines (TF's shape
    inference and ``constant_value`` fold Cast too: bincount's bins of a constant float
    ``arr``): integers and bools convert as the kernel does (wrapping), floats truncate
    when finite and within the target's range; other values are left to the run."""
    dtype = op.outputs[0].dtype
    value = value_of(op.inputs[0])
    if not dtype.is_integer or not small(value):
        return None
    value = np.asarray(value)
    if value.dtype.kind == "f":
        bounds = np.iinfo(dtype.np)
        if not (np.isfinite(value).all() and (value > bounds.min - 1).all()
                and (value < bounds.max + 1).all()):
            return None
    elif value.dtype.kind not in "biu":
        return None
    return value.astype(dtype.np)
