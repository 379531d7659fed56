"""``GradientDescentOptimizer``: ``var -= learning_rate * grad`` (TF's
ApplyGradientDescent), no slots."""

from __future__ import annotations

from ..ops.training import apply_gradient_descent
from .optimizer import Optimizer

__all__ = ["GradientDescentOptimizer"]


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad, var):
        return apply_gradient_descent(var, self._cast(self._lr_t, var.dtype), grad,
                                      use_locking=self._use_locking).op
