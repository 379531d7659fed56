"""Window maxima that remember where they were taken: MaxPoolWithArgmax and Dilation2D
(grey-scale morphology), with their gradient ops, and the builders
``max_pool_with_argmax``, ``dilation2d`` and ``erosion2d``.

Op types and attrs are TensorFlow's, so TF GraphDefs import (NHWC only; no
``data_format`` attr on these ops):

* ``MaxPoolWithArgmax(input)``: ``ksize``, ``strides``, ``padding``, ``Targmax``
  (int64, the default, or int32) and ``include_batch_in_index``; outputs ``output``
  (MaxPool's) and ``argmax``, the flat position of each maximum:
  ``(y * width + x) * channels + c``, plus ``b * height * width * channels`` when
  ``include_batch_in_index``.  As TF's CPU kernel, each window takes its first element
  (row-major, inside the input) and then any strictly larger one, so ties go to the
  first maximum and a NaN wins only where it comes first.
* ``MaxPoolGradWithArgmax(input, grad, argmax)`` adds each ``grad`` at its ``argmax``
  (the gradient of MaxPoolWithArgmax); ``MaxPoolGradGradWithArgmax(input, grad, argmax)``
  gathers ``grad`` (input-shaped) back from there (the gradient of the former).
* ``Dilation2D(input, filter)``: ``strides``, ``rates`` and ``padding``; ``filter`` is
  ``[rows, cols, depth]`` and ``out[b, y, x, c] = max(input[b, y*sy + i*ry - top,
  x*sx + j*rx - left, c] + filter[i, j, c])`` over the taps inside the input (padding is
  never read; a window with no value above the dtype's lowest is that lowest).  NaN
  sums never win (TF's ``>``).  ``Dilation2DBackpropInput(input, filter,
  out_backprop)`` and ``Dilation2DBackpropFilter(input, filter, out_backprop)`` send
  each gradient to the first tap that made the maximum.  ``erosion2d`` is TF1's:
  ``-dilation2d(-value, reverse(kernel, [0, 1]))``.

Geometry (output sizes, SAME's padding split) is Conv2D's (``kernels/windows.py``),
the rates dilating the window as a convolution's dilations.  Kernels:
``kernels/{reference,cpu,cuda}/window_argmax.py``; gradients:
``nn_window_argmax_grad.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .masking import reverse
from .common import same_dtype
from .elementwise import negative
from .nn_conv import (MAX_POOL_TYPES, _format_and_padding, _out_dim, _pool_output,
                      _window_attr, dims4, dtype_in, nhwc_list, _padding)
from .registry import InferError, OpDef, register_op

__all__ = ["max_pool_with_argmax", "dilation2d", "erosion2d", "ARGMAX_POOL_ATTRS",
           "DILATION_ATTRS"]

ARGMAX_POOL_ATTRS = ("ksize", "strides", "padding", "include_batch_in_index")
DILATION_ATTRS = ("strides", "rates", "padding")
ARGMAX_TYPES = (dtypes.int32, dtypes.int64)
DILATION_TYPES = MAX_POOL_TYPES
_ARGMAX_DEFAULTS = {"Targmax": dtypes.int64, "include_batch_in_index": False}


# --- inference -------------------------------------------------------------------------

def _targmax(attrs, node: str):
    dtype = dtypes.as_dtype(attrs.get("Targmax", dtypes.int64))
    if dtype not in ARGMAX_TYPES:
        raise TypeError(f"Op '{node}': Targmax must be int32 or int64, not {dtype.name}.")
    return dtype


def _max_pool_with_argmax(inputs, attrs, node):
    (x,) = inputs
    dtype_in(x, MAX_POOL_TYPES, node)
    shape = _pool_output(dims4(x, node, "input"), attrs, node)
    return [(x.dtype, shape), (_targmax(attrs, node), shape)]


def _argmax_operand(argmax, expected: TensorShape, node: str) -> None:
    if argmax.dtype not in ARGMAX_TYPES:
        raise TypeError(f"Op '{node}': argmax '{argmax.name}' must be int32 or int64, not "
                        f"{argmax.dtype.name}.")
    if not expected.is_compatible_with(argmax.shape):
        raise InferError(f"Op '{node}': argmax '{argmax.name}' has shape {argmax.shape}, but "
                         f"the pooling's output shape is {expected}.")


def _argmax_grad_operands(inputs, attrs, node) -> tuple:
    """``(x, grad, dtype, pooled_shape)`` of the argmax gradients' ``(x, grad, argmax)``:
    x and grad of one max-pool dtype, argmax as the pooling of x outputs it."""
    x, grad, argmax = inputs
    dtype = same_dtype([x, grad], node)
    dtype_in(x, MAX_POOL_TYPES, node)
    expected = _pool_output(dims4(x, node, "input"), attrs, node)
    _argmax_operand(argmax, expected, node)
    return x, grad, dtype, expected


def _max_pool_grad_with_argmax(inputs, attrs, node):
    x, grad, dtype, expected = _argmax_grad_operands(inputs, attrs, node)
    if not expected.is_compatible_with(grad.shape):
        raise InferError(f"Op '{node}': grad '{grad.name}' has shape {grad.shape}, but the "
                         f"pooling's output shape is {expected}.")
    return dtype, x.shape


def _max_pool_grad_grad_with_argmax(inputs, attrs, node):
    x, grad, dtype, expected = _argmax_grad_operands(inputs, attrs, node)
    if not x.shape.is_compatible_with(grad.shape):
        raise InferError(f"Op '{node}': grad '{grad.name}' has shape {grad.shape}, but the "
                         f"input's is {x.shape}.")
    return dtype, expected


def dilation_output(x_dims, f_dims, attrs, node) -> TensorShape:
    """Dilation2D's output shape: Conv2D's geometry with ``rates`` as dilations."""
    padding = _format_and_padding(attrs, node)
    sh, sw = _window_attr(attrs, "strides", node)
    rh, rw = _window_attr(attrs, "rates", node)
    if f_dims is not None and len(f_dims) != 3:
        raise InferError(f"Op '{node}': filter must be 3-dimensional [rows, cols, depth], "
                         f"got {len(f_dims)} dimensions.")
    f_dims = f_dims or (None,) * 3
    if None not in (x_dims[3], f_dims[2]) and x_dims[3] != f_dims[2]:
        raise InferError(f"Op '{node}': input and filter must have the same depth: "
                         f"{x_dims[3]} vs {f_dims[2]}")
    return TensorShape([x_dims[0], _out_dim(x_dims[1], f_dims[0], sh, rh, padding, node,
                                            "height"),
                        _out_dim(x_dims[2], f_dims[1], sw, rw, padding, node, "width"),
                        x_dims[3] if x_dims[3] is not None else f_dims[2]])


def _dilation(inputs, attrs, node):
    x, f = inputs
    dtype = same_dtype(inputs, node)
    dtype_in(x, DILATION_TYPES, node)
    return dtype, dilation_output(dims4(x, node, "input"), f.shape.dims, attrs, node)


def _dilation_backprop(wrt_input: bool):
    def infer(inputs, attrs, node):
        x, f, dy = inputs
        dtype = same_dtype(inputs, node)
        dtype_in(x, DILATION_TYPES, node)
        expected = dilation_output(dims4(x, node, "input"), f.shape.dims, attrs, node)
        if not expected.is_compatible_with(dy.shape):
            raise InferError(f"Op '{node}': out_backprop '{dy.name}' has shape {dy.shape}, "
                             f"but the dilation's output shape is {expected}.")
        return dtype, x.shape if wrt_input else f.shape
    return infer


register_op(OpDef("MaxPoolWithArgmax", _max_pool_with_argmax, 1,
                  attr_defaults=_ARGMAX_DEFAULTS))
register_op(OpDef("MaxPoolGradWithArgmax", _max_pool_grad_with_argmax, 3,
                  attr_defaults=_ARGMAX_DEFAULTS))
register_op(OpDef("MaxPoolGradGradWithArgmax", _max_pool_grad_grad_with_argmax, 3,
                  attr_defaults=_ARGMAX_DEFAULTS))
register_op(OpDef("Dilation2D", _dilation, 2))
register_op(OpDef("Dilation2DBackpropInput", _dilation_backprop(True), 3))
register_op(OpDef("Dilation2DBackpropFilter", _dilation_backprop(False), 3))


# --- builders ----------------------------------------------------------------------------

def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         Targmax=None, name=None, output_dtype=None,  # noqa: N803
                         include_batch_in_index=False):
    """``tf.nn.max_pool_with_argmax`` (TF1): ``(output, argmax)`` of one
    MaxPoolWithArgmax node (see the module docstring for the index layout).
    ``output_dtype`` is TF2's name for ``Targmax``; NHWC only, as TF's op."""
    if Targmax is not None and output_dtype is not None and \
            dtypes.as_dtype(Targmax) != dtypes.as_dtype(output_dtype):
        raise ValueError("max_pool_with_argmax: Targmax and output_dtype disagree.")
    if data_format != "NHWC":
        raise ValueError(f"Data formats other than 'NHWC' are not yet supported (got "
                         f"{data_format!r}).")
    x = convert_to_tensor(input)
    label = name or "MaxPoolWithArgmax"
    attrs = {"ksize": nhwc_list(ksize, "ksize", label),
             "strides": nhwc_list(strides, "strides", label),
             "padding": _padding(padding, label),
             "Targmax": dtypes.as_dtype(Targmax or output_dtype or dtypes.int64),
             "include_batch_in_index": bool(include_batch_in_index)}
    op = x.graph.create_op("MaxPoolWithArgmax", [x], attrs, name=name)
    return op.outputs[0], op.outputs[1]


def _dilation_attrs(strides, rates, padding, label) -> dict:
    return {"strides": nhwc_list(strides, "strides", label),
            "rates": nhwc_list(rates, "rates", label), "padding": _padding(padding, label)}


def dilation2d(input, filter=None, strides=None, rates=None,  # noqa: A002  (TF1's names)
               padding=None, name=None, filters=None, dilations=None) -> Tensor:
    """``tf.nn.dilation2d`` (TF1): grey-scale dilation of an NHWC ``input`` by a
    ``[rows, cols, depth]`` structuring ``filter`` (one Dilation2D node)."""
    filter = filters if filter is None else filter  # noqa: A001
    rates = dilations if rates is None else rates
    if filter is None or strides is None or rates is None or padding is None:
        raise ValueError("dilation2d needs filter, strides, rates and padding.")
    x = convert_to_tensor(input)
    f = convert_to_tensor(filter, dtype_hint=x.dtype)
    label = name or "Dilation2D"
    return x.graph.create_op("Dilation2D", [x, f],
                             _dilation_attrs(strides, rates, padding, label),
                             name=name).outputs[0]


def erosion2d(value, kernel, strides, rates, padding, name=None) -> Tensor:
    """``tf.nn.erosion2d``: grey-scale erosion, ``-dilation2d(-value, kernel mirrored)``
    under an ``erosion2d`` scope, as TF1 builds it."""
    with name_scope(name or "erosion2d"):
        x = convert_to_tensor(value)
        mirrored = reverse(convert_to_tensor(kernel, dtype_hint=x.dtype), [0, 1])
        return negative(x.graph.create_op(
            "Dilation2D", [negative(x), mirrored],
            _dilation_attrs(strides, rates, padding, "erosion2d"), name="dilation2d"
        ).outputs[0])
