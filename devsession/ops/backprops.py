"""TensorFlow's gradient op types, so that training graphs TF's ``tf.gradients`` wrote
import and run (``import_graph_def``, ``train.import_meta_graph``).  devsession's own
gradients build these from elementwise ops; TF writes one op per backprop:

* ``ReluGrad``, ``Relu6Grad``, ``LeakyReluGrad`` (attr ``alpha``), ``SoftplusGrad``,
  ``SoftsignGrad`` take ``(gradients, features)``; ``EluGrad`` and ``SeluGrad`` take
  ``(gradients, outputs)``; ``SigmoidGrad``, ``TanhGrad``, ``RsqrtGrad``, ``SqrtGrad``,
  ``ReciprocalGrad`` and ``InvGrad`` take ``(y, dy)``, the forward op's output first
  (these take complex values too).  Elementwise over floats, TF's kernels' formulas (``kernels/codegen/expressions.py``'s
  block of the same name), so the optimizer fuses them with their neighbours.  As TF's
  shape functions, both inputs have one shape (a known mismatch is a ValueError at build
  time); shapes unknown until run time are broadcast by the fused kernels.
* ``BroadcastGradientArgs(s0, s1)``: the axes each operand of a broadcasting binary op
  was broadcast along (``r0``, ``r1``: int vectors), which TF's gradients sum over;
  incompatible shapes are InvalidArgumentError as TF's.
* ``ConcatOffset(concat_dim, shape, ...)``: where each input of a ``ConcatV2`` starts
  along the axis, one vector per input (TF's ``_ConcatGrad`` slices with them).
* ``PreventGradient``: its input passed through; differentiating it is a LookupError
  naming ``message``, as TF's.

Kernels: ``kernels/reference/backprops.py`` (the CPU and GPU elementwise kernels come
from the expression table); gradients of the backprops (TF's second derivatives):
``backprops_grad.py``.  FusedBatchNormGrad (V2, V3): ``nn_batch_norm_backprop.py``.
"""

from __future__ import annotations

import functools

from .. import dtypes
from ..tensor_shape import TensorShape
from .common import same_dtype
from .registry import InferError, OpDef, register_op

__all__ = ["ACTIVATION_GRADS", "OUTPUT_GRADS"]

# op type -> TF's input names: (gradients, features) or (gradients, outputs)
ACTIVATION_GRADS = {"ReluGrad": ("gradients", "features"),
                    "Relu6Grad": ("gradients", "features"),
                    "LeakyReluGrad": ("gradients", "features"),
                    "SoftplusGrad": ("gradients", "features"),
                    "SoftsignGrad": ("gradients", "features"),
                    "EluGrad": ("gradients", "outputs"),
                    "SeluGrad": ("gradients", "outputs")}
# the math ops' gradients in terms of the forward output: (y, dy)
OUTPUT_GRADS = ("SigmoidGrad", "TanhGrad", "RsqrtGrad", "SqrtGrad", "ReciprocalGrad",
                "InvGrad")


def _same_shape_float(inputs, attrs, node, complex_too: bool = False):
    """TF's ``MergeBothInputsShapeFn``: one float dtype (or complex, for the math ops'
    backprops), shapes that merge."""
    dtype = same_dtype(inputs, node)
    if not (dtype.is_floating or (complex_too and dtype.is_complex)):
        raise TypeError(f"Op '{node}' needs floating-point inputs, but '{inputs[0].name}' "
                        f"is {dtype.name}.")
    first, second = inputs
    try:
        return dtype, first.shape.merge_with(second.shape)
    except ValueError:
        raise InferError(f"Op '{node}': inputs '{first.name}' with shape {first.shape} and "
                         f"'{second.name}' with shape {second.shape} must have the same "
                         f"shape.") from None


def _int_vector(t, what: str, node) -> None:
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Op '{node}': {what} '{t.name}' must be int32 or int64, not "
                        f"{t.dtype.name}.")
    if t.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': {what} '{t.name}' must be a vector, but has shape "
                         f"{t.shape}.")


def _broadcast_gradient_args(inputs, attrs, node):
    s0, s1 = inputs
    _int_vector(s0, "s0", node)
    _int_vector(s1, "s1", node)
    if s0.dtype != s1.dtype:
        raise TypeError(f"Op '{node}': s0 and s1 must have one dtype, not {s0.dtype.name} "
                        f"and {s1.dtype.name}.")
    return [(s0.dtype, TensorShape([None]))] * 2


def _concat_offset(inputs, attrs, node):
    concat_dim, *shapes = inputs
    if len(shapes) < 2:
        raise InferError(f"Op '{node}': ConcatOffset needs at least 2 shapes, got "
                         f"{len(shapes)}.")
    if concat_dim.dtype != dtypes.int32 or concat_dim.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': concat_dim '{concat_dim.name}' must be an int32 "
                         f"scalar, not {concat_dim.dtype.name} of shape {concat_dim.shape}.")
    for s in shapes:
        _int_vector(s, "shape", node)
    same_dtype(shapes, node)
    return [(s.dtype, s.shape) for s in shapes]


def _pass_through(inputs, attrs, node):
    (x,) = inputs
    return x.dtype, x.shape


def _register() -> None:
    for op_type in ACTIVATION_GRADS:
        defaults = {"alpha": 0.2} if op_type == "LeakyReluGrad" else None
        register_op(OpDef(op_type, _same_shape_float, 2, attr_defaults=defaults or {},
                          elementwise=True))
    for op_type in OUTPUT_GRADS:
        register_op(OpDef(op_type, functools.partial(_same_shape_float, complex_too=True), 2,
                          elementwise=True))
    register_op(OpDef("BroadcastGradientArgs", _broadcast_gradient_args, 2,
                      host_inputs=(0, 1)))
    register_op(OpDef("ConcatOffset", _concat_offset, None))
    register_op(OpDef("PreventGradient", _pass_through, 1, attr_defaults={"message": ""}))


_register()
