"""``AdamOptimizer``, TF1's ApplyAdam (Kingma & Ba, section 2, with TF's epsilon).

Per variable two slots, ``m`` (``<var>/Adam``) and ``v`` (``<var>/Adam_1``); per graph
two non-trainable scalars, ``beta1_power`` and ``beta2_power`` (beta1**t, beta2**t,
starting at beta1 and beta2), on the device of the first variable by name.  The betas
and epsilon may be tensors or variables, as TF's (the powers' initializers read them).  A step:

    lr_t = learning_rate * sqrt(1 - beta2_power) / (1 - beta1_power)
    m = beta1 * m + (1 - beta1) * g        (computed as TF does: m += (g - m) * (1 - beta1))
    v = beta2 * v + (1 - beta2) * g * g
    var -= lr_t * m / (sqrt(v) + epsilon)

and, after every variable's update, ``beta1_power *= beta1``, ``beta2_power *= beta2``.
"""

from __future__ import annotations

from ..graph import Tensor, control_dependencies, device, get_default_graph
from ..ops.training import apply_adam
from ..variables import Variable
from .optimizer import Optimizer, group_after

__all__ = ["AdamOptimizer"]


def _initial(beta):
    """A beta power's initial value, as TF's: the beta itself, a float or whatever TF1
    takes as a variable's initial value (a tensor, a Variable, a callable)."""
    return beta if isinstance(beta, (Tensor, Variable)) or callable(beta) else float(beta)


class AdamOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _beta_accumulators(self, graph):
        return (self._get_non_slot_variable("beta1_power", graph),
                self._get_non_slot_variable("beta2_power", graph))

    def _get_beta_accumulators(self):
        """TF1's ``(beta1_power, beta2_power)`` of the default graph, which training
        scripts log or reset (None before ``minimize`` made them)."""
        return self._beta_accumulators(get_default_graph())

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda v: v.name)
        self._non_slot_variable(_initial(self._beta1), "beta1_power", first)
        self._non_slot_variable(_initial(self._beta2), "beta2_power", first)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = self._hyper(self._lr, "learning_rate")
        self._beta1_t = self._hyper(self._beta1, "beta1")
        self._beta2_t = self._hyper(self._beta2, "beta2")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad, var):
        beta1_power, beta2_power = self._beta_accumulators(var.graph)
        d = var.dtype
        return apply_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"),
                          self._cast(beta1_power, d), self._cast(beta2_power, d),
                          self._cast(self._lr_t, d), self._cast(self._beta1_t, d),
                          self._cast(self._beta2_t, d), self._cast(self._epsilon_t, d), grad,
                          use_locking=self._use_locking).op

    def _finish(self, update_ops, name):
        beta1_power, beta2_power = self._beta_accumulators(self._variables_graph)
        with control_dependencies(update_ops), device(None), device(beta1_power.device or None):
            update_beta1 = beta1_power.assign(beta1_power * self._beta1_t, name="Assign")
            update_beta2 = beta2_power.assign(beta2_power * self._beta2_t, name="Assign")
        return group_after(update_ops + [update_beta1.op, update_beta2.op], name)
