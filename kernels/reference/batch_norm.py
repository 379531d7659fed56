"""Kernels of the fused batch norms (FusedBatchNorm, V2, V3; ``ops/nn_batch_norm.py``)
and of TF's gradient ops of them (FusedBatchNormGrad, V2, V3):
TF's formulas over an array module ``xp``, so numpy runs them here (the "REF" oracle,
and the CPU's kernel: numpy's reductions already stream at memory speed) and cupy on
the GPU (``cuda/batch_norm.py``).

``make_fused_batch_norm(xp, node)`` checks operands as TF 2.21's CPU kernel does
(``InvalidArgumentError`` naming the node: x not 4-D for "NHWC"/"NCHW", neither 4-D nor
5-D for "NDHWC"/"NCDHW"; a scale, offset, mean or variance that is not 1-D of the
channels) and returns ``y``, the two statistics and the reserve spaces (the batch's mean
and population variance; V3's third reserve space empty).  The statistics reduce every
axis but the channels' (``channel_axis``), so 5-D inputs need no reshape.
"""

from __future__ import annotations

import numpy as np

from ...ops.nn_batch_norm import FUSED_BATCH_NORM_OPS, channel_axis, format_rank
from ...ops.nn_batch_norm_backprop import FUSED_BATCH_NORM_GRAD_OPS
from ..checks import fmt_shape, invalid_argument
from ..registry import register_kernel

__all__ = ["make_fused_batch_norm", "make_fused_batch_norm_grad"]

DEVICE = "REF"


def _layout(node, x) -> tuple:
    """``(axis, axes, shape)`` of ``x`` in the node's format: the channels' axis, the
    axes reduced, and the shape a [C] vector takes against ``x``; InvalidArgumentError
    for a rank the format does not take."""
    data_format = node.attrs.get("data_format", "NHWC")
    if format_rank(data_format) == 4 and x.ndim != 4:
        raise invalid_argument(node.name, node.op, f"input must be 4-dimensional"
                               f"{fmt_shape(x.shape)}")
    if x.ndim not in (4, 5):
        raise invalid_argument(node.name, node.op, f"input must be 4 or 5-dimensional"
                               f"{fmt_shape(x.shape)}")
    axis = channel_axis(data_format, x.ndim)
    shape = tuple(x.shape[axis] if a == axis else 1 for a in range(x.ndim))
    return axis, tuple(a for a in range(x.ndim) if a != axis), shape


def _check(node, x, axis, params, training_stats: bool) -> None:
    channels = x.shape[axis]
    for what, p in params:
        if p.ndim != 1:
            raise invalid_argument(node.name, node.op, f"{what} must be 1-dimensional "
                                   f"{fmt_shape(p.shape)}")
        if p.shape[0] != channels and not (training_stats and what in ("mean", "variance")
                                           and p.shape[0] == 0):
            raise invalid_argument(node.name, node.op, f"{what} must have the same number "
                                   f"of elements as the channels of x, got "
                                   f"{p.shape[0]} and {channels}")


def make_fused_batch_norm(xp, node):
    """The kernel of a FusedBatchNorm* ``node`` over array module ``xp``."""
    epsilon = node.attrs.get("epsilon", 0.0001)
    factor = node.attrs.get("exponential_avg_factor", 1.0)
    training = bool(node.attrs.get("is_training", True))
    outputs = FUSED_BATCH_NORM_OPS[node.op]

    def kernel(x, scale, offset, mean, variance):
        axis, axes, shape = _layout(node, x)
        _check(node, x, axis, (("scale", scale), ("offset", offset), ("mean", mean),
                               ("variance", variance)), training and factor == 1.0)
        param = scale.dtype

        def per_channel(v):            # a [C] vector against x's layout
            return v.reshape(shape)

        xf = x.astype(param, copy=False)
        if training:
            count = x.size // max(x.shape[axis], 1)
            if count:
                batch_mean = xf.mean(axis=axes)
                batch_var = xp.square(xf - per_channel(batch_mean)).mean(axis=axes)
            else:           # an empty batch: NaN statistics, as TF
                batch_mean = xp.full(x.shape[axis], np.nan, param)
                batch_var = xp.full(x.shape[axis], np.nan, param)
            corrected = batch_var * param.type(count / (count - 1) if count > 1 else 1)
            used_mean, used_var = batch_mean, batch_var
            if factor != 1.0:
                keep, take = param.type(1 - factor), param.type(factor)
                out_mean, out_var = keep * mean + take * batch_mean, \
                    keep * variance + take * corrected
            else:
                out_mean, out_var = batch_mean, corrected
        else:
            used_mean, used_var = mean, variance
            out_mean, out_var = mean.copy(), variance.copy()
            batch_mean, batch_var = mean, variance
        inv = (1 / xp.sqrt(used_var + param.type(epsilon))) * scale
        y = (xf * per_channel(inv) + per_channel(offset - used_mean * inv)).astype(x.dtype)
        results = (y, out_mean, out_var, batch_mean.copy(), batch_var.copy())
        return results + ((xp.empty(0, param),) if outputs == 6 else ())
    return kernel


@register_kernel(tuple(FUSED_BATCH_NORM_OPS), DEVICE)
def build_fused_batch_norm(node):
    return make_fused_batch_norm(np, node)


# --- FusedBatchNormGrad (V2, V3): ``ops/nn_batch_norm_backprop.py`` -------------------------

def make_fused_batch_norm_grad(xp, node):
    """The kernel of a FusedBatchNormGrad* ``node`` over array module ``xp``: TF's
    formulas, with ``inv = 1 / sqrt(variance + epsilon)`` and ``xhat = (x - mean) * inv``,
    ``dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat))`` when training, else
    ``dy * scale * inv``; ``dscale = sum(dy * xhat)``, ``doffset = sum(dy)``."""
    epsilon = node.attrs.get("epsilon", 0.0001)
    training = bool(node.attrs.get("is_training", True))

    def kernel(dy, x, scale, mean, variance, *unused_reserve_space_3):
        _layout(node, dy)
        axis, axes, shape = _layout(node, x)
        if dy.shape != x.shape:
            raise invalid_argument(node.name, node.op, f"x and y_backprop must have same "
                                   f"shape, but x has shape {fmt_shape(x.shape)} and "
                                   f"y_backprop has shape {fmt_shape(dy.shape)}")
        _check(node, x, axis, (("scale", scale), ("reserve_space_1", mean),
                               ("reserve_space_2", variance)), False)
        param = scale.dtype

        def per_channel(v):
            return v.reshape(shape)

        xf, dyf = x.astype(param, copy=False), dy.astype(param, copy=False)
        inv = 1 / xp.sqrt(variance + param.type(epsilon))
        xhat = (xf - per_channel(mean)) * per_channel(inv)
        dscale = (dyf * xhat).sum(axis=axes)
        doffset = dyf.sum(axis=axes)
        if training:
            count = max(x.size // max(x.shape[axis], 1), 1)
            centred = dyf - per_channel(doffset / count) - xhat * per_channel(dscale / count)
            dx = centred * per_channel(scale * inv)
        else:
            dx = dyf * per_channel(scale * inv)
        empty = xp.empty(0, param)
        return dx.astype(x.dtype), dscale, doffset, empty, empty.copy()
    return kernel


@register_kernel(tuple(FUSED_BATCH_NORM_GRAD_OPS), DEVICE)
def build_fused_batch_norm_grad(node):
    return make_fused_batch_norm_grad(np, node)
