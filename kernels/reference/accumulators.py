"""Kernels of TF1's conditional accumulator ops (``devsession/ops/accumulators.py``), for
the reference device and the CPU (``HOST``; GPU sessions place them on the CPU, as TF
keeps its accumulators in host memory).

The accumulator op makes its ``Accumulator`` or ``SparseAccumulator``
(``devsession/runtime/accumulators.py``) in the session's resources on its first run,
under the container ``_accumulators`` and a key from its ``container`` and
``shared_name`` (the node's name when that is empty), and outputs that key as its
handle.  One made with a shared name is shared by every session of a server, as TF's
device resources are (so replicas' sessions meet on the ps task); a second node asking
for it with another kind, dtype or shape is ``InvalidArgumentError``.  A take waits
under its step's deadline, as a queue's dequeue does (``queues.step_check``).
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InvalidArgumentError
from devsession.runtime.accumulators import Accumulator, SparseAccumulator
from devsession.tensor_shape import TensorShape

from ..registry import HOST, register_kernel
from .queues import find_resource, resource_name, step_check

__all__ = ["CONTAINER", "find_accumulator"]

CONTAINER = "_accumulators"
_KINDS = {"ConditionalAccumulator": Accumulator,
          "SparseConditionalAccumulator": SparseAccumulator}


def _resources(node):
    return node.context.resources


@register_kernel(tuple(_KINDS), HOST)
def build_make_accumulator(node):
    attrs = node.attrs
    shared, key, handle = resource_name(node)
    kind = _KINDS[node.op]
    shape = TensorShape(attrs.get("shape"))        # a kernel node's attrs hold tuples
    dims = None if shape.rank is None else tuple(shape.as_list())
    dtype = attrs["dtype"]

    def make():
        return kind(shared or node.name, dtype, dims, attrs.get("reduction_type", "MEAN"))

    def make_accumulator():
        found = _resources(node).get_or_put(CONTAINER, key, make, shared=bool(shared))
        if not found.matches(kind.kind, dtype, dims):
            raise InvalidArgumentError(
                f"Shared accumulator '{shared}' is a {found.kind} of {found.dtype} "
                f"gradients of shape {_text(found.shape)}; node '{node.name}' asks for a "
                f"{kind.kind} of {dtype.name} gradients of shape {_text(dims)}.", node.name)
        return handle
    return make_accumulator


def _text(dims) -> str:
    return "<unknown>" if dims is None else str(list(dims)).replace("None", "?")


def find_accumulator(resources, handle, node_name: str):
    """The accumulator ``handle`` names; ``NotFoundError`` if the session has none by it."""
    return find_resource(resources, CONTAINER, handle, "accumulator", node_name)


def _scalar(value, what: str, node_name: str) -> int:
    value = np.asarray(value)
    if value.ndim != 0:
        raise InvalidArgumentError(f"Argument {what} must be scalar, but had bad shape "
                                   f"[{','.join(str(d) for d in value.shape)}]", node_name)
    return int(value)


@register_kernel("AccumulatorApplyGradient", HOST)
def build_apply(node):
    def apply(handle, local_step, gradient):
        found = find_accumulator(_resources(node), handle, node.name)
        found.apply(_scalar(local_step, "local_step", node.name), gradient, node.name)
    return apply


@register_kernel("SparseAccumulatorApplyGradient", HOST)
def build_sparse_apply(node):
    known = bool(node.attrs.get("has_known_shape", False))

    def sparse_apply(handle, local_step, indices, values, dense_shape):
        found = find_accumulator(_resources(node), handle, node.name)
        found.apply(_scalar(local_step, "local_step", node.name),
                    (indices, values, dense_shape if known else None), node.name)
    return sparse_apply


def _taker(node):
    def take(handle, num_required):
        found = find_accumulator(_resources(node), handle, node.name)
        return found.take(_scalar(num_required, "num_required", node.name),
                          step_check(node.name), node.name)
    return take


@register_kernel("AccumulatorTakeGradient", HOST)
def build_take(node):
    return _taker(node)


@register_kernel("SparseAccumulatorTakeGradient", HOST)
def build_sparse_take(node):
    return _taker(node)


@register_kernel("AccumulatorNumAccumulated", HOST)
def build_num_accumulated(node):
    def num_accumulated(handle):
        found = find_accumulator(_resources(node), handle, node.name)
        return np.array(found.num_accumulated(), np.int32)
    return num_accumulated


@register_kernel("AccumulatorSetGlobalStep", HOST)
def build_set_global_step(node):
    def set_global_step(handle, step):
        found = find_accumulator(_resources(node), handle, node.name)
        found.set_global_step(_scalar(step, "new_global_step", node.name))
    return set_global_step
