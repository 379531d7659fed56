"""ExtractGlimpse and ExtractGlimpseV2 (``tf.image.extract_glimpse``), TF's op types,
inputs and attrs.

**ExtractGlimpse(input, size, offsets)**: ``input`` float32 ``[batch, height, width,
channels]``, ``size`` int32 ``[glimpse_height, glimpse_width]``, ``offsets`` float32
``[batch, 2]`` (``y, x`` of each glimpse); attrs ``centered``, ``normalized``,
``uniform_noise`` and ``noise`` ("uniform", "gaussian", "zero"; "" lets
``uniform_noise`` choose).  Output: float32 ``[batch, glimpse_height, glimpse_width,
channels]``, where a window partly outside the image is filled with the noise first.
TF1's op (version 1) turns the offset into the window's top-left corner the same way
for every attr combination; V2 (TF2's ``extract_glimpse``) only for centered,
normalized offsets (other offsets are the corner already).  Not differentiable (TF
registers no gradient).

Kernel: ``kernels/reference/image_glimpse.py`` (host; the GPU runs it through the host).

    glimpses = ds.image.extract_glimpse(images, [8, 8], centers)
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import make_op
from .image_operands import dims_of_rank, dtype_in
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["extract_glimpse", "GLIMPSE_OPS"]

GLIMPSE_OPS = ("ExtractGlimpse", "ExtractGlimpseV2")
NOISES = ("uniform", "gaussian", "zero")
_ATTRS = {"centered": True, "normalized": True, "uniform_noise": True, "noise": "uniform"}


def _glimpse(inputs, attrs, node):
    images, size, offsets = inputs
    dtype_in(images, (dtypes.float32,), node, "input")
    dtype_in(size, (dtypes.int32,), node, "size")
    dtype_in(offsets, (dtypes.float32,), node, "offsets")
    batch, _, _, channels = dims_of_rank(images, 4, node, "input")
    (pair,) = dims_of_rank(size, 1, node, "size")
    if pair not in (None, 2):
        raise InferError(f"Op '{node}': size '{size.name}' must hold 2 values (height, "
                         f"width), but has shape {size.shape}.")
    rows, columns = dims_of_rank(offsets, 2, node, "offsets")
    if columns not in (None, 2):
        raise InferError(f"Op '{node}': offsets '{offsets.name}' must be [batch, 2] (y, x), "
                         f"but has shape {offsets.shape}.")
    if None not in (batch, rows) and batch != rows:
        raise InferError(f"Op '{node}': offsets '{offsets.name}' (shape {offsets.shape}) "
                         f"must have one row per image of '{images.name}' ({batch}).")
    height = width = None
    if size.value is not None:
        height, width = (int(v) for v in size.value)
        if height < 0 or width < 0:
            raise InferError(f"Op '{node}': size must be non-negative, got "
                             f"[{height}, {width}].")
    return dtypes.float32, TensorShape([batch if batch is not None else rows, height, width,
                                        channels])


for _op in GLIMPSE_OPS:
    register_op(OpDef(_op, _glimpse, 3, attr_defaults=_ATTRS, host_inputs=(1, 2)))
not_differentiable(*GLIMPSE_OPS)


def extract_glimpse(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    uniform_noise=True, name=None, noise=None) -> Tensor:
    """Windows of ``size`` cut from ``input`` (4-D float32) at ``offsets`` (``[batch,
    2]``, y then x): TF1's ``tf.image.extract_glimpse`` (ExtractGlimpse).  Given
    ``noise`` ("uniform", "gaussian" or "zero": what fills a window's part outside the
    image), TF2's ``extract_glimpse`` (ExtractGlimpseV2).  ValueError for shapes the op
    rejects, or another ``noise``."""
    if noise is not None and noise not in NOISES:
        raise ValueError(f"noise must be one of {', '.join(NOISES)}, got {noise!r}.")
    with name_scope(name or "extract_glimpse"):
        x = convert_to_tensor(input, dtype=dtypes.float32, name="input")
        s = convert_to_tensor(size, dtype=dtypes.int32, name="size", graph=x.graph)
        o = convert_to_tensor(offsets, dtype=dtypes.float32, name="offsets", graph=x.graph)
        attrs = {"centered": bool(centered), "normalized": bool(normalized)}
        if noise is None:
            attrs.update(uniform_noise=bool(uniform_noise), noise="uniform")
            return make_op("ExtractGlimpse", [x, s, o], attrs, "ExtractGlimpse")
        attrs.update(uniform_noise=False, noise=noise)
        return make_op("ExtractGlimpseV2", [x, s, o], attrs, "ExtractGlimpseV2")
