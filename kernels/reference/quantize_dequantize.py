"""Kernels of ``devsession/ops/quantize_dequantize.py``: TF's
``QuantizeAndDequantizeOneScaleFunctor`` (and its per-slice form) over ``xp`` (numpy on
the host, cupy on a GPU), computed in the input's dtype as TF computes it.

For a range ``[lo, hi]`` and integer range ``[qmin, qmax]``: the scale each end allows is
``qmin / lo`` and ``qmax / hi`` (the dtype's max where that end cannot bind: a product
``<= 0``); the smaller wins, its end stays and the other becomes ``q * (1 / scale)``.
Outputs are ``round(x * scale) * inverse_scale`` (half to even, or ``floor(v + 0.5)``
for ``HALF_UP``), ``x`` clamped to the adjusted range first when it was given."""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel


def integer_range(signed: bool, bits: int, narrow: bool) -> tuple[int, int]:
    """The simulated integers' ``[qmin, qmax]``."""
    if signed:
        return -(1 << (bits - 1)) + int(narrow), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _host(value) -> np.ndarray:
    """A range read on the host (cupy arrays copied back, as TF's kernels read them)."""
    return value.get() if hasattr(value, "get") else np.asarray(value)


def _check_bits(node, bits: int, signed: bool) -> None:
    if not 0 < bits < (62 if signed else 63):
        raise invalid_argument(node.name, node.op, f"num_bits is out of range: {bits} with "
                               f"signed_input_ {int(signed)}")


def make_builders(xp, wrap=lambda node, fn: fn) -> dict:
    def scaled(x, lo, hi, qmin, qmax, clamp: bool, half_up: bool):
        """One range's outputs (``lo``/``hi`` scalars of x's dtype)."""
        dtype = x.dtype.type
        big = np.finfo(x.dtype).max
        lo, hi = dtype(lo), dtype(hi)
        from_min = dtype(qmin) / lo if qmin * lo > 0 else big
        from_max = dtype(qmax) / hi if qmax * hi > 0 else big
        if from_min < from_max:
            scale, inverse = dtype(from_min), dtype(lo / dtype(qmin))
            hi = dtype(qmax) * inverse
        else:
            scale, inverse = dtype(from_max), dtype(hi / dtype(qmax))
            lo = dtype(qmin) * inverse
        v = xp.maximum(xp.minimum(x, hi), lo) if clamp else x
        v = v * scale
        rounded = xp.floor(v + dtype(0.5)) if half_up else xp.rint(v)
        return (rounded * inverse).astype(x.dtype)

    def quantize(node, x, lo, hi, bits: int):
        signed = bool(node.attrs.get("signed_input", True))
        given = bool(node.attrs.get("range_given", False))
        axis = int(node.attrs.get("axis", -1))
        half_up = node.attrs.get("round_mode", "HALF_TO_EVEN") in ("HALF_UP", b"HALF_UP")
        _check_bits(node, bits, signed)
        if axis >= x.ndim:
            raise invalid_argument(node.name, node.op, f"Axis requested is larger than input "
                                   f"dimensions. Axis: {axis} Input Dimensions: {x.ndim}")
        qmin, qmax = integer_range(signed, bits, bool(node.attrs.get("narrow_range", False)))
        if x.size == 0:
            return x.copy()
        if axis == -1:
            lo, hi = (_host(lo).item(), _host(hi).item()) if given else \
                (xp.min(x).item(), xp.max(x).item())
            if given and lo > hi:
                raise invalid_argument(node.name, node.op, f"Invalid range: input_min {lo:g} "
                                       f"> input_max {hi:g}")
            return scaled(x, lo, hi, qmin, qmax, given, half_up)
        moved = xp.moveaxis(x, axis, 0)
        depth = moved.shape[0]
        if given:
            for what, r in (("input_min", lo), ("input_max", hi)):
                if np.shape(r) != (depth,):
                    raise invalid_argument(node.name, node.op, f"{what}_tensor has incorrect "
                                           f"size, was {np.size(r)} expected {depth} to "
                                           f"match dim {axis} of the input")
            lows, highs = _host(lo).tolist(), _host(hi).tolist()
        else:
            flat = moved.reshape(depth, -1)
            lows, highs = xp.min(flat, axis=1).tolist(), xp.max(flat, axis=1).tolist()
        out = xp.stack([scaled(moved[i], lows[i], highs[i], qmin, qmax, given, half_up)
                        for i in range(depth)])
        return xp.moveaxis(out, 0, axis)

    def v2(node):
        bits = int(node.attrs.get("num_bits", 8))
        return wrap(node, lambda x, lo, hi: quantize(node, x, lo, hi, bits))

    def v3(node):
        return wrap(node, lambda x, lo, hi, bits: quantize(node, x, lo, hi,
                                                           int(_host(bits).item())))

    def v4_grad(node):
        axis = int(node.attrs.get("axis", -1))

        def gradient(g, x, lo, hi):
            if axis == -1:
                inside = (x >= lo) & (x <= hi)
            else:
                shape = [1] * x.ndim
                shape[axis] = -1
                inside = (x >= xp.reshape(lo, shape)) & (x <= xp.reshape(hi, shape))
            return (xp.where(inside, g, g.dtype.type(0)).astype(g.dtype),
                    xp.zeros_like(lo), xp.zeros_like(hi))
        return wrap(node, gradient)

    return {"QuantizeAndDequantizeV2": v2, "QuantizeAndDequantizeV4": v2,
            "QuantizeAndDequantizeV3": v3, "QuantizeAndDequantizeV4Grad": v4_grad}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
