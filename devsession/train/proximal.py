"""TF1's proximal optimizers (FOBOS: a gradient step, then L1 and L2 shrinkage), for
sparse linear models: ``ProximalGradientDescentOptimizer`` (ApplyProximalGradientDescent)
and ``ProximalAdagradOptimizer`` (ApplyProximalAdagrad: Adagrad's per-coordinate rate,
slot ``<var>/ProximalAdagrad`` starting at ``initial_accumulator_value``).  The formulas
are in ``devsession/ops/training.py``."""

from __future__ import annotations

from ..ops.training import apply_proximal_adagrad, apply_proximal_gradient_descent
from .optimizer import Optimizer

__all__ = ["ProximalGradientDescentOptimizer", "ProximalAdagradOptimizer"]


class _Proximal(Optimizer):
    def __init__(self, learning_rate, l1_regularization_strength, l2_regularization_strength,
                 use_locking, name):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")
        self._l1_t = self._hyper(self._l1, "l1_regularization_strength")
        self._l2_t = self._hyper(self._l2, "l2_regularization_strength")

    def _scalars(self, dtype) -> list:
        return [self._cast(t, dtype) for t in (self._lr_t, self._l1_t, self._l2_t)]


class ProximalGradientDescentOptimizer(_Proximal):
    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)

    def _apply_dense(self, grad, var):
        return apply_proximal_gradient_descent(var, *self._scalars(var.dtype), grad,
                                               use_locking=self._use_locking)


class ProximalAdagradOptimizer(_Proximal):
    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:    # the first step divides by its root
            raise ValueError(f"initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._filled_slot(v, "accumulator", self._name, self._initial_accumulator_value)

    def _apply_dense(self, grad, var):
        return apply_proximal_adagrad(var, self.get_slot(var, "accumulator"),
                                      *self._scalars(var.dtype), grad,
                                      use_locking=self._use_locking)
