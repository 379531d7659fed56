"""Depthwise and separable convolutions (NHWC): DepthwiseConv2dNative and its two
gradients, and the builders ``depthwise_conv2d``, ``depthwise_conv2d_native`` and
``separable_conv2d``.

A depthwise convolution convolves each input channel with its own ``M`` filters
(``filter`` is ``[KH, KW, C, M]``, ``M`` the channel multiplier) and never mixes
channels: output channel ``c * M + m`` is input channel ``c`` convolved with
``filter[:, :, c, m]``, so the output has ``C * M`` channels.  A separable convolution
is a depthwise one followed by a 1x1 Conv2D that mixes them.

Op types and attrs are TensorFlow's, so TF GraphDefs import: ``strides``, ``padding``,
``data_format``, ``dilations`` and ``explicit_paddings``, with Conv2D's geometry and
static checks (``nn_conv.py``: SAME puts the odd padding element at the bottom/right;
NHWC only, as TF's CPU kernels; batch and channel strides and dilations of 1, which TF's
CPU kernel refuses only when it runs; an in-channel count differing from the input's,
or a VALID window larger than the input, is a ``ValueError`` when the graph is built).
Unlike Conv2D, TF's op has no ``use_cudnn_on_gpu`` attr, so none is written.  The
builders take TF's explicit padding (a list of four [before, after] pairs, padding
"EXPLICIT"), as Conv2D's (``nn_conv.explicit_padding``).  The
gradient ops take the original shapes as int32 tensors read on the host, as TF's do
(``DepthwiseConv2dNativeBackpropInput(input_sizes, filter, out_backprop)``,
``DepthwiseConv2dNativeBackpropFilter(input, filter_sizes, out_backprop)``); TF has no
``V2`` forms of them.

``depthwise_conv2d``'s ``rate`` is the dilation.  TF1 dilates by wrapping the native op
in SpaceToBatchND/BatchToSpaceND; the native op's ``dilations`` attr computes the same
values in one node, so that is what is built.  A rate above 1 with a stride above 1 is
a ``ValueError``: TF only warns there and returns values that are not a strided dilated
convolution (for some inputs not even its shape).

Kernels: ``kernels/{reference,cpu,cuda}/depthwise.py``; gradients:
``nn_depthwise_grad.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import make_op, same_dtype
from .nn_channels_first import around_nhwc, is_channels_first, nhwc_order
# Conv2D's static checks, shared: the windows' geometry and the in-channels are the same.
from .nn_conv import (FLOATS, conv2d, conv_attrs, conv_output_shape, dims4, dtype_in,
                      int32_sizes, nhwc_list, sizes_operand)
from .registry import InferError, OpDef, register_op

__all__ = ["depthwise_conv2d", "depthwise_conv2d_native", "separable_conv2d",
           "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter",
           "depthwise_attrs", "DEPTHWISE_ATTRS"]

DEPTHWISE_ATTRS = ("strides", "padding", "data_format", "dilations", "explicit_paddings")
_DEFAULTS = {"data_format": "NHWC", "dilations": (1, 1, 1, 1), "explicit_paddings": ()}


# --- inference -------------------------------------------------------------------------

def _output(x_dims, f_dims, attrs, node) -> TensorShape:
    """[N, OH, OW, C * M], checked as Conv2D's output (whose last dim is the filter's)."""
    n, oh, ow, _ = conv_output_shape(x_dims, f_dims, attrs, node).dims
    channels = x_dims[3] if x_dims[3] is not None else f_dims[2]
    multiplier = f_dims[3]
    return TensorShape([n, oh, ow, None if channels is None or multiplier is None
                        else channels * multiplier])


def _check_out_backprop(x_dims, f_dims, dy, attrs, node) -> None:
    expected = _output(x_dims, f_dims, attrs, node)
    if not expected.is_compatible_with(dy.shape):
        raise InferError(f"Op '{node}': the output gradient's shape {dy.shape} is not the "
                         f"depthwise convolution's output shape {expected}.")


def _depthwise(inputs, attrs, node):
    x, f = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, FLOATS, node)
    return dtype, _output(dims4(x, node, "input"), dims4(f, node, "filter"), attrs, node)


def _backprop_input(inputs, attrs, node):
    sizes, f, dy = inputs
    dtype = same_dtype([f, dy], node)
    dtype_in(f, FLOATS, node)
    shape = sizes_operand(sizes, node)
    _check_out_backprop(shape.dims, dims4(f, node, "filter"), dy, attrs, node)
    return dtype, shape


def _backprop_filter(inputs, attrs, node):
    x, sizes, dy = inputs
    dtype = same_dtype([x, dy], node)
    dtype_in(x, FLOATS, node)
    shape = sizes_operand(sizes, node)
    _check_out_backprop(dims4(x, node, "input"), shape.dims, dy, attrs, node)
    return dtype, shape


register_op(OpDef("DepthwiseConv2dNative", _depthwise, 2, attr_defaults=_DEFAULTS))
register_op(OpDef("DepthwiseConv2dNativeBackpropInput", _backprop_input, 3,
                  attr_defaults=_DEFAULTS, host_inputs=(0,)))
register_op(OpDef("DepthwiseConv2dNativeBackpropFilter", _backprop_filter, 3,
                  attr_defaults=_DEFAULTS, host_inputs=(1,)))


# --- builders ----------------------------------------------------------------------------

def depthwise_attrs(strides, padding, data_format, dilations, name) -> dict:
    """DepthwiseConv2dNative's attrs (shared with its gradient ops): Conv2D's, less
    ``use_cudnn_on_gpu``, which TF's op does not have."""
    attrs = conv_attrs(strides, padding, data_format, dilations, name, explicit=True)
    return {key: attrs[key] for key in DEPTHWISE_ATTRS}


def depthwise_conv2d_native(input, filter, strides, padding,  # noqa: A002  (TF's names)
                            data_format="NHWC", dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """``tf.nn.depthwise_conv2d_native``: one DepthwiseConv2dNative node (NCHW: between
    two transposes, ``nn_channels_first.py``)."""
    if is_channels_first(data_format):
        return around_nhwc(input, name, "DepthwiseConv2dNative", lambda x: (
            depthwise_conv2d_native(x, filter, nhwc_order(strides), nhwc_order(padding),
                                    "NHWC", nhwc_order(dilations),
                                    name="DepthwiseConv2dNative")))
    x = convert_to_tensor(input)
    f = convert_to_tensor(filter, dtype_hint=x.dtype)
    label = name or "DepthwiseConv2dNative"
    return make_op("DepthwiseConv2dNative", [x, f],
                   depthwise_attrs(strides, padding, data_format, dilations, label), name)


def _rate(rate, dilations, strides, name) -> tuple:
    """The dilation of TF1's ``rate=`` (or ``dilations=``) as an NHWC 4-tuple."""
    if rate is not None and dilations is not None:
        raise ValueError(f"'{name}' takes rate= or dilations=, not both.")
    rate = nhwc_list(1 if rate is None and dilations is None else
                     rate if rate is not None else dilations, "rate", name)
    stride = nhwc_list(strides, "strides", name)
    if max(rate) > 1 and max(stride) > 1:
        raise ValueError(f"'{name}': a rate above 1 ({list(rate[1:3])}) needs strides of 1, "
                         f"got {list(stride)} (TF1 warns and computes something else).")
    return rate


def depthwise_conv2d(input, filter, strides, padding, rate=None,  # noqa: A002
                     name=None, data_format=None, dilations=None) -> Tensor:
    """``tf.nn.depthwise_conv2d`` (TF1): ``input`` [N, H, W, C] and ``filter``
    [KH, KW, C, M] give [N, OH, OW, C * M], channel ``c * M + m`` from input channel
    ``c`` and ``filter[:, :, c, m]``; ``rate`` dilates the filter.  One
    DepthwiseConv2dNative node named after the ``depthwise`` scope, as TF1's.  ValueError
    for a rate above 1 with a stride above 1, and for shapes that do not fit.  NCHW:
    between two transposes (``nn_channels_first.py``)."""
    if is_channels_first(data_format):
        return around_nhwc(input, name, "depthwise", lambda x: depthwise_conv2d(
            x, filter, nhwc_order(strides), nhwc_order(padding), rate, "depthwise",
            dilations=nhwc_order(dilations)))
    with name_scope(name or "depthwise") as scope:
        x = convert_to_tensor(input, name="tensor_in")
        f = convert_to_tensor(filter, dtype_hint=x.dtype, name="filter_in")
        dilation = _rate(rate, dilations, strides, scope.rstrip("/"))
        attrs = depthwise_attrs(strides, padding, data_format, dilation, scope.rstrip("/"))
        return x.graph.create_op("DepthwiseConv2dNative", [x, f], attrs,
                                 name=scope.rstrip("/"), exact_name=True).outputs[0]


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides,  # noqa: A002
                     padding, rate=None, name=None, data_format=None,
                     dilations=None) -> Tensor:
    """``tf.nn.separable_conv2d`` (TF1): a depthwise convolution
    (``<scope>/depthwise``) then a 1x1 VALID Conv2D by ``pointwise_filter``
    [1, 1, C * M, O] (the node named after the ``separable_conv2d`` scope).  ValueError
    for a pointwise filter that is not 1x1, and as ``depthwise_conv2d``.  NCHW: between
    two transposes (``nn_channels_first.py``)."""
    if is_channels_first(data_format):
        return around_nhwc(input, name, "separable_conv2d", lambda x: separable_conv2d(
            x, depthwise_filter, pointwise_filter, nhwc_order(strides), nhwc_order(padding),
            rate, "separable_conv2d", dilations=nhwc_order(dilations)))
    with name_scope(name or "separable_conv2d") as scope:
        label = scope.rstrip("/")
        x = convert_to_tensor(input, name="tensor_in")
        depthwise_f = convert_to_tensor(depthwise_filter, dtype_hint=x.dtype,
                                        name="depthwise_filter")
        pointwise_f = convert_to_tensor(pointwise_filter, dtype_hint=x.dtype,
                                        name="pointwise_filter")
        shape = pointwise_f.shape
        if shape.ndims is not None and (shape.ndims != 4 or any(
                d not in (None, 1) for d in shape.dims[:2])):
            raise ValueError(f"'{label}': the pointwise filter '{pointwise_f.name}' must be "
                             f"[1, 1, in, out], got shape {shape}.")
        dilation = _rate(rate, dilations, strides, label)
        depthwise = make_op("DepthwiseConv2dNative", [x, depthwise_f],
                            depthwise_attrs(strides, padding, data_format, dilation, label),
                            name="depthwise")
        return conv2d(depthwise, pointwise_f, [1, 1, 1, 1], "VALID",
                      data_format=data_format or "NHWC", name=scope)



def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop,  # noqa: A002
                                           strides, padding, data_format="NHWC",
                                           dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """``tf.nn.depthwise_conv2d_native_backprop_input`` (and TF1's
    ``depthwise_conv2d_backprop_input``): the gradient of ``depthwise_conv2d_native``
    with respect to its input, of shape ``input_sizes``; one node."""
    dy = convert_to_tensor(out_backprop)
    sizes = convert_to_tensor(int32_sizes(input_sizes), dtype_hint=dtypes.int32)
    f = convert_to_tensor(filter, dtype_hint=dy.dtype)
    op_type = "DepthwiseConv2dNativeBackpropInput"
    return make_op(op_type, [sizes, f, dy], depthwise_attrs(
        strides, padding, data_format, dilations, name or op_type), name)


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop,  # noqa: A002
                                            strides, padding, data_format="NHWC",
                                            dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """``tf.nn.depthwise_conv2d_native_backprop_filter`` (and TF1's
    ``depthwise_conv2d_backprop_filter``): the gradient of ``depthwise_conv2d_native``
    with respect to its filter, of shape ``filter_sizes``; one node."""
    x = convert_to_tensor(input)
    sizes = convert_to_tensor(int32_sizes(filter_sizes), dtype_hint=dtypes.int32)
    dy = convert_to_tensor(out_backprop, dtype_hint=x.dtype)
    op_type = "DepthwiseConv2dNativeBackpropFilter"
    return make_op(op_type, [x, sizes, dy], depthwise_attrs(
        strides, padding, data_format, dilations, name or op_type), name)
