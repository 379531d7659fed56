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

When training, the formulas read the batch's statistics from the forward op's reserve
outputs (3 and 4, which no TF1 program fetches), so a gradient of the gradient (a WGAN-GP
penalty through a batch-normed critic) reaches them; it flows on to x as the statistics'
own derivatives (``d mean / dx = 1 / n``, ``d var / dx = 2 (x - mean) / n``, ``n`` values
per channel), which is how TF's ``_FusedBatchNormGradGrad`` sees the batch statistics:
computed from x.
"""

from __future__ import annotations

from .. import dtypes
from .array import reshape
from .array_fill import size
from .elementwise import cast, multiply, rsqrt, subtract
from .nn_batch_norm import FUSED_BATCH_NORM_OPS, channel_axis, format_rank
from .reduce import reduce_mean, reduce_sum
from .registry import register_gradient

__all__: list = []


def _fused_batch_norm_grad(op, dy, _batch_mean, _batch_variance, d_mean=None,
                           d_variance=None, *unused):
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
    xf = cast(x, dtypes.float32) if half else x
    centred_x = subtract(xf, per_channel(mean))
    dx = dscale = doffset = None
    if dy is not None:
        dyf = cast(dy, dtypes.float32) if half else dy
        inv = rsqrt(variance + op.attrs.get("epsilon", 0.0001))
        xhat = multiply(centred_x, per_channel(inv))
        dscale = reduce_sum(dyf * xhat, axes)
        doffset = reduce_sum(dyf, axes)
        if training:
            dx = (dyf - reduce_mean(dyf, axes, keepdims=True) -
                  xhat * reduce_mean(dyf * xhat, axes, keepdims=True)) * per_channel(scale * inv)
        else:
            dx = dyf * per_channel(scale * inv)
    if training and (d_mean is not None or d_variance is not None):
        # the statistics' own derivatives, n values per channel
        count = cast(size(xf), mean.dtype) / cast(size(scale), mean.dtype)
        for statistic in (per_channel(d_mean / count) if d_mean is not None else None,
                          centred_x * per_channel(2.0 * d_variance / count)
                          if d_variance is not None else None):
            if statistic is not None:
                dx = statistic if dx is None else dx + statistic
    if dx is not None and half:
        dx = cast(dx, dtypes.float16)
    return [dx, dscale, doffset, None, None]


for _op_type in FUSED_BATCH_NORM_OPS:
    register_gradient(_op_type)(_fused_batch_norm_grad)
