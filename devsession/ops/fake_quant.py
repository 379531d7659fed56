"""Fake quantization (``tf.quantization.fake_quant_*``), TF's ops for
quantization-aware training:

* ``FakeQuantWithMinMaxArgs(inputs)``, attrs ``min``, ``max`` (floats), ``num_bits``
  (2 to 16) and ``narrow_range``;
* ``FakeQuantWithMinMaxVars(inputs, min, max)``: the range from scalar tensors (the
  variables training moves);
* ``FakeQuantWithMinMaxVarsPerChannel(inputs, min, max)``: one range per element of the
  last dimension (``min``/``max`` of shape ``[d]``).

Each clamps float32 ``inputs`` to the range *nudged* so that 0.0 is exactly
representable, then rounds to one of the ``2**num_bits`` levels (``2**num_bits - 1``
with ``narrow_range``), as TF's ``fake_quant_ops_functor.h`` computes it in float32
(``kernels/reference/fake_quant.py``).  Their gradient ops, ``<op>Gradient(gradients,
inputs[, min, max])``, pass the gradient where the input lies in the nudged range; the
Vars ones also give ``min`` the sum of the gradient below it and ``max`` above it (per
channel for PerChannel), TF's straight-through estimator (``fake_quant_grad.py``).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient", "FAKE_QUANT_OPS"]

_ARGS = {"min": -6.0, "max": 6.0, "num_bits": 8, "narrow_range": False}
_VARS = {"num_bits": 8, "narrow_range": False}


def _float32(spec, node, what: str) -> None:
    if spec.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': {what} must be float32, not {spec.dtype.name}.")


def _with_rank(spec, rank: int, node, what: str) -> None:
    if spec.shape.ndims is not None and spec.shape.ndims != rank:
        raise InferError(f"Shape must be rank {rank} but is rank {spec.shape.ndims} for "
                         f"'{node}' ({what} '{spec.name}', shape {spec.shape}).")


def _channels(inputs_spec, min_spec, max_spec, node) -> None:
    """PerChannel's ranges: vectors as long as the inputs' last dimension."""
    _with_rank(min_spec, 1, node, "min")
    _with_rank(max_spec, 1, node, "max")
    if inputs_spec.shape.ndims == 0:
        raise InferError(f"Shape must be at least rank 1 but is rank 0 for '{node}'.")
    dims = [inputs_spec.shape.dims[-1] if inputs_spec.shape.ndims else None,
            *(s.shape.dims[0] if s.shape.ndims == 1 else None for s in (min_spec, max_spec))]
    known = [d for d in dims if d is not None]
    if len(set(known)) > 1:
        raise InferError(f"Dimensions must be equal, but are {known[0]} and "
                         f"{[d for d in known if d != known[0]][0]} for '{node}'.")


def _args(inputs, attrs, node):
    (x,) = inputs
    _float32(x, node, "inputs")
    return x.dtype, x.shape


def _vars(inputs, attrs, node):
    x, lo, hi = inputs
    for spec, what in ((x, "inputs"), (lo, "min"), (hi, "max")):
        _float32(spec, node, what)
    _with_rank(lo, 0, node, "min")
    _with_rank(hi, 0, node, "max")
    return x.dtype, x.shape


def _per_channel(inputs, attrs, node):
    x, lo, hi = inputs
    for spec, what in ((x, "inputs"), (lo, "min"), (hi, "max")):
        _float32(spec, node, what)
    _channels(x, lo, hi, node)
    return x.dtype, x.shape


def _args_gradient(inputs, attrs, node):
    grad, x = inputs
    _float32(grad, node, "gradients")
    _float32(x, node, "inputs")
    return x.dtype, grad.shape.merge_with(x.shape) if grad.shape.is_compatible_with(
        x.shape) else x.shape


def _vars_gradient(inputs, attrs, node):
    grad, x, lo, hi = inputs
    _vars([x, lo, hi], attrs, node)
    return [(x.dtype, x.shape), (x.dtype, TensorShape([])), (x.dtype, TensorShape([]))]


def _per_channel_gradient(inputs, attrs, node):
    grad, x, lo, hi = inputs
    _per_channel([x, lo, hi], attrs, node)
    d = x.shape.dims[-1] if x.shape.ndims else None
    return [(x.dtype, x.shape), (x.dtype, TensorShape([d])), (x.dtype, TensorShape([d]))]


register_op(OpDef("FakeQuantWithMinMaxArgs", _args, 1, attr_defaults=_ARGS))
register_op(OpDef("FakeQuantWithMinMaxVars", _vars, 3, attr_defaults=_VARS))
register_op(OpDef("FakeQuantWithMinMaxVarsPerChannel", _per_channel, 3,
                  attr_defaults=_VARS))
register_op(OpDef("FakeQuantWithMinMaxArgsGradient", _args_gradient, 2, attr_defaults=_ARGS))
register_op(OpDef("FakeQuantWithMinMaxVarsGradient", _vars_gradient, 4,
                  attr_defaults=_VARS))
register_op(OpDef("FakeQuantWithMinMaxVarsPerChannelGradient", _per_channel_gradient, 4,
                  attr_defaults=_VARS))
not_differentiable("FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVarsGradient",
                   "FakeQuantWithMinMaxVarsPerChannelGradient")   # TF registers none
FAKE_QUANT_OPS = ("FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars",
                  "FakeQuantWithMinMaxVarsPerChannel", "FakeQuantWithMinMaxArgsGradient",
                  "FakeQuantWithMinMaxVarsGradient",
                  "FakeQuantWithMinMaxVarsPerChannelGradient")


def _attrs(num_bits, narrow_range, **more) -> dict:
    return {**more, "num_bits": int(num_bits), "narrow_range": bool(narrow_range)}


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None) -> Tensor:
    """``inputs`` (float32) rounded to ``2**num_bits`` levels over ``[min, max]``
    nudged to hold 0.0, clamped to it (TF's ``tf.quantization.fake_quant_with_min_max_args``)."""
    return make_op("FakeQuantWithMinMaxArgs", [convert_to_tensor(inputs, dtypes.float32)],
                   _attrs(num_bits, narrow_range, min=float(min), max=float(max)),
                   name=name or "FakeQuantWithMinMaxArgs")


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0,  # noqa: A002
                                          max=6.0, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None) -> Tensor:
    """``gradients`` where ``inputs`` lies in the nudged range, else 0."""
    g = convert_to_tensor(gradients, dtypes.float32)
    x = convert_to_tensor(inputs, dtypes.float32, graph=g.graph)
    return make_op("FakeQuantWithMinMaxArgsGradient", [g, x],
                   _attrs(num_bits, narrow_range, min=float(min), max=float(max)),
                   name=name or "FakeQuantWithMinMaxArgsGradient")


def _vars_inputs(inputs, min, max):  # noqa: A002
    x = convert_to_tensor(inputs, dtypes.float32)
    return [x, convert_to_tensor(min, dtypes.float32, graph=x.graph),
            convert_to_tensor(max, dtypes.float32, graph=x.graph)]


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None) -> Tensor:
    """``fake_quant_with_min_max_args`` over the range of scalar tensors ``min`` and
    ``max`` (variables that training moves: they get gradients)."""
    return make_op("FakeQuantWithMinMaxVars", _vars_inputs(inputs, min, max),
                   _attrs(num_bits, narrow_range), name=name or "FakeQuantWithMinMaxVars")


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8,  # noqa: A002
                                             narrow_range=False, name=None) -> Tensor:
    """``fake_quant_with_min_max_vars`` with one range per element of the last
    dimension (``min``, ``max`` of shape ``[d]``)."""
    return make_op("FakeQuantWithMinMaxVarsPerChannel", _vars_inputs(inputs, min, max),
                   _attrs(num_bits, narrow_range),
                   name=name or "FakeQuantWithMinMaxVarsPerChannel")


def _vars_gradient_op(op_type, gradients, inputs, min, max, num_bits,  # noqa: A002
                      narrow_range, name) -> tuple:
    g = convert_to_tensor(gradients, dtypes.float32)
    x, lo, hi = _vars_inputs(inputs, min, max)
    op = g.graph.create_op(op_type, [g, x, lo, hi], _attrs(num_bits, narrow_range),
                           name=name or op_type)
    return tuple(op.outputs)


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max,  # noqa: A002
                                          num_bits=8, narrow_range=False,
                                          name=None) -> tuple:
    """``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)`` of
    ``fake_quant_with_min_max_vars``."""
    return _vars_gradient_op("FakeQuantWithMinMaxVarsGradient", gradients, inputs, min, max,
                             num_bits, narrow_range, name)


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min,  # noqa: A002
                                                      max, num_bits=8,  # noqa: A002
                                                      narrow_range=False,
                                                      name=None) -> tuple:
    """``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)`` of
    ``fake_quant_with_min_max_vars_per_channel`` (per channel)."""
    return _vars_gradient_op("FakeQuantWithMinMaxVarsPerChannelGradient", gradients, inputs,
                             min, max, num_bits, narrow_range, name)
