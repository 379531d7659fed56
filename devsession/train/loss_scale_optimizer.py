"""``MixedPrecisionLossScaleOptimizer`` (TF1's ``tf.compat.v1.mixed_precision``): wraps
an optimizer so that its gradients are of the loss times a loss scale, divided back
before they are applied, and with a dynamic loss scale, skips the steps whose gradients
overflowed; and ``enable_mixed_precision_graph_rewrite(opt)``, which wraps ``opt`` so.

Built as TF builds it: ``compute_gradients`` scales the loss by ``loss_scale()`` and
multiplies each gradient (an IndexedSlices' values) by ``1 / loss_scale()``;
``apply_gradients`` with a dynamic scale is ``group(cond(finite, apply, no_op),
loss_scale_update)`` named after the optimizer, the wrapped optimizer's updates named
``<name>-wrapped`` (so a skipped step neither moves a variable nor counts the global
step); with a fixed scale it is the wrapped optimizer's ``apply_gradients``.

TF's graph rewrite turns float32 ops into float16 ones on a GPU; devsession keeps the
graph's float32 (``auto_mixed_precision`` is recorded in ``tf.config.optimizer``'s
options, for TF's answer), so the wrapping is what changes: loss scaling applies.
"""

from __future__ import annotations

from ..indexed_slices import IndexedSlices
from ..ops.control_flow import cond
from ..ops.elementwise import cast
from ..ops.state import group, no_op
from ..process_settings import set_experimental_options
from . import loss_scale as loss_scale_module
from .optimizer import Optimizer

__all__ = ["MixedPrecisionLossScaleOptimizer", "enable_mixed_precision_graph_rewrite",
           "disable_mixed_precision_graph_rewrite"]


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """``opt`` with loss scaling (see the module docstring); ``loss_scale`` is a
    LossScale, a number (fixed) or "dynamic"."""

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, Optimizer):
            raise ValueError(f'"opt" must be an instance of Optimizer, but got: {type(opt)}')
        self._optimizer = opt
        super().__init__(opt._use_locking, opt.get_name())
        self._loss_scale = loss_scale_module.get(loss_scale)
        if self._loss_scale is None:
            raise ValueError("loss_scale cannot be None")

    def _doing_dynamic_loss_scaling(self) -> bool:
        return isinstance(self._loss_scale, loss_scale_module.DynamicLossScale)

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None) -> list:
        """The wrapped optimizer's gradients of ``loss * loss_scale``, divided by it."""
        scaled = loss * _as(self._loss_scale(), loss.dtype)
        pairs = self._optimizer.compute_gradients(
            scaled, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        reciprocal = 1 / self._loss_scale()
        return [(None if g is None else _scaled(g, reciprocal), v) for g, v in pairs]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Apply the gradients where all are finite (a dynamic scale) and move the loss
        scale; with a fixed one, the wrapped optimizer's apply_gradients."""
        if not self._doing_dynamic_loss_scaling():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        name = name if name is not None else self.get_name()
        grads_and_vars = tuple(grads_and_vars)
        update_scale, should_apply = self._loss_scale.update([g for g, _ in grads_and_vars])
        applied = cond(should_apply,
                       lambda: self._optimizer.apply_gradients(grads_and_vars, global_step,
                                                               f"{name}-wrapped"),
                       no_op)
        return group(applied, update_scale, name=name)

    def variables(self) -> list:
        """The wrapped optimizer's variables and the loss scale's."""
        return self._optimizer.variables() + list(self._loss_scale._weights.values())


def _as(tensor, dtype):
    """``tensor`` in ``dtype``: itself when it is (TF's cast adds no op then)."""
    return tensor if tensor.dtype == dtype else cast(tensor, dtype)


def _scaled(grad, factor):
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(grad.values * _as(factor, grad.values.dtype), grad.indices,
                             grad.dense_shape)
    return grad * _as(factor, grad.dtype)


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """``opt`` wrapped in a MixedPrecisionLossScaleOptimizer (TF1's
    ``tf.train.experimental.enable_mixed_precision_graph_rewrite``); ``opt`` already
    wrapped is ValueError, as TF's."""
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a '
                         'MixedPrecisionLossScaleOptimizer. `enable_mixed_precision_graph_'
                         'rewrite` will automatically wrap the optimizer with a '
                         'MixedPrecisionLossScaleOptimizer.')
    if not isinstance(opt, Optimizer):
        raise ValueError(f'"opt" must be an instance of a tf.train.Optimizer or a '
                         f'tf.keras.optimizers.Optimizer, but got: {opt}')
    wrapped = MixedPrecisionLossScaleOptimizer(opt, loss_scale)
    set_experimental_options({"auto_mixed_precision": True})
    return wrapped


def disable_mixed_precision_graph_rewrite():
    """Record the rewrite as off (TF's switch; loss scaling already built stays)."""
    set_experimental_options({"auto_mixed_precision": False})
