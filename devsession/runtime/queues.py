"""The queues behind TF1's queue ops: session resources that steps on several threads
enqueue into and dequeue from, waiting for each other as TF's queues do.

State: the elements (each a tuple of numpy arrays, one per component), whether the
queue is closed, and two lines of waiting requests, one for enqueues and one for
dequeues.  Only the request at the head of its line moves elements, so concurrent
requests are served in arrival order, as TF serves its attempts, and a ``FIFOQueue``'s
order holds across ``enqueue_many`` and ``dequeue_many``.  A request moves elements as
they allow, one at a time: an ``enqueue_many`` larger than the capacity fills the queue
and goes on as dequeues make room; a ``dequeue_many`` takes what there is and waits for
the rest.

Ends, as TF's:

* a dequeue that cannot be satisfied by a closed queue puts back what it took and raises
  ``OutOfRangeError`` ("... is closed and has insufficient elements (requested n,
  current size m)"); ``dequeue_up_to`` instead returns the fewer elements it has;
* an enqueue into a closed queue is ``CancelledError`` ("... is closed."); waiting
  enqueues survive ``close()`` (they may still find room) unless it cancels them
  (``cancel_pending_enqueues``: "Enqueue operation was cancelled");
* a ``RandomShuffleQueue`` hands out elements picked at random from its buffer (the
  element at ``pick(size)``, its place taken by the last, as TF's), and while open
  keeps ``min_after_dequeue`` of them back;
* a ``PaddingFIFOQueue`` pads the elements of a ``dequeue_many`` to the largest of each
  dimension its shapes leave unknown (zeros, or empty strings);
* a ``PriorityQueue`` hands out the element of the lowest priority (its first component,
  an int64 scalar) first, equal priorities in the order they came.

Waiting is bounded by the step: ``check()`` (given by the kernel) raises when the step's
deadline passed or its session closed, and waits wake at least every ``_POLL_S`` to call
it.  So no step ever waits on a queue forever.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import threading

import numpy as np

from ..errors import CancelledError, InvalidArgumentError, OutOfRangeError

__all__ = ["Queue", "queue_display_name"]

_POLL_S = 0.05     # how often a waiting request looks at its step's deadline
_IDS = itertools.count()


def queue_display_name(node_name: str) -> str:
    """The name TF's messages give a queue made without a shared name: ``_<id>_<node>``,
    the id counting the queues made in this process."""
    return f"_{next(_IDS)}_{node_name}"


class Queue:
    """One queue: ``kind`` ("FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue",
    "PriorityQueue"),
    component ``dtypes`` and static ``shapes`` (tuples of int-or-None per component, or
    None for unknown), ``capacity`` (-1: unbounded)."""

    def __init__(self, kind: str, name: str, dtypes, shapes, capacity: int,
                 min_after_dequeue: int = 0, pick=None):
        self.kind, self.name = kind, name
        self.dtypes = tuple(np.dtype(getattr(d, "np", d)) for d in dtypes)
        self.shapes = tuple(shapes) if shapes else (None,) * len(self.dtypes)
        self.capacity = capacity if capacity >= 0 else None
        self.min_after_dequeue = min_after_dequeue
        self._pick = pick               # a RandomShuffleQueue's: size -> the index to take
        # in their order of leaving (FIFO; a PriorityQueue's by priority), or any order
        self._elements = _ByPriority() if kind == "PriorityQueue" else collections.deque()
        self._closed = False
        self._cancelled = False          # close(cancel_pending_enqueues=True) happened
        self._changed = threading.Condition()
        self._enqueue_line: collections.deque = collections.deque()
        self._dequeue_line: collections.deque = collections.deque()

    # --- what the ops ask --------------------------------------------------------------

    def size(self) -> int:
        with self._changed:
            return len(self._elements)

    def is_closed(self) -> bool:
        with self._changed:
            return self._closed

    def close(self, cancel_pending_enqueues: bool = False) -> None:
        with self._changed:
            self._closed = True
            self._cancelled = self._cancelled or cancel_pending_enqueues
            self._changed.notify_all()

    def enqueue(self, elements: list, check) -> None:
        """Add ``elements`` (tuples of arrays) in order, waiting for room."""
        elements = [self._checked(e) for e in elements]
        with self._changed:
            if self._closed:
                raise CancelledError(f"{self.kind} '{self.name}' is closed.", None)
            ticket = object()
            self._enqueue_line.append(ticket)
            try:
                for element in elements:
                    self._wait(lambda: self._cancelled or (
                        self._enqueue_line[0] is ticket and self._has_room()), check)
                    if self._cancelled:
                        raise CancelledError("Enqueue operation was cancelled", None)
                    self._elements.append(element)
                    self._changed.notify_all()
            finally:
                self._enqueue_line.remove(ticket)
                self._changed.notify_all()

    def dequeue(self, count: int | None, check, up_to: bool = False) -> list:
        """``count`` elements (None: one, unbatched) as one array per component."""
        wanted = 1 if count is None else count
        if count is not None and self._needs_shapes():
            raise InvalidArgumentError(
                f"{self.kind}'s DequeueMany and DequeueUpTo require the components to "
                f"have specified shapes.", None)
        taken: list = []
        with self._changed:
            ticket = object()
            self._dequeue_line.append(ticket)
            try:
                while len(taken) < wanted:
                    self._wait(lambda: self._dequeue_line[0] is ticket and (
                        self._closed or self._available() > 0), check)
                    remaining, size = wanted - len(taken), len(self._elements)
                    if self._closed and size < remaining:     # nothing more will come
                        if up_to and (taken or size):
                            taken.extend(self._take_one() for _ in range(size))
                            break
                        self._put_back(taken)
                        raise OutOfRangeError(
                            f"{self.kind} '{self.name}' is closed and has insufficient "
                            f"elements (requested {remaining}, current size {size})", None)
                    taken.append(self._take_one())
                    self._changed.notify_all()
            except BaseException:
                self._put_back(taken)
                raise
            finally:
                self._dequeue_line.remove(ticket)
                self._changed.notify_all()
        if count is None:
            return list(taken[0])
        return self._batched(taken)

    # --- inside the lock ---------------------------------------------------------------

    def _wait(self, ready, check) -> None:
        while not ready():
            check()
            self._changed.wait(_POLL_S)

    def _has_room(self) -> bool:
        return self.capacity is None or len(self._elements) < self.capacity

    def _available(self) -> int:
        """How many elements a dequeue may take now."""
        if self.kind == "RandomShuffleQueue" and not self._closed:
            return max(len(self._elements) - self.min_after_dequeue, 0)
        return len(self._elements)

    def _take_one(self) -> tuple:
        if self._pick is None:
            return self._elements.popleft()
        index = self._pick(len(self._elements))
        self._elements[index], self._elements[-1] = self._elements[-1], self._elements[index]
        return self._elements.pop()

    def _put_back(self, taken: list) -> None:
        """Return a failed dequeue's elements where they were (FIFO: at the front)."""
        if self._pick is None:
            self._elements.extendleft(reversed(taken))
        else:
            self._elements.extend(taken)
        taken.clear()

    # --- elements ----------------------------------------------------------------------

    def _needs_shapes(self) -> bool:
        if self.kind == "PaddingFIFOQueue":
            return False
        return any(s is None or None in s for s in self.shapes)

    def _checked(self, element) -> tuple:
        element = tuple(np.array(c, dtype=d, copy=True) for c, d in zip(element, self.dtypes))
        for i, (value, shape) in enumerate(zip(element, self.shapes)):
            if shape is not None and not _fits(value.shape, shape):
                raise InvalidArgumentError(
                    f"Shape mismatch in tuple component {i}. Expected "
                    f"{_dims_text(shape)}, got {_dims_text(value.shape)}", None)
        return element

    def _batched(self, taken: list) -> list:
        out = []
        for i, (dtype, shape) in enumerate(zip(self.dtypes, self.shapes)):
            parts = [element[i] for element in taken]
            if not parts:
                dims = tuple(0 if d is None else d for d in shape)
                out.append(np.zeros((0, *dims), dtype))
            elif self.kind == "PaddingFIFOQueue":
                out.append(_padded_stack(parts, dtype))
            else:
                out.append(np.stack(parts))
        return out


class _ByPriority:
    """A PriorityQueue's elements, leaving lowest priority (the first component) first
    and equal ones in arrival order; the deque calls a FIFO queue makes (``append``,
    ``popleft``, ``extendleft`` to put taken elements back ahead of their priority's
    others, ``len``), so the queue's code is the FIFO queue's."""

    def __init__(self):
        self._heap: list = []          # (priority, arrival, element)
        self._arrivals, self._returns = itertools.count(), itertools.count(-1, -1)

    def __len__(self) -> int:
        return len(self._heap)

    def append(self, element: tuple) -> None:
        heapq.heappush(self._heap, (int(element[0]), next(self._arrivals), element))

    def popleft(self) -> tuple:
        return heapq.heappop(self._heap)[2]

    def extendleft(self, elements) -> None:
        for element in elements:        # as a deque's: the last one ends up first
            heapq.heappush(self._heap, (int(element[0]), next(self._returns), element))


def _fits(actual: tuple, static: tuple) -> bool:
    return len(actual) == len(static) and all(s is None or s == a
                                              for a, s in zip(actual, static))


def _dims_text(dims) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _padded_stack(parts: list, dtype) -> np.ndarray:
    """``parts`` stacked, each padded at the end of every dimension to the largest."""
    biggest = tuple(max(sizes) for sizes in zip(*(p.shape for p in parts)))
    fill = b"" if dtype.kind == "O" else 0
    out = np.full((len(parts), *biggest), fill, dtype)
    for k, part in enumerate(parts):
        out[(k, *(slice(0, n) for n in part.shape))] = part
    return out
