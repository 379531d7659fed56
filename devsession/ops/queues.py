"""TF1's queue ops (``FIFOQueueV2``, ``QueueEnqueueV2``, ``QueueDequeueManyV2``...), the
graph side of ``ds.FIFOQueue``, ``ds.RandomShuffleQueue`` and ``ds.PaddingFIFOQueue``
(``devsession/queues.py``).

A queue op (``FIFOQueueV2``, ``RandomShuffleQueueV2``, ``PaddingFIFOQueueV2``,
``PriorityQueueV2``: its elements start with an int64 scalar priority that its
``component_types`` leave out, as TF's) makes the
queue in the session's resources on its first run and outputs its handle: a string
scalar naming it (TF's is a ``resource``; devsession has no such dtype, and nothing but
the queue ops reads a handle).  Every other op takes that handle as its first input.
The dequeue ops' static shapes come from the queue op's ``shapes`` attr, found through
the handle's producer, as TF's shape functions read the handle's shape data.

The enqueue and dequeue ops block (``blocks``): a step running one is tracked so that
its deadline or closing the session ends it.  All run on the host
(``kernels/reference/queues.py``); none is differentiable.
"""

from __future__ import annotations

from ..dtypes import bool_, int32, int64, string
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["QUEUE_TYPES", "QUEUE_KINDS"]

# queue op -> the kind of queue its messages name (TF's class names)
QUEUE_KINDS = {"FIFOQueueV2": "FIFOQueue", "RandomShuffleQueueV2": "RandomShuffleQueue",
               "PaddingFIFOQueueV2": "PaddingFIFOQueue", "PriorityQueueV2": "PriorityQueue"}
QUEUE_TYPES = tuple(QUEUE_KINDS)

_QUEUE_ATTRS = {"shapes": (), "capacity": -1, "container": "", "shared_name": ""}


def _make_queue(inputs, attrs, node):
    types, shapes = attrs.get("component_types") or (), attrs.get("shapes") or ()
    if not types:
        raise InferError(f"Op '{node}': a queue needs at least one component type.")
    if shapes and len(shapes) != len(types):
        raise InferError(f"Op '{node}': a queue's shapes must be empty or one per component "
                         f"({len(types)}), got {len(shapes)}.")
    return string, TensorShape([])


def _no_output(inputs, attrs, node):
    _check_handle(inputs, node)
    return None


def _check_handle(inputs, node):
    if not inputs or inputs[0].dtype != string or inputs[0].shape.rank not in (None, 0):
        raise InferError(f"Op '{node}': its first input must be a queue's handle.")


def queue_components(handle_spec) -> tuple:
    """(dtypes, shapes) of the queue ``handle_spec`` (an InputSpec) names, when its
    producer is a queue op of this graph; (None, None) otherwise."""
    tensor = handle_spec.tensor
    op = getattr(tensor, "op", None)
    if op is None or op.type not in QUEUE_KINDS:
        return None, None
    types = tuple(op.attrs["component_types"])
    shapes = tuple(op.attrs.get("shapes") or ())
    if op.type == "PriorityQueueV2":          # an int64 scalar priority comes first
        return (int64, *types), ((), *shapes) if shapes else (None,) * (len(types) + 1)
    return types, shapes or (None,) * len(types)


def _dequeued(inputs, attrs, node, batch):
    _check_handle(inputs, node)
    types = tuple(attrs.get("component_types") or ())
    if not types:
        raise InferError(f"Op '{node}': component_types must name at least one dtype.")
    _, shapes = queue_components(inputs[0])
    if shapes is None or len(shapes) != len(types):
        shapes = (None,) * len(types)
    out = []
    for dtype, shape in zip(types, shapes):
        shape = TensorShape(shape) if shape is not None else TensorShape(None)
        if batch is not False:
            shape = TensorShape([batch]).concatenate(shape)
        out.append((dtype, shape))
    return out


def _dequeue(inputs, attrs, node):
    return _dequeued(inputs, attrs, node, False)


def _dequeue_many(inputs, attrs, node):
    n = inputs[1].value if len(inputs) > 1 else None
    if n is not None and int(n) < 0:
        raise InferError(f"Op '{node}': cannot dequeue a negative number of elements ({n}).")
    return _dequeued(inputs, attrs, node, None if n is None else int(n))


def _dequeue_up_to(inputs, attrs, node):
    return _dequeued(inputs, attrs, node, None)


def _size(inputs, attrs, node):
    _check_handle(inputs, node)
    return int32, TensorShape([])


def _is_closed(inputs, attrs, node):
    _check_handle(inputs, node)
    return bool_, TensorShape([])


register_op(OpDef("FIFOQueueV2", _make_queue, 0, stateful=True, attr_defaults=_QUEUE_ATTRS))
register_op(OpDef("PaddingFIFOQueueV2", _make_queue, 0, stateful=True,
                  attr_defaults=_QUEUE_ATTRS))
register_op(OpDef("PriorityQueueV2", _make_queue, 0, stateful=True, attr_defaults=_QUEUE_ATTRS))
register_op(OpDef("RandomShuffleQueueV2", _make_queue, 0, stateful=True,
                  attr_defaults={**_QUEUE_ATTRS, "min_after_dequeue": 0, "seed": 0,
                                 "seed2": 0}))
register_op(OpDef("QueueEnqueueV2", _no_output, None, stateful=True, has_output=False,
                  blocks=True, attr_defaults={"timeout_ms": -1}))
register_op(OpDef("QueueEnqueueManyV2", _no_output, None, stateful=True, has_output=False,
                  blocks=True, attr_defaults={"timeout_ms": -1}))
register_op(OpDef("QueueDequeueV2", _dequeue, 1, stateful=True, blocks=True,
                  attr_defaults={"timeout_ms": -1}))
register_op(OpDef("QueueDequeueManyV2", _dequeue_many, 2, stateful=True, blocks=True,
                  attr_defaults={"timeout_ms": -1}, host_inputs=(1,)))
register_op(OpDef("QueueDequeueUpToV2", _dequeue_up_to, 2, stateful=True, blocks=True,
                  attr_defaults={"timeout_ms": -1}, host_inputs=(1,)))
register_op(OpDef("QueueCloseV2", _no_output, 1, stateful=True, has_output=False,
                  attr_defaults={"cancel_pending_enqueues": False}))
register_op(OpDef("QueueSizeV2", _size, 1, stateful=True))
register_op(OpDef("QueueIsClosedV2", _is_closed, 1, stateful=True))
not_differentiable("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2",
                   "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2",
                   "QueueIsClosedV2")
