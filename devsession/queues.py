"""TF1's queues: ``ds.FIFOQueue``, ``ds.RandomShuffleQueue``, ``ds.PaddingFIFOQueue``,
``ds.PriorityQueue`` (also ``ds.queue.*``), the graph-building side of ``ops/queues.py``.

A queue object holds the handle its queue op outputs and builds the ops that use it,
named as TF1 names them (``fifo_queue_enqueue``, ``fifo_queue_DequeueMany``...).  Values
are checked at build time as TF1 checks them: each converted to its component's dtype
(``TypeError``), its static shape compatible with the component's (``ValueError``), a
queue with ``names`` taking and giving dicts.  The queue itself, and its blocking, live
in the session (``runtime/queues.py``).

    q = ds.FIFOQueue(10, [ds.int32, ds.float32], shapes=[[], [2]])
    enqueue = q.enqueue_many([[1, 2], [[1., 2.], [3., 4.]]])
    ints, pairs = q.dequeue_many(2)
"""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, convert_to_tensor, get_default_graph
from .ops.queues import QUEUE_TYPES  # (importing it registers the ops)
from .tensor_shape import TensorShape

__all__ = ["QueueBase", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue",
           "PriorityQueue"]


class QueueBase:
    """What every queue does; made by the subclasses, or from a handle
    (``QueueBase(dtypes, shapes, names, queue_ref)``), as TF1's."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = list(dtypes)
        self._shapes = ([TensorShape(s) for s in shapes] if shapes
                        else [TensorShape(None)] * len(self._dtypes))
        self._names = list(names) if names is not None else None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    queue_ref = property(lambda self: self._queue_ref)
    name = property(lambda self: self._queue_ref.op.name)
    dtypes = property(lambda self: list(self._dtypes))
    shapes = property(lambda self: list(self._shapes))
    names = property(lambda self: None if self._names is None else list(self._names))

    # --- enqueue ----------------------------------------------------------------------

    def enqueue(self, vals, name=None):
        """The op adding one element (a tensor, list, tuple, or dict with ``names``);
        run, it waits while the queue is full, and is ``CancelledError`` once it is
        closed."""
        tensors = self._tensors(vals, batched=False)
        return self._op("QueueEnqueueV2", tensors, name or f"{self._name}_enqueue",
                        {"Tcomponents": tuple(self._dtypes)})

    def enqueue_many(self, vals, name=None):
        """The op adding the slices of ``vals`` along their first dimension, in order."""
        tensors = self._tensors(vals, batched=True)
        return self._op("QueueEnqueueManyV2", tensors, name or f"{self._name}_EnqueueMany",
                        {"Tcomponents": tuple(self._dtypes)})

    def _tensors(self, vals, batched: bool) -> list:
        vals = self._as_list(vals)
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} values to enqueue into queue "
                             f"'{self.name}', got {len(vals)}.")
        graph = self._queue_ref.graph
        tensors = [convert_to_tensor(v, dtype=d, graph=graph)
                   for v, d in zip(vals, self._dtypes)]
        for tensor, shape in zip(tensors, self._shapes):
            static = tensor.shape
            if batched:
                if static.rank == 0:
                    raise ValueError(f"Cannot enqueue_many a scalar ('{tensor.name}'): its "
                                     f"first dimension holds the elements.")
                static = static[1:] if static.rank is not None else static
            if not static.is_compatible_with(shape):
                raise ValueError(f"Shapes {static} and {shape} are incompatible")
        return tensors

    def _as_list(self, vals) -> list:
        if self._names is None:
            if isinstance(vals, dict):
                raise ValueError("Queue must have names to enqueue a dictionary")
            return list(vals) if isinstance(vals, (list, tuple)) else [vals]
        if not isinstance(vals, dict):
            raise ValueError("You must enqueue a dictionary in a Queue with names")
        if sorted(vals) != sorted(self._names):
            raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue.  "
                             f"Dictionary: {sorted(vals)},Queue: {sorted(self._names)}")
        return [vals[k] for k in self._names]

    # --- dequeue ----------------------------------------------------------------------

    def dequeue(self, name=None):
        """One element; run, it waits while the queue is empty, and is
        ``OutOfRangeError`` once the queue is closed and empty."""
        op = self._op("QueueDequeueV2", [], name or f"{self._name}_Dequeue",
                      {"component_types": tuple(self._dtypes)})
        return self._packed(op.outputs)

    def dequeue_many(self, n, name=None):
        """``n`` elements stacked; ``OutOfRangeError`` if the queue closes first."""
        count = convert_to_tensor(n, dtype=dtypes.int32, graph=self._queue_ref.graph)
        op = self._op("QueueDequeueManyV2", [count], name or f"{self._name}_DequeueMany",
                      {"component_types": tuple(self._dtypes)})
        return self._packed(op.outputs)

    def dequeue_up_to(self, n, name=None):
        """As ``dequeue_many``, but a closed queue gives what it has left (at least one)."""
        count = convert_to_tensor(n, dtype=dtypes.int32, graph=self._queue_ref.graph)
        op = self._op("QueueDequeueUpToV2", [count], name or f"{self._name}_DequeueUpTo",
                      {"component_types": tuple(self._dtypes)})
        return self._packed(op.outputs)

    def _packed(self, outputs):
        outputs = list(outputs)
        if self._names is not None:
            return dict(zip(self._names, outputs))
        return outputs[0] if len(outputs) == 1 else outputs

    # --- the rest ---------------------------------------------------------------------

    def close(self, cancel_pending_enqueues=False, name=None):
        """The op closing the queue: later enqueues fail, dequeues drain what is left;
        with ``cancel_pending_enqueues``, waiting enqueues are ``CancelledError``."""
        return self._op("QueueCloseV2", [], name or f"{self._name}_Close",
                        {"cancel_pending_enqueues": bool(cancel_pending_enqueues)})

    def size(self, name=None) -> Tensor:
        return self._op("QueueSizeV2", [], name or f"{self._name}_Size", {}).outputs[0]

    def is_closed(self, name=None) -> Tensor:
        return self._op("QueueIsClosedV2", [], name or f"{self._name}_Is_Closed",
                        {}).outputs[0]

    def _op(self, op_type, inputs, name, attrs):
        """An op on this queue, placed with the queue (as TF places every user of a
        resource), so an enqueue asked for on a worker finds a queue made on a ps task."""
        graph = self._queue_ref.graph
        with graph.colocate_with(self._queue_ref):
            return graph.create_op(op_type, [self._queue_ref, *inputs], attrs, name=name)


def _make(op_type, dtypes_, shapes, names, capacity, shared_name, name, extra=None):
    assert op_type in QUEUE_TYPES, op_type
    dtypes_ = [dtypes.as_dtype(d) for d in (dtypes_ if isinstance(dtypes_, (list, tuple))
                                             else [dtypes_])]
    if names is not None:
        names = list(names) if isinstance(names, (list, tuple)) else [names]
        if len(names) != len(dtypes_):
            raise ValueError("Queue dtypes and names must have the same length")
    if shapes is not None:
        shapes = list(shapes)
        if not shapes or (not isinstance(shapes[0], (list, tuple, TensorShape)) and
                          shapes[0] is not None):
            shapes = [shapes]          # one component's shape given bare (() a scalar, as TF1)
        shapes = [TensorShape(s) for s in shapes]
        if len(shapes) != len(dtypes_):
            raise ValueError("Queue shapes must have the same length as dtypes")
    attrs = {"component_types": tuple(dtypes_), "shapes": tuple(shapes or ()),
             "capacity": int(capacity), "container": "", "shared_name": shared_name or "",
             **(extra or {})}
    handle = get_default_graph().create_op(op_type, [], attrs, name=name).outputs[0]
    return dtypes_, shapes, names, handle


class FIFOQueue(QueueBase):
    """Elements come out in the order they went in."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        if shapes is not None:
            _fully_defined(shapes, "FIFOQueue")
        super().__init__(*_make("FIFOQueueV2", dtypes, shapes, names, capacity, shared_name,
                                name))


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads each batch's unknown dimensions to the
    batch's largest (zeros, empty strings); every component needs a shape (rank known)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        made = _make("PaddingFIFOQueueV2", dtypes, shapes, names, capacity, shared_name,
                     name)
        if any(s.rank is None for s in made[1]):
            raise ValueError("PaddingFIFOQueue requires a known rank for every component's "
                             "shape.")
        super().__init__(*made)


class RandomShuffleQueue(QueueBase):
    """Elements come out in random order; while open it keeps ``min_after_dequeue``
    elements back, so that what comes out is well mixed.  Seeded as TF1's random ops (by
    ``seed`` and the graph seed), its order repeats in a new session."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None,
                 seed=None, shared_name=None, name="random_shuffle_queue"):
        from .ops.random import _seeds

        if shapes is not None:
            _fully_defined(shapes, "RandomShuffleQueue")
        seed1, seed2 = _seeds(seed)
        extra = {"min_after_dequeue": int(min_after_dequeue), "seed": seed1, "seed2": seed2}
        super().__init__(*_make("RandomShuffleQueueV2", dtypes, shapes, names, capacity,
                                shared_name, name, extra))


class PriorityQueue(QueueBase):
    """Elements come out lowest priority first: each starts with an int64 scalar
    priority beside the components ``types`` names (so enqueue ``(priority, *values)``
    and dequeue gets the priority back first), equal priorities in arrival order."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        if shapes is not None:
            _fully_defined(shapes, "PriorityQueue")
        types, shapes, _, handle = _make("PriorityQueueV2", types, shapes, None, capacity,
                                         shared_name, name)
        super().__init__([dtypes.int64, *types], [(), *shapes] if shapes else None, names,
                         handle)


def _fully_defined(shapes, kind) -> None:
    shapes = list(shapes)
    if shapes and not isinstance(shapes[0], (list, tuple, TensorShape)) and \
            shapes[0] is not None:
        shapes = [shapes]
    for shape in shapes:
        if not TensorShape(shape).is_fully_defined():
            raise ValueError(f"{kind} requires fully defined shapes, got {TensorShape(shape)} "
                             f"(a PaddingFIFOQueue takes unknown dimensions).")
