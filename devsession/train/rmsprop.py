"""``RMSPropOptimizer``, TF1's ApplyRMSProp and ApplyCenteredRMSProp.

Per variable the slots ``rms`` (starting at one, ``<var>/RMSProp``), with ``centered``
``mg`` (zeros), and ``momentum`` (zeros), made in that order, so their names follow TF's
(``w/RMSProp_1`` is the momentum, or with ``centered`` the mean gradient).  A step:

    ms = ms + (grad**2 - ms) * (1 - decay)
    mom = mom * momentum + lr * grad / sqrt(ms + epsilon)
    var -= mom

and with ``centered``, ``mg = mg + (grad - mg) * (1 - decay)`` and ``ms - mg**2 + epsilon``
under the root (the gradient's estimated variance instead of its second moment).

A gradient TF keeps sparse (an embedding's) updates only its rows, as TF's
SparseApplyRMSProp and SparseApplyCenteredRMSProp: absent rows keep ``ms``, ``mg`` and
``mom`` undecayed, and their value.
"""

from __future__ import annotations

from ..ops.training import apply_centered_rms_prop, apply_rms_prop
from ..ops.elementwise import sqrt
from .optimizer import Optimizer
from .sparse_updates import update_rows

__all__ = ["RMSPropOptimizer"]


class RMSPropOptimizer(Optimizer):
    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate, self._decay = learning_rate, decay
        self._momentum, self._epsilon = momentum, epsilon
        self._centered = bool(centered)

    def _create_slots(self, var_list):
        for v in var_list:
            self._filled_slot(v, "rms", self._name, 1)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")
        self._decay_t = self._hyper(self._decay, "decay")
        self._momentum_t = self._hyper(self._momentum, "momentum")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad, var):
        d = var.dtype
        hypers = (self._cast(self._lr_t, d), self._cast(self._decay_t, d),
                  self._cast(self._momentum_t, d), self._cast(self._epsilon_t, d), grad)
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return apply_centered_rms_prop(var, self.get_slot(var, "mg"), rms, mom, *hypers,
                                           use_locking=self._use_locking).op
        return apply_rms_prop(var, rms, mom, *hypers, use_locking=self._use_locking).op

    def _apply_sparse(self, grad, indices, var):
        d = var.dtype
        lr, rho = self._cast(self._lr_t, d), self._cast(self._decay_t, d)
        momentum, epsilon = self._cast(self._momentum_t, d), self._cast(self._epsilon_t, d)
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")

        def plain(v, ms, mo):
            ms = ms + (grad * grad - ms) * (1 - rho)
            mo = mo * momentum + grad * lr / sqrt(ms + epsilon)
            return v - mo, ms, mo

        def centered(v, mg, ms, mo):
            ms = ms + (grad * grad - ms) * (1 - rho)
            mg = mg + (grad - mg) * (1 - rho)
            mo = mo * momentum + grad * lr / sqrt(ms - mg * mg + epsilon)
            return v - mo, mg, ms, mo

        if self._centered:
            return update_rows([var, self.get_slot(var, "mg"), rms, mom], indices, centered,
                               self._use_locking, "SparseApplyCenteredRMSProp")
        return update_rows([var, rms, mom], indices, plain, self._use_locking,
                           "SparseApplyRMSProp")
