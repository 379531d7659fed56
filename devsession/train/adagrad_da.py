"""``AdagradDAOptimizer``, TF1's Adagrad dual averaging (Duchi et al. 2011), for sparse
linear models: per variable the slots ``gradient_accumulator`` (``<var>/AdagradDA``,
zeros) and ``gradient_squared_accumulator`` (``<var>/AdagradDA_1``, starting at
``initial_gradient_squared_accumulator_value``); a step is TF's ApplyAdagradDA
(``devsession/ops/training.py`` has the formula), the variable recomputed from the
slots at step ``t``, the value of ``global_step`` plus one read before the step (pass
the same variable to ``minimize(global_step=)`` to count the steps).  So a row an
embedding's batch leaves out (SparseApplyAdagradDA: only the batch's rows change) takes
its L1/L2 regularization at its next update, in closed form.
"""

from __future__ import annotations

from ..ops.array import identity
from ..ops.sparse_training import sparse_apply
from ..ops.training import apply_adagrad_da
from ..graph import convert_to_tensor
from .optimizer import Optimizer

__all__ = ["AdagradDAOptimizer"]


class AdagradDAOptimizer(Optimizer):
    def __init__(self, learning_rate, global_step,
                 initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:   # the first step's root
            raise ValueError(f"initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_value = initial_gradient_squared_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._global_step = global_step

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._filled_slot(v, "gradient_squared_accumulator", self._name,
                              self._initial_value)

    def _prepare(self):
        self._lr_t = self._hyper(self._learning_rate, "learning_rate")
        # TF's step count: the global step read once per train op, plus one
        self._step_t = identity(convert_to_tensor(self._global_step)) + 1

    def _scalars(self, dtype) -> list:
        return [self._cast(t, dtype) for t in (self._lr_t, self._l1, self._l2)]

    def _slots_of(self, var) -> list:
        return [self.get_slot(var, "gradient_accumulator"),
                self.get_slot(var, "gradient_squared_accumulator")]

    def _apply_dense(self, grad, var):
        return apply_adagrad_da(var, *self._slots_of(var), grad, *self._scalars(var.dtype),
                                identity(self._step_t), use_locking=self._use_locking)

    def _apply_sparse(self, grad, indices, var):
        return sparse_apply("SparseApplyAdagradDA", var, *self._slots_of(var), grad, indices,
                            *self._scalars(var.dtype), identity(self._step_t),
                            use_locking=self._use_locking)
