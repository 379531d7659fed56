"""Kernels of the fake quantization ops and their gradients (``devsession/ops/fake_quant.py``)
over numpy or cupy (``make_builders(xp)``; the GPU's wrap them with ``on_device``), in
float32 as TF's ``fake_quant_ops_functor.h``:

* the range is nudged: ``scale = (max - min) / (qmax - qmin)``, the zero point
  ``qmin - min / scale`` clamped to ``[qmin, qmax]`` and rounded half away from zero,
  ``nudged_min = (qmin - zero) * scale`` and ``nudged_max = (qmax - zero) * scale``
  (``qmin`` 0, or 1 with ``narrow_range``; ``qmax = 2**num_bits - 1``);
* an input is clamped to the nudged range and quantized as TF's functor does:
  ``floor((clamped - nudged_min) * inv_scale - quant_zero + 0.5) * scale`` with
  ``inv_scale = (qmax - qmin) / (max - min)`` and ``quant_zero = floor(-nudged_min *
  inv_scale + 0.5)``;
* the gradients pass where ``nudged_min <= x <= nudged_max``; a Vars gradient's min
  (max) gets the sum of the gradient below (above) the range, per channel for
  PerChannel.
* a Vars range (a PerChannel channel's) with ``min == max == 0`` quantizes to 0.0 and
  passes the whole gradient to the inputs, none to min and max: TF's functors test for it
  before nudging (the nudge would divide 0 by 0).

The Args ops check their attrs as TF's kernels do when built (``min < max``, ``num_bits``
2 to 16: InvalidArgumentError); the Vars ops check ``num_bits``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["make_builders", "nudge"]

F32 = np.float32


def _as_is(node, fn):
    return fn


def _std_round(z: F32) -> F32:
    """C's ``round``: half away from zero."""
    whole = np.trunc(z)
    return F32(whole + np.sign(z)) if abs(z - whole) >= 0.5 else F32(whole)


def nudge(lo, hi, quant_min: int, quant_max: int) -> tuple:
    """``(nudged_min, nudged_max, scale, inv_scale)`` of the float32 range [lo, hi]."""
    lo, hi = F32(lo), F32(hi)
    qmin, qmax = F32(quant_min), F32(quant_max)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = F32((hi - lo) / (qmax - qmin))
        inv_scale = F32((qmax - qmin) / (hi - lo))
        zero_from_min = F32(qmin - lo / scale)
    if zero_from_min < qmin:
        zero = qmin
    elif zero_from_min > qmax:
        zero = qmax
    else:
        zero = _std_round(zero_from_min)
    return F32((qmin - zero) * scale), F32((qmax - zero) * scale), scale, inv_scale


def _levels(node) -> tuple[int, int]:
    bits = int(node.attrs.get("num_bits", 8))
    if not 2 <= bits <= 16:
        raise invalid_argument(node.name, node.op, "num_bits must be between 2 and 16, "
                               "inclusive")
    return (1 if node.attrs.get("narrow_range", False) else 0), (1 << bits) - 1


def _quantize(xp, x, nudged):
    nudged_min, nudged_max, scale, inv_scale = (xp.asarray(v, F32) for v in nudged)
    with np.errstate(invalid="ignore"):     # an empty range's NaNs, as TF gives them
        quant_zero = xp.floor(-nudged_min * inv_scale + F32(0.5))
        shifted = xp.maximum(xp.minimum(x, nudged_max), nudged_min) - nudged_min  # TF's order
        return (xp.floor(shifted * inv_scale - quant_zero + F32(0.5)) * scale).astype(F32)


def _in_range(xp, x, nudged):
    return (x >= xp.asarray(nudged[0], F32)) & (x <= xp.asarray(nudged[1], F32))


def _channel_nudges(node, xp, lo, hi, levels) -> tuple:
    """The four nudged quantities per channel, as float32 vectors."""
    lo, hi = np.asarray(_host(lo), F32).reshape(-1), np.asarray(_host(hi), F32).reshape(-1)
    columns = list(zip(*(nudge(a, b, *levels) for a, b in zip(lo, hi)))) or [()] * 4
    return tuple(np.array(c, F32) for c in columns)


def _host(value):
    return value.get() if hasattr(value, "get") else value


def _zero_range(lo, hi):
    """Where ``min == max == 0`` (a bool, or per channel a bool vector): TF's functors
    give such a range zeros, and its gradient the inputs' whole."""
    return (np.asarray(_host(lo)) == 0) & (np.asarray(_host(hi)) == 0)


def _check_channels(node, x, lo, hi) -> None:
    d = x.shape[-1] if x.ndim else None
    if lo.shape != (d,) or hi.shape != (d,):
        raise invalid_argument(node.name, node.op, f"min and max must be vectors of the "
                               f"inputs' last dimension ({d}), got shapes {lo.shape} and "
                               f"{hi.shape}")


def _args_nudge(node):
    lo, hi = F32(node.attrs.get("min", -6.0)), F32(node.attrs.get("max", 6.0))
    if not lo < hi:
        raise invalid_argument(node.name, node.op, f"min has to be smaller than max, was: "
                               f"{float(lo):g} >= {float(hi):g}")
    return nudge(lo, hi, *_levels(node))


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The six ops' builders over array module ``xp`` (numpy or cupy)."""

    def args(node):
        nudged = _args_nudge(node)
        return wrap(node, lambda x: _quantize(xp, x, nudged))

    def args_gradient(node):
        nudged = _args_nudge(node)
        return wrap(node, lambda g, x: xp.where(_in_range(xp, x, nudged), g,
                                                F32(0)).astype(F32))

    def vars_(node):
        levels = _levels(node)

        def fake_quant(x, lo, hi):
            if _zero_range(lo, hi):
                return xp.zeros_like(x)
            return _quantize(xp, x, nudge(_host(lo), _host(hi), *levels))
        return wrap(node, fake_quant)

    def vars_gradient(node):
        levels = _levels(node)

        def gradient(g, x, lo, hi):
            if _zero_range(lo, hi):
                return g.astype(F32), xp.asarray(0, F32), xp.asarray(0, F32)
            nudged = nudge(_host(lo), _host(hi), *levels)
            below, above = x < xp.asarray(nudged[0], F32), x > xp.asarray(nudged[1], F32)
            return (xp.where(_in_range(xp, x, nudged), g, F32(0)).astype(F32),
                    xp.asarray(xp.where(below, g, F32(0)).sum(), F32),
                    xp.asarray(xp.where(above, g, F32(0)).sum(), F32))
        return wrap(node, gradient)

    def per_channel(node):
        levels = _levels(node)

        def fake_quant(x, lo, hi):
            _check_channels(node, x, lo, hi)
            zero = xp.asarray(_zero_range(lo, hi))
            return xp.where(zero, F32(0), _quantize(xp, x, _channel_nudges(
                node, xp, lo, hi, levels))).astype(F32)
        return wrap(node, fake_quant)

    def per_channel_gradient(node):
        levels = _levels(node)

        def gradient(g, x, lo, hi):
            _check_channels(node, x, lo, hi)
            nudged = _channel_nudges(node, xp, lo, hi, levels)
            low, high = xp.asarray(nudged[0]), xp.asarray(nudged[1])
            # a zero channel's nudged ends are NaN: no input lies below or above them
            zero = xp.asarray(_zero_range(lo, hi))
            flat_g, flat_x = g.reshape(-1, x.shape[-1]), x.reshape(-1, x.shape[-1])
            return (xp.where(zero | ((x >= low) & (x <= high)), g, F32(0)).astype(F32),
                    xp.where(flat_x < low, flat_g, F32(0)).sum(axis=0).astype(F32),
                    xp.where(flat_x > high, flat_g, F32(0)).sum(axis=0).astype(F32))
        return wrap(node, gradient)

    return {"FakeQuantWithMinMaxArgs": args,
            "FakeQuantWithMinMaxArgsGradient": args_gradient,
            "FakeQuantWithMinMaxVars": vars_,
            "FakeQuantWithMinMaxVarsGradient": vars_gradient,
            "FakeQuantWithMinMaxVarsPerChannel": per_channel,
            "FakeQuantWithMinMaxVarsPerChannelGradient": per_channel_gradient}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
