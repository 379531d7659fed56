"""``AdagradOptimizer``, TF1's ApplyAdagrad: per variable a slot ``accumulator``
(``<var>/Adagrad``) starting at ``initial_accumulator_value``; a step
``accum += grad**2``, then ``var -= lr * grad / sqrt(accum)``."""

from __future__ import annotations

from ..ops.training import apply_adagrad
from .optimizer import Optimizer

__all__ = ["AdagradOptimizer"]


class AdagradOptimizer(Optimizer):
    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        if initial_accumulator_value <= 0.0:    # the first step divides by its root
            raise ValueError(f"initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._filled_slot(v, "accumulator", self._name, self._initial_accumulator_value)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad, var):
        return apply_adagrad(var, self.get_slot(var, "accumulator"),
                             self._cast(self._lr_t, var.dtype), grad,
                             use_locking=self._use_locking)
