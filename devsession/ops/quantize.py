"""``tf.quantization.quantize`` and ``dequantize``: TF's ``QuantizeV2`` and ``Dequantize``,
float32 to a quantized type (``qint8``, ``quint8``, ``qint16``, ``quint16``, ``qint32``)
and back, as an exported int8 model stores its weights.

* ``QuantizeV2(input, min_range, max_range)`` -> ``(output, output_min, output_max)``,
  attrs ``T``, ``mode`` (``MIN_COMBINED``, ``MIN_FIRST``, ``SCALED``), ``round_mode``
  (``HALF_AWAY_FROM_ZERO``, ``HALF_TO_EVEN``: only with ``SCALED``), ``narrow_range``,
  ``axis`` (-1: one range; else one per slice of that dimension) and
  ``ensure_minimum_range``; the range actually used comes back in ``output_min/max``.
* ``Dequantize(input, min_range, max_range)`` -> float32, attrs ``mode``,
  ``narrow_range``, ``axis`` and ``dtype`` (float32: devsession has no bfloat16).

The kernels (``kernels/reference/quantize.py``) follow TF's ``quantize_op.cc`` and
``dequantize_op.cc`` in float32; ``MIN_FIRST`` is not implemented (UnimplementedError
when run).  No gradients, as TF registers none.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["quantize", "dequantize", "QUANTIZE_OPS"]

MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
ROUND_MODES = ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN")
QUANTIZE_OPS = ("QuantizeV2", "Dequantize")
QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])


def _one_of(attrs, name: str, allowed: tuple, default: str, node) -> None:
    value = attrs.get(name, default)
    value = value.decode() if isinstance(value, bytes) else value
    if value not in allowed:
        quoted = ", ".join(f'"{a}"' for a in allowed)
        raise InferError(f"Attr '{name}' of '{node}' passed string '{value}' not in: "
                         f"{quoted}.")


def _ranges(x, lo, hi, axis: int, node) -> TensorShape:
    """TF's shape function: scalar ranges, or with ``axis`` vectors as long as that
    dimension of the input; the shape of the outputs' ranges."""
    if axis < -1:
        raise InferError(f"axis should be at least -1, got {axis} ('{node}').")
    for spec, what in ((lo, "min_range"), (hi, "max_range")):
        if spec.dtype != dtypes.float32:
            raise TypeError(f"Op '{node}': {what} must be float32, not {spec.dtype.name}.")
        want = 0 if axis == -1 else 1
        if spec.shape.ndims is not None and spec.shape.ndims != want:
            raise InferError(f"Shape must be rank {want} but is rank {spec.shape.ndims} "
                             f"for '{node}' ({what}).")
    if axis == -1:
        return TensorShape([])
    rank = x.shape.ndims
    if rank is not None and rank < axis + 1:
        raise InferError(f"Shape must be at least rank {axis + 1} but is rank {rank} for "
                         f"'{node}'.")
    depth = x.shape.dims[axis] if rank is not None else None
    for spec in (lo, hi):
        if spec.shape.ndims == 1 and spec.shape.dims[0] is not None:
            if depth is not None and depth != spec.shape.dims[0]:
                raise InferError(f"Dimensions must be equal, but are {spec.shape.dims[0]} "
                                 f"and {depth} for '{node}'.")
            depth = spec.shape.dims[0]
    return TensorShape([depth])


def _quantized(dtype, node, what: str) -> None:
    if dtype not in dtypes.QUANTIZED:
        raise TypeError(f"Op '{node}': value passed to parameter '{what}' has DataType "
                        f"{dtype.name} not in list of allowed values: "
                        f"{', '.join(d.name for d in dtypes.QUANTIZED)}.")


def _infer_quantize(inputs, attrs, node):
    x, lo, hi = inputs
    if x.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': input must be float32, not {x.dtype.name}.")
    out = dtypes.as_dtype(attrs["T"])
    _quantized(out, node, "T")
    _one_of(attrs, "mode", MODES, "MIN_COMBINED", node)
    _one_of(attrs, "round_mode", ROUND_MODES, "HALF_AWAY_FROM_ZERO", node)
    minmax = _ranges(x, lo, hi, int(attrs.get("axis", -1)), node)
    return [(out, x.shape), (dtypes.float32, minmax), (dtypes.float32, minmax)]


def _infer_dequantize(inputs, attrs, node):
    x, lo, hi = inputs
    _quantized(x.dtype, node, "T")
    out = dtypes.as_dtype(attrs.get("dtype", dtypes.float32))
    if out != dtypes.float32:
        raise TypeError(f"Op '{node}': dtype must be float32 (devsession has no bfloat16), "
                        f"not {out.name}.")
    _one_of(attrs, "mode", MODES, "MIN_COMBINED", node)
    _ranges(x, lo, hi, int(attrs.get("axis", -1)), node)
    return out, x.shape


register_op(OpDef("QuantizeV2", _infer_quantize, 3,
                  attr_defaults={"mode": "MIN_COMBINED", "round_mode": "HALF_AWAY_FROM_ZERO",
                                 "narrow_range": False, "axis": -1,
                                 "ensure_minimum_range": 0.01}))
register_op(OpDef("Dequantize", _infer_dequantize, 3,
                  attr_defaults={"mode": "MIN_COMBINED", "narrow_range": False, "axis": -1,
                                 "dtype": dtypes.float32}))
not_differentiable(*QUANTIZE_OPS)


def _axis(x: Tensor, axis) -> int:
    """TF's wrappers: None is -1, a negative axis counts from the end of a known rank."""
    if axis is None:
        return -1
    if axis < 0:
        if x.shape.ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= x.shape.ndims
    return int(axis)


def _range_inputs(x: Tensor, min_range, max_range) -> list:
    return [x, convert_to_tensor(min_range, dtypes.float32, graph=x.graph),
            convert_to_tensor(max_range, dtypes.float32, graph=x.graph)]


def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",  # noqa: A002,N803
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01) -> QuantizeV2:
    """``input`` (float32) over ``[min_range, max_range]`` as quantized type ``T``:
    ``(output, output_min, output_max)``, the last two the range the values stand for
    (TF's ``tf.quantization.quantize``)."""
    x = convert_to_tensor(input, dtypes.float32)
    op = x.graph.create_op("QuantizeV2", _range_inputs(x, min_range, max_range),
                           {"T": dtypes.as_dtype(T), "mode": mode, "round_mode": round_mode,
                            "narrow_range": bool(narrow_range), "axis": _axis(x, axis),
                            "ensure_minimum_range": float(ensure_minimum_range)},
                           name=name or "QuantizeV2")
    return QuantizeV2(*op.outputs)


def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None,  # noqa: A002
               axis=None, narrow_range=False, dtype=dtypes.float32) -> Tensor:
    """A quantized ``input`` back to float32 over ``[min_range, max_range]`` (TF's
    ``tf.quantization.dequantize``)."""
    x = convert_to_tensor(input)
    op = x.graph.create_op("Dequantize", _range_inputs(x, min_range, max_range),
                           {"mode": mode, "narrow_range": bool(narrow_range),
                            "axis": _axis(x, axis), "dtype": dtypes.as_dtype(dtype)},
                           name=name or "Dequantize")
    return op.outputs[0]
