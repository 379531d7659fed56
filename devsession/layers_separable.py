"""TF1's ``tf.layers.separable_conv1d`` (and ``SeparableConv1D``, ``layers_classes.py``):
a depthwise convolution of NWC (or NCW) inputs, ``depth_multiplier`` filters per channel,
then a pointwise one to ``filters`` channels, then the bias and ``activation``.

Built as Keras builds it: the inputs, the kernels and the strides gain a height of 1
(``expand_dims`` at the spatial start), ``nn.separable_conv2d`` runs on them, the bias is
added, and the height is squeezed away.  The variables are Keras's:
``<scope>/depthwise_kernel`` ``(kernel_size, channels, depth_multiplier)``,
``<scope>/pointwise_kernel`` ``(1, channels * depth_multiplier, filters)`` and
``<scope>/bias``, in the scope ``separable_conv1d`` (``_1``...) or ``name``.  "causal"
padding pads ``(kernel_size - 1) * dilation_rate`` zeros before each sequence and then
convolves "valid", as Keras's.
"""

from __future__ import annotations

from . import nn
from .graph import convert_to_tensor
from .initializers import glorot_uniform_initializer, zeros_initializer
from .layers_formats import channel_dimension, channels_first, nn_format
from .layers_functional import (_bias_format, _output, _padding, _single,
                                _strided_or_dilated, _variable)
from .ops import expand_dims, pad, squeeze
from .variable_scope import layer_scope

__all__ = ["separable_conv1d"]


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
                     data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=None,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """See the module docstring.  Raises ValueError for a padding other than "valid",
    "same" or "causal" (channels_last only), sizes that are not one positive int, or
    strides and dilations both above 1."""
    first = channels_first("separable_conv1d", data_format)
    x = convert_to_tensor(inputs)
    channels = channel_dimension(x, "separable_conv1d", first)
    (k,) = _single(kernel_size, "kernel_size")
    (stride,), (rate,) = _single(strides, "strides"), _single(dilation_rate, "dilation_rate")
    _strided_or_dilated("separable_conv1d", (stride,), (rate,))
    causal = str(padding).lower() == "causal"
    padding = "VALID" if causal else _padding(padding)
    multiplier, filters = int(depth_multiplier), int(filters)
    glorot = glorot_uniform_initializer()
    axis = 2 if first else 1
    if causal:           # Keras's: (k - 1) * rate zeros before each sequence, then "valid"
        if first:
            raise ValueError("Causal padding is only supported for `channels_last` "
                             "data format.")
        x = pad(x, [[0, 0], [(k - 1) * rate, 0], [0, 0]])
    with layer_scope(name, "separable_conv1d", reuse):
        depthwise = _variable("depthwise_kernel", (k, channels, multiplier), x.dtype,
                              depthwise_initializer or glorot, trainable, depthwise_regularizer,
                              depthwise_constraint)
        pointwise = _variable("pointwise_kernel", (1, channels * multiplier, filters),
                              x.dtype, pointwise_initializer or glorot, trainable,
                              pointwise_regularizer, pointwise_constraint)
        window = [1, 1, stride, stride] if first else [1, stride, stride, 1]
        y = nn.separable_conv2d(expand_dims(x, axis), expand_dims(depthwise, 0),
                                expand_dims(pointwise, 0), strides=window, padding=padding,
                                dilations=[1, rate], data_format=nn_format(2, first))
        if use_bias:
            bias = _variable("bias", (filters,), x.dtype, bias_initializer or zeros_initializer(),
                             trainable, bias_regularizer, bias_constraint)
            y = nn.bias_add(y, bias, data_format=_bias_format(first))
        return _output(squeeze(y, [axis]), activation, activity_regularizer)
