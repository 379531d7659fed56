"""The table behind ``ds.lookup.experimental.DenseHashTable`` (a session resource, as
``devsession/runtime/lookup_tables.py``'s): TF's ``MutableDenseHashTable``
(``core/kernels/lookup_table_op.cc``), bucket for bucket.

State: ``num_buckets`` (a power of two, at least 4) buckets, each a key and a value;
a bucket whose key is ``empty_key`` is free, one whose key is ``deleted_key`` held a
removed entry.  Keys are scalars or vectors (the empty key's shape), values scalars or
vectors (``value_shape``).  A key's hash is TF's: an integer's bits as uint64 (an int32
sign-extended), a string's TF ``Hash64``, a vector's elements' hashes chained by
``Hash64Combine``.  Its probe sequence starts at ``hash & (num_buckets - 1)`` and steps
1, 2, 3... buckets on (quadratic probing):

* ``find`` walks it to the key (its value) or to an empty bucket (the default);
* ``insert`` walks it to the key (its value replaced) or to the first empty *or
  deleted* bucket (the entry placed there).  As TF's, a key already held past a deleted
  bucket of its sequence is then held twice, and counted twice;
* ``remove`` walks it to the key (its bucket's key becomes ``deleted_key``; the value
  stays) or to an empty bucket.

Before an insert of n keys, when ``size + n`` exceeds ``max_load_factor`` (float32, 0.8)
of the buckets, their number doubles until it does not, and every held entry is
inserted anew in bucket order.  ``export`` gives the buckets themselves:
``[num_buckets, key size]`` keys and ``[num_buckets, value size]`` values (free buckets'
values are zeros), which ``import_`` takes back as they are (a power of two of them,
at least 4: TF takes any count, and then reads past them).  A key equal to the empty or
deleted key is ``InvalidArgumentError`` (the keys before it in an insert or remove are
done, as TF's).
"""

from __future__ import annotations

import threading

import numpy as np

from devsession.errors import InternalError, InvalidArgumentError
from devsession.runtime.lookup_tables import SharedTable

from .tf_hash64 import tf_hash64

__all__ = ["DenseTable", "shape_text"]

_M = (1 << 64) - 1


def shape_text(shape) -> str:
    """A shape as TF's messages write it: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def hash64_combine(a: int, b: int) -> int:
    """TF's ``Hash64Combine``."""
    return a ^ ((b + 0x9E3779B97F4A7800 + (a << 10) + (a >> 4)) & _M)


def _hash_scalar(key) -> int:
    return tf_hash64(key) if isinstance(key, bytes) else key & _M


class DenseTable(SharedTable):
    """One ``MutableDenseHashTable`` (see the module docstring)."""

    kind = "MutableDenseHashTable"

    def __init__(self, name: str, key_dtype, value_dtype, empty_key, deleted_key,
                 value_shape, num_buckets: int, max_load_factor: float, node_name: str):
        super().__init__(name, key_dtype, value_dtype)
        self._max_load = np.float32(max_load_factor)
        if not 0 < self._max_load < 1:
            raise InvalidArgumentError(f"max_load_factor must be between 0 and 1, got: "
                                       f"{max_load_factor}", node_name)
        self.value_shape = tuple(int(d) for d in value_shape)
        if len(self.value_shape) > 1:
            raise InvalidArgumentError(f"Empty value must be a scalar or a vector, got "
                                       f"shape {shape_text(self.value_shape)}", node_name)
        empty, deleted = np.asarray(empty_key), np.asarray(deleted_key)
        if empty.ndim > 1:
            raise InvalidArgumentError(f"Empty key must be a scalar or a vector, got shape "
                                       f"{shape_text(empty.shape)}", node_name)
        if deleted.shape != empty.shape:
            raise InvalidArgumentError(
                f"Empty and deleted keys must have same shape, got shapes: "
                f"{shape_text(empty.shape)} and {shape_text(deleted.shape)}", node_name)
        self.key_shape = empty.shape
        self._key_size = int(empty.size)
        self._value_size = int(np.prod(self.value_shape, dtype=np.int64))
        self._empty = self._rows(empty.reshape(1, -1))[0]
        self._deleted = self._rows(deleted.reshape(1, -1))[0]
        if self._empty == self._deleted:
            raise InvalidArgumentError("Empty and deleted keys cannot be equal", node_name)
        self._lock = threading.Lock()
        self._allocate(int(num_buckets), node_name)

    def size(self) -> int:
        with self._lock:
            return self._count

    # --- the ops -----------------------------------------------------------------------

    def find(self, keys, default, node_name: str) -> np.ndarray:
        """Each key's value: an array of the keys' shape less the key's, plus the
        value's."""
        keys = np.asarray(keys)
        default = np.asarray(default, dtype=self.value_dtype)
        self._check_key_shape(keys, node_name)
        outer = keys.shape[:keys.ndim - len(self.key_shape)]
        full = outer + self.value_shape
        if default.shape not in (self.value_shape, full):
            raise InvalidArgumentError(
                f"Expected shape {shape_text(self.value_shape)} or {shape_text(full)} for "
                f"argument 'default_value', got {shape_text(default.shape)}", node_name)
        rows = self._key_rows(keys, node_name)
        first_default = default.reshape(-1)[:self._value_size]
        out = np.empty((len(rows), self._value_size), self.value_dtype)
        with self._lock:
            for i, key in enumerate(rows):
                self._check_usable(key, node_name)
                bucket = self._walk(key, "lookup", node_name, stop_at_deleted=False)
                out[i] = first_default if bucket is None else self._values[bucket]
        return out.reshape(full)

    def insert(self, keys, values, node_name: str) -> None:
        keys, values = np.asarray(keys), np.asarray(values, dtype=self.value_dtype)
        self._check_pairs(keys, values, node_name, vectorized=False)
        rows = self._key_rows(keys, node_name)
        with self._lock:
            pending = self._count + len(rows)
            if np.float32(pending) > np.float32(self._num_buckets) * self._max_load:
                buckets = self._num_buckets
                while True:
                    buckets <<= 1
                    if not np.float32(pending) > np.float32(buckets) * self._max_load:
                        break
                self._rebucket(buckets, node_name)
            self._insert_rows(rows, values.reshape(len(rows), self._value_size),
                              node_name, skip_unusable=False)

    def remove(self, keys, node_name: str) -> None:
        keys = np.asarray(keys)
        self._check_key_shape(keys, node_name)
        rows = self._key_rows(keys, node_name)
        with self._lock:
            for key in rows:
                self._check_usable(key, node_name)
                bucket = self._walk(key, "remove", node_name, stop_at_deleted=False)
                if bucket is not None:
                    self._slots[bucket] = self._deleted
                    self._count -= 1

    def import_(self, keys, values, node_name: str) -> None:
        """Take ``keys`` and ``values`` as the buckets (what ``export`` gave)."""
        keys, values = np.asarray(keys), np.asarray(values, dtype=self.value_dtype)
        self._check_pairs(keys, values, node_name, vectorized=True)
        if keys.ndim != 2 or keys.shape[1] != self._key_size:
            raise InvalidArgumentError(
                f"devsession's dense table imports buckets of shape [n,{self._key_size}] "
                f"(what export gives), got {shape_text(keys.shape)}", node_name)
        count = len(keys)
        if count < 4 or count & (count - 1):     # TF takes any count, and then misreads
            raise InvalidArgumentError(f"Number of buckets must be at least 4 and a power "
                                       f"of 2, got: {count}", node_name)
        slots = self._rows(keys)
        with self._lock:
            self._num_buckets = len(slots)
            self._slots = slots
            self._values = values.reshape(len(slots), self._value_size).copy()
            self._count = sum(1 for key in slots
                              if key != self._empty and key != self._deleted)

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            keys = np.empty((self._num_buckets, self._key_size), self.key_dtype)
            if self._key_size == 1:
                keys[:, 0] = self._slots
            elif self._num_buckets:
                keys[:] = self._slots
            return keys, self._values.copy()

    # --- buckets -----------------------------------------------------------------------

    def _allocate(self, num_buckets: int, node_name: str) -> None:
        if num_buckets < 4 or num_buckets & (num_buckets - 1):
            raise InvalidArgumentError(f"Number of buckets must be at least 4 and a power "
                                       f"of 2, got: {num_buckets}", node_name)
        self._num_buckets = num_buckets
        self._count = 0
        self._slots = [self._empty] * num_buckets
        self._values = np.zeros((num_buckets, self._value_size), self.value_dtype)

    def _rebucket(self, num_buckets: int, node_name: str) -> None:
        slots, values = self._slots, self._values
        self._allocate(num_buckets, node_name)
        self._insert_rows(slots, values, node_name, skip_unusable=True)

    def _insert_rows(self, rows, values, node_name: str, skip_unusable: bool) -> None:
        for key, value in zip(rows, values):
            if key == self._empty or key == self._deleted:
                if skip_unusable:
                    continue
                self._check_usable(key, node_name)
            bucket = self._walk(key, "insert", node_name, stop_at_deleted=True)
            if self._slots[bucket] != key:
                self._slots[bucket] = key
                self._count += 1
            self._values[bucket] = value

    def _walk(self, key, what: str, node_name: str, stop_at_deleted: bool):
        """The bucket holding ``key``, else None, or with ``stop_at_deleted`` the first
        free or deleted bucket of its sequence (for an insert)."""
        mask = self._num_buckets - 1
        bucket, probes = self._hash(key) & mask, 0
        while True:
            held = self._slots[bucket]
            if held == key:
                return bucket
            if held == self._empty or (stop_at_deleted and held == self._deleted):
                return bucket if stop_at_deleted else None
            probes += 1
            bucket = (bucket + probes) & mask
            if probes >= self._num_buckets:
                raise InternalError(f"Internal error in MutableDenseHashTable {what}",
                                    node_name)

    def _hash(self, key) -> int:
        if self._key_size == 1:
            return _hash_scalar(key)
        result = 0
        for element in key:
            result = hash64_combine(result, _hash_scalar(element))
        return result

    # --- keys --------------------------------------------------------------------------

    def _rows(self, matrix: np.ndarray) -> list:
        """The keys of a ``[n, key size]`` array: scalars (int or bytes) for scalar
        keys, else tuples."""
        items = matrix.tolist()
        if self._key_size == 1:
            return [row[0] for row in items]
        return [tuple(row) for row in items]

    def _key_rows(self, keys: np.ndarray, node_name: str) -> list:
        """The keys of a keys tensor, as TF reads them: its first dimension (1 for a
        scalar) many keys of the key's size."""
        count = 1 if keys.ndim == 0 else keys.shape[0]
        if keys.size != count * self._key_size:
            raise InvalidArgumentError(
                f"Expected key shape {shape_text((count, *self.key_shape))} got "
                f"{shape_text(keys.shape)}", node_name)
        return self._rows(keys.reshape(count, self._key_size))

    def _check_usable(self, key, node_name: str) -> None:
        for which, special in (("empty", self._empty), ("deleted", self._deleted)):
            if key == special:
                raise InvalidArgumentError(
                    f"Using the {which}_key as a table key is not allowed", node_name)

    def _check_key_shape(self, keys: np.ndarray, node_name: str) -> None:
        if keys.shape[keys.ndim - len(self.key_shape):] != self.key_shape or \
                keys.ndim < len(self.key_shape):
            raise InvalidArgumentError(
                f"Input key shape {shape_text(keys.shape)} must end with the table's key "
                f"shape {shape_text(self.key_shape)}", node_name)

    def _check_pairs(self, keys, values, node_name: str, vectorized: bool) -> None:
        """TF's shape check of an insert's (or, ``vectorized``, an import's, whose keys
        and values are per bucket vectors) keys and values."""
        self._check_key_shape(keys, node_name)
        key_dims = max(len(self.key_shape), 1) if vectorized else len(self.key_shape)
        value_shape = (self.value_shape or (1,)) if vectorized else self.value_shape
        expected = keys.shape[:keys.ndim - key_dims] + value_shape
        if values.shape != expected:
            raise InvalidArgumentError(f"Expected shape {shape_text(expected)} for value, "
                                       f"got {shape_text(values.shape)}", node_name)
