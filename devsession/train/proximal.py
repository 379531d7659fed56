"""TF1's proximal optimizers (FOBOS: a gradient step, then L1 and L2 shrinkage), for
sparse linear models: ``ProximalGradientDescentOptimizer`` (ApplyProximalGradientDescent)
and ``ProximalAdagradOptimizer`` (ApplyProximalAdagrad: Adagrad's per-coordinate rate,
slot ``<var>/ProximalAdagrad`` starting at ``initial_accumulator_value``).  The formulas
are in ``devsession/ops/training.py``.  A gradient TF keeps sparse (an embedding's)
updates only its rows (SparseApplyProximalGradientDescent, SparseApplyProximalAdagrad):
absent rows are not shrunk."""

from __future__ import annotations

from ..ops.training import apply_proximal_adagrad, apply_proximal_gradient_descent
from ..ops.elementwise import abs as absolute
from ..ops.elementwise import maximum, sign, sqrt
from .optimizer import Optimizer
from .sparse_updates import update_rows

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


def _proximal_step(v, grad, rate, l1, l2):
    """FOBOS on rows: a step of ``rate``, then L1 and L2 shrinkage (with ``l1`` 0 the
    sign times the magnitude is the value itself, TF's other branch)."""
    prox = v - grad * rate
    return sign(prox) * maximum(absolute(prox) - rate * l1, 0) / (1 + l2 * rate)


class ProximalGradientDescentOptimizer(_Proximal):
    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)

    def _apply_dense(self, grad, var):
        return apply_proximal_gradient_descent(var, *self._scalars(var.dtype), grad,
                                               use_locking=self._use_locking)

    def _apply_sparse(self, grad, indices, var):
        lr, l1, l2 = self._scalars(var.dtype)
        return update_rows([var], indices, lambda v: [_proximal_step(v, grad, lr, l1, l2)],
                           self._use_locking, "SparseApplyProximalGradientDescent")


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

    def _apply_sparse(self, grad, indices, var):
        lr, l1, l2 = self._scalars(var.dtype)

        def step(v, accum):
            accum = accum + grad * grad
            return _proximal_step(v, grad, lr / sqrt(accum), l1, l2), accum

        return update_rows([var, self.get_slot(var, "accumulator")], indices, step,
                           self._use_locking, "SparseApplyProximalAdagrad")
