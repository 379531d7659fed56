"""TF1's ``tf.layers`` functions (``ds.layers.dense``...), built from ``ds`` ops and
``get_variable``; the layer classes (``layers_classes.py``) call them.

=====================================  ===================================================
``dense(inputs, units, activation)``   ``inputs @ kernel + bias`` over the last axis
``conv2d(inputs, filters, kernel_size)``  NHWC convolution, then the bias
``conv2d_transpose(inputs, filters,``  the transposed convolution (``nn.conv2d_transpose``),
``kernel_size)``                       then the bias
``max_pooling2d``, ``average_pooling2d``  NHWC pooling; ``padding`` "valid" or "same"
``separable_conv2d``                    a depthwise then a 1x1 convolution, then the bias
``conv1d``, ``max_pooling1d``,          their 1-D forms over NWC inputs (TF's: the 2-D ops
``average_pooling1d``                   over a height of 1)
``conv3d``, ``conv3d_transpose``,       their 3-D forms over NDHWC inputs (``nn.conv3d``...)
``max_pooling3d``, ``average_pooling3d``
``flatten(inputs)``                    ``(batch, everything else)``
``dropout(inputs, rate, training)``    dropout only while ``training`` (a bool or a
                                       bool tensor)
``batch_normalization(inputs, training)``  the batch's statistics while ``training``, the
                                       moving averages otherwise; their updates go
                                       in ``tf.GraphKeys.UPDATE_OPS``
                                       (``layers_batch_norm.py``)
=====================================  ===================================================

As TF1's: each layer with variables opens a variable scope named after it ("dense",
"dense_1", ... or ``name``; ``reuse=True`` shares an earlier layer's variables), its
variables are ``<scope>/kernel`` and ``<scope>/bias`` (so a checkpoint TF1 wrote names
them alike), the kernel starts Glorot-uniform and the bias at 0, and a
``kernel_regularizer``/``bias_regularizer`` adds its loss to the graph's
``"regularization_losses"`` collection (``ds.losses.get_regularization_loss``), and an
``activity_regularizer``'s penalty of the output, divided by the batch size, joins it too
(TF1's layers are Keras v1's, which divide so).
A ``*_constraint`` stays with its variable (``v.constraint``), which the optimizers
assign after each update, as TF1's.  What TF1 layers take but devsession does not
is a clear error, never ignored.  ``data_format=
"channels_first"`` builds the tf.nn ops with NCW/NCHW/NCDHW (``layers_formats.py``: TF's
values and variables, Transposes where TF has NCHW nodes).

``batch_normalization`` lives in ``layers_batch_norm.py`` (its variables, the fused op,
renorm, virtual batches, adjustment), which builds its variables with this module's
``_variable``; ``ds.layers`` takes it from there.
"""

from __future__ import annotations

import math
import numbers

from . import nn
from .dtypes import float32
from .graph import constant_value, convert_to_tensor, name_scope
from .graph_keys import GraphKeys, add_to_collection, get_collection
from .initializers import glorot_uniform_initializer, zeros_initializer
from .layers_formats import channel_dimension, channels_first, full_window, nn_format
from .ops import (cast, expand_dims, identity, matmul, reshape, shape, squeeze,
                  stack, tensordot, transpose, where)
from .variable_scope import get_variable, layer_scope

__all__ = ["dense", "conv2d", "conv2d_transpose", "max_pooling2d", "average_pooling2d",
           "flatten", "dropout", "conv1d", "max_pooling1d",
           "average_pooling1d", "separable_conv2d", "conv3d", "conv3d_transpose",
           "max_pooling3d", "average_pooling3d"]


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """``activation(inputs @ kernel + bias)``, the product over the last axis of
    ``inputs`` (whose size must be known: it is the kernel's first dimension)."""
    x = convert_to_tensor(inputs)
    depth = _last_dimension(x, "dense")
    with layer_scope(name, "dense", reuse):
        kernel, bias = _weights((depth, int(units)), int(units), x.dtype, use_bias,
                                kernel_initializer, bias_initializer, kernel_regularizer,
                                bias_regularizer, trainable,
                                (kernel_constraint, bias_constraint))
        if x.shape.ndims == 2:
            y = nn.bias_add(matmul(x, kernel), bias) if use_bias else matmul(x, kernel)
        else:
            y = tensordot(x, kernel, [[x.shape.ndims - 1], [0]])
            y = nn.bias_add(y, bias) if use_bias else y        # TF's BiasAdd, any rank
        return _output(y, activation, activity_regularizer)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 2-D convolution of NHWC ``inputs`` with ``filters`` output channels, then the
    bias and ``activation``."""
    first = channels_first("conv2d", data_format)
    dh, dw = _pair(dilation_rate, "dilation_rate")
    x = convert_to_tensor(inputs)
    channels = channel_dimension(x, "conv2d", first)
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(strides, "strides")
    _strided_or_dilated("conv2d", (sh, sw), (dh, dw))
    with layer_scope(name, "conv2d", reuse):
        kernel, bias = _weights((kh, kw, channels, int(filters)), int(filters), x.dtype,
                                use_bias, kernel_initializer, bias_initializer,
                                kernel_regularizer, bias_regularizer, trainable,
                                (kernel_constraint, bias_constraint))
        y = nn.conv2d(x, kernel, strides=full_window((sh, sw), first), padding=_padding(padding),
                      dilations=full_window((dh, dw), first), data_format=nn_format(2, first))
        if use_bias:
            y = nn.bias_add(y, bias, data_format=_bias_format(first))
        return _output(y, activation, activity_regularizer)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 1-D convolution of NWC ``inputs`` ([batch, width, channels]) with ``filters``
    output channels (kernel ``(kernel_size, channels, filters)``), then the bias and
    ``activation``."""
    first = channels_first("conv1d", data_format)
    x = convert_to_tensor(inputs)
    channels = channel_dimension(x, "conv1d", first)
    (k,) = _single(kernel_size, "kernel_size")
    _strided_or_dilated("conv1d", _single(strides, "strides"),
                        _single(dilation_rate, "dilation_rate"))
    with layer_scope(name, "conv1d", reuse):
        kernel, bias = _weights((k, channels, int(filters)), int(filters), x.dtype,
                                use_bias, kernel_initializer, bias_initializer,
                                kernel_regularizer, bias_regularizer, trainable,
                                (kernel_constraint, bias_constraint))
        y = nn.conv1d(x, kernel, stride=_single(strides, "strides")[0],
                      padding=_padding(padding),
                      dilations=_single(dilation_rate, "dilation_rate")[0],
                      data_format=nn_format(1, first))
        if use_bias:
            y = nn.bias_add(y, bias, data_format=_bias_format(first))
        return _output(y, activation, activity_regularizer)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=None,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A depthwise convolution of NHWC ``inputs`` (``depth_multiplier`` filters per
    channel, ``<scope>/depthwise_kernel``) then a 1x1 one to ``filters`` channels
    (``<scope>/pointwise_kernel``), then the bias and ``activation``."""
    first = channels_first("separable_conv2d", data_format)
    x = convert_to_tensor(inputs)
    channels = channel_dimension(x, "separable_conv2d", first)
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(strides, "strides")
    dh, dw = _pair(dilation_rate, "dilation_rate")
    _strided_or_dilated("separable_conv2d", (sh, sw), (dh, dw))
    multiplier, filters = int(depth_multiplier), int(filters)
    glorot = glorot_uniform_initializer()
    with layer_scope(name, "separable_conv2d", reuse):
        depthwise = _variable("depthwise_kernel", (kh, kw, channels, multiplier), x.dtype,
                              depthwise_initializer or glorot, trainable, depthwise_regularizer,
                              depthwise_constraint)
        pointwise = _variable("pointwise_kernel", (1, 1, channels * multiplier, filters),
                              x.dtype, pointwise_initializer or glorot, trainable,
                              pointwise_regularizer, pointwise_constraint)
        y = nn.separable_conv2d(x, depthwise, pointwise, strides=full_window((sh, sw), first),
                                padding=_padding(padding), dilations=[dh, dw],
                                data_format=nn_format(2, first))
        if use_bias:
            bias = _variable("bias", (filters,), x.dtype, bias_initializer or zeros_initializer(),
                             trainable, bias_regularizer, bias_constraint)
            y = nn.bias_add(y, bias, data_format=_bias_format(first))
        return _output(y, activation, activity_regularizer)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """The transposed 2-D convolution of NHWC ``inputs`` to ``filters`` channels (kernel
    ``(kh, kw, filters, in_channels)``), each spatial size ``size * stride`` ("same") or
    ``size * stride + max(k - stride, 0)`` ("valid"), as Keras computes it; then the
    bias and ``activation``."""
    first = channels_first("conv2d_transpose", data_format)
    x = convert_to_tensor(inputs)
    channels = channel_dimension(x, "conv2d_transpose", first)
    if x.shape.ndims != 4:
        raise ValueError(f"tf.layers.conv2d_transpose takes 4-D inputs, got '{x.name}' "
                         f"with shape {x.shape}.")
    return _transposed(nn.conv2d_transpose, "conv2d_transpose", x, channels, filters,
                       _pair(kernel_size, "kernel_size"), _pair(strides, "strides"), padding,
                       activation, use_bias, kernel_initializer, bias_initializer,
                       kernel_regularizer, bias_regularizer, trainable, name, reuse,
                       (kernel_constraint, bias_constraint), activity_regularizer, first)


def _transposed(op, default_name, x, channels, filters, window, steps, padding, activation,
                use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                bias_regularizer, trainable, name, reuse, constraints=(None, None),
                activity_regularizer=None, first=False):
    """The body of ``conv2d_transpose`` and ``conv3d_transpose``: the kernel ``(*window,
    filters, channels)``, each spatial size ``size * stride`` ("same") or ``size * stride
    + max(k - stride, 0)`` ("valid"), then the bias and ``activation``."""
    same = _padding(padding) == "SAME"

    def grown(size, k, s):
        return size * s if same else size * s + max(k - s, 0)
    with layer_scope(name, default_name, reuse):
        kernel, bias = _weights((*window, int(filters), channels), int(filters), x.dtype,
                                use_bias, kernel_initializer, bias_initializer,
                                kernel_regularizer, bias_regularizer, trainable, constraints)
        dims, start = x.shape.dims, 2 if first else 1
        spatial = [grown(d, k, s) if d is not None else grown(shape(x)[i + start], k, s)
                   for i, (d, k, s) in enumerate(zip(dims[start:start + len(window)], window,
                                                     steps))]
        output_shape = stack(layout([shape(x)[0], *spatial, int(filters)], first))
        y = op(x, kernel, output_shape, strides=layout([1, *steps, 1], first),
               padding=_padding(padding), data_format=nn_format(len(window), first))
        y.set_shape(layout([dims[0]] + [s if isinstance(s, int) else None for s in spatial] +
                           [int(filters)], first))
        if use_bias:
            y = nn.bias_add(y, bias, data_format=_bias_format(first))
        return _output(y, activation, activity_regularizer)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """The maximum over each ``pool_size`` window of NHWC ``inputs``."""
    return _pooling(nn.max_pool, "max_pooling2d", inputs, pool_size, strides, padding,
                    data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """The mean over each ``pool_size`` window of NHWC ``inputs`` (windows cut by a
    "same" border average only what they cover, as TF's)."""
    return _pooling(nn.avg_pool, "average_pooling2d", inputs, pool_size, strides, padding,
                    data_format, name)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """The maximum over each ``pool_size`` window of NWC ``inputs``."""
    return _pooling_1d(nn.max_pool, "max_pooling1d", inputs, pool_size, strides, padding,
                       data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """The mean over each ``pool_size`` window of NWC ``inputs``."""
    return _pooling_1d(nn.avg_pool, "average_pooling1d", inputs, pool_size, strides,
                       padding, data_format, name)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
           use_bias=True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """A 3-D convolution of NDHWC ``inputs`` with ``filters`` output channels (kernel
    ``(kd, kh, kw, in_channels, filters)``), then the bias and ``activation``."""
    first = channels_first("conv3d", data_format)
    dilations = _triple(dilation_rate, "dilation_rate")
    x = convert_to_tensor(inputs)
    channels = channel_dimension(x, "conv3d", first)
    window, steps = _triple(kernel_size, "kernel_size"), _triple(strides, "strides")
    _strided_or_dilated("conv3d", steps, dilations)
    with layer_scope(name, "conv3d", reuse):
        kernel, bias = _weights((*window, channels, int(filters)), int(filters), x.dtype,
                                use_bias, kernel_initializer, bias_initializer,
                                kernel_regularizer, bias_regularizer, trainable,
                                (kernel_constraint, bias_constraint))
        y = nn.conv3d(x, kernel, strides=full_window(steps, first), padding=_padding(padding),
                      dilations=full_window(dilations, first), data_format=nn_format(3, first))
        if use_bias:
            y = nn.bias_add(y, bias, data_format=_bias_format(first))
        return _output(y, activation, activity_regularizer)


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """The transposed 3-D convolution of NDHWC ``inputs`` to ``filters`` channels (kernel
    ``(kd, kh, kw, filters, in_channels)``), each spatial size grown as
    ``conv2d_transpose``'s; then the bias and ``activation``."""
    first = channels_first("conv3d_transpose", data_format)
    x = convert_to_tensor(inputs)
    channels = channel_dimension(x, "conv3d_transpose", first)
    if x.shape.ndims != 5:
        raise ValueError(f"tf.layers.conv3d_transpose takes 5-D inputs, got '{x.name}' "
                         f"with shape {x.shape}.")
    return _transposed(nn.conv3d_transpose, "conv3d_transpose", x, channels, filters,
                       _triple(kernel_size, "kernel_size"), _triple(strides, "strides"),
                       padding, activation, use_bias, kernel_initializer, bias_initializer,
                       kernel_regularizer, bias_regularizer, trainable, name, reuse,
                       (kernel_constraint, bias_constraint), activity_regularizer, first)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """The maximum over each ``pool_size`` window of NDHWC ``inputs``."""
    return _pooling_3d(nn.max_pool3d, "max_pooling3d", inputs, pool_size, strides, padding,
                       data_format, name)


def average_pooling3d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """The mean over each ``pool_size`` window of NDHWC ``inputs`` (windows cut by a
    "same" border average only what they cover, as TF's)."""
    return _pooling_3d(nn.avg_pool3d, "average_pooling3d", inputs, pool_size, strides,
                       padding, data_format, name)


def flatten(inputs, name=None, data_format="channels_last"):
    """``inputs`` as ``(batch, everything else)``; channels_first inputs of rank 3 or more
    are made channels_last first, as Keras's ``Flatten``, so the order is TF's.  Inputs of
    unknown rank are reshaped to ``[shape(inputs)[0], -1]`` as Keras's (a vector fed
    becomes a column; no transposition)."""
    first = channels_first("flatten", data_format)
    x = convert_to_tensor(inputs)
    if x.shape.ndims is None:
        with name_scope(name or "flatten"):
            return reshape(x, stack([shape(x)[0], -1]))
    if x.shape.ndims == 0:
        raise ValueError(f"tf.layers.flatten needs inputs of rank >= 1, got scalar "
                         f"'{x.name}'.")
    with name_scope(name or "flatten"):
        if first and x.shape.ndims >= 3:
            x = transpose(x, [0, *range(2, x.shape.ndims), 1])
        rest = x.shape.dims[1:]
        if all(d is not None for d in rest):
            return reshape(x, [-1, math.prod(rest)])
        return reshape(x, stack([shape(x)[0], -1]))


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """``ds.nn.dropout(inputs, rate=rate)`` while ``training`` (a Python bool, or a
    bool tensor chosen at run time), ``inputs`` unchanged otherwise; gradients flow
    through either.  Built in a scope ``name`` (else "dropout"), as TF's layer: the
    inputs unchanged are ``dropout/Identity:0``."""
    with name_scope(name or "dropout"):
        return apply_dropout(inputs, rate, noise_shape, seed, training)


def apply_dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False):
    """``dropout`` in the current scope (``layers.Dropout`` calls it in the layer's).
    ``training`` a constant tensor is decided now, as TF's ``smart_cond``; a rate of 0
    is the inputs, drawing no seed (TF's layer returns before its dropout)."""
    x = convert_to_tensor(inputs)
    if isinstance(rate, numbers.Real) and rate == 0:
        return identity(x)
    if not isinstance(training, bool) and constant_value(convert_to_tensor(training)) \
            is not None:
        training = bool(constant_value(convert_to_tensor(training)))
    if isinstance(training, bool) and not training:
        return identity(x)
    seed = seed() if callable(seed) else seed        # a Dropout layer's next seed
    dropped = nn.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)
    if isinstance(training, bool):
        return dropped
    # a select, not a cond: the gradient of a cond cannot run its random draw again
    return where(convert_to_tensor(training), dropped, x)


# --- shared ---------------------------------------------------------------------------------

def _output(y, activation, activity_regularizer):
    """``activation(y)``; an ``activity_regularizer``'s penalty of it divided by the batch
    size joins the regularization losses, under ``<layer>/ActivityRegularizer`` (TF1's
    layers: Keras v1's ``_handle_activity_regularization``)."""
    y = activation(y) if activation is not None else y
    if activity_regularizer is not None:
        with name_scope("ActivityRegularizer"):
            penalty = convert_to_tensor(activity_regularizer(y))
            batch = cast(shape(y)[0], penalty.dtype)
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, penalty / batch)
    return y


def _weights(kernel_shape, units, dtype, use_bias, kernel_initializer, bias_initializer,
             kernel_regularizer, bias_regularizer, trainable, constraints=(None, None)):
    """The layer's kernel and bias (None without ``use_bias``) in the current scope;
    ``constraints``: the kernel's and the bias's."""
    dtype = dtype if dtype.is_floating else float32
    kernel = _variable("kernel", kernel_shape, dtype,
                       kernel_initializer or glorot_uniform_initializer(), trainable,
                       kernel_regularizer, constraints[0])
    bias = None
    if use_bias:
        bias = _variable("bias", (units,), dtype, bias_initializer or zeros_initializer(),
                         trainable, bias_regularizer, constraints[1])
    return kernel, bias


def _variable(name, shape, dtype, initializer, trainable, regularizer=None, constraint=None):
    """``get_variable`` in the current scope; ``regularizer``'s penalty joins the
    regularization losses only when the variable is made here, not when a layer built
    again under ``reuse`` finds it (TF1's ``_should_add_regularizer``); ``constraint``
    stays with the variable, for the optimizers."""
    made_before = len(get_collection(GraphKeys.GLOBAL_VARIABLES))
    variable = get_variable(name, shape, dtype, initializer, trainable=trainable,
                            constraint=constraint)
    if len(get_collection(GraphKeys.GLOBAL_VARIABLES)) > made_before:
        _regularize(regularizer, variable, name)
    return variable


def _regularize(regularizer, variable, name: str) -> None:
    if regularizer is None:
        return
    with name_scope(f"{name}/Regularizer"):         # TF1's <layer>/kernel/Regularizer
        penalty = regularizer(variable)
    if penalty is not None:
        add_to_collection(GraphKeys.REGULARIZATION_LOSSES, penalty)


def _pooling(pool, layer, inputs, pool_size, strides, padding, data_format, name):
    """The pooling op in the layer's scope, named by its op (TF's max_pooling2d/MaxPool)."""
    first = channels_first(layer, data_format)
    with name_scope(name or layer):
        return pool(convert_to_tensor(inputs),
                    ksize=full_window(_pair(pool_size, "pool_size"), first),
                    strides=full_window(_pair(strides, "strides"), first),
                    padding=_padding(padding), data_format=nn_format(2, first))


def _pooling_1d(pool, layer, inputs, pool_size, strides, padding, data_format, name):
    """A 1-D pooling as Keras builds it: the 2-D pooling of the NWC inputs made
    ``(batch, width, 1, channels)`` (NCW inputs: ``(batch, channels, width, 1)``, NCHW)."""
    first = channels_first(layer, data_format)
    (size,), (step,) = _single(pool_size, "pool_size"), _single(strides, "strides")
    axis = 3 if first else 2
    with name_scope(name or layer):
        x = expand_dims(convert_to_tensor(inputs), axis)
        pooled = pool(x, ksize=full_window((size, 1), first), strides=full_window((step, 1), first),
                      padding=_padding(padding), data_format=nn_format(2, first))
        return squeeze(pooled, [axis])


def _pooling_3d(pool, layer, inputs, pool_size, strides, padding, data_format, name):
    first = channels_first(layer, data_format)
    ksize = full_window(_triple(pool_size, "pool_size"), first)
    with name_scope(name or layer):
        return pool(convert_to_tensor(inputs), ksize=ksize,
                    strides=full_window(_triple(strides, "strides"), first),
                    padding=_padding(padding), data_format=nn_format(3, first))


def _triple(value, what: str) -> tuple[int, int, int]:
    """An int, or three ints, as three (TF1's 3-D layers take both)."""
    triple = (value,) * 3 if isinstance(value, int) else tuple(value)
    if len(triple) != 3 or not all(isinstance(v, int) and v > 0 for v in triple):
        raise ValueError(f"{what} must be a positive int or 3 of them, got {value!r}.")
    return triple


def _strided_or_dilated(layer: str, strides, dilations) -> None:
    if max(strides) > 1 and max(dilations) > 1:
        raise ValueError(f"tf.layers.{layer}: strides > 1 together with dilation_rate > 1 "
                         f"is not supported (as in TF), got strides={strides}, "
                         f"dilation_rate={dilations}.")


def _single(value, what: str) -> tuple:
    values = tuple(int(v) for v in (value if isinstance(value, (list, tuple)) else [value]))
    if len(values) != 1:
        raise ValueError(f"{what} must be one int for a 1-D layer, got {value!r}.")
    return values


def _last_dimension(x, layer: str) -> int:
    if x.shape.ndims is None or x.shape.dims[-1] is None:
        # TF1's message first (what ported code matches), then which tensor it was
        raise ValueError(f"The last dimension of the inputs to `Dense` should be defined. "
                         f"Found `None`. (tf.layers.{layer}: the last dimension of inputs "
                         f"'{x.name}' (shape {x.shape}) must be known: it sizes the kernel.)")
    return int(x.shape.dims[-1])


def _pair(value, what: str) -> tuple[int, int]:
    """An int, or a pair of ints, as a pair (TF1 layers take both)."""
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and v > 0 for v in pair):
        raise ValueError(f"{what} must be a positive int or a pair of them, got {value!r}.")
    return pair


def _padding(padding: str) -> str:
    upper = str(padding).upper()
    if upper not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'valid' or 'same', got {padding!r}.")
    return upper


def _bias_format(first: bool) -> str:
    """BiasAdd's ``data_format``: "NCHW" adds along axis 1 whatever the rank."""
    return "NCHW" if first else "NHWC"


def layout(values: list, first: bool) -> list:
    """``[batch, *spatial, channels]`` reordered as channels_first when ``first``."""
    return [values[0], values[-1], *values[1:-1]] if first else values


def _refuse(layer: str, **given) -> None:
    for key, value in given.items():
        if value is not None:
            raise ValueError(f"tf.layers.{layer}: devsession does not support {key} yet.")
