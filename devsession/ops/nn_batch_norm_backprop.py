"""TensorFlow's FusedBatchNormGrad, FusedBatchNormGradV2 and FusedBatchNormGradV3: the
ops TF's gradient of a fused batch norm writes (``nn_batch_norm.py``), so TF-written
training graphs of convnets import.  devsession's own gradient builds the same formulas
from elementwise ops (``nn_batch_norm_grad.py``).

Inputs ``y_backprop`` and ``x`` (one shape; ``data_format`` "NHWC" or "NCHW": rank 4,
FusedBatchNormGradV3 also "NDHWC" or "NCDHW": rank 5, as the forward ops; float16,
float32 or float64), ``scale``, ``reserve_space_1``, ``reserve_space_2`` (1-D of
the channels; float32, float64 for float64 ``x``) and, for V3, ``reserve_space_3`` (not
read).  The reserve spaces are the forward's batch mean and population variance when
``is_training`` (TF's gradient passes the forward's reserve outputs), its ``mean`` and
``variance`` inputs when not.  Attrs ``epsilon`` (0.0001), ``data_format``,
``is_training`` (True).  Outputs ``x_backprop`` (x's shape), ``scale_backprop``,
``offset_backprop`` (per channel) and two empty reserve spaces, as TF's.

Kernels: ``kernels/reference/batch_norm.py`` (numpy; cupy on the GPU).  Their gradients
(TF's ``_FusedBatchNormGradGrad``) are not implemented: tests/test_gradients.py lists
them.
"""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape
from .nn_batch_norm import channel_axis, check_format, format_rank, with_channels
from .registry import InferError, OpDef, register_op

__all__ = ["FUSED_BATCH_NORM_GRAD_OPS"]

# op type -> number of inputs
FUSED_BATCH_NORM_GRAD_OPS = {"FusedBatchNormGrad": 5, "FusedBatchNormGradV2": 5,
                             "FusedBatchNormGradV3": 6}
_DEFAULTS = {"epsilon": 0.0001, "data_format": "NHWC", "is_training": True}
_X_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def _infer(op_type: str):
    def infer(inputs, attrs, node):
        dy, x, scale, mean, variance = inputs[:5]
        data_format = check_format(op_type, attrs.get("data_format", "NHWC"), node)
        if dy.dtype != x.dtype or x.dtype not in _X_TYPES or (
                op_type == "FusedBatchNormGrad" and x.dtype != dtypes.float32):
            raise TypeError(f"Op '{node}' ({op_type}): y_backprop '{dy.name}' and x "
                            f"'{x.name}' must both be float16, float32 or float64 "
                            f"(FusedBatchNormGrad: float32), not {dy.dtype.name} and "
                            f"{x.dtype.name}.")
        param = dtypes.float64 if x.dtype == dtypes.float64 else dtypes.float32
        for t in inputs[2:5]:
            if t.dtype != param:
                raise TypeError(f"Op '{node}' ({op_type}): '{t.name}' is {t.dtype.name}; for "
                                f"{x.dtype.name} x it must be {param.name}.")
            if t.shape.ndims not in (None, 1):
                raise InferError(f"Op '{node}' ({op_type}): '{t.name}' must be 1-D, but has "
                                 f"shape {t.shape}.")
        try:
            shape = dy.shape.merge_with(x.shape)
        except ValueError:
            raise InferError(f"Op '{node}' ({op_type}): y_backprop '{dy.name}' with shape "
                             f"{dy.shape} and x '{x.name}' with shape {x.shape} must have "
                             f"the same shape.") from None
        rank = format_rank(data_format)
        if shape.ndims not in (None, rank):
            raise InferError(f"Op '{node}' ({op_type}): x '{x.name}' must be {rank}-D with "
                             f"data_format {data_format!r}, but has shape {shape}.")
        channels = None if shape.ndims is None else shape.dims[channel_axis(data_format, rank)]
        for t in (scale, mean, variance):
            size = t.shape.dims[0] if t.shape.ndims == 1 else None
            if channels is None:
                channels = size
            elif size is not None and size != channels:
                raise InferError(f"Op '{node}' ({op_type}): '{t.name}' has {size} elements "
                                 f"but x '{x.name}' has {channels} channels ({data_format}).")
        per_channel = (param, TensorShape([channels]))
        empty = (param, TensorShape([0]))
        dx = (x.dtype, with_channels(shape, data_format, channels))
        return [dx, per_channel, per_channel, empty, empty]
    return infer


for _op_type, _inputs in FUSED_BATCH_NORM_GRAD_OPS.items():
    register_op(OpDef(_op_type, _infer(_op_type), _inputs, attr_defaults=dict(_DEFAULTS)))
