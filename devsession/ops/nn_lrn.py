"""Local response normalization (TF1's ``tf.nn.local_response_normalization``, alias
``tf.nn.lrn``; the CIFAR-10 and AlexNet tutorials use it): op types ``LRN`` and its
gradient ``LRNGrad``, TF's, with TF's attrs and defaults.

Over the last axis (the channels of NHWC), each value is divided by a power of the sum
of squares of its neighbourhood of ``depth_radius`` channels either side::

    norm[..., c] = bias + alpha * sum(x[..., c - r : c + r + 1] ** 2)
    y[..., c]    = x[..., c] * norm[..., c] ** -beta

``LRNGrad(dy, x, y)``: ``dx = dy * norm**-beta - 2 alpha beta x * window_sum(dy * y /
norm)``, the window sum over the same neighbourhoods.  Inputs are 4-D floats, as TF's
kernels require (a ValueError at build time otherwise).  Kernels:
``kernels/{reference,cuda}/nn.py`` (one formula over numpy or cupy; the CPU runs
numpy's, streaming at memory speed).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, register_gradient, register_op

__all__ = ["local_response_normalization", "lrn", "LRN_DEFAULTS"]

LRN_DEFAULTS = {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5}
_FLOATS = (dtypes.float16, dtypes.float32)


def _four_d_float(t, node: str) -> None:
    if t.dtype not in _FLOATS:
        raise TypeError(f"Op '{node}': '{t.name}' is {t.dtype.name}; LRN takes float16 or "
                        f"float32.")
    if t.shape.ndims not in (None, 4):
        raise InferError(f"Op '{node}': '{t.name}' must be 4-D, got shape {t.shape}.")


def _lrn(inputs, attrs, node):
    (x,) = inputs
    _four_d_float(x, node)
    if int(attrs["depth_radius"]) < 0:
        raise InferError(f"Op '{node}': depth_radius must be >= 0, got "
                         f"{attrs['depth_radius']}.")
    return x.dtype, x.shape.merge_with(TensorShape([None] * 4))   # TF's: rank 4


def _lrn_grad(inputs, attrs, node):
    for t in inputs:
        _four_d_float(t, node)
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not shape.is_compatible_with(t.shape):
            raise InferError(f"Op '{node}': its inputs' shapes differ ({shape}, {t.shape}).")
        shape = shape.merge_with(t.shape)
    return inputs[0].dtype, shape


register_op(OpDef("LRN", _lrn, 1, attr_defaults=LRN_DEFAULTS))
register_op(OpDef("LRNGrad", _lrn_grad, 3, attr_defaults=LRN_DEFAULTS))


@register_gradient("LRN")
def _lrn_gradient(op, dy):
    return [make_op("LRNGrad", [dy, op.inputs[0], op.outputs[0]], dict(op.attrs))]


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0,  # noqa: A002
                                 beta=0.5, name=None) -> Tensor:
    """``input / (bias + alpha * sum of squares of 2*depth_radius+1 channels) ** beta``
    (see the module docstring)."""
    x = convert_to_tensor(input)
    return make_op("LRN", [x], {"depth_radius": int(depth_radius), "bias": float(bias),
                                "alpha": float(alpha), "beta": float(beta)},
                   name=name or "LRN")


lrn = local_response_normalization
