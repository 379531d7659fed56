"""Kernels of ``QuantizeV2`` and ``Dequantize`` (``devsession/ops/quantize.py``) on the host,
in float32 as TF's ``quantize_op.cc`` and ``dequantize_op.cc`` compute them; ``[qmin,
qmax]`` is the quantized type's integer range, ``half`` half its width for a signed type
(128 for qint8), else 0.

QuantizeV2 first widens the range to hold 0 and to be at least ``ensure_minimum_range *
max(1, |min|, |max|)`` wide (``lo = min(0, min)``, ``hi = max(0, max, lo + epsilon)``), then

* ``MIN_COMBINED``: ``round((clamp(x) - lo) * scale - half)`` with ``scale = (qmax - qmin)
  / (hi - lo)`` (half away from zero; an unsigned type adds 0.5 and truncates);
* ``SCALED``: ``scale`` the smaller of ``qmin' / lo`` and ``qmax / hi`` (an end that
  cannot bind: float32's max; ``qmin' = qmin + narrow_range``), the range becomes
  ``[qmin' / scale, qmax / scale]``, and ``round(clamp(x) * scale)``, half away from zero
  or half to even.

Dequantize: ``MIN_COMBINED`` ``(q + half) * (max - min) / (qmax - qmin) + min``;
``SCALED`` ``q * scale``, ``scale = max / qmax`` for an unsigned type, else the larger of
``min / qmin'`` and ``max / qmax``.  With ``axis`` each slice of that dimension has its
range.  The quantized values are TF's structured numpy dtypes (``dtypes.qint8.np``).
"""

from __future__ import annotations

import numpy as np

from devsession.errors import UnimplementedError

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = []

F32 = np.float32


def _attr(node, name: str, default):
    value = node.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else value


def _integers(dtype: np.dtype) -> tuple[int, int, np.dtype]:
    """``(qmin, qmax, base)`` of a quantized numpy dtype (its one field's integer type)."""
    base = dtype[0]
    info = np.iinfo(base)
    return int(info.min), int(info.max), base


def _half(qmin: int, qmax: int) -> F32:
    return F32(0) if qmin == 0 else F32((F32(qmax) - F32(qmin) + F32(1)) / F32(2))


def _round_away(v: np.ndarray) -> np.ndarray:
    """C's ``round``: half away from zero (``v - trunc(v)`` is exact in float32)."""
    whole = np.trunc(v)
    return whole + np.where(np.abs(v - whole) >= F32(0.5), np.sign(v), F32(0))


def _slices(node, x, lo, hi, axis: int, what: str):
    """The ranges as float32 arrays broadcasting against ``x`` (scalars without an
    axis, else one per slice of dimension ``axis``); TF's errors for wrong sizes."""
    lo, hi = np.asarray(lo, F32), np.asarray(hi, F32)
    if axis == -1:
        for r, name in ((lo, "min_range"), (hi, "max_range")):
            if r.size != 1:
                raise invalid_argument(node.name, node.op, what.format(name=name, n=r.size))
        return lo.reshape(()), hi.reshape(())
    if axis >= x.ndim:
        raise invalid_argument(node.name, node.op, f"Axis is on a zero-based index, so its "
                               f"value must always be less than number of input's dims, "
                               f"but given axis value was {axis} and input's dims was "
                               f"{x.ndim}")
    depth = x.shape[axis]
    for r, name in ((lo, "min_range"), (hi, "max_range")):
        if r.shape != (depth,):
            raise invalid_argument(node.name, node.op, f"{name} must be a 1-D tensor of "
                                   f"the input's axis {axis} dimension ({depth}), got shape "
                                   f"{list(r.shape)}")
    shape = (depth,) + (1,) * (x.ndim - axis - 1)
    return lo.reshape(shape), hi.reshape(shape)


@register_kernel("QuantizeV2", HOST)
def quantize_builder(node):
    mode = _attr(node, "mode", "MIN_COMBINED")
    round_mode = _attr(node, "round_mode", "HALF_AWAY_FROM_ZERO")
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise invalid_argument(node.name, node.op, f"Round mode 'HALF_TO_EVEN' only "
                               f"supported for mode 'SCALED', but mode is '{mode}'.")
    out = np.dtype(node.output_dtypes[0])
    qmin, qmax, base = _integers(out)
    narrow = bool(node.attrs.get("narrow_range", False))
    axis = int(node.attrs.get("axis", -1))
    ensure = F32(node.attrs.get("ensure_minimum_range", 0.01))

    def run(x, lo_in, hi_in):
        if mode == "MIN_FIRST":
            raise UnimplementedError(f"{node.op} node '{node.name}': mode 'MIN_FIRST' is not "
                                     f"implemented by devsession (MIN_COMBINED and SCALED "
                                     f"are)", node_name=node.name)
        x = np.asarray(x, F32)
        lo_in, hi_in = _slices(node, x, lo_in, hi_in, axis, "If axis is not specified, "
                               "{name} must contain a single float element, but it "
                               "contains {n} elements")
        if (hi_in < lo_in).any():
            raise invalid_argument(node.name, node.op, "input_max_range must be larger "
                                   "than input_min_range.")
        lo = np.minimum(F32(0), lo_in)
        epsilon = np.maximum(F32(1), np.maximum(np.abs(lo_in), np.abs(hi_in))) * ensure
        hi = np.maximum(F32(0), np.maximum(hi_in, lo + epsilon))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if mode == "MIN_COMBINED":
                scale = (np.float64(qmax - qmin) / (hi - lo).astype(np.float64)).astype(F32)
                shifted = (np.minimum(np.maximum(x, lo), hi) - lo) * scale
                if qmin < 0:
                    q = _round_away(shifted - _half(qmin, qmax))
                else:
                    q = np.trunc(shifted + F32(0.5))
            else:
                low = qmin + int(narrow)
                big = F32(np.finfo(F32).max)
                from_min = np.where(F32(low) * lo > 0, F32(low) / lo, big)
                from_max = np.where(F32(qmax) * hi > 0, F32(qmax) / hi, big)
                scale = np.minimum(from_min, from_max).astype(F32)
                lo, hi = (F32(low) / scale).astype(F32), (F32(qmax) / scale).astype(F32)
                v = np.minimum(np.maximum(x, lo), hi) * scale
                q = np.rint(v) if round_mode == "HALF_TO_EVEN" else _round_away(v)
        shape = () if axis == -1 else (lo.size,)
        with np.errstate(invalid="ignore"):     # qint32's 2**31 wraps, as TF's cast does
            q = np.clip(q, qmin, qmax).astype(base)
        return (q.view(out),
                np.asarray(lo, F32).reshape(shape), np.asarray(hi, F32).reshape(shape))
    return run


@register_kernel("Dequantize", HOST)
def dequantize_builder(node):
    mode = _attr(node, "mode", "MIN_COMBINED")
    qmin, qmax, base = _integers(np.dtype(node.input_dtypes[0]))
    narrow = bool(node.attrs.get("narrow_range", False))
    axis = int(node.attrs.get("axis", -1))

    def run(q, lo, hi):
        if mode == "MIN_FIRST":
            raise UnimplementedError(f"{node.op} node '{node.name}': mode 'MIN_FIRST' is not "
                                     f"implemented by devsession (MIN_COMBINED and SCALED "
                                     f"are)", node_name=node.name)
        values = np.asarray(q).view(base).astype(F32)
        lo, hi = _slices(node, values, lo, hi, axis, "input_{name} must have as many "
                         "elements as input on the dequantization axis (-1), got {n}, "
                         "expected 1")
        with np.errstate(divide="ignore", invalid="ignore"):
            if mode == "MIN_COMBINED":
                scale = (hi - lo) / (F32(qmax) - F32(qmin))
                return ((values + _half(qmin, qmax)) * scale + lo).astype(F32)
            if qmin == 0:
                scale = hi / F32(qmax)
            else:
                scale = np.maximum(lo / F32(qmin + int(narrow)), hi / F32(qmax))
            return (values * scale).astype(F32)
    return run
