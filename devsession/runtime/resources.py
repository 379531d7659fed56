"""Resource containers: where variables (and seeded random streams, and dataset
iterators) live.

A ``ResourceMgr`` maps container name -> resource name -> resource.  A direct session
owns one; on a cluster each worker owns one that outlives client sessions.  ``clear``
drops whole containers (``ds.reset``).

Values and readers: ``VariableV2`` hands its kernel the variable's current array itself
(no copy per read), so that array may be held by a running step (its slot, or a view
of it) while another op changes the variable.  Two ways of changing it keep such a
reader undisturbed:

* ``Assign``, ``AssignAdd`` and ``AssignSub`` swap in a new array under the variable's
  lock.
* The optimizers' fused updates (``ApplyAdam``...) update in place, as TF does, to make
  no full-size temporaries per step: under the lock they ask ``updatable()`` for the
  array, which is the current one when nothing else references it (Python's reference
  count, calibrated once at import, sees every slot and view holding it) and otherwise
  a private copy swapped in first (copy-on-write).  ``read`` takes the lock too, so a
  reader never picks up an array mid-update.  So a step reading the variable sees one
  whole value, and a value it still holds (or a fetch being copied out) never changes.
"""

from __future__ import annotations

import operator
import sys
import threading

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ..kernels.reference.philox import seed_pair_stream   # (loaded by the optimizer anyway)

__all__ = ["ResourceMgr", "VariableResource", "RandomStream"]


class VariableResource:
    """One variable's current value (None until initialized)."""

    __slots__ = ("name", "dtype", "shape", "value", "lock")

    def __init__(self, name: str, dtype: np.dtype, shape):
        self.name = name
        self.dtype = np.dtype(dtype)
        self.shape = shape
        self.value: np.ndarray | None = None
        self.lock = threading.Lock()

    def read(self, node_name: str) -> np.ndarray:
        """The current value; waits for an in-place update in progress to finish."""
        with self.lock:
            return self._current(node_name)

    def _current(self, node_name: str) -> np.ndarray:
        value = self.value
        if value is None:
            raise FailedPreconditionError(
                f"Attempting to use uninitialized value {self.name}: run its initializer "
                f"first (sess.run(ds.global_variables_initializer())).", node_name)
        return value

    def updatable(self, node_name: str):
        """The array to update in place; call with ``lock`` held (which ``read`` waits
        for, so no reader picks the array up mid-update).  The current value when no
        one else references it and it is C-contiguous, else a private C-contiguous
        copy, swapped in first.  ``FailedPreconditionError`` if the variable is not
        initialized."""
        self._current(node_name)
        if self._references_to_value() > _UNSHARED_REFERENCES or \
                not self.value.flags.c_contiguous:
            self.value = self.value.copy()
        return self.value

    def _references_to_value(self) -> int:
        return sys.getrefcount(self.value)

    def assign(self, value, node_name: str, validate_shape: bool = True):
        value = _as_array(value, self.dtype, node_name)
        if validate_shape and self.shape is not None and not _shape_ok(self.shape, value.shape):
            raise InvalidArgumentError(
                f"Cannot assign a value of shape {list(value.shape)} to variable {self.name} "
                f"of shape {list(self.shape)}.", node_name)
        with self.lock:
            self.value = value
        return value

    def assign_add(self, delta, node_name: str):
        return self._combine(delta, node_name, operator.add, "add", "assign_add")

    def assign_sub(self, delta, node_name: str):
        return self._combine(delta, node_name, operator.sub, "subtract", "assign_sub")

    def count_up_to(self, limit: int, node_name: str) -> np.ndarray:
        """Add 1 and give the value before; ``OutOfRangeError`` once it reached
        ``limit`` (TF1's ``CountUpTo``)."""
        with self.lock:
            before = self._current(node_name)
            if before >= limit:
                raise OutOfRangeError(f"Reached limit of {limit}", node_name)
            self.value = np.array(before + 1, before.dtype)
            return np.array(before, before.dtype)

    def _combine(self, delta, node_name: str, combine, verb: str, op_name: str):
        with self.lock:
            current = self._current(node_name)
            try:
                updated = combine(current, delta)
            except ValueError as e:
                raise InvalidArgumentError(
                    f"Cannot {verb} a value of shape {list(np.shape(delta))} to variable "
                    f"{self.name} of shape {list(current.shape)}: {e}", node_name) from None
            if updated.shape != current.shape:
                raise InvalidArgumentError(
                    f"{op_name} would change the shape of variable {self.name} from "
                    f"{list(current.shape)} to {list(updated.shape)}.", node_name)
            self.value = _as_array(updated, self.dtype, node_name)
            return self.value


def _unshared_references() -> int:
    """What ``_references_to_value`` counts for a value nothing else holds (the
    interpreter's own references differ between Python versions, so measure them)."""
    probe = VariableResource("probe", np.float32, None)
    probe.value = np.empty(1, np.float32)
    return probe._references_to_value()


_UNSHARED_REFERENCES = _unshared_references()


def _as_array(value, dtype, node_name):
    """A private copy of ``value`` in the backend the value came from (numpy or cupy)."""
    if hasattr(value, "__cuda_array_interface__"):
        return value.astype(dtype, copy=True)
    return np.array(value, dtype=dtype, copy=True)


def _shape_ok(static, actual) -> bool:
    return len(static) == len(actual) and all(s is None or s == a for s, a in zip(static, actual))


_MASK128 = (1 << 128) - 1


class RandomStream:
    """A seeded random op's state, behind a lock; seeded streams repeat per ResourceMgr.

    TF's ``GuardedPhiloxRandom``: a Philox stream whose key is the ``seed`` attr and whose
    128-bit counter starts with ``seed2`` in its upper half (both as uint64; ``(0, 0)``
    asks for random ones), moved on by ``reserve``, so RandomUniform,
    RandomStandardNormal, TruncatedNormal, RandomUniformInt, RandomShuffle, Multinomial,
    RandomGamma, RandomPoissonV2, the candidate samplers and SampleDistortedBoundingBox
    give TF's values."""

    __slots__ = ("lock", "_key", "_counter")

    def __init__(self, seed: int, seed2: int):
        if (seed, seed2) == (0, 0):
            seed, seed2 = (int(word) for word in np.random.default_rng().integers(
                0, 2**64, 2, dtype=np.uint64))
        self._key, words = seed_pair_stream(seed, seed2)
        self._counter = words[2] << 64 | words[3] << 96
        self.lock = threading.Lock()

    def reserve(self, blocks: int) -> tuple[tuple, tuple]:
        """The (key, counter) words of the Philox stream where it stands, moved on by
        ``blocks`` 128-bit blocks (TF's ``ReserveSamples128``); call with ``lock`` held."""
        counter = self._counter
        self._counter = (counter + blocks) & _MASK128
        return self._key, tuple((counter >> shift) & 0xFFFFFFFF for shift in (0, 32, 64, 96))


class ResourceMgr:
    """Containers of named resources; thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._containers: dict[str, dict[str, object]] = {}

    def variable(self, container: str, name: str, dtype, shape) -> VariableResource:
        """The variable ``name`` in ``container``, created (uninitialized) if missing."""
        with self._lock:
            store = self._containers.setdefault(container, {})
            found = store.get(name)
            if found is None:
                found = store[name] = VariableResource(name, dtype, shape)
            elif not isinstance(found, VariableResource) or found.dtype != np.dtype(dtype):
                raise InvalidArgumentError(
                    f"Resource '{name}' in container '{container}' exists with another type "
                    f"or dtype ({getattr(found, 'dtype', type(found).__name__)}).", name)
            return found

    def random_stream(self, name: str, seed: int, seed2: int) -> RandomStream:
        with self._lock:
            store = self._containers.setdefault("_random", {})
            found = store.get(name)
            if found is None:
                found = store[name] = RandomStream(seed, seed2)
            return found

    def get(self, container: str, name: str):
        """The resource ``name`` of ``container`` (a dataset iterator...), or None."""
        with self._lock:
            return self._containers.get(container, {}).get(name)

    def put(self, container: str, name: str, resource) -> None:
        """Store ``resource`` as ``name`` of ``container``, replacing what was there."""
        with self._lock:
            self._containers.setdefault(container, {})[name] = resource

    def get_or_put(self, container: str, name: str, make, shared: bool = False):
        """The resource ``name`` of ``container``, made by ``make()`` and stored when
        missing (once, however many threads ask at the same time).  ``shared``: made
        under a shared name, so on a server every session's (a worker's
        ``SessionResources``); a direct session's resources are all its own."""
        with self._lock:
            store = self._containers.setdefault(container, {})
            found = store.get(name)
            if found is None:
                found = store[name] = make()
            return found

    def clear(self, containers=None) -> None:
        """Drop the named containers (every container when None)."""
        with self._lock:
            if containers is None:
                self._containers.clear()
            else:
                for name in containers:
                    self._containers.pop(name, None)

    def containers(self) -> list[str]:
        with self._lock:
            return sorted(self._containers)
