"""``tf.quantization.quantize_and_dequantize`` (and ``_v2``): TF's simulated integer
quantization of float tensors, the ops quantization-aware graphs hold:

* ``QuantizeAndDequantizeV2(input, input_min, input_max)``, attrs ``signed_input``,
  ``num_bits``, ``range_given``, ``round_mode`` (``HALF_TO_EVEN`` or ``HALF_UP``),
  ``narrow_range``, ``axis`` (-1: one range; else one per slice along ``axis``);
* ``QuantizeAndDequantizeV3``: the same with ``num_bits`` an int32 input;
* ``QuantizeAndDequantizeV4``: V2's op, with V4Grad as its gradient.

The range is ``[input_min, input_max]`` when ``range_given``, else the input's (each
slice's) min and max.  The integer range is ``[-2^(b-1) (+1 when narrow), 2^(b-1) - 1]``
signed or ``[0, 2^b - 1]``; the scale is the largest that maps the range into it keeping
0 exact, taken from the side that binds, whose other end moves to fit.  Outputs are
``round(x * scale) / scale``, ``x`` first clamped to the adjusted range only when the
range was given (``kernels/reference/quantize_dequantize.py``, TF's functor in the input's
dtype).  Gradients (``quantize_dequantize_grad.py``): V2 and V3 pass it straight through;
V4 passes it where ``input_min <= x <= input_max`` (the inputs, as TF's
``QuantizeAndDequantizeV4Grad`` takes them), and gives the ranges zeros.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .common import make_op
from .registry import InferError, OpDef, register_op

__all__ = ["quantize_and_dequantize", "quantize_and_dequantize_v2",
           "QUANTIZE_DEQUANTIZE_OPS", "ROUND_MODES"]

QUANTIZE_DEQUANTIZE_OPS = ("QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3",
                           "QuantizeAndDequantizeV4", "QuantizeAndDequantizeV4Grad")
ROUND_MODES = ("HALF_TO_EVEN", "HALF_UP")
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_ATTRS = {"signed_input": True, "range_given": False, "narrow_range": False, "axis": -1}


def _check_ranges(x, lo, hi, axis: int, node: str) -> None:
    """TF's shape function: the ranges are scalars, or vectors of dim ``axis``."""
    if x.dtype not in _FLOATS:
        raise TypeError(f"Op '{node}': input must be float16, float32 or float64, not "
                        f"{x.dtype.name}.")
    for spec, what in ((lo, "input_min"), (hi, "input_max")):
        if spec.dtype != x.dtype:
            raise TypeError(f"Op '{node}': {what} must be {x.dtype.name} as the input, not "
                            f"{spec.dtype.name}.")
    if axis < -1:
        raise InferError(f"Axis must be at least -1. Found {axis} ('{node}').")
    rank = x.shape.ndims
    if axis >= 0 and rank is not None and axis >= rank:
        raise InferError(f"Shape must be at least rank {axis + 1} but is rank {rank} for "
                         f"'{node}'.")
    want = 0 if axis == -1 else 1
    depth = None if axis == -1 or rank is None else x.shape.dims[axis]
    for spec, what in ((lo, "input_min"), (hi, "input_max")):
        if spec.shape.ndims is not None and spec.shape.ndims != want:
            raise InferError(f"Shape must be rank {want} but is rank {spec.shape.ndims} "
                             f"for '{node}' ({what}).")
        if want and depth is not None and spec.shape.dims[0] not in (None, depth):
            raise InferError(f"Dimensions must be equal, but are {spec.shape.dims[0]} and "
                             f"{depth} for '{node}' ({what} and dim {axis} of the input).")


def _infer(inputs, attrs, node):
    x, lo, hi = inputs[:3]
    _check_ranges(x, lo, hi, int(attrs.get("axis", -1)), node)
    if attrs.get("round_mode", "HALF_TO_EVEN") not in ROUND_MODES:
        raise InferError(f"Attr 'round_mode' of '{node}' passed string "
                         f"'{attrs['round_mode']}' not in: \"HALF_TO_EVEN\", \"HALF_UP\".")
    if len(inputs) == 4 and inputs[3].dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': num_bits must be int32, not {inputs[3].dtype.name}.")
    return x.dtype, x.shape


def _infer_v4_grad(inputs, attrs, node):
    grad, x, lo, hi = inputs
    _check_ranges(x, lo, hi, int(attrs.get("axis", -1)), node)
    if grad.dtype != x.dtype or not grad.shape.is_compatible_with(x.shape):
        raise InferError(f"Op '{node}': gradients ({grad.dtype.name} {grad.shape}) must be "
                         f"of the input's dtype and shape ({x.dtype.name} {x.shape}).")
    return [(x.dtype, x.shape.merge_with(grad.shape)), (lo.dtype, lo.shape),
            (hi.dtype, hi.shape)]


_V2 = {**_ATTRS, "num_bits": 8, "round_mode": "HALF_TO_EVEN"}
register_op(OpDef("QuantizeAndDequantizeV2", _infer, 3, attr_defaults=_V2))
register_op(OpDef("QuantizeAndDequantizeV4", _infer, 3, attr_defaults=_V2))
register_op(OpDef("QuantizeAndDequantizeV3", _infer, 4, host_inputs=(3,),
                  attr_defaults=_ATTRS))
register_op(OpDef("QuantizeAndDequantizeV4Grad", _infer_v4_grad, 4,
                  attr_defaults={"axis": -1}))


def _build(op_type: str, input, input_min, input_max, signed_input, num_bits,  # noqa: A002
           range_given, round_mode, name, narrow_range, axis) -> Tensor:
    if round_mode not in ROUND_MODES:
        raise ValueError(f"Attr 'round_mode' of '{op_type}' Op passed string "
                         f"'{round_mode}' not in: \"HALF_TO_EVEN\", \"HALF_UP\".")
    with name_scope(name or op_type) as scope:
        x = convert_to_tensor(input, name="input")
        if axis is None:
            axis = -1
        elif axis < 0:
            if x.shape.ndims is None:
                raise ValueError("input should have known rank to use negative axis.")
            axis %= x.shape.ndims
        lo = convert_to_tensor(input_min, dtype=x.dtype, name="input_min")
        hi = convert_to_tensor(input_max, dtype=x.dtype, name="input_max")
        return make_op(op_type, [x, lo, hi],
                       {"signed_input": bool(signed_input), "num_bits": int(num_bits),
                        "range_given": bool(range_given), "round_mode": round_mode,
                        "narrow_range": bool(narrow_range), "axis": int(axis)}, name=scope)


def quantize_and_dequantize(input, input_min, input_max, signed_input=True,  # noqa: A002
                            num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                            name=None, narrow_range=False, axis=None) -> Tensor:
    """TF's ``tf.quantization.quantize_and_dequantize`` (QuantizeAndDequantizeV2, whose
    gradient passes straight through; see the module docstring)."""
    return _build("QuantizeAndDequantizeV2", input, input_min, input_max, signed_input,
                  num_bits, range_given, round_mode, name, narrow_range, axis)


def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True,  # noqa: A002
                               num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                               name=None, narrow_range=False, axis=None) -> Tensor:
    """TF's ``tf.quantization.quantize_and_dequantize_v2`` (QuantizeAndDequantizeV4: the
    gradient is zero outside ``[input_min, input_max]``)."""
    return _build("QuantizeAndDequantizeV4", input, input_min, input_max, signed_input,
                  num_bits, range_given, round_mode, name, narrow_range, axis)
