"""TF's image file ops: encoded bytes (a string scalar, as ``read_file`` or a TFRecord
gives them) to pixels and back, so that TF1's input pipeline (file names ->
``read_file`` -> ``decode_jpeg`` -> ``resize_images`` -> ``batch``) runs unchanged.

The op types and attrs are TF's, so GraphDefs TensorFlow wrote import:

=========================  ===========================================================
``DecodeJpeg``             ``channels`` (0, 1, 3), ``ratio`` (1, 2, 4, 8),
                           ``fancy_upscaling``, ``try_recover_truncated``,
                           ``acceptable_fraction``, ``dct_method`` -> uint8 [h, w, c]
``DecodeAndCropJpeg``      the same, and a ``crop_window`` input [y, x, height, width]
``DecodePng``              ``channels`` (0..4), ``dtype`` uint8/uint16
``DecodeBmp``              ``channels`` (0, 3, 4)
``DecodeGif``              every frame: uint8 [frames, h, w, 3]
``DecodeImage``            the format read from the first bytes; ``channels``,
                           ``dtype`` (uint8, uint16, float32), ``expand_animations``
                           (False: a GIF's first frame, 3-D)
``EncodePng``              uint8/uint16 [..., h, w, 1..4], ``compression`` (-1..9)
``EncodeJpeg``             uint8 [h, w, 1 or 3]; ``format``, ``quality``,
                           ``progressive``, ``optimize_size``, ``chroma_downsampling``,
                           ``density_unit``, ``x_density``, ``y_density``,
                           ``xmp_metadata``
``EncodeJpegVariableQuality``  uint8 [h, w, 1 or 3] and an int32 ``quality`` scalar
                           (TF's defaults otherwise; ``adjust_jpeg_quality``)
``ExtractJpegShape``       [height, width, channels] from the header, int32/int64
=========================  ===========================================================

As TF 2.21's one decoder kernel, every decode op reads the format from the magic bytes:
``decode_jpeg`` and ``decode_png`` also read PNG, JPEG and one-frame GIF files,
``decode_gif`` reads JPEG and PNG as one frame, ``decode_bmp`` reads only BMP; the
other combinations are ``InvalidArgumentError`` with TF's message, as is data a decoder
cannot read.  ``is_jpeg`` is TF's composite (the first three bytes compared);
``decode_image`` is TF's wrapper of DecodeImage (``image_dtype.py``, which converts).

Static shapes as TF infers them: [None, None, channels] (None when ``channels`` is 0),
a GIF's [None, None, None, 3], ``DecodeImage`` of unknown rank unless
``expand_animations=False``, a constant crop window's height and width.  The kernels
(``kernels/reference/image_files.py``, over Pillow: ``pip install devsession[image]``)
run on the host; none of the ops is differentiable, as in TF.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph, name_scope
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["decode_jpeg", "decode_and_crop_jpeg", "decode_png", "decode_bmp", "decode_gif",
           "decode_image_op", "encode_png", "encode_jpeg", "encode_jpeg_variable_quality",
           "extract_jpeg_shape", "is_jpeg", "IMAGE_FILE_OPS"]

_JPEG_ATTRS = {"channels": 0, "ratio": 1, "fancy_upscaling": True,
               "try_recover_truncated": False, "acceptable_fraction": 1.0, "dct_method": ""}
_ENCODE_JPEG_ATTRS = {"format": "", "quality": 95, "progressive": False,
                      "optimize_size": False, "chroma_downsampling": True,
                      "density_unit": "in", "x_density": 300, "y_density": 300,
                      "xmp_metadata": ""}
IMAGE_FILE_OPS = ("DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeBmp", "DecodeGif",
                  "DecodeImage", "EncodePng", "EncodeJpeg", "EncodeJpegVariableQuality",
                  "ExtractJpegShape")


# --- shape inference --------------------------------------------------------------------------

def _rank_error(node, spec, rank, at_least=False):
    raise InferError(f"Shape must be {'at least ' if at_least else ''}rank {rank} but is "
                     f"rank {spec.shape.rank} for '{node}' with input shapes: {spec.shape}.")


def _contents(inputs, node):
    spec = inputs[0]
    if spec.dtype != dtypes.string:
        raise InferError(f"Op '{node}': contents must be a string, got {spec.dtype.name}.")
    if spec.shape.rank not in (None, 0):
        _rank_error(node, spec, 0)


def _channels_dim(attrs, node):
    channels = int(attrs.get("channels", 0))
    if channels < 0:
        raise InferError(f"channels must be non-negative, got {channels} for '{node}'.")
    return channels or None


def _infer_decode(dtype_of):
    def infer(inputs, attrs, node):
        _contents(inputs, node)
        return dtype_of(attrs), TensorShape([None, None, _channels_dim(attrs, node)])
    return infer


def _infer_crop(inputs, attrs, node):
    _contents(inputs, node)
    window = inputs[1]
    if window.shape.rank not in (None, 1):
        _rank_error(node, window, 1)
    if window.shape.rank == 1 and window.shape.dims[0] not in (None, 4):
        raise InferError(f"Dimension must be 4 but is {window.shape[0]} for '{node}' "
                         f"with input shapes: [], {window.shape}.")
    height = width = None
    if window.value is not None:
        height, width = int(window.value[2]), int(window.value[3])
    return dtypes.uint8, TensorShape([height, width, _channels_dim(attrs, node)])


def _infer_gif(inputs, attrs, node):
    _contents(inputs, node)
    return dtypes.uint8, TensorShape([None, None, None, 3])


def _infer_image(inputs, attrs, node):
    _contents(inputs, node)
    channels = _channels_dim(attrs, node)
    dtype = dtypes.as_dtype(attrs["dtype"])
    if attrs.get("expand_animations", True):
        return dtype, TensorShape(None)
    return dtype, TensorShape([None, None, channels])


def _infer_encode(ranks_at_least: bool):
    def infer(inputs, attrs, node):
        image = inputs[0]
        if image.shape.rank is not None and (image.shape.rank < 3 if ranks_at_least
                                             else image.shape.rank != 3):
            _rank_error(node, image, 3, at_least=ranks_at_least)
        batch = image.shape[:-3] if image.shape.rank is not None else TensorShape(None)
        return dtypes.string, TensorShape(batch)
    return infer


def _infer_variable_quality(inputs, attrs, node):
    image, quality = inputs
    if image.dtype != dtypes.uint8 or quality.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': images must be uint8 and quality int32, got "
                        f"{image.dtype.name} and {quality.dtype.name}.")
    if image.shape.rank not in (None, 3):
        _rank_error(node, image, 3)
    if quality.shape.rank not in (None, 0):
        _rank_error(node, quality, 0)
    return dtypes.string, TensorShape([])


def _infer_jpeg_shape(inputs, attrs, node):
    _contents(inputs, node)
    return dtypes.as_dtype(attrs["output_type"]), TensorShape([3])


register_op(OpDef("DecodeJpeg", _infer_decode(lambda a: dtypes.uint8), 1,
                  attr_defaults=_JPEG_ATTRS))
register_op(OpDef("DecodeAndCropJpeg", _infer_crop, 2, attr_defaults=_JPEG_ATTRS))
register_op(OpDef("DecodePng", _infer_decode(lambda a: dtypes.as_dtype(a["dtype"])), 1,
                  attr_defaults={"channels": 0, "dtype": dtypes.uint8}))
register_op(OpDef("DecodeBmp", _infer_decode(lambda a: dtypes.uint8), 1,
                  attr_defaults={"channels": 0}))
register_op(OpDef("DecodeGif", _infer_gif, 1))
register_op(OpDef("DecodeImage", _infer_image, 1,
                  attr_defaults={"channels": 0, "dtype": dtypes.uint8,
                                 "expand_animations": True}))
register_op(OpDef("EncodePng", _infer_encode(True), 1, attr_defaults={"compression": -1}))
register_op(OpDef("EncodeJpeg", _infer_encode(False), 1, attr_defaults=_ENCODE_JPEG_ATTRS))
register_op(OpDef("EncodeJpegVariableQuality", _infer_variable_quality, 2,
                  host_inputs=(1,)))
register_op(OpDef("ExtractJpegShape", _infer_jpeg_shape, 1,
                  attr_defaults={"output_type": dtypes.int32}))
not_differentiable(*IMAGE_FILE_OPS)


# --- builders ---------------------------------------------------------------------------------

def _allowed(dtype, allowed, what):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{what}' has DataType {dtype.name} not "
                        f"in list of allowed values: {', '.join(d.name for d in allowed)}")
    return dtype


def _decode(op_type, contents, attrs, name, extra=()):
    graph = get_default_graph()
    inputs = [convert_to_tensor(contents, dtype=dtypes.string, graph=graph), *extra]
    return graph.create_op(op_type, inputs, attrs, name=name or op_type).outputs[0]


def _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated,
                acceptable_fraction, dct_method):
    return {"channels": int(channels), "ratio": int(ratio),
            "fancy_upscaling": bool(fancy_upscaling),
            "try_recover_truncated": bool(try_recover_truncated),
            "acceptable_fraction": float(acceptable_fraction), "dct_method": str(dct_method)}


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                name=None):
    """TF1's ``tf.image.decode_jpeg`` / ``tf.io.decode_jpeg``: uint8 [h, w, channels];
    PNG and one-frame GIF bytes decode too, as TF's."""
    return _decode("DecodeJpeg", contents, _jpeg_attrs(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction,
        dct_method), name)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """TF1's ``tf.image.decode_and_crop_jpeg``: the window [y, x, height, width] of the
    (``ratio``-scaled) JPEG."""
    window = convert_to_tensor(crop_window, dtype=dtypes.int32)
    return _decode("DecodeAndCropJpeg", contents, _jpeg_attrs(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction,
        dct_method), name, extra=[window])


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """TF1's ``tf.image.decode_png``: uint8 or uint16 [h, w, channels]."""
    dtype = _allowed(dtype, (dtypes.uint8, dtypes.uint16), "dtype")
    return _decode("DecodePng", contents, {"channels": int(channels), "dtype": dtype}, name)


def decode_bmp(contents, channels=0, name=None):
    """TF1's ``tf.image.decode_bmp``: uint8 [h, w, channels]."""
    return _decode("DecodeBmp", contents, {"channels": int(channels)}, name)


def decode_gif(contents, name=None):
    """TF1's ``tf.image.decode_gif``: uint8 [frames, h, w, 3]."""
    return _decode("DecodeGif", contents, {}, name)


def decode_image_op(contents, channels=0, dtype=dtypes.uint8, expand_animations=True,
                    name=None):
    """The DecodeImage op (dtype uint8, uint16 or float32); ``ds.image.decode_image``
    (``image_dtype.py``) converts to the other dtypes as TF's wrapper does."""
    dtype = _allowed(dtype, (dtypes.uint8, dtypes.uint16, dtypes.float32), "dtype")
    return _decode("DecodeImage", contents, {
        "channels": int(channels or 0), "dtype": dtype,
        "expand_animations": bool(expand_animations)}, name)


def encode_png(image, compression=-1, name=None):
    """TF1's ``tf.image.encode_png``: uint8/uint16 [..., h, w, 1..4] to PNG bytes (one
    string per image of a batch)."""
    graph = get_default_graph()
    image = convert_to_tensor(image, graph=graph)
    _allowed(image.dtype, (dtypes.uint8, dtypes.uint16), "image")
    return graph.create_op("EncodePng", [image], {"compression": int(compression)},
                           name=name or "EncodePng").outputs[0]


def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002 (TF's name)
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None):
    """TF1's ``tf.image.encode_jpeg``: uint8 [h, w, 1 or 3] to JPEG bytes."""
    if format not in ("", "grayscale", "rgb"):
        raise ValueError(f"Attr 'format' of 'EncodeJpeg' Op passed string '{format}' not "
                         f"in: \"\", \"grayscale\", \"rgb\".")
    if density_unit not in ("in", "cm"):
        raise ValueError(f"Attr 'density_unit' of 'EncodeJpeg' Op passed string "
                         f"'{density_unit}' not in: \"in\", \"cm\".")
    graph = get_default_graph()
    image = convert_to_tensor(image, graph=graph)
    _allowed(image.dtype, (dtypes.uint8,), "image")
    attrs = {"format": format, "quality": int(quality), "progressive": bool(progressive),
             "optimize_size": bool(optimize_size),
             "chroma_downsampling": bool(chroma_downsampling), "density_unit": density_unit,
             "x_density": int(x_density), "y_density": int(y_density),
             "xmp_metadata": str(xmp_metadata)}
    return graph.create_op("EncodeJpeg", [image], attrs,
                           name=name or "EncodeJpeg").outputs[0]


def encode_jpeg_variable_quality(images, quality, name=None):
    """TF's EncodeJpegVariableQuality: uint8 [h, w, 1 or 3] to JPEG bytes at an int32
    ``quality`` known at run time (``adjust_jpeg_quality``, ``random_jpeg_quality``)."""
    graph = get_default_graph()
    image = convert_to_tensor(images, graph=graph)
    _allowed(image.dtype, (dtypes.uint8,), "images")
    q = convert_to_tensor(quality, dtype=dtypes.int32, graph=graph)
    return graph.create_op("EncodeJpegVariableQuality", [image, q], {},
                           name=name or "EncodeJpegVariableQuality").outputs[0]


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """TF1's ``tf.image.extract_jpeg_shape``: [height, width, channels] from the header."""
    dtype = _allowed(output_type, (dtypes.int32, dtypes.int64), "output_type")
    return _decode("ExtractJpegShape", contents, {"output_type": dtype}, name)


def is_jpeg(contents, name=None):
    """TF1's ``tf.image.is_jpeg``: whether the bytes start as a JPEG's (``substr`` ==
    b'\\xff\\xd8\\xff', as TF builds it; false positives possible)."""
    from .elementwise import equal
    from .strings import substr

    with name_scope(name or "is_jpeg"):
        return equal(substr(contents, 0, 3), b"\xff\xd8\xff", name=name)
