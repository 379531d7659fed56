"""Learning-rate schedules, as TF1's ``tf.train.*_decay``: tensors computed from the global
step each time the optimizer reads them, built from ordinary ops (so they run on any
device and in any session type).

Formulas as TF's (``learning_rate_schedule.py``, which TF1's functions call): the rate's
dtype is the learning rate's, every other argument is cast to it, and ``p = step /
decay_steps`` (floored with ``staircase``):

=========================  ================================================================
``exponential_decay``      ``lr * decay_rate ** p``
``natural_exp_decay``      ``lr * exp(-decay_rate) ** p``
``inverse_time_decay``     ``lr / (1 + decay_rate * p)``
``polynomial_decay``       ``(lr - end) * (1 - p) ** power + end``, the step capped at
                           ``decay_steps`` (``cycle``: ``decay_steps`` grows to the next
                           multiple above the step instead)
``cosine_decay``           ``lr * ((1 - alpha) * (1 + cos(pi * p)) / 2 + alpha)``, the step
                           capped at ``decay_steps``
``piecewise_constant``     ``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]``
=========================  ================================================================
"""

from __future__ import annotations

import math

from ..graph import Tensor, convert_to_tensor, name_scope
from ..ops import (cast, ceil, constant, cos, equal, exp, floor, less_equal, minimum, pow,
                   where)

__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay",
           "polynomial_decay", "cosine_decay", "piecewise_constant"]


def _require_step(global_step, schedule: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {schedule}.")


def _progress(learning_rate, global_step, decay_steps, staircase: bool):
    """(lr tensor, p) with p = step / decay_steps in the rate's dtype, floored if asked."""
    lr = convert_to_tensor(learning_rate, name="learning_rate")
    p = cast(global_step, lr.dtype) / cast(decay_steps, lr.dtype)
    return lr, (floor(p) if staircase else p)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)``."""
    _require_step(global_step, "exponential_decay")
    with name_scope(name or "ExponentialDecay"):
        lr, p = _progress(learning_rate, global_step, decay_steps, staircase)
        return lr * pow(cast(decay_rate, lr.dtype), p)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    _require_step(global_step, "natural_exp_decay")
    with name_scope(name or "NaturalExpDecay"):
        lr, p = _progress(learning_rate, global_step, decay_steps, staircase)
        return lr * pow(exp(-cast(decay_rate, lr.dtype)), p)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    _require_step(global_step, "inverse_time_decay")
    with name_scope(name or "InverseTimeDecay"):
        lr, p = _progress(learning_rate, global_step, decay_steps, staircase)
        return lr / (1 + cast(decay_rate, lr.dtype) * p)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """From ``learning_rate`` to ``end_learning_rate`` in ``decay_steps`` steps along
    ``(1 - p) ** power``; then constant, or (``cycle``) again over a longer period."""
    _require_step(global_step, "polynomial_decay")
    with name_scope(name or "PolynomialDecay"):
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        end = cast(end_learning_rate, lr.dtype)
        step = cast(global_step, lr.dtype)
        steps = cast(decay_steps, lr.dtype)
        if cycle:
            periods = where(equal(step, 0), constant(1.0, lr.dtype), ceil(step / steps))
            steps = steps * periods
        else:
            step = minimum(step, steps)
        return (lr - end) * pow(1 - step / steps, cast(power, lr.dtype)) + end


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """Half a cosine from ``learning_rate`` down to ``alpha * learning_rate`` over
    ``decay_steps`` steps, then constant."""
    _require_step(global_step, "cosine_decay")
    with name_scope(name or "CosineDecay"):
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        steps = cast(decay_steps, lr.dtype)
        done = minimum(cast(global_step, lr.dtype), steps) / steps
        cosine = 0.5 * (1.0 + cos(constant(math.pi, lr.dtype) * done))
        alpha = cast(alpha, lr.dtype)
        return lr * ((1 - alpha) * cosine + alpha)


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` after the last boundary.
    ``ValueError`` unless there is one more value than boundaries, all of one dtype."""
    if len(boundaries) != len(values) - 1:
        raise ValueError(f"The length of boundaries ({len(boundaries)}) should be 1 less "
                         f"than the length of values ({len(values)}).")
    with name_scope(name or "PiecewiseConstant"):
        x = convert_to_tensor(x)
        values = [convert_to_tensor(v) for v in values]
        kinds = {v.dtype.base_dtype for v in values}
        if len(kinds) > 1:
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({', '.join(sorted(d.name for d in kinds))} given).")
        result = values[-1]
        for bound, value in zip(reversed(boundaries), reversed(values[:-1])):
            bound = cast(bound, x.dtype) if isinstance(bound, Tensor) else \
                constant(bound, x.dtype)
            result = where(less_equal(x, bound), value, result)
        return result
