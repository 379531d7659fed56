"""``_Send`` and ``_Recv``: the nodes a partition uses to move tensors between tasks.

The master's partitioner (``partition.py``) cuts every edge whose two ends live on
different tasks into a ``_Send`` on the producer's task and a ``_Recv`` on the
consumer's, both carrying the same rendezvous key.  They are ordinary registered ops
with kernels on the host device types, so a worker runs a partition with the same plan
builder and executor as a direct session.

A kernel is built once per partition but runs in many steps, so what changes per step
(the step id, its deadline, how to reach other workers) comes from a ``StepContext``
that the worker installs in the executing thread for the duration of ``execute``
(``step_scope``).  A control edge crosses tasks as a send of an empty bool tensor.

Attributes: ``key`` (rendezvous key), ``tensor_name`` (the graph tensor or control edge
carried, for error messages), ``peer_task`` (the task at the other end); a ``_Recv``
also has ``dtype`` and ``shape``.
"""

from __future__ import annotations

import threading

import numpy as np

from ...errors import InternalError
from ...kernels.registry import register_kernel
from ...ops.registry import OpDef, not_differentiable, register_op
from ...tensor_shape import TensorShape

__all__ = ["SEND_OP", "RECV_OP", "control_token", "step_scope", "current_step"]

SEND_OP = "_Send"
RECV_OP = "_Recv"
HOST_DEVICE_TYPES = ("CPU", "REF")


def control_token() -> np.ndarray:
    """The value a control edge carries across tasks."""
    return np.zeros(0, np.bool_)


class _Current(threading.local):
    step = None


_CURRENT = _Current()


class step_scope:
    """``with step_scope(ctx):`` makes ``ctx`` the step context of this thread."""

    __slots__ = ("ctx", "saved")

    def __init__(self, ctx):
        self.ctx = ctx

    def __enter__(self):
        self.saved = _CURRENT.step
        _CURRENT.step = self.ctx
        return self.ctx

    def __exit__(self, *exc):
        _CURRENT.step = self.saved
        return False


def current_step():
    step = _CURRENT.step
    if step is None:
        raise InternalError("A _Send or _Recv ran outside a worker step; partitions with "
                            "transfers only run through a worker (RunGraph).")
    return step


def _send_infer(inputs, attrs, node):
    if len(inputs) > 1:
        raise ValueError(f"Op '{node}': _Send takes at most one input.")
    return None


def _recv_infer(inputs, attrs, node):
    from ... import dtypes

    shape = attrs["shape"]
    return dtypes.as_dtype(attrs["dtype"]), shape if isinstance(shape, TensorShape) \
        else TensorShape(shape)


register_op(OpDef(SEND_OP, _send_infer, None, stateful=True, has_output=False))
register_op(OpDef(RECV_OP, _recv_infer, 0, stateful=True))
# Partitioning inserts them into graphs whose gradients were built already.
not_differentiable(SEND_OP, RECV_OP)


def _send_kernel(node):
    key, peer, what = node.attrs["key"], node.attrs["peer_task"], node.attrs["tensor_name"]

    def kernel(value=None):
        current_step().send(peer, key, control_token() if value is None else value, what)
    return kernel


def _recv_kernel(node):
    key, peer, what = node.attrs["key"], node.attrs["peer_task"], node.attrs["tensor_name"]

    def kernel():
        return current_step().recv(peer, key, what)
    return kernel


for _device_type in HOST_DEVICE_TYPES:
    register_kernel(SEND_OP, _device_type)(_send_kernel)
    register_kernel(RECV_OP, _device_type)(_recv_kernel)
