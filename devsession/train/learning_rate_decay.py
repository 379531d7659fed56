"""Learning-rate schedules, as TF1's ``tf.train.*_decay``: tensors computed from the global
step each time the optimizer reads them, built from ordinary ops (so they run on any
device and in any session type).

Formulas and nodes as TF's (``learning_rate_schedule.py``, which TF1's functions call):
the rate's dtype is the learning rate's, every other argument is cast to it, ``p = step /
decay_steps`` (floored with ``staircase``), and the result is the scope's own node
(``ExponentialDecay:0``, ``PolynomialDecay:0``, ``SGDRDecay:0``...; ``natural_exp_decay``
is TF's ``ExponentialDecay`` of ``exp(-decay_rate)``, ``cosine_decay``'s is
``CosineDecay/Mul_3:0``, ``piecewise_constant``'s a ``where``, not TF's ``case``):

=========================  ================================================================
``exponential_decay``      ``lr * decay_rate ** p``
``natural_exp_decay``      ``lr * exp(-decay_rate) ** p``
``inverse_time_decay``     ``lr / (1 + decay_rate * p)``
``polynomial_decay``       ``(lr - end) * (1 - p) ** power + end``, the step capped at
                           ``decay_steps`` (``cycle``: ``decay_steps`` grows to the next
                           multiple above the step instead)
``cosine_decay``           ``lr * ((1 - alpha) * (1 + cos(pi * p)) / 2 + alpha)``, the step
                           capped at ``decay_steps``
``cosine_decay_restarts``  SGDR: ``cosine_decay`` over periods of ``first_decay_steps``,
                           each ``t_mul`` times longer and ``m_mul`` times lower
``linear_cosine_decay``    ``lr * ((alpha + linear) * cosine + beta)``, ``linear`` falling
                           from 1 to 0 over ``decay_steps``, ``cosine`` over
                           ``num_periods``
``noisy_linear_cosine_decay``  the same with Gaussian noise on ``linear`` whose variance
                           ``initial_variance / (1 + step) ** variance_decay`` decays
``piecewise_constant``     ``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]``
=========================  ================================================================
"""

from __future__ import annotations

import math

from ..dtypes import int32, int64
from ..graph import convert_to_tensor, name_scope
from ..ops import (add, cast, ceil, cond, constant, cos, divide, equal, exp, floor, less_equal,
                   log, minimum, multiply, negative, pow, random_normal, sqrt, where)

__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay",
           "polynomial_decay", "cosine_decay", "cosine_decay_restarts", "linear_cosine_decay",
           "noisy_linear_cosine_decay", "piecewise_constant"]


def _require_step(global_step, schedule: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {schedule}.")


def _progress(learning_rate, global_step, decay_steps, decay_rate, staircase: bool):
    """(lr, decay_rate, p) in the rate's dtype, cast in TF's order, with p = step /
    decay_steps floored if asked."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    decay_steps = cast(decay_steps, lr.dtype)
    decay_rate = cast(decay_rate, lr.dtype)
    p = cast(global_step, lr.dtype) / decay_steps
    return lr, decay_rate, (floor(p) if staircase else p)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)``; the result is the
    scope's own node (``ExponentialDecay:0``), as TF's."""
    _require_step(global_step, "exponential_decay")
    with name_scope(name or "ExponentialDecay") as scope:
        lr, decay_rate, p = _progress(learning_rate, global_step, decay_steps, decay_rate,
                                      staircase)
        return multiply(lr, pow(decay_rate, p), name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``: as TF 2.21 builds
    it, ``exp(-decay_rate)`` (outside any scope) given to ``exponential_decay``, so the
    result is ``ExponentialDecay:0`` unless ``name`` is given."""
    _require_step(global_step, "natural_exp_decay")
    if isinstance(decay_rate, int):
        decay_rate = float(decay_rate)          # TF's exp would refuse an int32
    natural_rate = exp(negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, natural_rate,
                             staircase, name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    _require_step(global_step, "inverse_time_decay")
    with name_scope(name or "InverseTimeDecay") as scope:
        lr, decay_rate, p = _progress(learning_rate, global_step, decay_steps, decay_rate,
                                      staircase)
        denominator = add(cast(constant(1), lr.dtype), multiply(decay_rate, p))
        return divide(lr, denominator, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """From ``learning_rate`` to ``end_learning_rate`` in ``decay_steps`` steps along
    ``(1 - p) ** power``; then constant, or (``cycle``) again over a longer period."""
    _require_step(global_step, "polynomial_decay")
    with name_scope(name or "PolynomialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        end = cast(end_learning_rate, lr.dtype)
        power = cast(power, lr.dtype)
        step = cast(global_step, lr.dtype)
        steps = cast(decay_steps, lr.dtype)
        if cycle:
            periods = where(equal(step, 0), constant(1.0, lr.dtype),
                            ceil(step / cast(decay_steps, lr.dtype)))
            steps = multiply(steps, periods)
        else:
            step = minimum(step, steps)
        p = divide(step, steps)
        return add(multiply(lr - end, pow(1 - p, power)), end, name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """Half a cosine from ``learning_rate`` down to ``alpha * learning_rate`` over
    ``decay_steps`` steps, then constant.  TF names no node after the scope here: the
    result is ``CosineDecay/Mul_3:0``."""
    _require_step(global_step, "cosine_decay")
    with name_scope(name or "CosineDecay"):
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        steps = cast(decay_steps, lr.dtype)
        done = minimum(cast(global_step, lr.dtype), steps) / steps
        cosine = 0.5 * (1.0 + cos(constant(math.pi, lr.dtype) * done))
        if not isinstance(alpha, (int, float)):       # TF's Python arithmetic otherwise
            alpha = cast(alpha, lr.dtype)
        return multiply(lr, (1 - alpha) * cosine + alpha)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0,
                          m_mul=1.0, alpha=0.0, name=None):
    """Cosine decay with warm restarts (SGDR): the i-th period lasts ``first_decay_steps
    * t_mul**i`` steps and starts from ``learning_rate * m_mul**i``."""
    _require_step(global_step, "cosine_decay_restarts")
    with name_scope(name or "SGDRDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        first_decay_steps = cast(first_decay_steps, dtype)
        alpha, t_mul, m_mul = (cast(v, dtype) for v in (alpha, t_mul, m_mul))
        fraction = cast(global_step, dtype) / first_decay_steps

        def evenly():                   # t_mul == 1: periods of equal length
            restart = floor(fraction)
            return restart, fraction - restart

        def geometrically():
            restart = floor(log(1.0 - fraction * (1.0 - t_mul)) / log(t_mul))
            done = (1.0 - pow(t_mul, restart)) / (1.0 - t_mul)
            return restart, (fraction - done) / pow(t_mul, restart)

        restart, done = cond(equal(t_mul, 1.0), evenly, geometrically)
        cosine = 0.5 * pow(m_mul, restart) * (1.0 + cos(constant(math.pi, dtype) * done))
        return multiply(lr, (1 - alpha) * cosine + alpha, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """``lr * ((alpha + linear) * cosine + beta)`` with ``linear = (decay_steps - step) /
    decay_steps`` and ``cosine`` a cosine over ``num_periods`` periods, the step capped
    at ``decay_steps``."""
    _require_step(global_step, "linear_cosine_decay")
    with name_scope(name or "LinearCosineDecay") as scope:
        lr, linear, cosine, alpha, beta = _linear_cosine(
            learning_rate, global_step, decay_steps, num_periods, alpha, beta)[:5]
        return multiply(lr, (alpha + linear) * cosine + beta, name=scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """``linear_cosine_decay`` with noise of variance ``initial_variance / (1 + step) **
    variance_decay`` added to ``linear`` (a new draw each time the rate is computed)."""
    _require_step(global_step, "noisy_linear_cosine_decay")
    with name_scope(name or "NoisyLinearCosineDecay") as scope:
        lr, linear, cosine, alpha, beta, step = _linear_cosine(
            learning_rate, global_step, decay_steps, num_periods, alpha, beta)
        variance = cast(initial_variance, lr.dtype) / pow(1.0 + step,
                                                          cast(variance_decay, lr.dtype))
        noisy = linear + random_normal((), stddev=sqrt(variance), dtype=lr.dtype)
        return multiply(lr, (alpha + noisy) * cosine + beta, name=scope)


def _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta):
    """(lr, linear, cosine, alpha, beta, the capped step) in the rate's dtype."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    dtype = lr.dtype
    steps = cast(decay_steps, dtype)
    step = minimum(cast(global_step, dtype), steps)
    linear = (steps - step) / steps
    fraction = 2.0 * cast(num_periods, dtype) * (step / steps)
    cosine = 0.5 * (1.0 + cos(constant(math.pi, dtype) * fraction))
    return lr, linear, cosine, cast(alpha, dtype), cast(beta, dtype), step


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` after the last boundary.

    As TF's: each boundary is a tensor of its own dtype (a Python int an int32, a float a
    float32), which must be ``x``'s, except that int32 boundaries are cast to an int64
    ``x``; the values must share one dtype; and there must be one more value than
    boundaries. Each rule broken is TF's ``ValueError``, checked in TF's order."""
    with name_scope(name or "PiecewiseConstant"):
        x = convert_to_tensor(x)
        bounds = []
        for bound in boundaries:
            bound = convert_to_tensor(bound)
            if bound.dtype.base_dtype != x.dtype.base_dtype:
                if not (bound.dtype.base_dtype == int32 and x.dtype.base_dtype == int64):
                    raise ValueError(f"Boundaries ({bound.dtype.base_dtype}) must have the "
                                     f"same dtype as x ({x.dtype.base_dtype}).")
                bound = cast(bound, x.dtype.base_dtype)
            bounds.append(bound)
        values = [convert_to_tensor(v) for v in values]
        for value in values[1:]:
            if value.dtype.base_dtype != values[0].dtype.base_dtype:
                raise ValueError(f"Values must have elements all with the same dtype "
                                 f"({values[0].dtype.base_dtype} vs "
                                 f"{value.dtype.base_dtype}).")
        if len(bounds) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             "values")
        result = values[-1]
        for bound, value in zip(reversed(bounds), reversed(values[:-1])):
            result = where(less_equal(x, bound), value, result)
        return result
