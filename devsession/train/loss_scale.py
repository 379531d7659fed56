"""Loss scales (TF1's ``tf.compat.v1.mixed_precision.LossScale`` family): the multiplier
``MixedPrecisionLossScaleOptimizer`` scales a loss by and divides its gradients by, so
that float16 gradients do not underflow.

* ``FixedLossScale(s)``: always ``s``; its update does nothing and always applies.
* ``DynamicLossScale(initial_loss_scale=2**15, increment_period=2000, multiplier=2)``:
  variables ``current_loss_scale`` (float32) and ``good_steps`` (int64), not trainable.
  Its update, built as TF builds it (conds in the graph): with every gradient finite,
  count a good step, and after ``increment_period`` of them multiply the scale (if the
  product stays finite) and count again from 0; with a NaN or an infinity anywhere,
  divide the scale (never below 1), count from 0, and tell the optimizer not to apply
  that step's gradients.

``get(identifier)``: a number is a FixedLossScale, "dynamic" a DynamicLossScale, a
LossScale itself, None None; anything else is ValueError.
"""

from __future__ import annotations

import abc

from .. import dtypes, nest
from ..graph import convert_to_tensor
from ..ops.array import stack
from ..ops.control_flow import cond
from ..ops.elementwise import is_finite, maximum
from ..ops.reduce import reduce_all
from ..ops.state import group, no_op
from ..variables import Variable

__all__ = ["LossScale", "FixedLossScale", "DynamicLossScale", "get"]


class LossScale(metaclass=abc.ABCMeta):
    """A loss scale: called, the scale as a float32 scalar tensor; ``update(grads)``,
    the op that moves it and whether to apply ``grads`` (a bool or a bool tensor)."""

    def __init__(self):
        self._weights: dict = {}

    @abc.abstractmethod
    def __call__(self):
        """The loss scale, a float32 scalar tensor."""

    @abc.abstractmethod
    def update(self, grads):
        """``(update_op, should_apply_gradients)`` for the (unscaled) ``grads``."""

    def _add_weight(self, name: str, initial_value, dtype):
        if name in self._weights:
            raise RuntimeError(f"Duplicate variables detected. {name}")
        variable = Variable(initial_value, name=name, dtype=dtype, trainable=False)
        self._weights[name] = variable
        return variable

    def get_config(self) -> dict:
        """The constructor's arguments."""

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


class FixedLossScale(LossScale):
    """A loss scale that never changes."""

    def __init__(self, loss_scale_value):
        super().__init__()
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self):
        return convert_to_tensor(self._loss_scale_value)

    def update(self, grads):
        del grads
        return no_op(), True

    def __repr__(self):
        return f"FixedLossScale({self._loss_scale_value})"

    def get_config(self) -> dict:
        return {"loss_scale_value": self._loss_scale_value}


def _all_finite(grads):
    values = [getattr(g, "values", g) for g in grads if g is not None]   # IndexedSlices too
    return reduce_all(stack([reduce_all(is_finite(v)) for v in values]))


def _assign_if_finite(variable, value):
    return cond(is_finite(value), lambda: variable.assign(value).op, no_op)


class DynamicLossScale(LossScale):
    """A loss scale that grows while gradients stay finite and shrinks when they do not
    (see the module docstring)."""

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.):
        super().__init__()
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._add_weight(
            "current_loss_scale", self._initial_loss_scale, dtypes.float32)
        self._num_good_steps = self._add_weight("good_steps", 0, dtypes.int64)

    @property
    def initial_loss_scale(self) -> float:
        return self._initial_loss_scale

    @property
    def increment_period(self) -> int:
        return self._increment_period

    @property
    def multiplier(self) -> float:
        return self._multiplier

    def __call__(self):
        return convert_to_tensor(self._current_loss_scale)

    def update(self, grads):
        finite = _all_finite(nest.flatten(grads))
        scale, good_steps = self._current_loss_scale, self._num_good_steps

        def grown():
            return group(_assign_if_finite(scale, scale * self._multiplier),
                         good_steps.assign(0))

        def on_finite():
            return cond(good_steps + 1 >= self._increment_period, grown,
                        lambda: good_steps.assign_add(1).op)

        def on_overflow():
            return group(good_steps.assign(0),
                         scale.assign(maximum(scale / self._multiplier, 1.0)))

        return cond(finite, on_finite, on_overflow), finite

    def __repr__(self):
        return (f"DynamicLossScale(initial_loss_scale={self._initial_loss_scale}, "
                f"increment_period={self._increment_period}, multiplier={self._multiplier})")

    def get_config(self) -> dict:
        return {"initial_loss_scale": self._initial_loss_scale,
                "increment_period": self._increment_period, "multiplier": self._multiplier}


def get(identifier):
    """A loss scale from a number, "dynamic", a LossScale or None (see the module
    docstring)."""
    if isinstance(identifier, (int, float)) and not isinstance(identifier, bool):
        return FixedLossScale(identifier)
    if identifier == "dynamic":
        return DynamicLossScale()
    if isinstance(identifier, LossScale) or identifier is None:
        return identifier
    raise ValueError(f"Could not interpret loss scale identifier: {identifier}")
