"""3-D convolution and pooling, for video and volumetric models: Conv3D and its two
gradients, MaxPool3D, AvgPool3D and theirs, and the builders ``conv3d``,
``conv3d_transpose``, ``conv3d_backprop_filter_v2``, ``max_pool3d`` and ``avg_pool3d``.

Op types and attrs are TensorFlow's, so TF GraphDefs import: ``strides``, ``ksize`` and
``dilations`` are 5-lists in the order of ``data_format`` -- ``"NDHWC"`` (the default) or
``"NCDHW"``, both run on every device -- and the filter is ``[KD, KH, KW, in, out]``
either way; ``padding`` is ``"SAME"`` or ``"VALID"`` with 2-D's geometry per spatial
dimension (SAME's odd padding element at the end).  The gradient ops are TF's V2 forms,
which take the original shape as an int32 tensor read on the host:
``Conv3DBackpropInputV2(input_sizes, filter, out_backprop)``,
``Conv3DBackpropFilterV2(input, filter_sizes, out_backprop)``,
``AvgPool3DGrad(orig_input_shape, grad)``; ``MaxPool3DGrad(orig_input, orig_output,
grad)`` routes each gradient to its window's first maximum, and ``MaxPool3DGradGrad``
(its gradient) gathers back from there.

Static checks are TF1's, a ``ValueError`` when the graph is built: ranks other than 5, a
filter whose in-channels differ from the input's (or are 0), a VALID window larger than
the input, strides below 1 or dilations below 1, attr lists not of 5.  As in TF, what
only its kernels refuse is an error when the graph runs (``kernels/volumes.py``):
strides, dilations or windows over the batch or channels, pooling windows below 1, and
the sizes of a gradient op (TF's shape functions read them and check nothing) that do
not fit its ``out_backprop``.
MaxPool3D and its gradient take float16 and float32 only, as TF's op (float64 is a
``TypeError``); the rest also float64.

Kernels: ``kernels/{reference,cpu,cuda}/conv3d.py``; gradients: ``nn_conv3d_grad.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..kernels.windows import output_size
from ..tensor_shape import TensorShape
from .array_operands import int_operand
from .common import make_op, same_dtype
from .nn_channels_first import format_name
from .nn_conv import FLOATS, dtype_in, sizes_operand
from .registry import InferError, OpDef, register_op

__all__ = ["conv3d", "conv3d_transpose", "conv3d_backprop_filter_v2", "max_pool3d",
           "avg_pool3d", "CONV3D_ATTRS", "POOL3D_ATTRS"]

MAX_POOL3D_TYPES = (dtypes.float16, dtypes.float32)
FORMATS = ("NDHWC", "NCDHW")
CONV3D_ATTRS = ("strides", "padding", "data_format", "dilations")
POOL3D_ATTRS = ("ksize", "strides", "padding", "data_format")
_CONV_DEFAULTS = {"data_format": "NDHWC", "dilations": (1, 1, 1, 1, 1)}
_POOL_DEFAULTS = {"data_format": "NDHWC"}
_SPATIAL_NAMES = ("depth", "height", "width")


# --- attribute and shape checks ------------------------------------------------------------

def _format(attrs, node: str) -> str:
    data_format = attrs.get("data_format", "NDHWC")
    if data_format not in FORMATS:
        raise InferError(f"Op '{node}': data_format must be 'NDHWC' or 'NCDHW', got "
                         f"{data_format!r}.")
    return data_format


def _padding_attr(attrs, node: str) -> str:
    padding = attrs["padding"]
    if padding not in ("SAME", "VALID"):
        raise InferError(f"Op '{node}': padding must be 'SAME' or 'VALID', got {padding!r}.")
    return padding


def _five(attrs, key: str, node: str, data_format: str, default=None) -> tuple:
    """The (d, h, w) entries of a 5-list attr in ``data_format``'s order."""
    values = tuple(int(v) for v in attrs.get(key, default))
    if len(values) != 5:
        raise InferError(f"Op '{node}': attr '{key}' must have 5 elements, got "
                         f"{list(values)}.")
    return values[1:4] if data_format == "NDHWC" else values[2:5]


def _dims5(x, node: str, what: str) -> tuple:
    if x.shape.ndims is None:
        return (None,) * 5
    if x.shape.ndims != 5:
        raise InferError(f"Op '{node}': {what} '{x.name}' must be rank 5, but is rank "
                         f"{x.shape.ndims} (shape {x.shape}).")
    return x.shape.dims


def _split(dims, data_format: str) -> tuple:
    """(batch, (d, h, w), channels) of 5 dims in ``data_format``."""
    if data_format == "NDHWC":
        return dims[0], tuple(dims[1:4]), dims[4]
    return dims[0], tuple(dims[2:5]), dims[1]


def _join(batch, spatial, channels, data_format: str) -> TensorShape:
    if data_format == "NDHWC":
        return TensorShape([batch, *spatial, channels])
    return TensorShape([batch, channels, *spatial])


def _out_dim(size, k, stride, dilation, padding, node: str):
    if size is None or (k is None and padding == "VALID"):
        return None
    if padding == "SAME":
        return output_size(size, 1, stride, 1, padding)[0]
    out = output_size(size, k, stride, dilation, padding)[0]
    if out < 0:
        raise InferError(f"Op '{node}': Negative dimension size caused by subtracting "
                         f"{(k - 1) * dilation + 1} from {size} (a window of {k}, dilation "
                         f"{dilation}, VALID padding).")
    return out


def _positive(values, what: str, node: str) -> None:
    if min(values) < 1:
        raise InferError(f"Op '{node}': {what} must be >= 1, but got {list(values)}.")


def _conv3d_shape(x_dims, f_dims, attrs, node: str) -> TensorShape:
    data_format = _format(attrs, node)
    padding = _padding_attr(attrs, node)
    strides = _five(attrs, "strides", node, data_format)
    dilations = _five(attrs, "dilations", node, data_format, (1, 1, 1, 1, 1))
    _positive(strides, "strides", node)
    _positive(dilations, "dilations", node)
    batch, sizes, channels = _split(x_dims, data_format)
    in_depth = f_dims[3]
    if in_depth == 0:
        raise InferError(f"Op '{node}': Depth of filter must not be 0 (filter shape "
                         f"{TensorShape(f_dims)}).")
    if channels is not None and in_depth is not None and channels != in_depth:
        raise InferError(f"Op '{node}': Depth of input ({channels}) is not the input depth "
                         f"of the filter ({in_depth}); input shape {TensorShape(x_dims)}, "
                         f"filter shape {TensorShape(f_dims)}.")
    spatial = [_out_dim(n, k, s, d, padding, node)
               for n, k, s, d in zip(sizes, f_dims[:3], strides, dilations)]
    return _join(batch, spatial, f_dims[4], data_format)


def _pool3d_shape(x_dims, attrs, node: str) -> TensorShape:
    data_format = _format(attrs, node)
    padding = _padding_attr(attrs, node)
    ksize = _five(attrs, "ksize", node, data_format)
    strides = _five(attrs, "strides", node, data_format)
    _positive(strides, "strides", node)
    batch, sizes, channels = _split(x_dims, data_format)
    spatial = [_out_dim(n, max(k, 1), s, 1, padding, node)
               for n, k, s in zip(sizes, ksize, strides)]
    return _join(batch, spatial, channels, data_format)


def _check_sized_backprop(operand, what: str, dy, attrs, node: str) -> None:
    """What TF checks when it builds a Conv3DBackpropInputV2/FilterV2, whose shape
    function reads only the sizes: here also the attrs and the ranks.  Sizes whose
    convolution would not give ``out_backprop``'s shape (a ``conv3d_transpose`` whose
    ``output_shape`` does not fit its input and strides) build, and are the kernel's
    InvalidArgumentError when the op runs."""
    data_format = _format(attrs, node)
    _padding_attr(attrs, node)
    _positive(_five(attrs, "strides", node, data_format), "strides", node)
    _positive(_five(attrs, "dilations", node, data_format, (1, 1, 1, 1, 1)), "dilations",
              node)
    _dims5(operand, node, what)
    _dims5(dy, node, "out_backprop")


# --- inference -------------------------------------------------------------------------

def _conv3d(inputs, attrs, node):
    x, f = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, FLOATS, node)
    return dtype, _conv3d_shape(_dims5(x, node, "input"), _dims5(f, node, "filter"), attrs,
                                node)


def _backprop_input(inputs, attrs, node):
    sizes, f, dy = inputs
    dtype = same_dtype([f, dy], node)
    dtype_in(f, FLOATS, node)
    _check_sized_backprop(f, "filter", dy, attrs, node)
    return dtype, sizes_operand(sizes, node, 5, int64=True)


def _backprop_filter(inputs, attrs, node):
    x, sizes, dy = inputs
    dtype = same_dtype([x, dy], node)
    dtype_in(x, FLOATS, node)
    _check_sized_backprop(x, "input", dy, attrs, node)
    return dtype, sizes_operand(sizes, node, 5, int64=True)


def _pool(allowed):
    def infer(inputs, attrs, node):
        (x,) = inputs
        dtype_in(x, allowed, node)
        return x.dtype, _pool3d_shape(_dims5(x, node, "input"), attrs, node)
    return infer


def _compatible(t, expected, node: str, what: str) -> None:
    if not expected.is_compatible_with(t.shape):
        raise InferError(f"Op '{node}': {what} '{t.name}' has shape {t.shape}, but "
                         f"{expected} is expected.")


def _max_pool3d_grad(inputs, attrs, node):
    x, y, dy = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, MAX_POOL3D_TYPES, node)
    expected = _pool3d_shape(_dims5(x, node, "orig_input"), attrs, node)
    _compatible(y, expected, node, "orig_output")
    _compatible(dy, expected, node, "grad")
    return dtype, x.shape


def _max_pool3d_grad_grad(inputs, attrs, node):
    x, y, grad = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, FLOATS, node)
    expected = _pool3d_shape(_dims5(x, node, "orig_input"), attrs, node)
    _compatible(y, expected, node, "orig_output")
    _compatible(grad, x.shape, node, "grad")
    return dtype, expected


def _avg_pool3d_grad(inputs, attrs, node):
    sizes, dy = inputs
    dtype_in(dy, FLOATS, node)
    shape = sizes_operand(sizes, node, 5)
    _compatible(dy, _pool3d_shape(shape.dims, attrs, node), node, "grad")
    return dy.dtype, shape


register_op(OpDef("Conv3D", _conv3d, 2, attr_defaults=_CONV_DEFAULTS))
register_op(OpDef("Conv3DBackpropInputV2", _backprop_input, 3, attr_defaults=_CONV_DEFAULTS,
                  host_inputs=(0,)))
register_op(OpDef("Conv3DBackpropFilterV2", _backprop_filter, 3,
                  attr_defaults=_CONV_DEFAULTS, host_inputs=(1,)))
register_op(OpDef("MaxPool3D", _pool(MAX_POOL3D_TYPES), 1, attr_defaults=_POOL_DEFAULTS))
register_op(OpDef("AvgPool3D", _pool(FLOATS), 1, attr_defaults=_POOL_DEFAULTS))
register_op(OpDef("MaxPool3DGrad", _max_pool3d_grad, 3, attr_defaults=_POOL_DEFAULTS))
register_op(OpDef("MaxPool3DGradGrad", _max_pool3d_grad_grad, 3,
                  attr_defaults=_POOL_DEFAULTS))
register_op(OpDef("AvgPool3DGrad", _avg_pool3d_grad, 2, attr_defaults=_POOL_DEFAULTS,
                  host_inputs=(0,)))


# --- builders ----------------------------------------------------------------------------

def _padding(padding, op_type: str) -> str:
    if isinstance(padding, bytes):
        padding = padding.decode()
    if not isinstance(padding, str) or padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_type}' Op passed {padding!r}, not in: "
                         f"\"SAME\", \"VALID\".")
    return padding


def _list5(value, key: str, op_type: str) -> tuple:
    """A conv attr: TF's builders take a list of exactly 5 ints (an int or an array is
    TypeError, as TF's op-def check)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{key}' argument to '{op_type}' Op, not "
                        f"{value!r}.")
    values = list(value)
    if len(values) != 5:
        raise ValueError(f"Attr '{key}' of '{op_type}' Op passed list of length "
                         f"{len(values)}, not 5: {value!r}.")
    return tuple(int(v) for v in values)


def _window5(value, key: str, data_format: str) -> tuple:
    """A pooling attr as TF2's ``max_pool3d`` takes it: an int, or a list of 1, 3 or 5."""
    values = [value] if isinstance(value, (int, np.integer)) else list(value)
    if len(values) == 1:
        values = values * 3
    if len(values) == 3:
        values = [1, *values, 1] if data_format != "NCDHW" else [1, 1, *values]
    if len(values) != 5:
        raise ValueError(f"{key} should be of length 1, 3 or 5. Received: {key}={value!r} "
                         f"of length {len(np.atleast_1d(value))}")
    return tuple(int(v) for v in values)


def _conv_attrs(strides, padding, data_format, dilations, op_type: str) -> dict:
    data_format = format_name(data_format, "NDHWC")
    if data_format not in FORMATS:
        raise ValueError(f"'{op_type}': data_format must be 'NDHWC' or 'NCDHW', got "
                         f"{data_format!r}.")
    if strides is None:
        raise ValueError(f"'{op_type}' needs strides.")
    return {"strides": _list5(strides, "strides", op_type),
            "padding": _padding(padding, op_type), "data_format": data_format,
            "dilations": _list5((1,) * 5 if dilations is None else dilations, "dilations",
                                op_type)}


def conv3d(input, filter=None, strides=None, padding=None,  # noqa: A002  (TF's names)
           data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None, filters=None
           ) -> Tensor:
    """``tf.nn.conv3d``: the 3-D convolution of ``input`` (NDHWC, or NCDHW) with
    ``filter`` ``[KD, KH, KW, in, out]``; one Conv3D node."""
    if filter is None:
        filter = filters  # noqa: A001
    elif filters is not None:
        raise ValueError("conv3d takes filter= or filters=, not both.")
    if filter is None:
        raise ValueError("conv3d needs a filter (filters=...).")
    x = convert_to_tensor(input)
    f = convert_to_tensor(filter, dtype_hint=x.dtype)
    return make_op("Conv3D", [x, f],
                   _conv_attrs(strides, padding, data_format, dilations, "Conv3D"), name)


def conv3d_backprop_filter_v2(input, filter_sizes, out_backprop, strides,  # noqa: A002
                              padding, data_format="NDHWC", dilations=(1, 1, 1, 1, 1),
                              name=None) -> Tensor:
    """``tf.nn.conv3d_backprop_filter_v2``: the gradient of Conv3D with respect to its
    filter, of shape ``filter_sizes``."""
    x = convert_to_tensor(input)
    sizes = convert_to_tensor(filter_sizes, dtype_hint=dtypes.int32)
    dy = convert_to_tensor(out_backprop, dtype_hint=x.dtype)
    return make_op("Conv3DBackpropFilterV2", [x, sizes, dy],
                   _conv_attrs(strides, padding, data_format, dilations,
                               "Conv3DBackpropFilterV2"), name)


def _channel(dims, data_format: str):
    return dims[1] if data_format == "NCDHW" else dims[-1]


def conv3d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NDHWC", name=None,
                     input=None, filters=None, dilations=None) -> Tensor:  # noqa: A002
    """TF1's ``tf.nn.conv3d_transpose``: the gradient of a 3-D convolution with respect to
    its input, run forward (one Conv3DBackpropInputV2 of ``output_shape``, named after
    the ``conv3d_transpose`` scope); ``filter`` is ``[KD, KH, KW, output channels, input
    channels]``; ``strides`` and ``dilations`` an int or a list of 1, 3 or 5, as TF's
    builder takes them.  ValueError when the channels of ``value``, ``filter`` and
    ``output_shape`` disagree, as TF1's."""
    value = input if value is None else value
    filter = filters if filter is None else filter  # noqa: A001
    with name_scope(name or "conv3d_transpose") as scope:
        x = convert_to_tensor(value, name="value")
        f = convert_to_tensor(filter, dtype_hint=x.dtype, name="filter")
        sizes = int_operand(output_shape, x.graph, name="output_shape")
        if strides is not None:      # TF's conv3d_transpose: an int or 1, 3 or 5 of them
            strides = list(_window5(strides, "strides", format_name(data_format, "NDHWC")))
        if dilations is not None:
            dilations = list(_window5(dilations, "dilations", format_name(data_format,
                                                                          "NDHWC")))
        attrs = _conv_attrs(strides, padding, data_format, dilations, "conv3d_transpose")
        data_format = attrs["data_format"]
        if x.shape.ndims == 5 and f.shape.ndims == 5:
            channels, filter_in = _channel(x.shape.dims, data_format), f.shape.dims[4]
            if None not in (channels, filter_in) and channels != filter_in:
                raise ValueError(f"conv3d_transpose: input channels of value '{x.name}' "
                                 f"({channels}) do not match the filter's last dimension "
                                 f"({filter_in}), filter shape {f.shape}.")
        known = constant_value(sizes)
        if known is not None and f.shape.ndims == 5 and f.shape.dims[3] is not None:
            known = [int(v) for v in np.asarray(known).reshape(-1)]
            if len(known) != 5:
                raise ValueError(f"conv3d_transpose: output_shape must have 5 elements, got "
                                 f"{known}.")
            if _channel(known, data_format) != f.shape.dims[3]:
                raise ValueError(f"conv3d_transpose: output_shape {known} has "
                                 f"{_channel(known, data_format)} channels but the filter "
                                 f"makes {f.shape.dims[3]}, filter shape {f.shape}.")
        return x.graph.create_op("Conv3DBackpropInputV2", [sizes, f, x], attrs,
                                 name=scope.rstrip("/"), exact_name=True).outputs[0]


def _pool_builder(op_type: str, public: str):
    def build(input=None, ksize=None, strides=None, padding=None,  # noqa: A002
              data_format="NDHWC", name=None, value=None):
        x = convert_to_tensor(input if input is not None else value)
        data_format = format_name(data_format, "NDHWC")
        if data_format not in FORMATS:
            raise ValueError(f"'{public}': data_format must be 'NDHWC' or 'NCDHW', got "
                             f"{data_format!r}.")
        if ksize is None or strides is None:
            raise ValueError(f"'{public}' needs ksize and strides.")
        attrs = {"ksize": _window5(ksize, "ksize", data_format),
                 "strides": _window5(strides, "strides", data_format),
                 "padding": _padding(padding, op_type), "data_format": data_format}
        return make_op(op_type, [x], attrs, name)
    build.__name__ = public
    build.__doc__ = (f"``tf.nn.{public}``: {op_type} over the ``ksize`` windows of a "
                     f"5-D tensor (NDHWC or NCDHW); ``ksize`` and ``strides`` an int or "
                     f"a list of 1, 3 or 5" + (" (SAME averages over the elements inside "
                                               "the input only)." if "avg" in public
                                               else "."))
    return build


max_pool3d = _pool_builder("MaxPool3D", "max_pool3d")
avg_pool3d = _pool_builder("AvgPool3D", "avg_pool3d")
