"""State ops no gradient flows through: assignments (and the optimizers' updates,
``ApplyGradientDescent``, ``ApplyMomentum``, ``ApplyAdam``), as in TF's
``state_grad.py``.  Sources (constants, placeholders, variables, random ops) have no
inputs, so they need no entry."""

from __future__ import annotations

from .registry import not_differentiable

not_differentiable("Assign", "AssignAdd", "AssignSub", "ApplyGradientDescent",
                   "ApplyMomentum", "ApplyAdam")
