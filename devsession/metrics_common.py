"""What every ``ds.metrics`` module shares: the local variables a metric accumulates in,
the collections it joins, the division that makes "nothing seen yet" 0, and TF1's
static shape rules for labels, predictions and weights.

TF1 checks shapes at build time where they are known (ValueError) and adds run-time
checks where they are not; devsession keeps the build-time checks and the run-time
``assert_broadcastable`` (ranks too where one is unknown).
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .dtypes import float32
from .graph import control_dependencies, convert_to_tensor, name_scope
from .graph_keys import GraphKeys, add_to_collection
from .ops import (Assert, equal, expand_dims, logical_and, logical_or, minimum, ones_like,
                  reduce_all, reshape, shape, size, squeeze, where, zeros_like)
from .ops import concat
from .ops import slice as slice_
from .ops.elementwise import abs as abs_
from .variables import Variable


def metric_variable(name: str, shape=(), dtype=float32) -> Variable:
    """Zeros of ``shape`` and ``dtype``, not trainable, in ``LOCAL_VARIABLES`` and
    ``METRIC_VARIABLES`` (TF1's ``metric_variable``): ``local_variables_initializer``
    resets them, a ``Saver`` of the global variables leaves them out."""
    initial = np.zeros(tuple(shape), dtypes.as_dtype(dtype).as_numpy_dtype)
    return Variable(initial, name=name, trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def collected(value, update_op, metrics_collections, updates_collections):
    """``(value, update_op)``, each added to the collections asked for."""
    for collection, item in ((metrics_collections, value), (updates_collections, update_op)):
        for key in collection or ():
            add_to_collection(key, item)
    return value, update_op


def div_no_nan(total, count, name: str | None = None):
    """``total / count``, 0 where ``count`` is 0 (TF1's ``div_no_nan``)."""
    nothing = equal(count, 0.0)
    return where(nothing, zeros_like(total), total / where(nothing, ones_like(count), count),
                 name=name)


def check_shapes(labels, predictions, metric: str) -> None:
    """ValueError when the static shapes of ``labels`` and ``predictions`` differ: TF's
    sentence first (``assert_is_compatible_with``'s, what TF1 code matches), then which
    tensors they were."""
    if labels.shape.ndims is not None and predictions.shape.ndims is not None and \
            not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible: "
                         f"{metric}: predictions '{predictions.name}' {predictions.shape} and "
                         f"labels '{labels.name}' {labels.shape} must have the same shape.")


def squeezed_ids(labels, predictions) -> tuple:
    """TF's ``remove_squeezable_dimensions`` on static ranks: ``[n, 1]`` beside a ``[n]``
    (either way round) becomes ``[n]``."""
    p, q = predictions.shape, labels.shape
    if p.ndims is not None and q.ndims is not None:
        if p.ndims == q.ndims + 1 and p.dims[-1] in (None, 1):
            predictions = squeeze(predictions, [-1])
        elif q.ndims == p.ndims + 1 and q.dims[-1] in (None, 1):
            labels = squeeze(labels, [-1])
    return labels, predictions


def remove_squeezable_dimensions(predictions, labels, weights, metric: str):
    """TF1's ``_remove_squeezable_dimensions``: a trailing dimension of 1 that only one of
    ``labels`` and ``predictions`` has is squeezed (static ranks), then ``weights`` (not a
    scalar) loses or gains a trailing dimension to match the predictions' rank (at run
    time where a rank is unknown)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = squeezed_ids(convert_to_tensor(labels), predictions)
        check_shapes(labels, predictions, metric)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w, p = weights.shape.ndims, predictions.shape.ndims
    if w and p is not None:
        if w - p == 1:
            weights = squeeze(weights, [-1])
        elif p - w == 1:
            weights = expand_dims(weights, -1)
    elif w != 0:
        weights = _match_rank_at_run(weights, predictions)
    return predictions, labels, weights


def _match_rank_at_run(weights, predictions):
    """TF1's dynamic branch of ``_remove_squeezable_dimensions`` (a rank unknown): weights
    one rank above the predictions lose their last dimension (InvalidArgumentError unless
    it is 1), one rank below gain a last dimension of 1; a scalar or any other rank is
    left as it is.  A reshape to the shape the run picks, not TF's conds."""
    with name_scope("remove_squeezable_dimensions"):
        weights_shape = shape(weights)
        weights_rank = size(weights_shape)
        rank_diff = weights_rank - size(shape(predictions))
        step = where(logical_and(equal(abs_(rank_diff), 1), weights_rank > 0),
                     rank_diff, zeros_like(rank_diff))
        extended = concat([weights_shape, [1]], 0)
        return reshape(weights, slice_(extended, [0], reshape(weights_rank - step, [1])))


def broadcast_weights(weights, values):
    """``weights`` as ``values``' shape (TF1's ``broadcast_weights``): a scalar, or a
    tensor of the same rank whose every dimension is 1 or the values'; checked by
    ``assert_broadcastable``."""
    weights = convert_to_tensor(weights)
    check = assert_broadcastable(weights, values)
    with control_dependencies([check] if check is not None else []):
        return weights * ones_like(values, dtype=weights.dtype)


_NOT_BROADCASTABLE = "weights can not be broadcast to values."


def assert_broadcastable(weights, values):
    """TF's ``assert_broadcastable``: the weights of ``tf.losses`` and ``tf.metrics`` are
    a scalar or have the values' rank with every dimension 1 or the values' (a stricter
    rule than broadcasting, so that ``[batch]`` weights on ``[batch, n]`` losses are an
    error, not a silent row-wise product).  ValueError where the static shapes decide it;
    otherwise an ``Assert`` op (InvalidArgumentError at run time) to depend on, or None
    when no run-time check is needed.  Where a rank is unknown the run checks the ranks
    too, as TF's does (weights of shape ``[n]`` fed for losses ``[batch, n]`` are refused,
    not multiplied row by row)."""
    w, v = weights.shape, values.shape
    if w.ndims == 0:
        return None
    if w.ndims is None or v.ndims is None:
        return _assert_broadcastable_at_run(weights, values)
    received = f"Received weights={_tf_repr(weights)}, values={_tf_repr(values)}"
    if w.ndims != v.ndims:
        raise ValueError(f"{_NOT_BROADCASTABLE} values.rank={v.ndims}. weights.rank={w.ndims}. "
                         f"values.shape={v}. weights.shape={w}. {received}")
    pairs = list(zip(w.as_list(), v.as_list()))
    if w.is_fully_defined() and v.is_fully_defined():
        for i, (a, b) in enumerate(pairs):
            if a not in (1, b):
                raise ValueError(f"{_NOT_BROADCASTABLE} Mismatch at dim {i}. values.shape="
                                 f"{np.array(v.as_list())}, weights.shape="
                                 f"{np.array(w.as_list())}. {received}")
        return None
    if all(a == 1 or (a is not None and a == b) for a, b in pairs):
        return None
    with name_scope("assert_broadcastable"):
        weights_shape, values_shape = shape(weights), shape(values)
        valid = reduce_all(logical_or(equal(weights_shape, 1),
                                      equal(weights_shape, values_shape)))
        return Assert(valid, [_NOT_BROADCASTABLE, "weights.shape=", weights.name, weights_shape,
                              "values.shape=", values.name, values_shape,
                              "is_scalar=", False])


def _assert_broadcastable_at_run(weights, values):
    """TF's run-time ``assert_broadcastable`` where a rank is unknown: the weights are a
    scalar, or of the values' rank with every dimension 1 or the values'.  The dimensions
    are compared over the shorter shape's length, so shapes of other ranks still run."""
    with name_scope("assert_broadcastable"):
        weights_shape, values_shape = shape(weights), shape(values)
        weights_rank, values_rank = size(weights_shape), size(values_shape)
        is_scalar = equal(weights_rank, 0)
        common = reshape(minimum(weights_rank, values_rank), [1])
        w_dims = slice_(weights_shape, [0], common)
        dims_ok = reduce_all(logical_or(equal(w_dims, 1),
                                        equal(w_dims, slice_(values_shape, [0], common))))
        valid = logical_or(is_scalar, logical_and(equal(weights_rank, values_rank), dims_ok))
        return Assert(valid, [_NOT_BROADCASTABLE, "weights.shape=", weights.name, weights_shape,
                              "values.shape=", values.name, values_shape,
                              "is_scalar=", is_scalar])


def _tf_repr(tensor) -> str:
    """A tensor as TF's messages print it."""
    return f'Tensor("{tensor.name}", shape={tensor.shape}, dtype={tensor.dtype.name})'
