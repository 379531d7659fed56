"""TF1's ways for a program to give ops gradients: ``ds.RegisterGradient("Name")``
(a decorator registering ``fn(op, *grads)`` under a name, which an op type's own
gradient or a ``graph.gradient_override_map({"OpType": "Name"})`` then uses) and
``ds.NotDifferentiable`` / ``ds.no_gradient`` / ``ds.NoGradient`` (no gradient flows
through ops of a type).  They share devsession's op-gradient registry
(``ops/registry.py``), as TF's share ``_gradient_registry``; a name registered twice is
TF's ``KeyError``.
"""

from __future__ import annotations

from .errors import AlreadyExistsError
from .ops.registry import not_differentiable, register_gradient

__all__ = ["RegisterGradient", "NotDifferentiable", "no_gradient", "NoGradient"]


class RegisterGradient:
    """Decorator: ``@ds.RegisterGradient("MySquare") def _grad(op, grad): ...``."""

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        try:
            register_gradient(self._op_type)(fn)
        except AlreadyExistsError:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!") from None
        return fn


def NotDifferentiable(op_type: str) -> None:
    """No gradient flows through ops of ``op_type`` (their inputs get None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    try:
        not_differentiable(op_type)
    except AlreadyExistsError:
        raise KeyError(f"Registering two gradient with name '{op_type}'!") from None


no_gradient = NotDifferentiable
NoGradient = NotDifferentiable
