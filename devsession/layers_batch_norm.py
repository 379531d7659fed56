"""TF1's ``tf.layers.batch_normalization`` (``BatchNormalization`` calls it), as TF 2.21
builds it: tf_keras's legacy (v1) ``BatchNormalization``.

Variables ``<scope>/gamma``, ``beta``, ``moving_mean``, ``moving_variance`` (the last two
not trainable), float32 for float16 inputs.  A 4-D input normalized over axis 3 or 1,
or a 5-D one over axis 4 or 1 (a Conv3D model's), takes the fused op (FusedBatchNormV3,
"NHWC", "NCHW", "NDHWC" or "NCDHW"), as TF1 does, whose moving variance averages the
batch variance with Bessel's correction; any other input, and any layer with ``renorm``,
``virtual_batch_size`` or ``adjustment`` (``fused=True`` included: TF1's layer falls back
silently), takes ``nn.moments`` and ``nn.batch_normalization``, whose moving variance
averages the population variance.  ``axis`` may be a list (TF's): with several axes the
variables and statistics take the inputs' rank, 1 along the axes reduced over.  The
moving averages move by ``(moving - batch) * (1 - momentum)`` (``AssignMovingAvg``), ops
the caller runs with the train op, as in TF1::

    with ds.control_dependencies(ds.get_collection(ds.GraphKeys.UPDATE_OPS)):
        train = optimizer.minimize(loss)

With a bool tensor for ``training`` both results are computed and one is selected
(``where``, TF builds a ``cond``), and the updates change nothing when it is false.

``renorm`` (batch renormalization, Ioffe 2017) adds ``moving_stddev`` (starting at the
square root of the moving variance's initial value), ``renorm_mean`` and
``renorm_stddev``, none trainable.  While training, the batch's normalized values are
corrected by ``r = stddev / renorm_stddev`` and ``d = (mean - renorm_mean) /
renorm_stddev`` (``renorm_stddev`` at least ``sqrt(epsilon)``; ``r`` clipped to
``[rmin, rmax]`` and ``d`` to ``[-dmax, dmax]`` by ``renorm_clipping``), computed from the
averages before this step's update and held constant for the gradients (StopGradient
``renorm_r``, ``renorm_d``): the output is ``x_hat * r * gamma + d * gamma + beta``.  The
renorm averages move at ``renorm_momentum`` toward the batch's mean and ``sqrt(variance +
epsilon)``; the update ops are the moving mean's ``AssignMovingAvg_2`` (after those two)
and ``AssignNewValue``, which moves ``moving_stddev`` toward ``sqrt(variance + epsilon)``
and sets ``moving_variance`` to ``relu(moving_stddev ** 2 - epsilon)``.

``virtual_batch_size=v`` (ghost batches) reshapes the inputs to ``[v, -1, ...]`` (TF1's
order: element ``i`` of a batch of ``n`` falls in virtual batch ``i % (n / v)``) and
normalizes each virtual batch by its own statistics; the variables are shaped ``[1, 1,
..., channels, ...]`` (the inputs' rank plus one) and the moving averages move toward the
virtual batches' mean statistics.  ``adjustment(shape)`` gives ``(scale, bias)`` applied
to the normalized values while training, before gamma and beta.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import nn
from .dtypes import float16, float32
from .graph import control_dependencies, convert_to_tensor
from .graph_keys import GraphKeys, add_to_collection
from .initializers import ones_initializer, zeros_initializer
from .layers_functional import _variable
from .ops import (assign, cast, concat, constant, identity, maximum, minimum, ones_like,
                  reduce_mean, relu, reshape, shape, sqrt, stop_gradient, where, zeros_like)
from .ops.nn_batch_norm import fused_batch_norm
from .train.moving_averages import assign_moving_average
from .variable_scope import layer_scope

__all__ = ["batch_normalization", "check_options"]

_CLIPPING_KEYS = ["rmax", "rmin", "dmax"]
# (rank, axis) -> the fused op's data_format, where TF1's layer takes the fused op
# (tf_keras's legacy BatchNormalization.build); elsewhere, as TF, the non-fused path.
_FUSED_FORMATS = {(4, 3): "NHWC", (4, 1): "NCHW", (5, 4): "NDHWC", (5, 1): "NCDHW"}


def check_options(renorm=False, renorm_clipping=None) -> None:
    """TF's error for what it refuses when the layer is made, before any input:
    ValueError for ``renorm_clipping`` keys other than rmax, rmin and dmax (checked only
    with ``renorm``, as TF)."""
    if renorm:
        clipping = renorm_clipping or {}
        if set(clipping) - set(_CLIPPING_KEYS):
            raise ValueError(f"Received invalid keys for `renorm_clipping` argument: "
                             f"{renorm_clipping}. Supported values: {_CLIPPING_KEYS}.")


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=None, gamma_initializer=None,
                        moving_mean_initializer=None, moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):
    """``inputs`` normalized per channel of ``axis`` (an int or a list; see the module
    docstring).  Raises ValueError, as TF, for inputs of unknown rank or channels, an axis
    out of range or given twice, bad ``renorm_clipping`` keys, a ``virtual_batch_size``
    not positive or with ``axis`` the batch's or with ``adjustment``, and a static batch
    it does not divide; TypeError for a ``virtual_batch_size`` not an int and for
    ``renorm`` of float64 inputs (TF's Maximum mixes float64 and float32)."""
    check_options(renorm, renorm_clipping)
    x = convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"tf.layers.batch_normalization needs inputs '{x.name}' of known "
                         f"rank.")
    axes = _axes(axis, rank, x)
    _check_virtual_batches(virtual_batch_size, axes, adjustment)
    for a in axes:
        if x.shape.dims[a] is None:
            raise ValueError(f"tf.layers.batch_normalization: axis {a} of inputs '{x.name}' "
                             f"(shape {x.shape}) must be known: it sizes the variables.")
    param = float32 if x.dtype in (float16, float32) else x.dtype
    if renorm and param != float32:
        raise TypeError(f"tf.layers.batch_normalization: renorm of {param.name} inputs "
                        f"'{x.name}': TF 2.21 fails on them too (Input 'y' of 'Maximum' Op "
                        f"has type float32 that does not match type {param.name} of "
                        f"argument 'x').")
    # one axis: a vector; several (or virtual batches): the inputs' rank, 1 elsewhere
    param_shape = tuple(x.shape.dims[a] if a in axes else 1 for a in range(rank))
    if len(axes) == 1 and virtual_batch_size is None:
        param_shape = (x.shape.dims[axes[0]],)
    elif virtual_batch_size is not None:
        param_shape = (1, *param_shape)
    with layer_scope(name, "batch_normalization", reuse):
        def variable(name_, initializer, default, trainable_=False, regularizer=None,
                     constraint=None):
            return _variable(name_, param_shape, param, initializer or default, trainable_,
                             regularizer, constraint)
        v = {"gamma": variable("gamma", gamma_initializer, ones_initializer(), trainable,
                               gamma_regularizer, gamma_constraint) if scale else None,
             "beta": variable("beta", beta_initializer, zeros_initializer(), trainable,
                              beta_regularizer, beta_constraint) if center else None,
             "moving_mean": variable("moving_mean", moving_mean_initializer,
                                     zeros_initializer()),
             "moving_variance": variable("moving_variance", moving_variance_initializer,
                                         ones_initializer())}
        if renorm:
            stddev_init = _square_root(moving_variance_initializer or ones_initializer())
            v["moving_stddev"] = variable("moving_stddev", stddev_init, None)
            v["renorm_mean"] = variable("renorm_mean", moving_mean_initializer,
                                        zeros_initializer())
            v["renorm_stddev"] = variable("renorm_stddev", stddev_init, None)
        plain = not renorm and virtual_batch_size is None and adjustment is None
        if fused is not False and len(axes) == 1 and (rank, axes[0]) in _FUSED_FORMATS \
                and param == float32 and plain:
            return _fused(x, _FUSED_FORMATS[rank, axes[0]], v, epsilon, momentum, training)
        options = {"epsilon": epsilon, "momentum": momentum, "renorm": renorm,
                   "clipping": renorm_clipping or {}, "renorm_momentum": renorm_momentum,
                   "adjustment": adjustment}
        if virtual_batch_size is None:
            return _normalized(x, axes, v, training, options)
        return _virtually_batched(x, axes, virtual_batch_size, v, training, options)


def _axes(axis, rank, x) -> list:
    """``axis`` (an int or a list of them, TF's) as sorted non-negative axes; ValueError,
    as TF, for one out of range or given twice."""
    given = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in given:
        if not -rank <= int(a) < rank:
            raise ValueError(f"tf.layers.batch_normalization: axis {a} is out of range for "
                             f"inputs '{x.name}' of rank {rank}.")
    axes = [int(a) % rank for a in given]
    if len(set(axes)) != len(axes) or not axes:
        raise ValueError(f"Duplicate axis: {tuple(axes)}" if axes else "axis must not be empty.")
    return sorted(axes)


def _check_virtual_batches(virtual_batch_size, axes, adjustment) -> None:
    if virtual_batch_size is None:
        return
    if virtual_batch_size <= 0:
        raise ValueError(f"`virtual_batch_size` must be a positive integer that divides the "
                         f"true batch size of the input tensor. Received: "
                         f"virtual_batch_size={virtual_batch_size}")
    if isinstance(virtual_batch_size, bool) or not isinstance(virtual_batch_size,
                                                              numbers.Integral):
        raise TypeError(f"virtual_batch_size must be an int, got {virtual_batch_size!r} "
                        f"(TF's reshape to virtual batches fails on it too).")
    if 0 in axes:
        raise ValueError(f"When using `virtual_batch_size`, the batch dimension must be 0 "
                         f"and thus axis cannot include 0. Received axis={axes}")
    if adjustment is not None:
        raise ValueError("When using `virtual_batch_size`, adjustment cannot be specified")


def _square_root(initializer):
    """``moving_stddev``'s and ``renorm_stddev``'s initializer: the square root of the
    moving variance's (TF's ``moving_stddev_initializer``)."""
    def initialize(shape, dtype=None, partition_info=None):
        return sqrt(convert_to_tensor(initializer(shape, dtype=dtype), dtype=dtype))
    return initialize


def _select(training, when_training, otherwise):
    """``when_training`` or ``otherwise`` as the Python bool or bool tensor ``training``
    says (a select: both are computed)."""
    if isinstance(training, bool):
        return when_training if training else otherwise
    return where(convert_to_tensor(training), when_training, otherwise)


# --- the fused op ----------------------------------------------------------------------------

def _fused(x, data_format, v, epsilon, momentum, training):
    """FusedBatchNormV3, as TF1 builds it for 4-D and 5-D inputs; the batch's statistics
    (the moving ones when not training) averaged into the moving ones."""
    moving_mean, moving_variance = v["moving_mean"], v["moving_variance"]
    channels = moving_mean.shape.dims[0]
    gamma = v["gamma"] if v["gamma"] is not None else \
        constant(np.ones(channels, moving_mean.dtype.np))
    beta = v["beta"] if v["beta"] is not None else \
        constant(np.zeros(channels, moving_mean.dtype.np))
    inference = None if training is True else fused_batch_norm(
        x, gamma, beta, mean=moving_mean, variance=moving_variance, epsilon=epsilon,
        data_format=data_format, is_training=False)[0]
    if training is False:
        return inference
    y, mean, variance = fused_batch_norm(x, gamma, beta, mean=moving_mean,
                                         variance=moving_variance, epsilon=epsilon,
                                         data_format=data_format, is_training=True)
    y = _select(training, y, inference)
    for moving, batch in ((moving_mean, mean), (moving_variance, variance)):
        add_to_collection(GraphKeys.UPDATE_OPS, assign_moving_average(
            moving, _select(training, batch, moving), momentum).op)
    return y


# --- nn.moments and nn.batch_normalization ---------------------------------------------------

def _virtually_batched(x, axes, size, v, training, options):
    """The inputs reshaped to ``[size, -1, ...]`` (TF1's legacy order), normalized with
    the virtual batch as a kept axis, and reshaped back."""
    original = concat([constant([-1]), shape(x)[1:]], 0)
    expanded = reshape(x, concat([constant([size, -1]), original[1:]], 0))
    batch = x.shape.dims[0]
    expanded.set_shape([size, None if batch is None else batch // size, *x.shape.dims[1:]])
    y = _normalized(expanded, [a + 1 for a in axes], v, training, options, virtual=True)
    return reshape(y, original)


def _normalized(x, axes, v, training, options, virtual=False):
    """TF's non-fused path (float16 computed in float32) over the kept ``axes``:
    ``adjustment`` and the renorm correction composed into gamma and beta, the update ops
    added to UPDATE_OPS.  With several axes the statistics keep the inputs' rank, as the
    variables do."""
    moving_mean, moving_variance = v["moving_mean"], v["moving_variance"]
    rank = x.shape.ndims
    xf = cast(x, moving_mean.dtype) if x.dtype != moving_mean.dtype else x
    reduction_axes = [a for a in range(rank) if a not in axes and not (virtual and a == 1)]

    def along_axis(t):             # a [channels] vector against x's layout
        if t is None or axes == [rank - 1] or t.shape.ndims == rank:
            return t
        return reshape(t, [-1 if a in axes else 1 for a in range(rank)])
    scale, offset = along_axis(v["gamma"]), along_axis(v["beta"])
    if training is False:
        mean, variance = moving_mean, moving_variance
    else:
        if options["adjustment"] is not None:
            adj_scale, adj_bias = options["adjustment"](shape(xf))
            adj_scale = _select(training, adj_scale, ones_like(adj_scale))
            adj_bias = _select(training, adj_bias, zeros_like(adj_bias))
            scale, offset = _composed(adj_scale, adj_bias, scale, offset)
        batch_mean, batch_variance = nn.moments(xf, reduction_axes,
                                                keepdims=virtual or len(axes) > 1)
        mean = _select(training, batch_mean, moving_mean)
        variance = _select(training, batch_variance, moving_variance)
        new_mean, new_variance = mean, variance
        if virtual:        # the moving averages move toward the virtual batches' mean
            new_mean = _select(training, reduce_mean(batch_mean, 1, keepdims=True),
                               moving_mean)
            new_variance = _select(training, reduce_mean(batch_variance, 1, keepdims=True),
                                   moving_variance)
        if options["renorm"]:
            r, d, new_mean, new_variance = _renorm_correction(new_mean, new_variance, v,
                                                              training, options)
            r = along_axis(stop_gradient(r, name="renorm_r"))
            d = along_axis(stop_gradient(d, name="renorm_d"))
            scale, offset = _composed(r, d, scale, offset)
        add_to_collection(GraphKeys.UPDATE_OPS, assign_moving_average(
            moving_mean, new_mean, options["momentum"]).op)
        if options["renorm"]:
            update = _renorm_variance_update(v, new_variance, training, options)
        else:
            update = assign_moving_average(moving_variance, new_variance, options["momentum"])
        add_to_collection(GraphKeys.UPDATE_OPS, update.op)
    y = nn.batch_normalization(xf, along_axis(mean), along_axis(variance), offset, scale,
                               options["epsilon"])
    return cast(y, x.dtype) if y.dtype != x.dtype else y


def _composed(scale, offset, then_scale, then_offset):
    """The transform ``x * scale + offset`` followed by ``* then_scale + then_offset``
    (either may be None), as one scale and offset (TF's ``_compose_transforms``)."""
    if then_scale is not None:
        scale, offset = scale * then_scale, offset * then_scale
    if then_offset is not None:
        offset = offset + then_offset
    return scale, offset


# --- batch renormalization -------------------------------------------------------------------

def _renorm_correction(mean, variance, v, training, options):
    """TF's ``_renorm_correction_and_moments``: ``(r, d, mean, variance)``, the last two
    the batch's after the renorm averages' updates (which read them first)."""
    epsilon = options["epsilon"]
    stddev = sqrt(variance + epsilon)
    renorm_mean = v["renorm_mean"]
    renorm_stddev = maximum(v["renorm_stddev"], sqrt(constant(epsilon, float32)))
    r = stddev / renorm_stddev
    d = (mean - renorm_mean) / renorm_stddev
    with control_dependencies([r, d]):         # the updates after r and d read the averages
        mean, stddev = identity(mean), identity(stddev)
    clipping = options["clipping"]
    if clipping.get("rmin") is not None:
        r = maximum(r, clipping["rmin"])
    if clipping.get("rmax") is not None:
        r = minimum(r, clipping["rmax"])
    if clipping.get("dmax") is not None:
        d = minimum(maximum(d, -clipping["dmax"]), clipping["dmax"])
    r = _select(training, r, ones_like(r))
    d = _select(training, d, zeros_like(d))
    updates = [assign_moving_average(variable, _select(training, identity(value), variable),
                                     options["renorm_momentum"])
               for variable, value in ((renorm_mean, mean), (v["renorm_stddev"], stddev))]
    with control_dependencies(updates):
        return r, d, identity(mean), identity(variance)


def _renorm_variance_update(v, variance, training, options):
    """``moving_stddev`` moved toward ``sqrt(variance + epsilon)``, and
    ``moving_variance`` set to ``relu(moving_stddev ** 2 - epsilon)`` (``AssignNewValue``,
    TF's); neither changes when ``training`` is false."""
    epsilon, moving_stddev = options["epsilon"], v["moving_stddev"]
    target = _select(training, sqrt(variance + epsilon), moving_stddev)
    stddev = assign_moving_average(moving_stddev, target, options["momentum"])
    value = _select(training, relu(stddev * stddev - epsilon), v["moving_variance"])
    return assign(v["moving_variance"], value, name="AssignNewValue")
