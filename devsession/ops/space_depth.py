"""Moving a tensor's elements between its batch, spatial and depth dimensions, as TF's
array ops do, and the sliding-window patches of an image:

* ``SpaceToDepth(input; block_size, data_format)``: each ``block x block`` tile of the
  height and width becomes ``block * block`` channels, ordered (row in the tile, column
  in the tile, channel); ``DepthToSpace`` is its inverse.  ``block_size >= 2``;
  ``data_format`` NHWC or NCHW (the same rearrangement with the channels first; TF's GPU
  kernels take NCHW, its CPU ones only NHWC; devsession's every device takes both).
* ``SpaceToBatchND(input, block_shape, paddings)``: the ``M`` dimensions after the batch
  are zero-padded, cut into ``block_shape`` tiles, and each position within a tile
  becomes a batch of its own: output batch ``(i1 * b2 * ... + iM) * batch + n``.
  ``BatchToSpaceND(input, block_shape, crops)`` is its inverse, then crops.  Both read
  ``block_shape`` ([M]) and ``paddings``/``crops`` ([M, 2], int32 or int64) on the host.
* ``SpaceToBatch(input, paddings; block_size)`` and ``BatchToSpace(input, crops;
  block_size)``: TF's older 4-D forms with a ``[block_size, block_size]`` block, as older
  TF1 GraphDefs hold them (TF 1.15's ``tf.space_to_batch`` builds the ND op, and so does
  ``space_to_batch`` here).
* ``ExtractImagePatches(images; ksizes, strides, rates, padding)``: every window of a
  Conv2D with those sizes, strides and dilations (``kernels/windows.py``'s geometry: SAME
  pads with zeros, the odd element at the end), flattened into the depth in (row,
  column, channel) order: ``[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]``.

Static shapes as TF's shape functions infer them, with their build-time errors as
``ValueError`` (a height not divisible by ``block_size``: "Dimension size must be evenly
divisible by 2 but is 5"; negative paddings or crops; a window that does not fit); attrs
TF checks when its kernel is built (``block_size`` below 2, patches across the batch or
the depth) are ``ValueError`` here too, as Conv2D's are.  What only the run knows (fed
shapes, ``block_shape`` and ``paddings`` computed at run time) the kernels check, with
TF's messages, as ``InvalidArgumentError`` naming the node.

``atrous_conv2d_transpose`` is a Conv2DBackpropInput with ``dilations = rate``
(``atrous_conv2d``, TF's ``convolution`` with a ``dilation_rate``, is in ``nn_nd.py``
beside it).  Kernels: ``kernels/{reference,cuda}/space_depth.py``; gradients (each op
is the other's inverse; ExtractImagePatches' scatters back): ``space_depth_grad.py``.
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..kernels.windows import patches_output_size
from ..tensor_shape import TensorShape
from .array_operands import check_int, int_operand, int_values
from .common import make_op
from .nn_channels_first import format_name
from .nn_conv import conv2d_transpose
from .registry import InferError, OpDef, register_op

__all__ = ["space_to_depth", "depth_to_space", "space_to_batch_nd", "batch_to_space_nd",
           "space_to_batch", "batch_to_space", "extract_image_patches", "extract_patches",
           "atrous_conv2d_transpose", "patch_geometry", "SPACE_OPS",
           "DATA_FORMATS"]

SPACE_OPS = ("SpaceToDepth", "DepthToSpace", "SpaceToBatchND", "BatchToSpaceND",
             "SpaceToBatch", "BatchToSpace", "ExtractImagePatches")
DATA_FORMATS = ("NHWC", "NCHW")


# --- shape arithmetic as TF's InferenceContext does it -----------------------------------------

def _divide(size, by: int, node: str):
    """``size / by`` for a dimension that must divide evenly (None stays unknown)."""
    if size is None:
        return None
    if size % by:
        raise InferError(f"Op '{node}': Dimension size must be evenly divisible by {by} but "
                         f"is {size}.")
    return size // by


def _times(size, by: int):
    return None if size is None else size * by


def _rank4(x, node: str) -> list:
    if x.shape.ndims is None:
        return [None] * 4
    if x.shape.ndims != 4:
        raise InferError(f"Op '{node}': Shape must be rank 4 but is rank {x.shape.ndims} for "
                         f"'{x.name}' with shape {x.shape}.")
    return list(x.shape.dims)


# --- SpaceToDepth, DepthToSpace ----------------------------------------------------------------

def _block_size(attrs, op_type: str, node: str) -> int:
    block = int(attrs["block_size"])
    if block < 2:
        raise InferError(f"Op '{node}': Attr 'block_size' of '{op_type}' Op passed {block} "
                         f"less than minimum 2.")
    return block


def _data_format(attrs, node: str) -> str:
    fmt = attrs.get("data_format", "NHWC")
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    if fmt not in DATA_FORMATS:
        raise InferError(f"Op '{node}': data_format {fmt!r} is not supported; devsession "
                         f"takes {' or '.join(DATA_FORMATS)}.")
    return fmt


def _depth_op(to_depth: bool):
    op_type = "SpaceToDepth" if to_depth else "DepthToSpace"

    def infer(inputs, attrs, node):
        (x,) = inputs
        block, fmt = _block_size(attrs, op_type, node), _data_format(attrs, node)
        dims = _rank4(x, node)
        n, h, w, c = dims if fmt == "NHWC" else (dims[0], dims[2], dims[3], dims[1])
        if to_depth:
            h, w, c = _divide(h, block, node), _divide(w, block, node), _times(c, block ** 2)
        else:
            h, w, c = _times(h, block), _times(w, block), _divide(c, block ** 2, node)
        return x.dtype, TensorShape([n, h, w, c] if fmt == "NHWC" else [n, c, h, w])
    return infer


# --- SpaceToBatchND, BatchToSpaceND and their 4-D forms ----------------------------------------

def _block_count(block_shape, node: str) -> int:
    """M, the number of block dimensions: the static length of ``block_shape``."""
    check_int(block_shape, node, "block_shape")
    if block_shape.shape.ndims is not None and block_shape.shape.ndims != 1:
        raise InferError(f"Op '{node}': block_shape must have rank 1.")
    if block_shape.shape.ndims is None or block_shape.shape.dims[0] is None:
        raise InferError(f"Op '{node}': block_shape must have known size.")
    return block_shape.shape.dims[0]


def _pairs(spec, m: int, node: str, what: str):
    """The static ``[m, 2]`` value of paddings or crops as pairs (None if unknown)."""
    check_int(spec, node, what)
    if not spec.shape.is_compatible_with(TensorShape([m, 2])):
        raise InferError(f"Op '{node}': {what} must have shape [{m}, 2], got {spec.shape}.")
    values = int_values(spec, node, what, rank=None)
    if values is None:
        return None
    pairs = list(zip(values[0::2], values[1::2]))
    if any(v < 0 for pair in pairs for v in pair):
        raise InferError(f"Op '{node}': {what} cannot be negative, got "
                         f"{[list(p) for p in pairs]}.")
    return pairs


def _batch_space_shape(x, m: int, block, pairs, to_batch: bool, node: str) -> TensorShape:
    """The output shape of SpaceToBatch (``to_batch``) or BatchToSpace: ``block`` and
    ``pairs`` (paddings or crops) are the static values or None."""
    if x.shape.ndims is not None and x.shape.ndims < m + 1:
        raise InferError(f"Op '{node}': Shape must be at least rank {m + 1} but is rank "
                         f"{x.shape.ndims} for '{x.name}' with shape {x.shape}.")
    if block is not None and any(b < 1 for b in block):
        raise InferError(f"Op '{node}': block_shape must be positive, got {block}.")
    if x.shape.ndims is None:
        return TensorShape(None)
    dims = list(x.shape.dims)
    batch = None if block is None and m else dims[0]
    if batch is not None:
        for b in block or ():
            batch = batch * b if to_batch else _divide(batch, b, node)
    spatial = [None] * m
    if block is not None and pairs is not None:
        for i, (d, b, (start, end)) in enumerate(zip(dims[1:m + 1], block, pairs)):
            if d is None:
                continue
            if to_batch:
                spatial[i] = _divide(d + start + end, b, node)
            else:
                spatial[i] = d * b - start - end
                if spatial[i] < 0:
                    raise InferError(f"Op '{node}': Negative dimension size caused by "
                                     f"cropping {start} + {end} from {d * b} (dimension "
                                     f"{i + 1} of '{x.name}', shape {x.shape}, times "
                                     f"block {b}).")
    return TensorShape([batch, *spatial, *dims[m + 1:]])


def _batch_space_nd(to_batch: bool):
    what = "paddings" if to_batch else "crops"

    def infer(inputs, attrs, node):
        x, block_shape, amounts = inputs
        m = _block_count(block_shape, node)
        block = int_values(block_shape, node, "block_shape")
        pairs = _pairs(amounts, m, node, what)
        return x.dtype, _batch_space_shape(x, m, block, pairs, to_batch, node)
    return infer


def _batch_space_4d(to_batch: bool):
    op_type, what = ("SpaceToBatch", "paddings") if to_batch else ("BatchToSpace", "crops")

    def infer(inputs, attrs, node):
        x, amounts = inputs
        block = _block_size(attrs, op_type, node)
        _rank4(x, node)
        pairs = _pairs(amounts, 2, node, what)
        return x.dtype, _batch_space_shape(x, 2, [block, block], pairs, to_batch, node)
    return infer


# --- ExtractImagePatches ---------------------------------------------------------------------

def _spatial_attr(attrs, key: str, node: str) -> tuple[int, int]:
    values = [int(v) for v in attrs[key]]
    if len(values) != 4:
        raise InferError(f"Op '{node}': ExtractImagePatches requires the {key} attribute to "
                         f"contain 4 values, but got: {len(values)}")
    # a batch or depth value other than 1 builds, as TF's shape function (which reads the
    # spatial values only) builds it; the kernel refuses it (UnimplementedError)
    if values[1] < 1 or values[2] < 1:
        raise InferError(f"Op '{node}': {key} is out of range: {values}.")
    return values[1], values[2]


def patch_geometry(attrs, node: str):
    """((ksize_rows, ksize_cols), (stride_rows, stride_cols), (rate_rows, rate_cols),
    padding) of an ExtractImagePatches node, checked."""
    padding = attrs["padding"]
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if padding not in ("SAME", "VALID"):
        raise InferError(f"Op '{node}': padding must be 'SAME' or 'VALID', got {padding!r}.")
    return (_spatial_attr(attrs, "ksizes", node), _spatial_attr(attrs, "strides", node),
            _spatial_attr(attrs, "rates", node), padding)


def _patches_out(size, k: int, stride: int, rate: int, padding: str, node: str):
    if size is None:
        return None
    out = patches_output_size(size, k, stride, rate, padding)
    if out < 0:
        raise InferError(f"Op '{node}': Computed output size would be negative: {out} "
                         f"[input_size: {size}, effective_filter_size: {(k - 1) * rate + 1}, "
                         f"stride: {stride}]")
    return out


def _extract_image_patches(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_numeric:
        raise TypeError(f"Op '{node}': images '{x.name}' must be a real number type, not "
                        f"{x.dtype.name}.")
    (kr, kc), (sr, sc), (rr, rc), padding = patch_geometry(attrs, node)
    n, h, w, c = _rank4(x, node)
    return x.dtype, TensorShape([n, _patches_out(h, kr, sr, rr, padding, node),
                                 _patches_out(w, kc, sc, rc, padding, node),
                                 _times(c, kr * kc)])


def _register() -> None:
    depth_defaults = {"data_format": "NHWC"}
    register_op(OpDef("SpaceToDepth", _depth_op(True), 1, attr_defaults=depth_defaults))
    register_op(OpDef("DepthToSpace", _depth_op(False), 1, attr_defaults=depth_defaults))
    register_op(OpDef("SpaceToBatchND", _batch_space_nd(True), 3, host_inputs=(1, 2)))
    register_op(OpDef("BatchToSpaceND", _batch_space_nd(False), 3, host_inputs=(1, 2)))
    register_op(OpDef("SpaceToBatch", _batch_space_4d(True), 2, host_inputs=(1,)))
    register_op(OpDef("BatchToSpace", _batch_space_4d(False), 2, host_inputs=(1,)))
    register_op(OpDef("ExtractImagePatches", _extract_image_patches, 1))


_register()


# --- builders ----------------------------------------------------------------------------------

def _depth_builder(op_type: str):
    def build(input, block_size, name=None, data_format="NHWC"):  # noqa: A002  (TF's name)
        return make_op(op_type, [convert_to_tensor(input)],
                       {"block_size": int(block_size), "data_format": format_name(data_format)},
                       name)
    return build


space_to_depth = _depth_builder("SpaceToDepth")
space_to_depth.__name__ = "space_to_depth"
space_to_depth.__doc__ = """``tf.space_to_depth``: each ``block_size x block_size`` tile of
    the height and width becomes ``block_size**2`` channels (ValueError at build when a
    known height or width is not a multiple of ``block_size``)."""
depth_to_space = _depth_builder("DepthToSpace")
depth_to_space.__name__ = "depth_to_space"
depth_to_space.__doc__ = """``tf.depth_to_space``: the inverse of ``space_to_depth`` (the
    depth must be a multiple of ``block_size**2``)."""


def space_to_batch_nd(input, block_shape, paddings, name=None) -> Tensor:  # noqa: A002
    """``tf.space_to_batch_nd``: dimensions ``1..M`` zero-padded by ``paddings`` ([M, 2])
    and tiled by ``block_shape`` ([M]); each position in a tile becomes its own batch."""
    x = convert_to_tensor(input)
    return make_op("SpaceToBatchND", [x, int_operand(block_shape, x.graph),
                                      int_operand(paddings, x.graph)], name=name)


def batch_to_space_nd(input, block_shape, crops, name=None) -> Tensor:  # noqa: A002
    """``tf.batch_to_space_nd``: the inverse of ``space_to_batch_nd``, then ``crops``
    ([M, 2]) cut from the start and end of dimensions ``1..M``."""
    x = convert_to_tensor(input)
    return make_op("BatchToSpaceND", [x, int_operand(block_shape, x.graph),
                                      int_operand(crops, x.graph)], name=name)


def _square_block(block_size, block_shape, what: str) -> np.ndarray:
    """TF 1.15's ``block_size`` (or its newer name ``block_shape``) as the ND op's
    ``[block_size, block_size]`` int64 block."""
    if (block_size is None) == (block_shape is None):
        raise ValueError(f"{what} takes block_size= (or block_shape=), exactly one.")
    size = int(block_size if block_size is not None else block_shape)
    return np.array([size, size], np.int64)


def _rank4_result(result: Tensor, what: str) -> Tensor:
    if result.shape.ndims not in (None, 4):
        raise ValueError(f"{what}: Shape {result.shape} must have rank 4.")
    if result.shape.ndims is None:
        result.set_shape(TensorShape([None] * 4))
    return result


def space_to_batch(input, paddings, block_size=None, name=None,  # noqa: A002
                   block_shape=None) -> Tensor:
    """TF1's ``tf.space_to_batch``: ``space_to_batch_nd`` of a 4-D ``input`` with the
    block ``[block_size, block_size]`` (a SpaceToBatchND, as TF 1.15 builds it)."""
    block = _square_block(block_size, block_shape, "space_to_batch")
    return _rank4_result(space_to_batch_nd(input, block, paddings, name=name),
                         "space_to_batch")


def batch_to_space(input, crops, block_size=None, name=None,  # noqa: A002
                   block_shape=None) -> Tensor:
    """TF1's ``tf.batch_to_space``: ``batch_to_space_nd`` with the block
    ``[block_size, block_size]`` (a BatchToSpaceND, as TF 1.15 builds it)."""
    block = _square_block(block_size, block_shape, "batch_to_space")
    return _rank4_result(batch_to_space_nd(input, block, crops, name=name),
                         "batch_to_space")


def _padding_name(padding, what: str) -> str:
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{what}: padding must be 'SAME' or 'VALID', got {padding!r}.")
    return padding.upper()


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None) -> Tensor:
    """TF1's ``tf.extract_image_patches`` (``ksizes``, or ``sizes`` as TF 1.15 also
    takes): the ``[1, rows, cols, 1]`` windows of ``images`` (NHWC) ``strides`` apart,
    sampled every ``rates`` pixels, each flattened into the depth."""
    if (ksizes is None) == (sizes is None):
        raise ValueError("extract_image_patches takes ksizes= (or sizes=), exactly one.")
    if strides is None or rates is None or padding is None:
        raise ValueError("extract_image_patches needs strides, rates and padding.")
    attrs = {"ksizes": tuple(int(v) for v in (ksizes if sizes is None else sizes)),
             "strides": tuple(int(v) for v in strides),
             "rates": tuple(int(v) for v in rates),
             "padding": _padding_name(padding, "extract_image_patches")}
    return make_op("ExtractImagePatches", [convert_to_tensor(images)], attrs, name)


def extract_patches(images, sizes, strides, rates, padding, name=None) -> Tensor:
    """``tf.image.extract_patches``: ``extract_image_patches`` with TF2's argument name
    ``sizes``."""
    return extract_image_patches(images, strides=strides, rates=rates, padding=padding,
                                 name=name, sizes=sizes)


# --- atrous convolutions ----------------------------------------------------------------------

def _rate(rate, what: str) -> int:
    values = [int(v) for v in np.atleast_1d(rate)]
    if len(values) != 1:
        raise ValueError(f"{what}: rate must be one int, got {rate!r}.")
    if values[0] < 1:
        raise ValueError(f"rate {values[0]} cannot be less than one")
    return values[0]


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding,
                            name=None) -> Tensor:
    """TF1's ``tf.nn.atrous_conv2d_transpose``: the gradient of ``atrous_conv2d`` with
    respect to its input, run forward (a Conv2DBackpropInput with the dilations);
    ``filters`` is ``[height, width, output channels, input channels]``.  ValueError
    when the channels of ``value``, ``filters`` and ``output_shape`` disagree, for an
    ``output_shape`` not of 4 elements, or ``rate`` below 1."""
    rate = _rate(rate, "atrous_conv2d_transpose")
    with name_scope(name or "atrous_conv2d_transpose"):
        x = convert_to_tensor(value, name="value")
        f = convert_to_tensor(filters, dtype_hint=x.dtype, name="filters")
        if x.shape.ndims == 4 and f.shape.ndims == 4 and None not in (
                x.shape.dims[3], f.shape.dims[3]) and x.shape.dims[3] != f.shape.dims[3]:
            raise ValueError(f"value's input channels does not match filters' input "
                             f"channels, {x.shape.dims[3]} != {f.shape.dims[3]}")
        sizes = int_operand(output_shape, x.graph, name="output_shape")
        if sizes.shape.ndims is not None and not sizes.shape.is_compatible_with(
                TensorShape([4])):
            raise ValueError(f"output_shape must have shape (4,), got {sizes.shape}")
        known = constant_value(sizes)
        if known is not None and f.shape.ndims == 4 and f.shape.dims[2] is not None and \
                int(np.asarray(known).reshape(-1)[3]) != f.shape.dims[2]:
            raise ValueError(f"output_shape does not match filter's output channels, "
                             f"{int(np.asarray(known).reshape(-1)[3])} != {f.shape.dims[2]}")
        return conv2d_transpose(x, f, sizes, strides=[1, 1, 1, 1], padding=padding,
                                dilations=[1, rate, rate, 1], name="conv2d_transpose")
