"""State ops no gradient flows through: assignments (and the optimizers' updates,
``ApplyGradientDescent``, ``ApplyAdam``...), as in TF's
``state_grad.py``.  Sources (constants, placeholders, variables, random ops) have no
inputs, so they need no entry."""

from __future__ import annotations

from .registry import not_differentiable, register_gradient
from .training import TRAINING_OPS

not_differentiable("Assign", "AssignAdd", "AssignSub", "CountUpTo", "IsVariableInitialized",
                   *TRAINING_OPS)


@register_gradient("_ReadVariable")
def _read_variable_grad(op, dy):
    return [dy]          # to the variable, as the gradient of its read Identity
