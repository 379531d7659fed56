"""``FtrlOptimizer``, TF1's FTRL-proximal (McMahan et al., "Ad Click Prediction"), the
optimizer of wide linear models: per variable the slots ``accum`` (``<var>/Ftrl``,
starting at ``initial_accumulator_value``) and ``linear`` (``<var>/Ftrl_1``, zeros);
a step is TF's ApplyFtrl, or ApplyFtrlV2 with shrinkage-type L2
(``devsession/ops/training.py`` has the formulas).  ``beta`` (TF 2's compat.v1
addition) adds ``beta / (2 * lr)`` to the L2 strength, as TF's.  A gradient TF keeps
sparse (an embedding's) updates only its rows (SparseApplyFtrl(V2)): the dense step
recomputes every value from ``linear``, which zeroes a row never seen (without L1)."""

from __future__ import annotations

from ..ops.elementwise import abs as absolute
from ..ops.elementwise import equal, greater, maximum, sign, sqrt, where
from ..ops.elementwise import pow as power
from ..ops.array_fill import zeros_like
from ..ops.training import apply_ftrl, apply_ftrl_v2
from .optimizer import Optimizer
from .sparse_updates import update_rows

__all__ = ["FtrlOptimizer"]


class FtrlOptimizer(Optimizer):
    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0, beta=None):
        checks = [(initial_accumulator_value, "initial_accumulator_value"),
                  (l1_regularization_strength, "l1_regularization_strength"),
                  (l2_regularization_strength, "l2_regularization_strength"),
                  (l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength")]
        for value, what in checks:
            if value < 0.0:
                raise ValueError(f"{what} {value:f} needs to be positive or zero")
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power:f} needs to be "
                             f"negative or zero")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            self._filled_slot(v, "accum", self._accum_name or self._name,
                              self._initial_accumulator_value)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")
        self._l1_t = self._hyper(self._l1, "l1_regularization_strength")
        self._l2_t = self._hyper(self._l2, "l2_regularization_strength")
        if self._beta:                      # TF's adjusted L2: beta / (2 * lr) more
            self._l2_t = self._l2_t + self._beta / (2.0 * maximum(self._lr_t, 1e-36))
        self._l2_shrinkage_t = self._hyper(self._l2_shrinkage,
                                           "l2_shrinkage_regularization_strength")
        self._lr_power_t = self._hyper(self._learning_rate_power, "learning_rate_power")

    def _apply_dense(self, grad, var):
        cast = lambda t: self._cast(t, var.dtype)   # noqa: E731
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        if self._l2_shrinkage <= 0.0:
            return apply_ftrl(var, accum, linear, grad, cast(self._lr_t), cast(self._l1_t),
                              cast(self._l2_t), cast(self._lr_power_t),
                              use_locking=self._use_locking)
        return apply_ftrl_v2(var, accum, linear, grad, cast(self._lr_t), cast(self._l1_t),
                             cast(self._l2_t), cast(self._l2_shrinkage_t),
                             cast(self._lr_power_t), use_locking=self._use_locking)

    def _apply_sparse(self, grad, indices, var):
        cast = lambda t: self._cast(t, var.dtype)   # noqa: E731
        lr, l1, l2 = cast(self._lr_t), cast(self._l1_t), cast(self._l2_t)
        shrinkage, lr_power = cast(self._l2_shrinkage_t), cast(self._lr_power_t)

        def powered(accum):              # TF's kernels take square roots for -0.5
            return where(equal(lr_power, -0.5), sqrt(accum), power(accum, -lr_power))

        def step(v, accum, linear):
            new_accum = accum + grad * grad
            new_power, old_power = powered(new_accum), powered(accum)
            linear = linear + grad + 2 * shrinkage * v - (new_power - old_power) / lr * v
            quadratic = new_power / lr + 2 * l2
            shrunk = (sign(linear) * l1 - linear) / quadratic
            v = where(greater(absolute(linear), l1), shrunk, zeros_like(linear))
            return v, new_accum, linear

        return update_rows([var, self.get_slot(var, "accum"), self.get_slot(var, "linear")],
                           indices, step, self._use_locking, "SparseApplyFtrl")
