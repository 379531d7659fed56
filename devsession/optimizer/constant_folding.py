"""Constant folding: compute at plan time what depends only on constants.

An op whose inputs are all constants (after earlier folds) is run once, with the CPU
kernel, through the ``evaluate(op, values)`` callback the session supplies, and becomes
a ``Const`` holding the result; results over ``max_elements`` are left to run, so a
plan never bakes in a huge broadcast.  Stateful ops (variables, random) and ops that
fail to evaluate are left alone: their error belongs to the run, not the plan.  So are
control-flow ops (ops holding functions: ``If``, ``While``), stateless ones too: a loop
may run long, or forever, which must happen under the run's deadline, not while planning.
An op with control inputs is left too, and a ``Const`` with them is no constant to fold
into others: a Const in its place would run without what it waits for (a
``check_numerics`` chain of ``add_check_numerics_ops`` through a constant's check).
"""

from __future__ import annotations

import logging

import numpy as np

from .. import dtypes
from ..ops.registry import get_op_def
from .ir import PlanOp

__all__ = ["fold_constants"]

log = logging.getLogger("devsession.optimizer")


def fold_constants(ops: list[PlanOp], evaluate, max_elements: int) -> list[PlanOp]:
    constant: dict = {}
    out = []
    for op in ops:
        if op.type == "Const":
            if not op.control_inputs:
                constant[op.outputs[0]] = op.attrs["value"]
            out.append(op)
            continue
        static = op.outputs[0].shape.num_elements() if op.outputs else None
        op_def = get_op_def(op.type)
        if (len(op.outputs) != 1 or not op.inputs or op.control_inputs
                or op_def.stateful or op_def.function_attrs
                or any(t not in constant for t in op.inputs)
                or static is None or static > max_elements):
            out.append(op)
            continue
        try:
            value = evaluate(op, [constant[t] for t in op.inputs])
            if getattr(op.outputs[0].op, "_listed_outputs", False) and \
                    isinstance(value, (tuple, list)):
                (value,) = value                # a list of one output (Split into 1...)
            value = np.asarray(value)
        except Exception as e:  # the run will raise it, naming the node
            log.debug("not folding %s: %s", op.name, e)
            out.append(op)
            continue
        value = np.array(value, copy=True)
        value.setflags(write=False)
        constant[op.outputs[0]] = value
        out.append(PlanOp(op.name, "Const", (), op.outputs,
                          {"value": value, "dtype": dtypes.as_dtype(value.dtype)}, op.device,
                          (), op.source))
    return out
