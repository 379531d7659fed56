"""Convolution and pooling ops (NHWC): Conv2D and its two gradients, MaxPool, AvgPool
and their gradients; ``conv1d`` is a Conv2D over a height of 1, as TF1 builds it.

Op types and attrs are TensorFlow's, so TF GraphDefs import: ``strides``, ``ksize`` and
``dilations`` are 4-lists in NHWC order whose batch and channel entries must be 1;
``padding`` is ``"SAME"`` or ``"VALID"`` (``kernels/windows.py`` has the geometry: SAME
puts the odd padding element at the bottom/right), or, for the convolutions (not the
pools), ``"EXPLICIT"`` with ``explicit_paddings`` the 8 ints of a [before, after] pair
per NHWC dimension, the batch and channel pairs 0: the builders take TF's list of four
pairs as ``padding`` (``explicit_padding``) and write both attrs, as TF does.  The ops'
``data_format`` must be ``"NHWC"``, and the builders given ``"NCHW"`` (``conv1d``:
"NCW") build the NHWC op between two transposes (``nn_channels_first.py``: TF's values,
not TF's nodes); Conv2D also carries ``use_cudnn_on_gpu``, accepted and ignored.
An input with ``G`` times the filter's in-channels is a grouped convolution (TF's, as
Keras's ``Conv2D(groups=G)`` writes it: input channel group ``i`` with the ``i``-th
``1/G`` of the out-channels; ``kernels/windows.py``), its gradients too.
Static shapes follow TF1: a filter whose in-channels do not divide the input's (or
whose groups do not divide the out-channels), a VALID
(or EXPLICIT) window larger than the (padded) input, or explicit paddings TF refuses
(not 8, negative, or padding the batch or channels), is a ``ValueError`` when the graph
is built.  The gradient ops given their sizes (Conv2DBackpropInput, so
``conv2d_transpose``, and Conv2DBackpropFilter) check at build only what TF's shape
functions check; sizes that do not fit ``out_backprop`` are InvalidArgumentError at run.

The gradient ops take the original shapes as int32 tensors read on the host
(``Conv2DBackpropInput(input_sizes, filter, out_backprop)``,
``Conv2DBackpropFilter(input, filter_sizes, out_backprop)``,
``AvgPoolGrad(orig_input_shape, grad)``), or, in TF's ``V2`` forms, the original
tensor itself, whose shape is all they read (``Conv2DBackpropInputV2(input, filter,
out_backprop)``; gradients use these, so a batch of unknown size needs no Shape op).
``MaxPoolGrad(orig_input, orig_output, grad)`` routes each gradient to the first
maximum of its window; ``MaxPoolGradGrad`` (its gradient, for second derivatives)
gathers back from those positions.

Kernels: ``kernels/{reference,cpu,cuda}/nn_conv.py``; gradients: ``nn_grad.py``.
"""

from __future__ import annotations

from .. import dtypes
import numpy as np

from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..kernels.windows import output_size
from ..tensor_shape import TensorShape
from .array import expand_dims, squeeze
from .array_operands import int_operand, shape_operand
from .common import make_op, same_dtype
from .nn_channels_first import (around_nhwc, format_name, is_channels_first, nhwc_order,
                                nhwc_sizes)
from .registry import InferError, OpDef, register_op

__all__ = ["conv1d", "conv2d", "max_pool", "avg_pool", "conv2d_backprop_input",
           "conv2d_backprop_filter", "conv2d_transpose", "CONV_ATTRS", "conv_output_shape",
           "dims4", "dtype_in", "int32_sizes", "sizes_operand", "explicit_padding",
           "padding_argument"]

FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
MAX_POOL_TYPES = FLOATS + (dtypes.int32, dtypes.int64)
# MaxPoolGrad(x, y, dy) times the gradient of a ReLU that made x, with the per-channel
# sums of that (a bias's gradient) as a second output when ``bias_grad``: made only by
# optimizer/pool_gradients.py, for the CPU.
MAX_POOL_RELU_GRAD = "_MaxPoolReluGrad"
# Conv2D(x, f) + bias (O,), then a ReLU when ``relu``: made only by
# optimizer/bias_folds.py, for the CPU; inputs (x, f, bias), Conv2D's attrs.
CONV2D_BIAS = "_Conv2DBias"
CONV_ATTRS = ("strides", "padding", "data_format", "dilations", "explicit_paddings",
              "use_cudnn_on_gpu")
POOL_ATTRS = ("ksize", "strides", "padding", "data_format")
_CONV_DEFAULTS = {"data_format": "NHWC", "dilations": (1, 1, 1, 1),
                  "explicit_paddings": (), "use_cudnn_on_gpu": True}
_POOL_DEFAULTS = {"data_format": "NHWC"}


# --- attribute and shape checks ------------------------------------------------------------

def dtype_in(x, allowed, node: str) -> None:
    if x.dtype not in allowed:
        raise TypeError(f"Op '{node}': '{x.name}' is {x.dtype.name}; this op takes "
                        f"{', '.join(d.name for d in allowed)}.")


def _window_attr(attrs, key: str, node: str) -> tuple[int, int]:
    """(h, w) of a 4-list attr whose batch and channel entries are 1."""
    values = tuple(int(v) for v in attrs[key])
    if len(values) != 4:
        raise InferError(f"Op '{node}': {key} must have 4 elements (NHWC), got {list(values)}.")
    if values[0] != 1 or values[3] != 1:
        raise InferError(f"Op '{node}': {key} {list(values)} must be 1 in the batch and "
                         f"channel dimensions.")
    if min(values) < 1:
        raise InferError(f"Op '{node}': {key} {list(values)} must be positive.")
    return values[1], values[2]


def _format_and_padding(attrs, node: str, explicit: bool = False) -> str:
    """The ``padding`` attr of an NHWC op: SAME or VALID, or EXPLICIT where the op takes
    ``explicit_paddings`` (``explicit``, the convolutions)."""
    if attrs.get("data_format", "NHWC") != "NHWC":
        raise InferError(f"Op '{node}': data_format {attrs['data_format']!r} is not supported; "
                         f"devsession's kernels take NHWC (as TF1's CPU kernels do).")
    padding = attrs["padding"]
    allowed = ("SAME", "VALID", "EXPLICIT") if explicit else ("SAME", "VALID")
    if padding not in allowed:
        raise InferError(f"Op '{node}': padding must be {' or '.join(map(repr, allowed))}, "
                         f"got {padding!r}.")
    return padding


def _explicit_pairs(attrs, padding: str, node: str) -> tuple:
    """The (before, after) pairs of the height and width (zeros unless EXPLICIT), with
    TF's static checks of ``explicit_paddings`` and TF's words."""
    values = tuple(int(v) for v in attrs.get("explicit_paddings", ()))
    if padding != "EXPLICIT":
        if values:
            raise InferError(f"Op '{node}': explicit_paddings attribute must be empty if the "
                             f"padding attribute is not EXPLICIT (got {list(values)}).")
        return ((0, 0), (0, 0))
    if len(values) != 8:
        raise InferError(f"Op '{node}': explicit_paddings attribute must contain 8 values, "
                         f"but got: {len(values)}.")
    if min(values) < 0:
        raise InferError(f"Op '{node}': All elements of explicit_paddings must be "
                         f"nonnegative, got {list(values)}.")
    if any(values[i] for i in (0, 1, 6, 7)):
        raise InferError(f"Op '{node}': Nonzero explicit padding in the batch or depth "
                         f"dimensions is not supported, got {list(values)}.")
    return (values[2:4], values[4:6])


def dims4(x, node: str, what: str) -> tuple:
    if x.shape.ndims is None:
        return (None,) * 4
    if x.shape.ndims != 4:
        raise InferError(f"Op '{node}': {what} '{x.name}' must be 4-dimensional, got shape "
                         f"{x.shape}.")
    return x.shape.dims


def _out_dim(size, k, stride, dilation, padding, node, what, pads=(0, 0)):
    if size is None or (k is None and padding != "SAME"):
        return None
    if padding == "SAME":
        return output_size(size, 1, stride, 1, padding)[0]     # SAME ignores the window
    out = output_size(size, k, stride, dilation, padding, pads)[0]
    if out < 0:
        how = f"EXPLICIT padding {list(pads)}" if padding == "EXPLICIT" else "VALID padding"
        raise InferError(
            f"Op '{node}': negative dimension size caused by a window of {k} (dilation "
            f"{dilation}) over the {what} of size {size} with {how}.")
    return out


def _matching(a, b, node: str, message: str) -> None:
    if a is not None and b is not None and a != b:
        raise InferError(f"Op '{node}': {message} ({a} != {b}).")


def _conv_geometry(attrs, node):
    padding = _format_and_padding(attrs, node, explicit=True)
    pads = _explicit_pairs(attrs, padding, node)
    strides = _window_attr(attrs, "strides", node)
    dilations = _window_attr(attrs, "dilations", node)
    return padding, pads, strides, dilations


def _check_groups(depth, in_depth, out_depth, node: str) -> None:
    """TF's static checks of a grouped Conv2D (an input of several groups of the
    filter's in-channels, as Keras's ``Conv2D(groups=...)`` builds): the input's
    channels a multiple of the filter's in-channels, the out-channels a multiple of the
    number of groups; TF's words.  An unknown channel count passes."""
    if depth is None or in_depth is None or depth == in_depth:
        return
    if in_depth == 0:
        raise InferError(f"Op '{node}': Depth of filter must not be 0.")
    if depth % in_depth:
        raise InferError(f"Op '{node}': Depth of input ({depth}) is not a multiple of input "
                         f"depth of filter ({in_depth}).")
    if out_depth is not None and out_depth % (depth // in_depth):
        raise InferError(f"Op '{node}': Depth of output ({out_depth}) is not a multiple of the "
                         f"number of groups ({depth // in_depth}).")


def conv_output_shape(x_dims, f_dims, attrs, node, grouped: bool = False) -> TensorShape:
    """The output shape of a Conv2D-like op; with ``grouped`` (Conv2D and its gradients)
    the input's channels may be several groups of the filter's in-channels, else they
    must equal them (DepthwiseConv2dNative)."""
    padding, (pad_h, pad_w), (sh, sw), (dh, dw) = _conv_geometry(attrs, node)
    if grouped:
        _check_groups(x_dims[3], f_dims[2], f_dims[3], node)
    else:
        _matching(x_dims[3], f_dims[2], node, "the input's channels and the filter's "
                  "in-channels differ")
    return TensorShape([x_dims[0],
                        _out_dim(x_dims[1], f_dims[0], sh, dh, padding, node, "height", pad_h),
                        _out_dim(x_dims[2], f_dims[1], sw, dw, padding, node, "width", pad_w),
                        f_dims[3]])


def int32_sizes(value):
    """A sizes argument as TF's op converts it: a numpy array of ints becomes int32 (the
    op's type; TF converts a value that is not a tensor to it), anything else stays as
    it is (an int64 Tensor is ``sizes_operand``'s TypeError, as TF's)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size \
            and np.all(np.abs(value) < 2 ** 31):
        return value.astype(np.int32)
    return value


def sizes_operand(spec, node: str, rank: int = 4, int64: bool = False) -> TensorShape:
    """The static shape an int32 sizes input of ``rank`` ints describes, as far as the
    graph knows it: its value, or what ``partial_shape_value`` reads of a
    ``tf.stack([tf.shape(x)[0], 8, 8, 4])`` (a transposed convolution's output_shape
    with a batch of unknown size).  TypeError for an int64 one unless ``int64`` (TF's
    Conv2DBackpropInput, AvgPoolGrad and the depthwise ones take int32 sizes only; the
    Conv3D V2 ones either)."""
    if spec.dtype not in ((dtypes.int32, dtypes.int64) if int64 else (dtypes.int32,)):
        raise TypeError(f"Op '{node}': sizes '{spec.name}' must be int32"
                        f"{' or int64' if int64 else ''}, not {spec.dtype.name}.")
    if spec.shape.ndims not in (None, 1) or spec.shape.dims not in (None, (None,), (rank,)):
        raise InferError(f"Op '{node}': sizes '{spec.name}' must be a vector of {rank} ints, "
                         f"got shape {spec.shape}.")
    if spec.value is None:
        shape = shape_operand(spec)
        return shape if shape.ndims == rank else TensorShape([None] * rank)
    values = [int(v) for v in spec.value.reshape(-1)]
    if len(values) != rank or min(values) < 0:
        raise InferError(f"Op '{node}': sizes '{spec.name}' must be {rank} non-negative ints, "
                         f"got {values}.")
    return TensorShape(values)


# --- inference -------------------------------------------------------------------------

def _conv2d(inputs, attrs, node):
    x, f = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, FLOATS, node)
    return dtype, conv_output_shape(dims4(x, node, "input"), dims4(f, node, "filter"), attrs,
                                    node, grouped=True)


def _check_backprop(x_dims, f_dims, dy_dims, attrs, node) -> None:
    expected = conv_output_shape(x_dims, f_dims, attrs, node, grouped=True)
    if not expected.is_compatible_with(TensorShape(dy_dims)):
        raise InferError(f"Op '{node}': the output gradient's shape {TensorShape(dy_dims)} is "
                         f"not the convolution's output shape {expected}.")


def _conv2d_backprop_input(inputs, attrs, node):
    """TF's static shape: the batch of ``out_backprop`` (unknown when its is, whatever
    ``input_sizes`` says), the spatial sizes of ``input_sizes``, and its channels or
    else the filter's in-channels.  TF's shape function checks only that the batch
    ``input_sizes`` names is ``out_backprop``'s and that ``out_backprop`` has the
    filter's out-channels: sizes whose convolution would not give ``out_backprop``'s
    spatial shape (a ``conv2d_transpose`` whose ``output_shape`` does not fit its input
    and strides) build, and are the kernel's InvalidArgumentError when the op runs."""
    sizes, f, dy = inputs
    dtype = same_dtype([f, dy], node)
    dtype_in(f, FLOATS, node)
    _conv_geometry(attrs, node)
    shape = sizes_operand(sizes, node)
    f_dims, dy_dims = dims4(f, node, "filter"), dims4(dy, node, "out_backprop")
    _matching(shape.dims[0], dy_dims[0], node, "the batch of input_sizes and of "
              "out_backprop differ")
    _matching(dy_dims[3], f_dims[3], node, "out_backprop's channels and the filter's "
              "out-channels differ")
    _, height, width, channels = shape.dims
    return dtype, TensorShape([dy_dims[0], height, width,
                               f_dims[2] if channels is None else channels])


def _conv2d_backprop_filter(inputs, attrs, node):
    """``filter_sizes``, as TF's shape function reads it, and checks no more: shapes
    that do not fit are the kernel's InvalidArgumentError when the op runs."""
    x, sizes, dy = inputs
    dtype = same_dtype([x, dy], node)
    dtype_in(x, FLOATS, node)
    _conv_geometry(attrs, node)
    dims4(x, node, "input")
    dims4(dy, node, "out_backprop")
    return dtype, sizes_operand(sizes, node)


def _conv2d_backprop_input_v2(inputs, attrs, node):
    x, f, dy = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, FLOATS, node)
    _check_backprop(dims4(x, node, "input"), dims4(f, node, "filter"),
                    dims4(dy, node, "out_backprop"), attrs, node)
    return dtype, x.shape


def _made_by_the_optimizer(inputs, attrs, node):
    raise TypeError(f"Op '{node}': {MAX_POOL_RELU_GRAD} and {CONV2D_BIAS} are made by the "
                    f"optimizer, not by graphs.")


def _conv2d_backprop_filter_v2(inputs, attrs, node):
    x, f, dy = inputs
    dtype, _ = _conv2d_backprop_input_v2(inputs, attrs, node)
    return dtype, f.shape


def _pool_output(x_dims, attrs, node) -> TensorShape:
    padding = _format_and_padding(attrs, node)
    kh, kw = _window_attr(attrs, "ksize", node)
    sh, sw = _window_attr(attrs, "strides", node)
    return TensorShape([x_dims[0], _out_dim(x_dims[1], kh, sh, 1, padding, node, "height"),
                        _out_dim(x_dims[2], kw, sw, 1, padding, node, "width"), x_dims[3]])


def _pool(allowed):
    def infer(inputs, attrs, node):
        (x,) = inputs
        dtype_in(x, allowed, node)
        return x.dtype, _pool_output(dims4(x, node, "input"), attrs, node)
    return infer


def _max_pool_grad(inputs, attrs, node):
    x, y, dy = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, MAX_POOL_TYPES, node)
    expected = _pool_output(dims4(x, node, "orig_input"), attrs, node)
    for t in (y, dy):
        if not expected.is_compatible_with(t.shape):
            raise InferError(f"Op '{node}': '{t.name}' has shape {t.shape}, but the pooling's "
                             f"output shape is {expected}.")
    return dtype, x.shape


def _max_pool_grad_grad(inputs, attrs, node):
    x, y, grad = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, MAX_POOL_TYPES, node)
    expected = _pool_output(dims4(x, node, "orig_input"), attrs, node)
    if not expected.is_compatible_with(y.shape) or not x.shape.is_compatible_with(grad.shape):
        raise InferError(f"Op '{node}': orig_output '{y.name}' {y.shape} must have the pooling's "
                         f"output shape {expected} and grad '{grad.name}' {grad.shape} the "
                         f"input's shape {x.shape}.")
    return dtype, expected


def _avg_pool_grad(inputs, attrs, node):
    sizes, dy = inputs
    dtype_in(dy, FLOATS, node)
    shape = sizes_operand(sizes, node)
    expected = _pool_output(shape.dims, attrs, node)
    if not expected.is_compatible_with(dy.shape):
        raise InferError(f"Op '{node}': grad '{dy.name}' has shape {dy.shape}, but the "
                         f"pooling's output shape is {expected}.")
    return dy.dtype, shape


register_op(OpDef("Conv2D", _conv2d, 2, attr_defaults=_CONV_DEFAULTS))
register_op(OpDef("Conv2DBackpropInput", _conv2d_backprop_input, 3,
                  attr_defaults=_CONV_DEFAULTS, host_inputs=(0,)))
register_op(OpDef("Conv2DBackpropFilter", _conv2d_backprop_filter, 3,
                  attr_defaults=_CONV_DEFAULTS, host_inputs=(1,)))
register_op(OpDef("Conv2DBackpropInputV2", _conv2d_backprop_input_v2, 3,
                  attr_defaults=_CONV_DEFAULTS))
register_op(OpDef("Conv2DBackpropFilterV2", _conv2d_backprop_filter_v2, 3,
                  attr_defaults=_CONV_DEFAULTS))
register_op(OpDef("MaxPool", _pool(MAX_POOL_TYPES), 1, attr_defaults=_POOL_DEFAULTS))
register_op(OpDef("AvgPool", _pool(FLOATS), 1, attr_defaults=_POOL_DEFAULTS))
register_op(OpDef("MaxPoolGrad", _max_pool_grad, 3,
                  attr_defaults={**_POOL_DEFAULTS, "explicit_paddings": ()}))
register_op(OpDef("MaxPoolGradGrad", _max_pool_grad_grad, 3, attr_defaults=_POOL_DEFAULTS))
register_op(OpDef(CONV2D_BIAS, _made_by_the_optimizer, 3,
                  attr_defaults={**_CONV_DEFAULTS, "relu": False}))
register_op(OpDef(MAX_POOL_RELU_GRAD, _made_by_the_optimizer, 3,
                  attr_defaults={**_POOL_DEFAULTS, "bias_grad": False}))
register_op(OpDef("AvgPoolGrad", _avg_pool_grad, 2, attr_defaults=_POOL_DEFAULTS,
                  host_inputs=(0,)))


# --- builders ----------------------------------------------------------------------------

def nhwc_list(value, what: str, name) -> tuple:
    """TF's forms of a window attr as an NHWC 4-tuple: an int, [v], [h, w] or
    [1, h, w, 1]."""
    values = [value] if isinstance(value, int) else list(value) if value is not None else None
    if values is None:
        raise ValueError(f"'{name}' needs {what}.")
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        values = [1, values[0], values[1], 1]
    if len(values) != 4:
        raise ValueError(f"{what} for '{name}' must be an int or a list of 1, 2 or 4 ints, got "
                         f"{value!r}.")
    return tuple(int(v) for v in values)


def _padding(padding, name) -> str:
    if isinstance(padding, bytes):
        padding = padding.decode()
    if not isinstance(padding, str) or padding not in ("SAME", "VALID"):
        raise ValueError(f"padding of '{name}' must be 'SAME' or 'VALID', got {padding!r}.")
    return padding


def explicit_padding(padding, name) -> tuple[str, tuple]:
    """TF's ``convert_padding``: ``(padding attr, explicit_paddings attr)`` of a builder's
    ``padding``: 'SAME' or 'VALID' with no paddings, or a list of four [before, after]
    pairs (one per dimension, in the data format's order) as 'EXPLICIT' with the 8 ints.
    ValueError, in TF's words, for a list of another length or of anything but pairs,
    and for the string 'EXPLICIT'; the values are checked when the op is built."""
    if isinstance(padding, (list, tuple)):
        flat = []
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise ValueError(f"When `padding` is a list, each element of `padding` must "
                                 f"be a list/tuple of size 2. Received: padding={padding} "
                                 f"with element at index {i} of type {type(pair)}")
            if len(pair) != 2:
                raise ValueError(f"When `padding` is a list, each element of `padding` must "
                                 f"be a list/tuple of size 2. Received: padding={padding} "
                                 f"with element at index {i} of size {len(pair)}")
            flat.extend(int(v) for v in pair)
        if len(padding) != 4:
            raise ValueError(f"When padding is a list, it must be of size 4. Received: "
                             f"padding={padding} of size {len(padding)}")
        return "EXPLICIT", tuple(flat)
    if padding == "EXPLICIT" or padding == b"EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit "
                         "padding, `padding` must be a list.")
    return _padding(padding, name), ()


def padding_argument(attrs):
    """A node's padding as a builder takes it back: 'SAME'/'VALID', or EXPLICIT's four
    [before, after] pairs (importing TF's NCHW nodes, ``tf_graph.py``)."""
    padding = attrs["padding"]
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if padding != "EXPLICIT":
        return padding
    flat = [int(v) for v in attrs.get("explicit_paddings", ())]
    return [flat[i:i + 2] for i in range(0, len(flat), 2)]


def conv_attrs(strides, padding, data_format, dilations, name, use_cudnn_on_gpu=True,
               explicit: bool = False) -> dict:
    """Conv2D's attrs (shared with its gradient ops) from TF's builder arguments; with
    ``explicit`` (the builders whose TF twins take it), ``padding`` may be a list of
    [before, after] pairs (``explicit_padding``)."""
    padding, paddings = explicit_padding(padding, name) if explicit else \
        (_padding(padding, name), ())
    return {"strides": nhwc_list(strides, "strides", name), "padding": padding,
            "data_format": format_name(data_format),
            "dilations": nhwc_list(1 if dilations is None else dilations, "dilations", name),
            "explicit_paddings": paddings, "use_cudnn_on_gpu": bool(use_cudnn_on_gpu)}


def conv2d(input, filter=None, strides=None, padding=None,  # noqa: A002  (TF's names)
           use_cudnn_on_gpu=True, data_format="NHWC", dilations=None, name=None,
           filters=None) -> Tensor:
    """2-D convolution of an NHWC ``input`` with an HWIO filter, as ``tf.nn.conv2d``;
    an NCHW one is transposed around it (``nn_channels_first.py``)."""
    if filter is None:
        filter = filters  # noqa: A001
    elif filters is not None:
        raise ValueError("conv2d takes filter= or filters=, not both.")
    if filter is None:
        raise ValueError("conv2d needs a filter (filters=...).")
    if is_channels_first(data_format):
        return around_nhwc(input, name, "Conv2D", lambda x: conv2d(
            x, filter, nhwc_order(strides), nhwc_order(padding), use_cudnn_on_gpu, "NHWC",
            nhwc_order(dilations), name="Conv2D"))
    x = convert_to_tensor(input)
    f = convert_to_tensor(filter, dtype_hint=x.dtype)
    return _conv_op("Conv2D", [x, f], strides, padding, use_cudnn_on_gpu, data_format,
                    dilations, name)


def conv1d(value=None, filters=None, stride=None, padding=None,  # noqa: A002  (TF's names)
           use_cudnn_on_gpu=None, data_format=None, name=None, input=None, dilations=None
           ) -> Tensor:
    """1-D convolution of an NWC ``value`` ([batch, width, in]) with a filter [width, in,
    out], as TF1's ``tf.nn.conv1d``: a Conv2D over a height of 1 (ExpandDims, Conv2D,
    Squeeze under a ``conv1d`` scope, TF's nodes; the NWC Conv2D is named after the scope
    itself, ``conv1d``, as TF names it)."""
    value = input if value is None else value
    if value is None or filters is None:
        raise ValueError("conv1d needs value= (or input=) and filters=.")
    if isinstance(padding, (list, tuple)):      # TF1's conv1d has no explicit padding
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    data_format = format_name(data_format, "NWC")
    first = data_format in ("NCW", "NCHW")       # TF1's conv1d takes either name
    if data_format not in ("NWC", "NHWC") and not first:
        raise ValueError(f"conv1d: data_format must be 'NWC' or 'NCW', got "
                         f"{data_format!r}.")
    height = 2 if first else 1          # NCW: [batch, in, 1, width], an NCHW Conv2D
    with name_scope(name or "conv1d") as scope:
        x = expand_dims(convert_to_tensor(value, name="value"), height)
        f = expand_dims(convert_to_tensor(filters, dtype_hint=x.dtype, name="filters"), 0)
        step = _one_int(stride, "stride", first)
        rate = 1 if dilations is None else _one_int(dilations, "dilations", first)
        cudnn = True if use_cudnn_on_gpu is None else use_cudnn_on_gpu
        if first:
            y = conv2d(x, f, [1, 1, 1, step], padding, cudnn, "NCHW", [1, 1, 1, rate])
        else:
            attrs = conv_attrs([1, 1, step, 1], padding, "NHWC", [1, 1, rate, 1],
                               scope.rstrip("/"), cudnn, explicit=True)
            y = x.graph.create_op("Conv2D", [x, f], attrs, name=scope.rstrip("/"),
                                  exact_name=True).outputs[0]
        return squeeze(y, [height])


def _one_int(value, what: str, channels_first: bool = False) -> int:
    """``stride``/``dilations`` of a 1-D op: an int or a 1- or 3-list (NWC, or NCW)."""
    values = [int(v) for v in np.atleast_1d(value)]
    if len(values) == 1:
        return values[0]
    if len(values) == 3 and channels_first and values[0] == values[1] == 1:
        return values[2]
    if len(values) == 3 and not channels_first and values[0] == values[2] == 1:
        return values[1]
    raise ValueError(f"conv1d: {what} must be an int or [1, n, 1], got {value!r}.")


def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                          use_cudnn_on_gpu=True, data_format="NHWC", dilations=None,
                          name=None) -> Tensor:
    """The gradient of Conv2D with respect to its input, of shape ``input_sizes``."""
    dy = convert_to_tensor(out_backprop)
    sizes = convert_to_tensor(int32_sizes(input_sizes), dtype_hint=dtypes.int32)
    f = convert_to_tensor(filter, dtype_hint=dy.dtype)
    return _conv_op("Conv2DBackpropInput", [sizes, f, dy], strides, padding,
                    use_cudnn_on_gpu, data_format, dilations, name)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None) -> Tensor:
    """TF1's ``tf.nn.conv2d_transpose``: the gradient of a convolution with respect to
    its input, run forward (a Conv2DBackpropInput of ``output_shape``); ``filter`` is
    ``[height, width, output channels, input channels]``.  ValueError when the channels
    of ``value``, ``filter`` and ``output_shape`` disagree."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    if is_channels_first(data_format):
        return around_nhwc(value, name, "conv2d_transpose", lambda x: conv2d_transpose(
            x, filter, nhwc_sizes(output_shape, x.graph), nhwc_order(strides),
            nhwc_order(padding), "NHWC", name="conv2d_transpose",
            dilations=nhwc_order(dilations)))
    with name_scope(name or "conv2d_transpose") as scope:
        x = convert_to_tensor(value, name="value")
        f = convert_to_tensor(filter, dtype_hint=x.dtype, name="filter")
        sizes = int_operand(int32_sizes(output_shape), x.graph, name="output_shape")
        channels = x.shape.dims[-1] if x.shape.ndims == 4 else None
        if channels is not None and f.shape.ndims == 4 and f.shape.dims[3] is not None \
                and channels != f.shape.dims[3]:
            raise ValueError(f"conv2d_transpose: input channels of value '{x.name}' "
                             f"({channels}) do not match the filter's last dimension "
                             f"({f.shape.dims[3]}), filter shape {f.shape}.")
        known = constant_value(sizes)
        if known is not None and f.shape.ndims == 4 and f.shape.dims[2] is not None and \
                int(np.asarray(known).reshape(-1)[-1]) != f.shape.dims[2]:
            raise ValueError(f"conv2d_transpose: output_shape {np.asarray(known).tolist()} has "
                             f"{int(np.asarray(known).reshape(-1)[-1])} channels but the "
                             f"filter makes {f.shape.dims[2]}, filter shape {f.shape}.")
        attrs = conv_attrs(strides, padding, data_format, dilations, "conv2d_transpose",
                           explicit=True)
        return x.graph.create_op("Conv2DBackpropInput", [sizes, f, x], attrs,
                                 name=scope.rstrip("/"), exact_name=True).outputs[0]


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=None,
                           name=None) -> Tensor:
    """The gradient of Conv2D with respect to its filter, of shape ``filter_sizes``."""
    x = convert_to_tensor(input)
    sizes = convert_to_tensor(int32_sizes(filter_sizes), dtype_hint=dtypes.int32)
    dy = convert_to_tensor(out_backprop, dtype_hint=x.dtype)
    return _conv_op("Conv2DBackpropFilter", [x, sizes, dy], strides, padding,
                    use_cudnn_on_gpu, data_format, dilations, name)


def _conv_op(op_type, inputs, strides, padding, use_cudnn_on_gpu, data_format, dilations,
             name) -> Tensor:
    """A Conv2D-family op of ``inputs``, with the attrs of its builder's arguments."""
    return make_op(op_type, inputs, conv_attrs(strides, padding, data_format, dilations,
                                               name or op_type, use_cudnn_on_gpu,
                                               explicit=True), name)


def _pool_builder(op_type: str):
    def build(value=None, ksize=None, strides=None, padding=None, data_format="NHWC",
              name=None, input=None):  # noqa: A002
        if value is None:
            value = input
        if is_channels_first(data_format):
            return around_nhwc(value, name, op_type, lambda x: build(
                x, nhwc_order(ksize), nhwc_order(strides), padding, "NHWC", op_type))
        label = name or op_type
        attrs = {"ksize": nhwc_list(ksize, "ksize", label),
                 "strides": nhwc_list(strides, "strides", label),
                 "padding": _padding(padding, label), "data_format": format_name(data_format)}
        return make_op(op_type, [convert_to_tensor(value)], attrs, name)
    build.__name__ = "max_pool" if op_type == "MaxPool" else "avg_pool"
    build.__doc__ = (f"{op_type} over ``ksize`` windows of an NHWC tensor, as "
                     f"``tf.nn.{build.__name__}`` (SAME averages over the valid elements "
                     f"only); an NCHW one is transposed around it.")
    return build


max_pool = _pool_builder("MaxPool")
avg_pool = _pool_builder("AvgPool")
