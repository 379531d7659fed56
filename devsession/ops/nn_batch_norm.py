"""Fused batch normalization: TF's FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3
(``tf.nn.fused_batch_norm``, the op Keras and ``tf.layers.batch_normalization`` put in
every 4-D and 5-D graph, so in most frozen convnets, 3-D ones included).

Inputs ``x`` (``data_format`` "NHWC" or "NCHW": rank 4; FusedBatchNormV3 also takes
"NDHWC" and "NCDHW": rank 5, as TF's op def and shape function; float16, float32 or
float64: ``T``), ``scale``, ``offset``, ``mean``, ``variance`` (1-D of the channels, ``U``:
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

The channels are axis 1 in "NCHW" and "NCDHW", the last axis in "NHWC" and "NDHWC"; the
statistics reduce every other axis.  float16 ``x`` is computed in float32.  Static checks
raise ValueError at build time as TF's shape functions (a rank other than the format's,
channel counts that differ, a format the op type does not take); the kernels check at
run time (``InvalidArgumentError`` naming the node), as TF 2.21's CPU kernel: "NHWC" and
"NCHW" take rank 4 only, "NDHWC" and "NCDHW" rank 4 or 5 (a 4-D input whose rank was
unknown at build time is normalized as "NHWC"/"NCHW").  Gradients:
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

__all__ = ["fused_batch_norm", "FUSED_BATCH_NORM_OPS", "channel_axis", "check_format",
           "format_rank", "with_channels"]

# op type -> number of outputs
FUSED_BATCH_NORM_OPS = {"FusedBatchNorm": 5, "FusedBatchNormV2": 5, "FusedBatchNormV3": 6}
_DEFAULTS = {"epsilon": 0.0001, "exponential_avg_factor": 1.0, "data_format": "NHWC",
             "is_training": True}
_FORMATS_4D = ("NHWC", "NCHW")
_FORMATS_5D = ("NDHWC", "NCDHW")
_X_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def channel_axis(data_format, rank: int) -> int:
    """The axis of the channels in a tensor of ``rank`` and ``data_format``: 1 when the
    channels come first ("NCHW", "NCDHW"), else the last."""
    return 1 if _text(data_format) in ("NCHW", "NCDHW") else rank - 1


def format_rank(data_format) -> int:
    """The rank TF's shape functions ask of ``x`` in ``data_format``: 4 or 5."""
    return 5 if _text(data_format) in _FORMATS_5D else 4


def with_channels(shape: TensorShape, data_format, channels) -> TensorShape:
    """``shape`` (x's) as TF's shape functions give the output's: of the format's rank
    when x's is unknown, its channels' dimension known when the 1-D inputs give it."""
    rank = format_rank(data_format)
    dims = [None] * rank if shape.ndims is None else list(shape.dims)
    if channels is not None:
        dims[channel_axis(data_format, rank)] = channels
    return TensorShape(dims)


def check_format(op_type: str, data_format, node) -> str:
    """``data_format`` as text; InferError, as TF's attr check, for a format ``op_type``
    does not take (only the V3 ops take the 5-D formats)."""
    data_format = _text(data_format)
    allowed = _FORMATS_4D + _FORMATS_5D if op_type.endswith("V3") else _FORMATS_4D
    if data_format not in allowed:
        listed = ", ".join(f'"{f}"' for f in allowed)
        raise InferError(f"Op '{node}' ({op_type}): data_format {data_format!r} is not "
                         f"supported (Attr 'data_format' of '{op_type}' Op passed string "
                         f"{data_format!r} not in: {listed}).")
    return data_format


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _infer(op_type):
    outputs = FUSED_BATCH_NORM_OPS[op_type]

    def infer(inputs, attrs, node):
        x, scale, offset, mean, variance = inputs
        data_format = check_format(op_type, attrs.get("data_format", "NHWC"), node)
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
        rank = format_rank(data_format)
        if x.shape.ndims not in (None, rank):
            raise InferError(f"Op '{node}' ({op_type}): x '{x.name}' must be {rank}-D with "
                             f"data_format {data_format!r}, but has shape {x.shape}.")
        channels = None if x.shape.ndims is None else \
            x.shape.dims[channel_axis(data_format, rank)]
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
        return [(x.dtype, with_channels(x.shape, data_format, channels))] + [stats] * 4 + \
            reserve_3
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

