"""Resource containers: where variables (and seeded random streams) live.

A ``ResourceMgr`` maps container name -> resource name -> resource.  A direct session
owns one; on a cluster each worker owns one that outlives client sessions.  ``clear``
drops whole containers (``ds.reset``).  Variable values are never mutated in place:
``Assign`` and ``AssignAdd`` swap in a new array under the variable's lock, so a reader
holding the old array is never disturbed.
"""

from __future__ import annotations

import threading

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError

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
        value = self.value
        if value is None:
            raise FailedPreconditionError(
                f"Attempting to use uninitialized value {self.name}: run its initializer "
                f"first (sess.run(ds.global_variables_initializer())).", node_name)
        return value

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
        with self.lock:
            current = self.read(node_name)
            try:
                updated = current + delta
            except ValueError as e:
                raise InvalidArgumentError(
                    f"Cannot add a value of shape {list(np.shape(delta))} to variable "
                    f"{self.name} of shape {list(current.shape)}: {e}", node_name) from None
            if updated.shape != current.shape:
                raise InvalidArgumentError(
                    f"assign_add would change the shape of variable {self.name} from "
                    f"{list(current.shape)} to {list(updated.shape)}.", node_name)
            self.value = _as_array(updated, self.dtype, node_name)
            return self.value


def _as_array(value, dtype, node_name):
    """A private copy of ``value`` in the backend the value came from (numpy or cupy)."""
    if hasattr(value, "__cuda_array_interface__"):
        return value.astype(dtype, copy=True)
    return np.array(value, dtype=dtype, copy=True)


def _shape_ok(static, actual) -> bool:
    return len(static) == len(actual) and all(s is None or s == a for s, a in zip(static, actual))


class RandomStream:
    """A numpy Generator behind a lock; seeded streams repeat per ResourceMgr."""

    __slots__ = ("generator", "lock")

    def __init__(self, seed: int, seed2: int):
        entropy = None if (seed, seed2) == (0, 0) else [seed, seed2]
        self.generator = np.random.default_rng(entropy)
        self.lock = threading.Lock()


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
