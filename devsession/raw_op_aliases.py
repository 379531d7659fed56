"""TF1's top-level names that are raw ops under Python names: ``tf.approx_top_k``,
``tf.conv2d_backprop_filter_v2`` and ``tf.conv2d_backprop_input_v2`` (the V2 gradients
take the filter or input itself, not its shape), built through ``raw_ops``; and
``tf.conv``, TF's generic ``Conv`` op (``ops/nn_conv_generic.py``).
"""

from __future__ import annotations

from . import raw_ops
from .ops.nn_conv_generic import conv
from .ops.top_k import approx_max_k, approx_min_k

__all__ = ["approx_top_k", "conv", "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"]


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """TF's ApproxTopK op: ``approx_max_k``, or ``approx_min_k`` when ``is_max_k`` is
    False (exact, as TF's CPU kernel)."""
    select = approx_max_k if is_max_k else approx_min_k
    return select(input, k, reduction_dimension, recall_target,
                  reduction_input_size_override, aggregate_to_topk, name)


def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                              use_cudnn_on_gpu=True, explicit_paddings=(),
                              data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Conv2D's filter gradient, ``filter`` giving its shape."""
    return _conv_gradient(raw_ops.Conv2DBackpropFilterV2, input, filter, out_backprop,
                          strides, padding, explicit_paddings, data_format, dilations, name)


def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                             use_cudnn_on_gpu=True, explicit_paddings=(),
                             data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Conv2D's input gradient, ``input`` giving its shape."""
    return _conv_gradient(raw_ops.Conv2DBackpropInputV2, input, filter, out_backprop,
                          strides, padding, explicit_paddings, data_format, dilations, name)


def _conv_gradient(op, input, filter, out_backprop, strides, padding,  # noqa: A002
                   explicit_paddings, data_format, dilations, name):
    return op(input=input, filter=filter, out_backprop=out_backprop, strides=list(strides),
              padding=padding, explicit_paddings=list(explicit_paddings),
              data_format=data_format, dilations=list(dilations), name=name)
