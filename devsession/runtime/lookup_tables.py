"""The lookup tables behind ``ds.lookup``: session resources mapping keys to values.

State: a dict from key (``bytes`` for strings, ``int`` for integers) to value, behind a
lock.  Two kinds, as TF's (``lookup_table_op.cc``, ``initializable_lookup_table.cc``):

* ``StaticTable`` (``HashTableV2``) starts *uninitialized*: finding in it is
  ``FailedPreconditionError("Table not initialized.")`` and its size is 0.  Its first
  initialization fills it; a key given twice with two values is
  ``FailedPreconditionError``.  Once initialized it never changes: initializing again
  with as many entries as it holds does nothing (TF compares only the counts), with
  another count is ``FailedPreconditionError``.
* ``MutableTable`` (``MutableHashTableV2``) starts empty: ``insert`` adds or replaces,
  ``remove`` drops, ``import_`` replaces everything.

``export`` gives every entry (none for a static table not yet initialized).

``find(keys, default)`` gives an array of the keys' shape: each key's value, or the
default (a scalar, or an array of the keys' shape: one default per key) where missing.
"""

from __future__ import annotations

import threading

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError

__all__ = ["SharedTable", "StaticTable", "MutableTable", "table_key"]


def table_key(value):
    """The dict key of one element of a key tensor: bytes for strings, else an int."""
    return value if isinstance(value, bytes) else int(value)


class SharedTable:
    """What every table a session keeps by name has: its kind and dtypes, by which a
    node asking for a table of that name is checked to ask for this one."""

    kind = ""

    def __init__(self, name: str, key_dtype, value_dtype):
        self.name = name
        self.key_dtype = np.dtype(getattr(key_dtype, "np", key_dtype))
        self.value_dtype = np.dtype(getattr(value_dtype, "np", value_dtype))

    def matches(self, kind: str, key_dtype, value_dtype) -> bool:
        """Whether a node asking for this shared table asks for the same one."""
        return (kind, np.dtype(getattr(key_dtype, "np", key_dtype)),
                np.dtype(getattr(value_dtype, "np", value_dtype))) == \
            (self.kind, self.key_dtype, self.value_dtype)


class _Table(SharedTable):
    """What the hash tables share: the entries (a dict) and their lock."""

    def __init__(self, name: str, key_dtype, value_dtype):
        super().__init__(name, key_dtype, value_dtype)
        self._lock = threading.Lock()
        self._entries: dict | None = None

    def size(self) -> int:
        with self._lock:
            return 0 if self._entries is None else len(self._entries)

    def find(self, keys, default, node_name: str) -> np.ndarray:
        keys = np.asarray(keys)
        default = np.asarray(default, dtype=self.value_dtype)
        if default.ndim and default.shape != keys.shape:
            raise InvalidArgumentError(
                f"Expected shape {list(keys.shape)} or [] for default value, got "
                f"{list(default.shape)}", node_name)
        defaults = np.broadcast_to(default, keys.shape)
        with self._lock:
            entries = self._readable(node_name)
            found = [entries.get(table_key(k), d)
                     for k, d in zip(keys.reshape(-1).tolist(), defaults.reshape(-1).tolist())]
        out = np.empty(len(found), self.value_dtype)
        out[:] = found
        return out.reshape(keys.shape)

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            items = list((self._entries or {}).items())
        keys = np.empty(len(items), self.key_dtype)
        values = np.empty(len(items), self.value_dtype)
        keys[:] = [k for k, _ in items]
        values[:] = [v for _, v in items]
        return keys, values

    def _readable(self, node_name: str) -> dict:
        raise NotImplementedError


class StaticTable(_Table):
    """A table filled once by its initializer (TF's ``HashTable``)."""

    kind = "HashTable"

    def initialize(self, keys, values, node_name: str) -> None:
        """Fill the table from ``keys`` and ``values`` (sequences of one length)."""
        with self._lock:
            if self._entries is not None:
                if len(keys) != len(self._entries):
                    raise FailedPreconditionError(
                        "Table was already initialized with different data.", node_name)
                return
            entries = {}
            for key, value in zip(keys, values):
                key = table_key(key)
                held = entries.setdefault(key, value)
                if held != value:
                    raise FailedPreconditionError(
                        f"HashTable has different value for same key. Key {_text(key)} has "
                        f"{_text(held)} and trying to add value {_text(value)}", node_name)
            self._entries = entries

    def _readable(self, node_name: str) -> dict:
        if self._entries is None:
            raise FailedPreconditionError("Table not initialized.", node_name)
        return self._entries


class MutableTable(_Table):
    """A table changed by inserts and removals (TF's ``MutableHashTable``)."""

    kind = "MutableHashTable"

    def __init__(self, name: str, key_dtype, value_dtype):
        super().__init__(name, key_dtype, value_dtype)
        self._entries = {}

    def insert(self, keys, values) -> None:
        with self._lock:
            self._entries.update(zip(map(table_key, keys), values))

    def remove(self, keys) -> None:
        with self._lock:
            for key in keys:
                self._entries.pop(table_key(key), None)

    def import_(self, keys, values) -> None:
        """Replace every entry by ``keys`` -> ``values``."""
        with self._lock:
            self._entries = dict(zip(map(table_key, keys), values))

    def _readable(self, node_name: str) -> dict:
        return self._entries


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
