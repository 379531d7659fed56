"""Common subexpression elimination: one op for each distinct computation.

Two ops are the same computation when they have the same type, attributes, inputs
(after earlier merges), control inputs and device.  Stateful ops (variables, random)
are never merged, nor are the ops of a TensorArray that clears its elements once read
(two reads of one element are TF1's error, not one read).  Constants are compared by
value up to ``_HASHED_CONST_ELEMENTS`` elements (bigger ones only merge with
themselves, since hashing them costs more than the merge saves).  Returns the kept ops
and ``alias``: dropped tensor -> kept tensor.
"""

from __future__ import annotations

import numpy as np

from ..ops.registry import get_op_def
from .ir import PlanOp

__all__ = ["eliminate_common_subexpressions"]

_HASHED_CONST_ELEMENTS = 4096


def _attr_key(value):
    if isinstance(value, np.ndarray):
        if value.size <= _HASHED_CONST_ELEMENTS:
            return ("array", value.dtype.str, value.shape, value.tobytes())
        return ("array-id", id(value))
    if isinstance(value, (list, tuple)):
        return tuple(_attr_key(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _attr_key(v)) for k, v in value.items()))
    return value


def eliminate_common_subexpressions(ops: list[PlanOp], fed: set) -> tuple[list, dict]:
    alias: dict = {}
    seen: dict = {}
    kept = []
    for op in ops:
        inputs = tuple(alias.get(t, t) for t in op.inputs)
        if inputs != op.inputs:
            op = op.replace(inputs=inputs)
        if (not op.outputs or any(t in fed for t in op.outputs)
                or get_op_def(op.type).stateful or op.type == "Placeholder"
                or op.attrs.get("clear_after_read")):
            kept.append(op)
            continue
        key = (op.type, tuple(id(t) for t in inputs), _attr_key(op.attrs), op.device,
               tuple(id(c) for c in op.control_inputs))
        first = seen.get(key)
        if first is None:
            seen[key] = op
            kept.append(op)
        else:
            alias.update(zip(op.outputs, first.outputs))
    return kept, alias
