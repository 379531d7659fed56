"""Runtime shape and value checks of the nn ops (softmax losses, BiasAdd), shared by
every device's kernels.

Each failure is an ``InvalidArgumentError`` naming the node, worded as TF words it
where users know TF's message (a sparse label out of range lists the labels, as TF1's
CPU kernel does).  Host-side and numpy-only: a GPU kernel checks on the device first
and calls these with host copies only to word the error.
"""

from __future__ import annotations

import numpy as np

from .checks import broadcast_shape, check_axes, fmt_shape, invalid_argument

__all__ = ["softmax_axis", "last_axis", "xent_shape", "sparse_xent_shapes", "label_error",
           "bias_axis", "check_bias", "broadcastable_bias"]


def softmax_axis(node, shape: tuple) -> int:
    """Softmax's axis attr (TF's op has none: the last axis), checked against ``shape``."""
    axis = int(node.attrs.get("axis", -1))
    if axis < 0:
        axis += len(shape)
    check_axes(node.name, node.op, shape, (axis,))
    return axis


def last_axis(node, shape: tuple) -> None:
    """LogSoftmax needs rank >= 1."""
    if len(shape) < 1:
        raise invalid_argument(node.name, node.op, "logits must have rank >= 1, got a scalar")


def xent_shape(node, logits_shape: tuple, labels_shape: tuple) -> tuple:
    """The broadcast [batch, classes] shape of SoftmaxCrossEntropyWithLogits."""
    if len(logits_shape) != 2 or len(labels_shape) != 2:
        raise invalid_argument(node.name, node.op, f"logits and labels must be 2-D, got "
                               f"logits {fmt_shape(logits_shape)} and labels "
                               f"{fmt_shape(labels_shape)}")
    return tuple(broadcast_shape(node.name, node.op, [logits_shape, labels_shape]))


def sparse_xent_shapes(node, logits_shape: tuple, labels_shape: tuple) -> None:
    if len(logits_shape) != 2:
        raise invalid_argument(node.name, node.op, f"logits must be 2-D, got shape "
                               f"{fmt_shape(logits_shape)}")
    if len(labels_shape) != 1 or labels_shape[0] != logits_shape[0]:
        raise invalid_argument(node.name, node.op, f"labels must be 1-D with one label per row "
                               f"of logits: logits {fmt_shape(logits_shape)}, labels "
                               f"{fmt_shape(labels_shape)}")


def label_error(node, labels: np.ndarray, classes: int):
    """The error for labels outside [0, classes), or None when they are all inside."""
    bad = (labels < 0) | (labels >= classes)
    if not bad.any():
        return None
    first = int(labels[np.argmax(bad)])
    shown = " ".join(str(int(v)) for v in labels[:64])
    more = " ..." if labels.size > 64 else ""
    return invalid_argument(
        node.name, node.op, f"Received a label value of {first} which is outside the valid "
        f"range of [0, {classes}).  Label values: {shown}{more}")


def bias_axis(node, rank: int) -> int:
    """The axis BiasAdd/BiasAddGrad work along for an input of ``rank``."""
    if rank < 2:
        raise invalid_argument(node.name, node.op, f"the input must be at least 2-D, got rank "
                               f"{rank}")
    return 1 if node.attrs.get("data_format", "NHWC") == "NCHW" else rank - 1


def check_bias(node, value_shape: tuple, bias_shape: tuple) -> int:
    """The channel axis of BiasAdd; raises unless ``bias`` is 1-D with one value per
    channel."""
    axis = bias_axis(node, len(value_shape))
    if len(bias_shape) != 1 or bias_shape[0] != value_shape[axis]:
        raise invalid_argument(node.name, node.op, f"bias must be 1-D with one value per "
                               f"channel: value {fmt_shape(value_shape)}, bias "
                               f"{fmt_shape(bias_shape)}")
    return axis


def broadcastable_bias(node, value_shape: tuple, bias):
    """``bias`` shaped to broadcast along BiasAdd's channel axis of a ``value_shape``
    input (NCHW: ``(C, 1, 1)``, across H and W); raises like ``check_bias``."""
    rank = len(value_shape)
    if check_bias(node, value_shape, bias.shape) != rank - 1:
        return bias.reshape((-1,) + (1,) * (rank - 2))
    return bias
