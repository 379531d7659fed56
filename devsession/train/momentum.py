"""``MomentumOptimizer``, TF's ApplyMomentum: per variable a slot ``accum``
(``<var>/Momentum``); ``accum = accum * momentum + grad``, then ``var -= lr * accum``,
or with ``use_nesterov`` ``var -= lr * grad + lr * momentum * accum``.  A gradient TF
keeps sparse updates only its rows (SparseApplyMomentum): absent rows keep their
``accum``, undecayed, and their value."""

from __future__ import annotations

from ..ops.training import apply_momentum
from .optimizer import Optimizer
from .sparse_updates import update_rows

__all__ = ["MomentumOptimizer"]


class MomentumOptimizer(Optimizer):
    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")
        self._momentum_t = self._hyper(self._momentum, "momentum")

    def _apply_dense(self, grad, var):
        return apply_momentum(var, self.get_slot(var, "momentum"),
                              self._cast(self._lr_t, var.dtype), grad,
                              self._cast(self._momentum_t, var.dtype),
                              use_locking=self._use_locking,
                              use_nesterov=self._use_nesterov).op

    def _apply_sparse(self, grad, indices, var):
        lr = self._cast(self._lr_t, var.dtype)
        momentum = self._cast(self._momentum_t, var.dtype)

        def step(v, accum):
            accum = accum * momentum + grad
            if self._use_nesterov:
                return v - grad * lr - accum * momentum * lr, accum
            return v - lr * accum, accum

        return update_rows([var, self.get_slot(var, "momentum")], indices, step,
                           self._use_locking, "SparseApplyMomentum")
