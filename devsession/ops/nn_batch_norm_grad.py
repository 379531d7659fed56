"""The gradients of the fused batch norms (``nn_batch_norm.py``), as TF's
``_BaseFusedBatchNormGrad`` defines them, written with elementwise ops and reductions
over every axis but the channels' (so the optimizer fuses them; checked against finite
differences in tests/test_batch_norm.py, 4-D and 5-D).  The rank is x's static rank, or
the format's when that is unknown (4 for "NHWC"/"NCHW", 5 for "NDHWC"/"NCDHW").

With ``inv = 1 / sqrt(var + epsilon)`` and ``xhat = (x - mean) * inv``:

* training (the batch's mean and population variance, the reserve spaces):
  ``dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat))``;
* inference (the ``mean`` and ``variance`` inputs): ``dx = dy * scale * inv``;

and in both ``dscale = sum(dy * xhat)``, ``doffset = sum(dy)``.  ``mean`` and
``variance`` get no gradient, nor do gradients of the statistics outputs flow back
(as TF).  float16 ``x`` is differentiated in float32.
"""

from __future__ import annotations

from .. import dtypes
from .array import reshape
from .elementwise import cast, multiply, rsqrt, subtract
from .nn_batch_norm import FUSED_BATCH_NORM_OPS, channel_axis, format_rank
from .reduce import reduce_mean, reduce_sum
from .registry import register_gradient

__all__: list = []


def _fused_batch_norm_grad(op, dy, *unused):
    if dy is None:
        return [None] * 5
    x, scale = op.inputs[0], op.inputs[1]
    data_format = op.attrs.get("data_format", "NHWC")
    rank = x.shape.ndims if x.shape.ndims is not None else format_rank(data_format)
    axis = channel_axis(data_format, rank)
    axes = [a for a in range(rank) if a != axis]
    training = bool(op.attrs.get("is_training", True))
    mean, variance = (op.outputs[3], op.outputs[4]) if training else \
        (op.inputs[3], op.inputs[4])

    def per_channel(v):          # a [C] vector against x's layout
        return v if axis == rank - 1 else reshape(v, [-1] + [1] * (rank - 2))

    half = x.dtype == dtypes.float16
    xf, dyf = (cast(x, dtypes.float32), cast(dy, dtypes.float32)) if half else (x, dy)
    inv = rsqrt(variance + op.attrs.get("epsilon", 0.0001))
    xhat = multiply(subtract(xf, per_channel(mean)), per_channel(inv))
    dscale = reduce_sum(dyf * xhat, axes)
    doffset = reduce_sum(dyf, axes)
    if training:
        centred = dyf - reduce_mean(dyf, axes, keepdims=True) - \
            xhat * reduce_mean(dyf * xhat, axes, keepdims=True)
        dx = centred * per_channel(scale * inv)
    else:
        dx = dyf * per_channel(scale * inv)
    return [cast(dx, dtypes.float16) if half else dx, dscale, doffset, None, None]


for _op_type in FUSED_BATCH_NORM_OPS:
    register_gradient(_op_type)(_fused_batch_norm_grad)
