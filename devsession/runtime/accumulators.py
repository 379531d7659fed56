"""The conditional accumulators behind TF1's ``ConditionalAccumulator`` and
``SparseConditionalAccumulator``: session resources that gather the gradients of several
replicas for one training step and hand out their average.

State: the accumulator's *global step*, the gradients summed so far and their count,
and a line of waiting takers.  As TF's (``conditional_accumulator_base.cc``):

* ``apply(local_step, gradient)`` drops a stale gradient (``local_step`` below the
  global step) without a word and without looking at it; a fresh one is checked
  against the accumulator's shape and the gradients already summed, then added;
* ``take(num_required)`` waits, in arrival order, until ``num_required`` gradients are
  in, then returns their average (``reduction_type`` "MEAN"; "SUM": their sum), and
  resets: the sum and count go back to nothing and the global step goes up by one, so
  the gradients of the step just taken are stale from then on;
* ``set_global_step(step)`` moves the global step (a smaller one only earns a warning).

A sparse accumulator sums rows by index (the result sorted by index) and averages each
row over the gradients that held it, as TF's element-wise average does.  TF's merge
assumes each gradient's indices sorted and unique (other orders leave rows unmerged);
here rows are summed by index whatever their order, a row named twice in one gradient
being the sum of both, as an ``IndexedSlices`` means.

Waiting is bounded by the step, as a queue's (``runtime/queues.py``): ``check()`` raises
when the step's deadline passed or its session closed, and a waiting take wakes at least
every ``_POLL_S`` to call it.
"""

from __future__ import annotations

import collections
import logging
import threading

import numpy as np

from ..errors import InvalidArgumentError

__all__ = ["Accumulator", "SparseAccumulator"]

log = logging.getLogger("devsession")

_POLL_S = 0.05     # how often a waiting take looks at its step's deadline


class _Conditional:
    """What both accumulators share: the global step, the count and the takers' line.
    ``shape``: a tuple of int-or-None per dimension, or None for an unknown rank."""

    kind = ""

    def __init__(self, name: str, dtype, shape, reduction_type: str = "MEAN"):
        self.name = name
        self.dtype = np.dtype(getattr(dtype, "np", dtype))
        shape = getattr(shape, "dims", shape)          # a TensorShape's int-or-None sizes
        self.shape = None if shape is None else tuple(shape)
        self.reduction_type = reduction_type
        self._global_step = 0
        self._counter = 0
        self._changed = threading.Condition()
        self._takers: collections.deque = collections.deque()

    def num_accumulated(self) -> int:
        with self._changed:
            return self._counter

    def global_step(self) -> int:
        with self._changed:
            return self._global_step

    def set_global_step(self, step: int) -> None:
        with self._changed:
            if step < self._global_step:
                log.warning("Attempt to set current_global_step_ to smaller value: "
                            "current_global_step_ = %d >= %d = new_global_step.",
                            self._global_step, step)
            self._global_step = int(step)

    def apply(self, local_step: int, gradient, node_name: str) -> None:
        """Add ``gradient`` unless it is stale; ``InvalidArgumentError`` for a shape
        the accumulator cannot take."""
        with self._changed:
            if local_step < self._global_step:
                return
            gradient = self._validated(gradient, node_name)
            self._add(gradient)
            self._counter += 1
            self._changed.notify_all()

    def take(self, num_required: int, check, node_name: str):
        """The average (or sum) of at least ``num_required`` gradients, once they are
        in; then the accumulator starts the next step."""
        if num_required < 1:
            raise InvalidArgumentError(f"Argument num_required must be positive, but was "
                                       f"{num_required}", node_name)
        with self._changed:
            ticket = object()
            self._takers.append(ticket)
            try:
                while not (self._takers[0] is ticket and self._counter >= num_required):
                    check()
                    self._changed.wait(_POLL_S)
                result = self._reduced()
                self._global_step += 1
                self._counter = 0
                self._clear()
                return result
            finally:
                self._takers.remove(ticket)
                self._changed.notify_all()

    def matches(self, kind: str, dtype, shape) -> bool:
        """Whether a node asking for this shared accumulator asks for the same one."""
        return (kind, np.dtype(getattr(dtype, "np", dtype)),
                None if shape is None else tuple(shape)) == (self.kind, self.dtype, self.shape)

    # --- what each kind implements (called with the lock held) ---------------------------

    def _validated(self, gradient, node_name: str):
        raise NotImplementedError

    def _add(self, gradient) -> None:
        raise NotImplementedError

    def _reduced(self):
        raise NotImplementedError

    def _clear(self) -> None:
        raise NotImplementedError


class Accumulator(_Conditional):
    """Dense gradients of one shape, summed in the accumulator's dtype."""

    kind = "ConditionalAccumulator"

    def __init__(self, name: str, dtype, shape, reduction_type: str = "MEAN"):
        super().__init__(name, dtype, shape, reduction_type)
        self._sum: np.ndarray | None = None

    def _validated(self, gradient, node_name: str) -> np.ndarray:
        gradient = np.asarray(gradient)
        if self._sum is not None and self._sum.shape != gradient.shape:
            raise InvalidArgumentError(f"Shape mismatch: expected {_dims(self._sum.shape)}, "
                                       f"got {_dims(gradient.shape)}", node_name)
        if not _fits(gradient.shape, self.shape):
            raise InvalidArgumentError(f"Shape mismatch: expected {_dims(self.shape)}, got "
                                       f"{_dims(gradient.shape)}", node_name)
        return gradient

    def _add(self, gradient) -> None:
        if self._sum is None:
            self._sum = np.array(gradient, dtype=self.dtype, copy=True)
        else:
            self._sum += gradient.astype(self.dtype, copy=False)

    def _reduced(self) -> np.ndarray:
        if self.reduction_type == "SUM":
            return self._sum
        return (self._sum / self.dtype.type(self._counter)).astype(self.dtype, copy=False)

    def _clear(self) -> None:
        self._sum = None


class SparseAccumulator(_Conditional):
    """Sparse gradients (``indices``, ``values`` rows, a dense ``shape``), summed row by
    row; each row of the result is averaged over the gradients that held it."""

    kind = "SparseConditionalAccumulator"

    def __init__(self, name: str, dtype, shape, reduction_type: str = "MEAN"):
        super().__init__(name, dtype, shape, reduction_type)
        self._clear()

    def _validated(self, gradient, node_name: str) -> tuple:
        indices, values, dense_shape = gradient
        indices, values = np.asarray(indices, np.int64), np.asarray(values)
        if indices.ndim != 1:
            raise InvalidArgumentError(f"Input indices should be vector but received shape: "
                                       f"{_dims(indices.shape)}", node_name)
        if values.ndim == 0:
            raise InvalidArgumentError("Values cannot be 0-dimensional.", node_name)
        if values.shape[0] != indices.shape[0]:
            raise InvalidArgumentError(f"Expected {indices.shape[0]} non-empty input values, "
                                       f"got {values.shape[0]}", node_name)
        _check_sparse_shape(self.shape, indices, values, dense_shape,
                            None if self._values is None else self._values.shape, node_name)
        return indices, values

    def _add(self, gradient) -> None:
        indices, values = gradient
        # a row named twice in one gradient is their sum, and counts once
        indices, values, _ = _by_index(indices, values.astype(self.dtype, copy=False),
                                       np.ones(len(indices), np.int64))
        counts = np.ones(len(indices), np.int64)
        if self._values is not None:
            indices, values, counts = _by_index(
                np.concatenate([self._indices, indices]),
                np.concatenate([self._values, values]),
                np.concatenate([self._counts, counts]))
        self._indices, self._values, self._counts = indices, values, counts

    def _reduced(self) -> tuple:
        values = self._values
        if self.reduction_type != "SUM":
            per_row = self._counts.reshape(-1, *(1,) * (values.ndim - 1))
            values = (values / per_row.astype(self.dtype)).astype(self.dtype, copy=False)
        first = self.shape[0] if self.shape else None
        dense_shape = np.array([-1 if first is None else first, *values.shape[1:]], np.int64)
        return self._indices, values, dense_shape

    def _clear(self) -> None:
        self._indices = self._values = self._counts = None


def _by_index(indices, values, counts) -> tuple:
    """The rows of ``values`` (and their ``counts``) summed by index, sorted by index."""
    unique, where = np.unique(indices, return_inverse=True)
    summed = np.zeros((len(unique), *values.shape[1:]), values.dtype)
    np.add.at(summed, where, values)
    return unique, summed, np.bincount(where, counts, len(unique)).astype(np.int64)


def _check_sparse_shape(shape, indices, values, dense_shape, summed_shape, node_name) -> None:
    """TF's checks of a sparse gradient against the accumulator's ``shape`` (a tuple or
    None) and the values summed so far (``summed_shape``, None before the first)."""
    def mismatch(text):
        return InvalidArgumentError(f"Shape mismatch: {text}", node_name)

    rank = None if shape is None else len(shape)
    if dense_shape is not None and rank is not None:
        dense_shape = np.asarray(dense_shape).reshape(-1)
        if rank > dense_shape.size:
            raise mismatch(f"expected shape rank at least {rank}, got {dense_shape.size}")
        for i, (want, got) in enumerate(zip(shape, dense_shape)):
            if want is not None and want != got:
                raise mismatch(f"expected shape dim {i} to be {want}, got {got}")
    if rank and shape[0] is not None:
        for i, index in enumerate(indices):
            if index >= shape[0]:
                raise mismatch(f"index of slice {i} exceeded limits of shape; index is "
                               f"{index} exceeded {shape[0]}")
    if summed_shape is not None:
        if len(summed_shape) != values.ndim:
            raise mismatch(f"expected values rank {len(summed_shape)}, got {values.ndim}")
        for i in range(1, values.ndim):
            if summed_shape[i] != values.shape[i]:
                raise mismatch(f"expected values dim {i} to be {summed_shape[i]}, got "
                               f"{values.shape[i]}")
    elif rank is not None:
        if rank > values.ndim:
            raise mismatch(f"expected values rank at least {rank}, got {values.ndim}")
        for i in range(1, rank):
            if shape[i] is not None and shape[i] != values.shape[i]:
                raise mismatch(f"expected values dim {i} to be {shape[i]}, got "
                               f"{values.shape[i]}")


def _fits(actual: tuple, static) -> bool:
    return static is None or (len(actual) == len(static) and
                              all(s is None or s == a for a, s in zip(actual, static)))


def _dims(dims) -> str:
    """A shape as TF's DebugString prints it: ``[2,?]``, ``<unknown>``."""
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
