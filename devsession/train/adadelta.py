"""``AdadeltaOptimizer``, TF1's ApplyAdadelta (Zeiler 2012, with TF's learning rate).

Per variable the slots ``accum`` and ``accum_update`` (``<var>/Adadelta``,
``<var>/Adadelta_1``), zeros.  A step:

    accum = accum * rho + grad**2 * (1 - rho)
    update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad
    var -= update * lr
    accum_update = accum_update * rho + update**2 * (1 - rho)

A gradient TF keeps sparse (an embedding's) updates only its rows (SparseApplyAdadelta):
absent rows keep their accumulators undecayed, and their value.
"""

from __future__ import annotations

from ..ops.training import apply_adadelta
from ..ops.elementwise import sqrt
from .optimizer import Optimizer
from .sparse_updates import update_rows

__all__ = ["AdadeltaOptimizer"]


class AdadeltaOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._lr, "lr")
        self._rho_t = self._hyper(self._rho, "rho")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad, var):
        d = var.dtype
        return apply_adadelta(var, self.get_slot(var, "accum"),
                              self.get_slot(var, "accum_update"), self._cast(self._lr_t, d),
                              self._cast(self._rho_t, d), self._cast(self._epsilon_t, d), grad,
                              use_locking=self._use_locking)

    def _apply_sparse(self, grad, indices, var):
        d = var.dtype
        lr, rho = self._cast(self._lr_t, d), self._cast(self._rho_t, d)
        epsilon = self._cast(self._epsilon_t, d)

        def step(v, accum, accum_update):
            accum = accum * rho + grad * grad * (1 - rho)
            update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad
            accum_update = accum_update * rho + update * update * (1 - rho)
            return v - update * lr, accum, accum_update

        return update_rows([var, self.get_slot(var, "accum"),
                            self.get_slot(var, "accum_update")], indices, step,
                           self._use_locking, "SparseApplyAdadelta")
