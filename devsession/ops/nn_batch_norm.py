"""Fused batch normalization: TF's FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3
(``tf.nn.fused_batch_norm``, the op Keras and ``tf.layers.batch_normalization`` put in
every 4-D graph, so in most frozen convnets).

Inputs ``x`` (rank 4, ``data_format`` "NHWC" or "NCHW"; float16, float32 or float64:
``T``), ``scale``, ``offset``, ``mean``, ``variance`` (1-D of the channels, ``U``:
float32 for float16/float32 ``x``; FusedBatchNorm takes float32 only).  Attrs
``epsilon`` (0.0001), ``exponential_avg_factor`` (1.0), ``data_format``, ``is_training``
(True).  Outputs: ``y``, ``batch_mean``, ``batch_variance``, two reserve spaces (V3: a
third, empty), which hold the batch's mean and (population) variance for the gradient.

* Training: each channel's mean and population variance over the batch and space
  normalize ``x``: ``y = (x - mean) / sqrt(var + epsilon) * scale + offset``.
  ``batch_variance`` is the variance with Bessel's correction (``* n / (n - 1)``, for
  the moving average), and with ``exponential_avg_factor`` f != 1 both outputs are
  ``(1 - f) * input + f * batch``.  ``mean`` and ``variance`` may be empty (``[]``)
  when f is 1.  An empty batch gives NaN statistics, as TF.
* Inference (``is_training=False``): ``mean`` and ``variance`` normalize ``x`` and are
  passed through.

float16 ``x`` is computed in float32.  Static checks raise ValueError at build time as
TF's shape functions (a rank other than 4, channel counts that differ); the kernels
check the same at run time (``InvalidArgumentError`` naming the node).  Gradients:
``nn_batch_norm_grad.py``; kernels: ``kernels/reference/batch_norm.py``.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph import convert_to_tensor
from ..tensor_shape import TensorShape
from .common import graph_of
from .nn_channels_first import format_name
from .registry import InferError, OpDef, register_op

__all__ = ["fused_batch_norm", "FUSED_BATCH_NORM_OPS", "channel_axis"]

# op type -> number of outputs
FUSED_BATCH_NORM_OPS = {"FusedBatchNorm": 5, "FusedBatchNormV2": 5, "FusedBatchNormV3": 6}
_DEFAULTS = {"epsilon": 0.0001, "exponential_avg_factor": 1.0, "data_format": "NHWC",
             "is_training": True}
_FORMATS = ("NHWC", "NCHW")
_X_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def channel_axis(data_format) -> int:
    """The axis of the channels in a 4-D tensor of ``data_format``."""
    return 3 if _text(data_format) == "NHWC" else 1


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _infer(op_type):
    outputs = FUSED_BATCH_NORM_OPS[op_type]

    def infer(inputs, attrs, node):
        x, scale, offset, mean, variance = inputs
        data_format = _text(attrs.get("data_format", "NHWC"))
        if data_format not in _FORMATS:
            raise InferError(f"Op '{node}' ({op_type}): data_format {data_format!r} is not "
                             f"supported; use 'NHWC' or 'NCHW'.")
        if x.dtype not in _X_TYPES or (op_type == "FusedBatchNorm" and
                                       x.dtype != dtypes.float32):
            raise TypeError(f"Op '{node}' ({op_type}): x '{x.name}' is {x.dtype.name}; it "
                            f"takes float16, float32 or float64 (FusedBatchNorm: float32).")
        param = dtypes.float64 if x.dtype == dtypes.float64 else dtypes.float32
        for what, t in (("scale", scale), ("offset", offset), ("mean", mean),
                        ("variance", variance)):
            if t.dtype != param:
                raise TypeError(f"Op '{node}' ({op_type}): {what} '{t.name}' is "
                                f"{t.dtype.name}; for {x.dtype.name} x it must be "
                                f"{param.name}.")
            if t.shape.ndims not in (None, 1):
                raise InferError(f"Op '{node}' ({op_type}): {what} '{t.name}' must be 1-D, "
                                 f"but has shape {t.shape}.")
        if x.shape.ndims not in (None, 4):
            raise InferError(f"Op '{node}' ({op_type}): x '{x.name}' must be 4-D, but has "
                             f"shape {x.shape}.")
        channels = None if x.shape.ndims is None else x.shape.dims[channel_axis(data_format)]
        training = bool(attrs.get("is_training", True))
        factor = float(attrs.get("exponential_avg_factor", 1.0))
        checked = (scale, offset) if training and factor == 1.0 else \
            (scale, offset, mean, variance)
        for t in checked:
            size = t.shape.dims[0] if t.shape.ndims == 1 else None
            if channels is None and size is not None:
                channels = size
            elif size is not None and size != channels:
                raise InferError(f"Op '{node}' ({op_type}): '{t.name}' has {size} elements "
                                 f"but x '{x.name}' has {channels} channels ({data_format}).")
        stats = (param, TensorShape([channels]))
        reserve_3 = [(param, TensorShape([0]))] if outputs == 6 else []
        return [(x.dtype, x.shape)] + [stats] * 4 + reserve_3
    return infer


for _op_type, _outputs in FUSED_BATCH_NORM_OPS.items():
    register_op(OpDef(_op_type, _infer(_op_type), 5, attr_defaults=dict(_DEFAULTS)))

# What ``fused_batch_norm`` returns, as TF's: the output and the statistics.
FusedBatchNorm = collections.namedtuple("FusedBatchNorm", ["y", "batch_mean", "batch_variance"])


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0) -> tuple:
    """TF1's ``tf.nn.fused_batch_norm``: ``(y, batch_mean, batch_variance)`` of a
    FusedBatchNormV3 (see the module docstring).  ``mean`` and ``variance`` may be left
    out when training with ``exponential_avg_factor`` 1; otherwise ValueError."""
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or
                                                               variance is None):
        raise ValueError(f"Both `mean` and `variance` must be a 1D tensor when "
                         f"`is_training` is False or `exponential_avg_factor` != 1.0. "
                         f"Received: `mean` {mean!r} and `variance` {variance!r}")
    graph = graph_of(x, scale, offset, mean, variance)
    x = convert_to_tensor(x, name="input", graph=graph)
    param = dtypes.float64 if x.dtype == dtypes.float64 else dtypes.float32
    scale = convert_to_tensor(scale, dtype_hint=param, name="scale", graph=graph)
    offset = convert_to_tensor(offset, dtype_hint=param, name="offset", graph=graph)
    mean = convert_to_tensor([] if mean is None else mean, dtype_hint=param, graph=graph)
    variance = convert_to_tensor([] if variance is None else variance, dtype_hint=param,
                                 graph=graph)
    attrs = {"epsilon": float(epsilon),
             "exponential_avg_factor": float(exponential_avg_factor),
             "data_format": format_name(data_format), "is_training": bool(is_training)}
    op = graph.create_op("FusedBatchNormV3", [x, scale, offset, mean, variance], attrs,
                         name=name or "FusedBatchNormV3")
    return FusedBatchNorm(*op.outputs[:3])

