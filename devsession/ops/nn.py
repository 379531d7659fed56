"""Neural-network ops: activations, softmax and its losses, BiasAdd, L2Loss, and the
composites TF builds from other ops (dropout, moments, batch_normalization).

Op types and attrs are TensorFlow's, so TF GraphDefs import:

* ``LeakyRelu`` (attr ``alpha``), ``Elu``, ``Softplus``, ``Relu6``, ``Selu``,
  ``Softsign``: elementwise (``elementwise``
  OpDefs with an expression in ``kernels/codegen/expressions.py``), so they fuse with
  their neighbours; the formulas are TF's kernels' (``Elu`` is ``exp(x) - 1`` below 0;
  ``Softplus`` is ``log1p(exp(x))`` computed without overflow).
* ``LogSoftmax`` works on the last axis (TF's op has no axis attr; ``log_softmax``
  transposes for another axis, as TF's Python does).
* ``SoftmaxCrossEntropyWithLogits(features, labels)`` and
  ``SparseSoftmaxCrossEntropyWithLogits(features, labels)`` take 2-D logits and have
  TF's two outputs, the per-row ``loss`` and the ``backprop`` (softmax - labels) that
  their gradient reuses; the builders flatten other ranks to 2-D.  A sparse label
  outside [0, classes) is an ``InvalidArgumentError`` naming the node, as TF1's CPU
  kernel raises.
* ``BiasAdd(value, bias)`` adds ``bias`` along the channel axis (last for NHWC, axis 1
  for NCHW); ``BiasAddGrad`` sums a gradient down to that axis.

Convolution and pooling are in ``nn_conv.py``; kernels in
``kernels/{reference,cpu,cuda}/nn.py``; gradients in ``nn_grad.py``.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import (broadcast, input_shapes, make_op, normalised_axis, one_spelling, operands,
                     same_dtype)
from .elementwise import abs as abs_
from .elementwise import (_unary_float, add, cast, equal, floormod, greater_equal, maximum,
                          multiply, relu, rsqrt, sigmoid, squared_difference, subtract, where)
from .linalg import matmul
from .array import concat, reshape, squeeze, stack, stop_gradient, transpose
from .array_fill import shape
from .array_operands import holds_tensor
from .nn_channels_first import format_name
from .reduce import reduce_mean, reduce_sum
from .registry import InferError, OpDef, register_op
from .sequence import range as range_op
from .random import random_uniform, skip_seed
from .state import constant

__all__ = ["softmax", "log_softmax", "softmax_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits_v2", "sparse_softmax_cross_entropy_with_logits",
           "l2_loss", "bias_add", "leaky_relu", "elu", "softplus", "dropout", "moments",
           "batch_normalization", "shape_tensor", "sigmoid_cross_entropy_with_logits",
           "l2_normalize", "relu6", "selu", "softsign", "swish", "xw_plus_b",
           "weighted_cross_entropy_with_logits"]

_SPARSE_LABELS = (dtypes.int32, dtypes.int64)


# --- inference ---------------------------------------------------------------------------

def _rank_at_least(x, rank: int, node: str) -> None:
    if x.shape.ndims is not None and x.shape.ndims < rank:
        raise InferError(f"Op '{node}': '{x.name}' must have rank >= {rank}, got shape "
                         f"{x.shape}.")


def _matrix(x, node: str) -> tuple:
    if x.shape.ndims is None:
        return (None, None)
    if x.shape.ndims != 2:
        raise InferError(f"Op '{node}': '{x.name}' must be 2-D [batch, classes], got shape "
                         f"{x.shape}.")
    return x.shape.dims


def _log_softmax(inputs, attrs, node):
    _rank_at_least(inputs[0], 1, node)
    return _unary_float(inputs, attrs, node)


def _xent(inputs, attrs, node):
    features, labels = inputs
    dtype, _ = _unary_float([features], attrs, node)
    same_dtype(inputs, node)
    _matrix(features, node), _matrix(labels, node)
    shape = broadcast(inputs, node)
    batch = None if shape.ndims is None else shape.dims[0]
    return [(dtype, TensorShape([batch])), (dtype, shape if shape.ndims else TensorShape(
        [None, None]))]


def _sparse_xent(inputs, attrs, node):
    features, labels = inputs
    dtype, _ = _unary_float([features], attrs, node)
    if labels.dtype not in _SPARSE_LABELS:
        raise TypeError(f"Op '{node}': labels '{labels.name}' must be int32 or int64, not "
                        f"{labels.dtype.name}.")
    batch, classes = _matrix(features, node)
    if labels.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': labels '{labels.name}' must be 1-D [batch], got shape "
                         f"{labels.shape}.")
    label_batch = None if labels.shape.ndims is None else labels.shape.dims[0]
    if batch is not None and label_batch is not None and batch != label_batch:
        raise InferError(f"Op '{node}': logits '{features.name}' have {batch} rows but labels "
                         f"'{labels.name}' have {label_batch}.")
    batch = batch if batch is not None else label_batch
    return [(dtype, TensorShape([batch])), (dtype, TensorShape([batch, classes]))]


def _l2_loss(inputs, attrs, node):
    dtype, _ = _unary_float(inputs, attrs, node)
    return dtype, TensorShape(())


def channel_axis(data_format: str, rank: int | None, node: str) -> int:
    """The axis BiasAdd adds along (negative: counted from the end when rank is unknown)."""
    if data_format == "NHWC":
        return -1 if rank is None else rank - 1
    if data_format == "NCHW":
        return 1
    raise InferError(f"Op '{node}': data_format must be 'NHWC' or 'NCHW', got {data_format!r}.")


def _bias_add(inputs, attrs, node):
    value, bias = inputs
    dtype = same_dtype(inputs, node)
    if not dtype.is_numeric:
        raise TypeError(f"Op '{node}' needs numeric inputs, not {dtype.name}.")
    # TF's BiasAddShape: NCHW needs a channel axis before the last one
    _rank_at_least(value, 3 if attrs.get("data_format") == "NCHW" else 2, node)
    if bias.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': bias '{bias.name}' must be 1-D, got shape {bias.shape}.")
    rank = value.shape.ndims
    axis = channel_axis(attrs.get("data_format", "NHWC"), rank, node)
    if rank is not None and bias.shape.ndims is not None:
        channels, size = value.shape.dims[axis], bias.shape.dims[0]
        if channels is not None and size is not None and channels != size:
            raise InferError(f"Dimensions must be equal, but are {channels} and {size} for "
                             f"'{node}' with input shapes: {input_shapes(inputs)}. "
                             f"Op '{node}': bias '{bias.name}' has {size} elements but "
                             f"'{value.name}' has {channels} channels (shape {value.shape}).")
        if channels is None and size is not None:       # TF's BiasAddShape merges them
            dims = list(value.shape.dims)
            dims[axis] = size
            return dtype, TensorShape(dims)
    return dtype, value.shape


def _bias_add_grad(inputs, attrs, node):
    (dy,) = inputs
    _rank_at_least(dy, 2, node)
    rank = dy.shape.ndims
    axis = channel_axis(attrs.get("data_format", "NHWC"), rank, node)
    return dy.dtype, TensorShape([None if rank is None else dy.shape.dims[axis]])


register_op(OpDef("Softmax", _unary_float, 1))
register_op(OpDef("LogSoftmax", _log_softmax, 1))
register_op(OpDef("SoftmaxCrossEntropyWithLogits", _xent, 2))
register_op(OpDef("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent, 2))
register_op(OpDef("L2Loss", _l2_loss, 1))
register_op(OpDef("BiasAdd", _bias_add, 2, attr_defaults={"data_format": "NHWC"}))
register_op(OpDef("BiasAddGrad", _bias_add_grad, 1, attr_defaults={"data_format": "NHWC"}))
register_op(OpDef("LeakyRelu", _unary_float, 1, attr_defaults={"alpha": 0.2},
                  elementwise=True))
register_op(OpDef("Elu", _unary_float, 1, elementwise=True))
register_op(OpDef("Softplus", _unary_float, 1, elementwise=True))
register_op(OpDef("Relu6", _unary_float, 1, elementwise=True))
register_op(OpDef("Selu", _unary_float, 1, elementwise=True))
register_op(OpDef("Softsign", _unary_float, 1, elementwise=True))


# --- builders ----------------------------------------------------------------------------

def softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """Numerically stable softmax along ``axis`` (default: the last; of logits of unknown
    rank, the last axis of the value fed, as TF's Softmax op).  Raises
    ``InvalidArgumentError`` for an ``axis`` out of range of a known rank, as TF."""
    x = convert_to_tensor(logits)
    axis = one_spelling(axis, dim, "axis", "dim")
    axis = -1 if axis is None else _static_axis(axis)
    if isinstance(axis, Tensor):
        return _along_run_time_axis(x, axis, name or "Softmax", lambda t, n: make_op(
            "Softmax", [t], {"axis": x.shape.ndims - 1}, n))
    if x.shape.ndims is None and not isinstance(axis, Tensor) and int(axis) == -1:
        return make_op("Softmax", [x], {"axis": -1}, name)
    _check_softmax_axis(axis, x.shape.ndims)
    axis = normalised_axis(axis, x.shape.ndims, name or "Softmax")
    return make_op("Softmax", [x], {"axis": axis}, name)


def _check_softmax_axis(axis, rank: int | None) -> None:
    """TF's check of a softmax's or log_softmax's static ``axis`` against a known rank:
    ``InvalidArgumentError`` when built (TF1's and TF2's ``_wrap_2d_function``), not the
    ``ValueError`` of other ops' axes.  The last axis (-1 or rank - 1) goes unchecked, as
    TF's: a scalar's softmax is the op's own rank error."""
    if rank is None or isinstance(axis, Tensor) or int(axis) in (-1, rank - 1) or \
            -rank <= int(axis) < rank:
        return
    raise InvalidArgumentError(f"`dim` must be in the range [{-rank}, {rank}) where {rank} is "
                               f"the number of dimensions in the input. Received: dim={axis}")


def _static_axis(axis):
    """``axis`` as an int where it is one or a tensor of a known value; else the tensor."""
    if not isinstance(axis, Tensor):
        return int(axis)
    value = constant_value(axis)
    return axis if value is None else int(value)


def _along_run_time_axis(x: Tensor, axis: Tensor, name: str, fn) -> Tensor:
    """``fn`` (an op over the last axis) along an ``axis`` only a run knows, as TF's
    ``_wrap_2d_function`` for a tensor ``dim``: that axis swapped with the last by a
    Transpose of a computed perm, and back; ``x``'s rank must be known (TF's too)."""
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{name}: an axis only a run knows ('{axis.name}') needs logits "
                         f"'{x.name}' of known rank.")
    last = rank - 1
    positions = range_op(rank)
    swapped = floormod(cast(axis, dtypes.int32), rank)
    # position i -> last where i is the axis, -> the axis where i is the last, else i
    perm = add(positions, add(
        multiply(subtract(last, positions), cast(equal(positions, swapped), dtypes.int32)),
        multiply(subtract(swapped, positions), cast(equal(positions, last), dtypes.int32))))
    out = transpose(fn(transpose(x, perm), None), perm, name=name)
    out.set_shape(x.shape)
    return out


def _on_last_axis(x: Tensor, axis, name: str, fn) -> Tensor:
    """``fn`` (an op over the last axis) applied along ``axis``, transposing around it."""
    rank = x.shape.ndims
    if axis is not None:
        axis = _static_axis(axis)
    if isinstance(axis, Tensor):
        return _along_run_time_axis(x, axis, name, fn)
    if rank is None and axis not in (None, -1):     # TF fails too (a TypeError)
        raise ValueError(f"{name}: axis={axis} needs logits '{x.name}' of known rank.")
    if axis is None or rank is None:
        return fn(x, name)
    _check_softmax_axis(axis, rank)
    axis = normalised_axis(axis, rank, name)
    if axis == rank - 1:
        return fn(x, name)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(fn(transpose(x, perm), None), perm, name=name)


def log_softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """``logits - log(sum(exp(logits)))`` along ``axis`` (default: the last); an ``axis``
    out of range of a known rank is ``InvalidArgumentError``, as softmax's."""
    x = convert_to_tensor(logits)
    return _on_last_axis(x, one_spelling(axis, dim, "axis", "dim"), name or "LogSoftmax",
                         lambda t, n: make_op("LogSoftmax", [t], name=n))


def _rows(x: Tensor, fn_name: str) -> tuple[list, object]:
    """(leading dims, classes) of logits ``x``, whose rank must be known and >= 1."""
    if x.shape.ndims is None:
        raise ValueError(f"{fn_name} needs logits '{x.name}' of known rank.")
    if x.shape.ndims == 0:
        raise ValueError(f"{fn_name} needs logits of rank >= 1, got scalar '{x.name}'.")
    dims = list(x.shape.dims)
    return dims[:-1], dims[-1]


def _flat_rows(t: Tensor, dims: Tensor) -> Tensor:
    """``t`` as rows of the last of the run-time dims ``dims`` (logits of unknown rank,
    flattened as TF1 flattens them)."""
    return reshape(t, concat([[-1], dims[-1:]], 0))


def _to_matrix(t: Tensor, classes, fn_name: str) -> Tensor:
    if classes is None:
        raise ValueError(f"{fn_name}: flattening '{t.name}' (shape {t.shape}) to 2-D needs a "
                         f"known number of classes.")
    return reshape(t, [-1, classes])


def _from_rows(loss: Tensor, lead: list, name, logits: Tensor) -> Tensor:
    """The per-row loss of flattened logits reshaped back to their leading dims (read at
    run time when more than one is unknown: a [batch, time, classes] seq2seq loss)."""
    if sum(d is None for d in lead) <= 1:
        return reshape(loss, [-1 if d is None else d for d in lead], name=name)
    out = reshape(loss, shape(logits)[:-1], name=name)
    out.set_shape(lead)
    return out


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None,
                                         dim=None) -> Tensor:
    """Per-row cross entropy of ``softmax(logits)`` against the distributions
    ``labels`` (same shape, or broadcastable for 2-D logits), as TF; the gradient
    flows to both."""
    fn_name = name or "softmax_cross_entropy_with_logits"
    axis = one_spelling(axis, dim, "axis", "dim")
    x = convert_to_tensor(logits)
    y = convert_to_tensor(labels, dtype_hint=x.dtype)
    if axis is not None and x.shape.ndims is not None:
        axis = normalised_axis(axis, x.shape.ndims, fn_name)
        if axis != x.shape.ndims - 1:
            perm = list(range(x.shape.ndims))
            perm[axis], perm[-1] = perm[-1], perm[axis]
            x, y = transpose(x, perm), transpose(y, perm)
    if x.shape.ndims is None:
        if axis not in (None, -1):
            raise ValueError(f"{fn_name}: axis={axis} needs logits '{x.name}' of known rank.")
        dims = shape(x)
        loss = make_op("SoftmaxCrossEntropyWithLogits",
                       [_flat_rows(x, dims), _flat_rows(y, dims)])
        return reshape(loss, dims[:-1], name=name)
    lead, classes = _rows(x, fn_name)
    if len(lead) == 1:
        return make_op("SoftmaxCrossEntropyWithLogits", [x, y], name=name)
    loss = make_op("SoftmaxCrossEntropyWithLogits",
                   [_to_matrix(x, classes, fn_name), _to_matrix(y, classes, fn_name)])
    return _from_rows(loss, lead, name, x)


def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1,
                                      name=None, axis=None) -> Tensor:
    """TF1's v1 form of ``softmax_cross_entropy_with_logits_v2``: no gradient flows to
    ``labels``.  ``axis`` with ``dim`` at its default is ValueError, as TF's (which
    looks the two spellings up with ``dim=-1`` given)."""
    axis = one_spelling(axis, dim, "axis", "dim")
    labels = stop_gradient(convert_to_tensor(labels, dtype_hint=convert_to_tensor(logits).dtype))
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                axis=axis, name=name)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None,
                                             name=None) -> Tensor:
    """Per-row cross entropy of ``softmax(logits)`` against integer class ``labels``
    (int32/int64, of shape ``logits.shape[:-1]``)."""
    fn_name = name or "SparseSoftmaxCrossEntropyWithLogits"
    x = convert_to_tensor(logits)
    y = convert_to_tensor(labels)
    if y.dtype not in _SPARSE_LABELS:
        wrong_dtype = TypeError(f"{fn_name}: labels '{y.name}' must be int32 or int64 class "
                                f"indices, not {y.dtype.name} "
                                f"(softmax_cross_entropy_with_logits_v2 takes distributions).")
        if x.shape.ndims is None:
            raise wrong_dtype
    if x.shape.ndims is None:       # TF's: the loss takes the labels' static shape
        dims = shape(x)
        loss = make_op("SparseSoftmaxCrossEntropyWithLogits",
                       [_flat_rows(x, dims), reshape(y, [-1])])
        loss = reshape(loss, dims[:-1], name=name)
        loss.set_shape(y.shape)
        return loss
    which = f"labels '{y.name}' {y.shape}, logits '{x.name}' {x.shape}"
    if x.shape.ndims == 0:                    # TF1's checks and words first
        raise ValueError(f"Logits cannot be scalars - received shape {x.shape}. "
                         f"({fn_name}: {which})")
    if y.shape.ndims is not None and y.shape.ndims != x.shape.ndims - 1:
        raise ValueError(f"Rank mismatch: Rank of labels (received {y.shape.ndims}) should "
                         f"equal rank of logits minus 1 (received {x.shape.ndims}). "
                         f"({fn_name}: {which})")
    lead, classes = _rows(x, fn_name)
    if y.shape.ndims is not None and not TensorShape(lead).is_compatible_with(y.shape):
        raise ValueError(f"Shape mismatch: The shape of labels (received {y.shape}) should "
                         f"equal the shape of logits except for the last dimension (received "
                         f"{x.shape}). {fn_name}: labels '{y.name}' have shape {y.shape}, "
                         f"but logits '{x.name}' have shape {x.shape}: labels need the logits' "
                         f"shape without its last (classes) dimension.")
    if y.dtype not in _SPARSE_LABELS:   # after the shape checks, as TF's (one-hot float
        raise wrong_dtype               # labels are its rank ValueError)
    if len(lead) == 1:
        return make_op("SparseSoftmaxCrossEntropyWithLogits", [x, y], name=name)
    loss = make_op("SparseSoftmaxCrossEntropyWithLogits",
                   [_to_matrix(x, classes, fn_name), reshape(y, [-1])])
    return _from_rows(loss, lead, name, x)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None,
                                      name=None) -> Tensor:
    """Per-element cross entropy of ``sigmoid(logits)`` against ``labels`` in [0, 1], as
    TF: ``max(x, 0) - x * z + log(1 + exp(-|x|))``, which never overflows."""
    x, z = _logits_and_labels(logits, labels, "sigmoid_cross_entropy_with_logits")
    with name_scope(name or "logistic_loss"):
        # TF's where()s, not relu and abs: their gradients at x = 0 sum to the true
        # sigmoid(0) - z there (relu's and abs's would give -z)
        positive = greater_equal(x, 0.0)
        return where(positive, x, 0.0) - x * z + softplus(where(positive, -x, x))


def _logits_and_labels(logits, labels, loss: str):
    """Floating-point ``logits`` and ``labels`` of their dtype and a compatible shape
    (TypeError, ValueError otherwise, as TF's)."""
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels, dtype_hint=x.dtype)
    if not x.dtype.is_floating or z.dtype != x.dtype:
        raise TypeError(f"{loss}: logits '{x.name}' must be floating point and labels "
                        f"'{z.name}' of the same dtype, got {x.dtype.name} and "
                        f"{z.dtype.name}.")
    if x.shape.ndims is not None and z.shape.ndims is not None and \
            not x.shape.is_compatible_with(z.shape):
        raise ValueError(f"logits and labels must have the same shape ({x.shape} vs "
                         f"{z.shape}): {loss}: logits '{x.name}' {x.shape} and labels "
                         f"'{z.name}' {z.shape} must have the same shape.")   # TF1's first
    return x, z


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None) -> Tensor:
    """``sigmoid_cross_entropy_with_logits`` with the positive term weighted by
    ``pos_weight``, as TF: ``(1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) +
    max(-x, 0))``.  ``targets`` is TF1's older name for ``labels``."""
    if labels is None:
        labels = targets
    if labels is None or logits is None or pos_weight is None:
        raise ValueError("weighted_cross_entropy_with_logits needs labels (or targets), "
                         "logits and pos_weight.")
    with name_scope(name or "logistic_loss") as scope:
        x, z = _logits_and_labels(logits, labels, "weighted_cross_entropy_with_logits")
        q = convert_to_tensor(pos_weight, dtype_hint=x.dtype, name="pos_weight")
        log_weight = 1.0 + (q - 1.0) * z
        # relu, not maximum: at x = 0 TF's gradient of this term is 0
        return add((1.0 - z) * x, log_weight * (softplus(-abs_(x)) + relu(-x)), name=scope)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``, as TF."""
    axis = one_spelling(axis, dim, "axis", "dim")
    x = convert_to_tensor(x)
    with name_scope(name or "l2_normalize") as scope:
        total = reduce_sum(x * x, axis=axis, keepdims=True)
        return multiply(x, rsqrt(maximum(total, epsilon)), name=scope)   # TF's name


def l2_loss(t, name=None) -> Tensor:
    """``sum(t ** 2) / 2``, as TF's L2Loss."""
    return make_op("L2Loss", [convert_to_tensor(t)], name=name)


def bias_add(value, bias, data_format=None, name=None) -> Tensor:
    """``value + bias`` with ``bias`` along the channel axis (last, or 1 for NCHW).
    ``data_format`` as TF's builder reads it: any ``NC...`` ("NCDHW", "NCW") is NCHW and
    any ``N...C`` ("NDHWC") NHWC, the attr's two values; another form is ValueError."""
    if data_format is not None:
        data_format = format_name(data_format)
        if data_format.startswith("NC"):
            data_format = "NCHW"
        elif data_format.startswith("N") and data_format.endswith("C"):
            data_format = "NHWC"
        else:
            raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. "
                             f"Received: data_format={data_format}")
    x = convert_to_tensor(value)
    b = convert_to_tensor(bias, dtype_hint=x.dtype)
    return make_op("BiasAdd", [x, b], {"data_format": format_name(data_format)}, name)


def leaky_relu(features, alpha=0.2, name=None) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * x``.  ``alpha`` is a float32 attr, as TF's
    (so it round-trips through GraphDefs exactly): a Python or numpy number, else
    TypeError (a tensor too, as TF's).  Integer ``features`` are cast to float32 first,
    as TF's ``leaky_relu`` does (under its ``LeakyRelu`` scope)."""
    with name_scope(name or "LeakyRelu") as scope:
        x = convert_to_tensor(features, name="features")
        if x.dtype.is_integer:
            x = cast(x, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        if not isinstance(alpha, numbers.Real):
            raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
        return make_op("LeakyRelu", [x], {"alpha": float(np.float32(alpha))}, scope)


def elu(features, name=None) -> Tensor:
    """``x`` where ``x >= 0``, else ``exp(x) - 1``."""
    return make_op("Elu", [convert_to_tensor(features)], name=name)


def softplus(features, name=None) -> Tensor:
    """``log(1 + exp(x))``, without overflow."""
    return make_op("Softplus", [convert_to_tensor(features)], name=name)


def relu6(features, name=None) -> Tensor:
    """``min(max(x, 0), 6)``."""
    return make_op("Relu6", [convert_to_tensor(features)], name=name)


def selu(features, name=None) -> Tensor:
    """``scale * x`` where ``x > 0``, else ``scale * alpha * (exp(x) - 1)`` (Klambauer et
    al.'s constants, as TF's)."""
    return make_op("Selu", [convert_to_tensor(features)], name=name)


def softsign(features, name=None) -> Tensor:
    """``x / (|x| + 1)``."""
    return make_op("Softsign", [convert_to_tensor(features)], name=name)


def swish(features, name=None) -> Tensor:
    """``x * sigmoid(x)`` (TF's composite; its gradient is the product's)."""
    with name_scope(name or "swish"):
        x = convert_to_tensor(features, name="features")
        return x * sigmoid(x)


def xw_plus_b(x, weights, biases, name=None) -> Tensor:
    """``matmul(x, weights) + biases`` (a MatMul and a BiasAdd, as TF1's)."""
    with name_scope(name or "xw_plus_b"):
        x = convert_to_tensor(x, name="x")
        return bias_add(matmul(x, convert_to_tensor(weights, dtype_hint=x.dtype, name="weights")),
                        convert_to_tensor(biases, dtype_hint=x.dtype, name="biases"))


# --- composites --------------------------------------------------------------------------

def shape_tensor(t: Tensor) -> Tensor:
    """``t``'s shape as an int32 tensor: a constant when the graph knows it, else the
    array family's Shape op, read at run time."""
    if t.shape.is_fully_defined():
        return constant(np.array(t.shape.as_list(), np.int32))
    return shape(t)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None) -> Tensor:
    """Zero each element with probability ``rate`` (= 1 - ``keep_prob``) and scale the
    rest by ``1 / (1 - rate)``, as TF: ``where(uniform >= rate, x * scale, 0)``.  A rate
    of 0 returns ``x`` itself."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("dropout takes rate= or keep_prob=, not both.")
        if isinstance(keep_prob, Tensor):
            rate = 1 - _scalar_rate(keep_prob)
        else:
            rate = 1.0 - float(keep_prob)
    if rate is None:
        raise ValueError("dropout needs rate= (or keep_prob=).")
    return dropout_with(x, rate, noise_shape,
                        lambda shape, dtype: random_uniform(shape, dtype=dtype, seed=seed),
                        name or "dropout", skipped_draw=lambda: skip_seed(seed))


def dropout_with(x, rate, noise_shape, uniform_sampler, name: str,
                 skipped_draw=None) -> Tensor:
    """Dropout drawing its uniform [0, 1) noise from ``uniform_sampler(shape, dtype)``
    (TF's ``_dropout``, shared by ``dropout`` and ``nn.experimental``'s).  A rate of 0
    draws nothing and calls ``skipped_draw()`` instead (TF's ``dummy_rng_step``: the
    stateful dropout counts its op seed all the same)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"dropout scales '{x.name}', so it must be floating point, not "
                         f"{x.dtype.name}.")
    if isinstance(rate, numbers.Real):
        if not 0 <= rate < 1:
            raise ValueError(f"dropout's rate must be in [0, 1), got {rate}.")
        if rate == 0:
            if skipped_draw is not None:
                skipped_draw()
            return x
    with name_scope(name):
        if isinstance(rate, numbers.Real):
            scaled = x * (1.0 / (1.0 - rate))
            rate = convert_to_tensor(rate, dtype=x.dtype)
        else:
            rate = _scalar_rate(convert_to_tensor(rate, dtype_hint=x.dtype))
            scaled = x / (1 - rate)
        noise = uniform_sampler(_noise_shape(x, noise_shape), x.dtype)
        return where(noise >= rate, scaled, 0.0)


def _scalar_rate(rate: Tensor) -> Tensor:
    """A rate (or ``1 - keep_prob``) tensor as a scalar, so that the output keeps x's
    static shape (TF1 sets it; a ``keep_prob`` placeholder usually has no shape): one of
    another shape is a ValueError here, or an InvalidArgumentError when fed."""
    if not rate.shape.is_compatible_with(TensorShape([])):
        raise ValueError(f"dropout's rate (or keep_prob) must be a scalar, got '{rate.name}' "
                         f"with shape {rate.shape}.")
    return rate if rate.shape.ndims == 0 else reshape(rate, [])


def _noise_shape(x: Tensor, noise_shape):
    """Dropout's draw shape: ``noise_shape`` (a tensor, or dims with None meaning x's),
    else x's, read at run time where the graph leaves it open (a batch of None)."""
    if holds_tensor(noise_shape):          # a tensor, or TF1's [tf.shape(x)[0], 1, n]
        return convert_to_tensor(noise_shape, dtype_hint=dtypes.int32)
    if noise_shape is None:
        return x.shape.as_tuple() if x.shape.is_fully_defined() else shape(x)
    dims = TensorShape(noise_shape)
    if dims.is_fully_defined():
        return dims.as_tuple()
    if dims.ndims is None or dims.ndims != x.shape.ndims:
        raise ValueError(f"dropout of '{x.name}' with shape {x.shape}: noise_shape "
                         f"{dims} must give one dim per dim of x.")
    runtime = shape(x)
    return stack([runtime[i] if d is None else constant(d, dtypes.int32)
                  for i, d in enumerate(dims.as_list())])


def _axes_list(axes, rank, fn_name) -> list:
    """``axes`` made non-negative and sorted; of an input of unknown rank, as given (the
    reductions and Squeeze count negative ones from the end of the value fed)."""
    axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    if rank is None:
        return list(dict.fromkeys(int(a) for a in axes))
    return sorted({normalised_axis(a, rank, fn_name) for a in axes})


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """``(mean, variance)`` of ``x`` over ``axes``, as TF: the mean, then the mean of
    ``squared_difference(x, mean)``; float16 is computed in float32."""
    keep = bool(one_spelling(keepdims, keep_dims, "keepdims", "keep_dims"))
    with name_scope(name or "moments"):
        x = convert_to_tensor(x)
        axes = _axes_list(axes, x.shape.ndims, "moments")
        y = x if x.dtype != dtypes.float16 else make_op("Cast", [x], {"DstT": dtypes.float32})
        kept_mean = reduce_mean(y, axes, keepdims=True, name="mean")
        variance = reduce_mean(squared_difference(y, stop_gradient(kept_mean)), axes,
                               keepdims=True, name="variance")
        # the kept dims are 1 statically, so squeezing them needs no run-time shape; TF's
        # names: moments/Squeeze and moments/Squeeze_1 (an EMA of them is named after them)
        mean = kept_mean if keep else squeeze(kept_mean, axes)
        variance = variance if keep else squeeze(variance, axes)
        if x.dtype == dtypes.float16:
            mean = make_op("Cast", [mean], {"DstT": dtypes.float16})
            variance = make_op("Cast", [variance], {"DstT": dtypes.float16})
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None) -> Tensor:
    """``x * inv + (offset - mean * inv)`` with ``inv = rsqrt(variance + eps) * scale``
    (TF's formula; ``offset``/``scale`` may be None)."""
    with name_scope(name or "batchnorm"):
        x, mean, variance = operands(x, mean, variance)
        inv = rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        shift = (offset - mean * inv) if offset is not None else -mean * inv
        return x * inv + shift
