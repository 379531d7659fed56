"""Kernels of TF1's queue ops (``devsession/ops/queues.py``), for the reference device
and the CPU (``HOST``; GPU sessions place them on the CPU, as TF places its queues).

The queue op makes its ``Queue`` (``devsession/runtime/queues.py``) in the session's
resources on its first run, under the container ``_queues`` and a key from its
``container`` and ``shared_name`` (the node's name when that is empty), and outputs that
key as the queue's handle; the other kernels look the queue up by it.  A
``RandomShuffleQueue`` dequeues in TF's order for its seeds (``_shuffle_picks``).  A
queue made with a shared name is shared by every session of a server, as TF's
(SyncReplicasOptimizer's token queue on the ps serves every replica's session).  A
blocking kernel waits under its step's deadline (``running_step()``): past it,
``DeadlineExceededError`` as TF's ("Timed out waiting for notification"); closed by its
session, the session's ``CancelledError``.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import DeadlineExceededError, InvalidArgumentError, NotFoundError
from devsession.runtime.executor import running_step
from devsession.runtime.queues import Queue, queue_display_name

from ..registry import HOST, register_kernel
from .philox import seed_pair_stream, words

__all__ = ["CONTAINER", "find_queue", "find_resource", "step_check", "resource_name"]

CONTAINER = "_queues"
_KINDS = {"FIFOQueueV2": "FIFOQueue", "RandomShuffleQueueV2": "RandomShuffleQueue",
          "PaddingFIFOQueueV2": "PaddingFIFOQueue", "PriorityQueueV2": "PriorityQueue"}


def _resources(node):
    return node.context.resources


def resource_name(node) -> tuple[str, str, np.ndarray]:
    """(shared name or "", key, handle) of the queue or accumulator ``node`` makes: it is
    kept under ``container/name`` (its shared name, else the node's), and its handle is
    that key as a string scalar."""
    attrs = node.attrs
    shared = attrs.get("shared_name") or ""
    key = f"{attrs.get('container') or ''}/{shared or node.name}"
    return shared, key, np.array(key, dtype=object)


@register_kernel(tuple(_KINDS), HOST)
def build_make_queue(node):
    attrs = node.attrs
    shared, key, handle = resource_name(node)
    kind = _KINDS[node.op]
    shapes = tuple(None if s is None else tuple(getattr(s, "dims", s))
                   for s in (attrs.get("shapes") or ()))
    types = tuple(attrs["component_types"])
    if kind == "PriorityQueue":             # the int64 scalar priority comes first,
        # a scalar even where the components' shapes are not given
        types, shapes = (np.dtype(np.int64), *types), ((), *(shapes or (None,) * len(types)))

    def make():
        pick = None
        if kind == "RandomShuffleQueue":
            pick = _shuffle_picks(int(attrs.get("seed", 0)), int(attrs.get("seed2", 0)))
        name = shared or queue_display_name(node.name)
        return Queue(kind, name, types, shapes,
                     int(attrs.get("capacity", -1)), int(attrs.get("min_after_dequeue", 0)),
                     pick)

    def make_queue():
        _resources(node).get_or_put(CONTAINER, key, make, shared=bool(shared))
        return handle
    return make_queue


def _shuffle_picks(seed: int, seed2: int):
    """TF's ``RandomShuffleQueue`` draws: the index of each element dequeued is the next
    32-bit word of ``PhiloxRandom(seed, seed2)`` (random seeds for (0, 0)) modulo the
    queue's size; called under the queue's lock."""
    if (seed, seed2) == (0, 0):
        seed, seed2 = (int(w) for w in np.random.default_rng().integers(0, 2**63, 2))
    samples = words(*seed_pair_stream(seed, seed2))
    return lambda size: next(samples) % size


def find_queue(resources, handle, node_name: str) -> Queue:
    """The queue ``handle`` names; ``NotFoundError`` if the session has none by it."""
    return find_resource(resources, CONTAINER, handle, "queue", node_name)


def find_resource(resources, container: str, handle, what: str, node_name: str):
    """The ``what`` (queue, accumulator) that ``handle`` (``resource_name``'s) names in
    ``container``; ``NotFoundError`` if the session has none by it."""
    key = str(np.asarray(handle).item())
    found = resources.get(container, key)
    if found is None:
        raise NotFoundError(f"Resource {container}{key} does not exist (the {what} was "
                            f"made by another session, or reset).", node_name)
    return found


def step_check(node_name: str):
    """``check()`` for a waiting request: raises when this thread's step must stop."""
    deadline, _ = running_step()
    if deadline is None:
        return _never

    def check():
        if deadline.error is not None:
            raise type(deadline.error)(deadline.error.message, node_name)
        if deadline.expired():
            raise DeadlineExceededError("Timed out waiting for notification", node_name)
    return check


def _never():
    return None


def _named(node, call):
    """``call()``, its errors naming ``node`` (the queue raises them unnamed)."""
    try:
        return call()
    except Exception as e:
        if getattr(e, "node_name", "") is None:
            e.node_name = node.name
        raise


@register_kernel("QueueEnqueueV2", HOST)
def build_enqueue(node):
    def enqueue(handle, *components):
        queue = find_queue(_resources(node), handle, node.name)
        _named(node, lambda: queue.enqueue([components], step_check(node.name)))
    return enqueue


@register_kernel("QueueEnqueueManyV2", HOST)
def build_enqueue_many(node):
    def enqueue_many(handle, *components):
        queue = find_queue(_resources(node), handle, node.name)
        components = [np.asarray(c) for c in components]
        rows = {c.shape[0] if c.ndim else None for c in components}
        if None in rows or len(rows) != 1:
            raise InvalidArgumentError(
                f"'{node.name}': the components of an enqueue_many must share their first "
                f"dimension, got shapes {[list(c.shape) for c in components]}.", node.name)
        (count,) = rows
        for i, (value, shape) in enumerate(zip(components, queue.shapes)):
            if shape is not None and not _fits(value.shape[1:], shape):
                expected = ",".join(str(d) for d in (count, *shape))
                got = ",".join(str(d) for d in value.shape)
                raise InvalidArgumentError(f"Shape mismatch in tuple component {i}. Expected "
                                           f"[{expected}], got [{got}]", node.name)
        elements = [tuple(c[k] for c in components) for k in range(count)]
        _named(node, lambda: queue.enqueue(elements, step_check(node.name)))
    return enqueue_many


def _fits(actual, static) -> bool:
    return len(actual) == len(static) and all(s is None or s == a
                                              for a, s in zip(actual, static))


def _dequeuer(node, batched: bool, up_to: bool):
    def dequeue(handle, count=None):
        queue = find_queue(_resources(node), handle, node.name)
        if batched:
            count = int(np.asarray(count))
            if count < 0:
                raise InvalidArgumentError(f"'{node.name}': cannot dequeue a negative number "
                                           f"of elements ({count}).", node.name)
        out = _named(node, lambda: queue.dequeue(count if batched else None,
                                                 step_check(node.name), up_to))
        return out[0] if len(out) == 1 else tuple(out)
    return dequeue


@register_kernel("QueueDequeueV2", HOST)
def build_dequeue(node):
    return _dequeuer(node, batched=False, up_to=False)


@register_kernel("QueueDequeueManyV2", HOST)
def build_dequeue_many(node):
    return _dequeuer(node, batched=True, up_to=False)


@register_kernel("QueueDequeueUpToV2", HOST)
def build_dequeue_up_to(node):
    return _dequeuer(node, batched=True, up_to=True)


@register_kernel("QueueCloseV2", HOST)
def build_close(node):
    cancel = bool(node.attrs.get("cancel_pending_enqueues", False))

    def close(handle):
        find_queue(_resources(node), handle, node.name).close(cancel)
    return close


@register_kernel("QueueSizeV2", HOST)
def build_size(node):
    def size(handle):
        return np.array(find_queue(_resources(node), handle, node.name).size(), np.int32)
    return size


@register_kernel("QueueIsClosedV2", HOST)
def build_is_closed(node):
    def is_closed(handle):
        return np.array(find_queue(_resources(node), handle, node.name).is_closed())
    return is_closed
