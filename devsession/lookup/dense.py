"""``ds.lookup.experimental.DenseHashTable``: TF1's table of buckets
(``MutableDenseHashTableV2``), open addressing with quadratic probing, as TF's:
``insert`` (``insert_or_assign``) adds or replaces entries, ``remove`` (``erase``)
drops them, ``lookup`` reads (``default_value`` where missing), ``size`` counts them,
``export`` gives the buckets themselves (``[num_buckets, key size]`` keys, free
buckets holding ``empty_key`` and removed ones ``deleted_key``, and ``[num_buckets,
value size]`` values), in TF's order (``kernels/reference/lookup_dense.py``).

Two keys of the key dtype mark free and removed buckets and may never be used
(``InvalidArgumentError`` when an op meets them, as one equal to the other is when the
table is made).  ``default_value``'s shape is the values' (a scalar or a vector),
``empty_key``'s the keys'.  The buckets start at ``initial_num_buckets`` (a power of
two, at least 4; TF's default 2**17) and double when more than 0.8 of them would hold
entries.

    table = ds.lookup.experimental.DenseHashTable(ds.string, ds.int64, -1,
                                                  empty_key="", deleted_key="$")
    insert = table.insert(ds.constant(["a", "b"]), ds.constant([0, 1], ds.int64))
    ids = table.lookup(ds.constant(["b", "z"]))          # [1, -1] once inserted

As TF's, the table op shares its table by the node's name when ``checkpoint`` (so every
session of a server sees one table) and a ``ds.train.Saver`` saves it, as its export,
under ``<name>-keys`` and ``<name>-values`` (``saveable.py``).
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from .mutable import MutableTable
from .table_ops import make_table

__all__ = ["DenseHashTable"]


class DenseHashTable(MutableTable):
    """A table of ``key_dtype`` keys and ``value_dtype`` values in buckets (see the
    module docstring).  TypeError or ValueError, as TF's, for a default value or key
    that is not of the table's dtype.  ``experimental_is_anonymous``: the table is not
    shared by its node's name (TF's anonymous table op is not built)."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        super().__init__(key_dtype, value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype,
                                                name="default_value")
        self._value_shape = self._default_value.shape
        self._name = name
        attrs = {"value_shape": self._value_shape}     # a shape attr, as TF's
        if initial_num_buckets is not None:
            attrs["initial_num_buckets"] = int(initial_num_buckets)

        def keys():
            return [convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key"),
                    convert_to_tensor(deleted_key, dtype=self._key_dtype,
                                      name="deleted_key")]
        self._made(make_table("MutableDenseHashTableV2", self._key_dtype, self._value_dtype,
                              name, use_node_name_sharing=checkpoint and
                              not experimental_is_anonymous, inputs=keys, attrs=attrs),
                   name, checkpoint)

    def lookup(self, keys, name=None) -> Tensor:
        """Each key's value (``default_value`` where missing): the keys' shape less the
        key's, plus the value's.  ValueError for keys of another dtype."""
        with name_scope(name or f"{self.name}_lookup_table_find"):
            keys = _converted(keys, self._key_dtype, "keys")
            return self._op("LookupTableFindV2", [keys, self._default_value]).outputs[0]

    def insert_or_assign(self, keys, values, name=None):
        """The op setting ``keys[i] -> values[i]``; ValueError for another dtype than
        the table's."""
        with name_scope(name or f"{self.name}_lookup_table_insert"):
            keys = _converted(keys, self._key_dtype, "keys")
            values = _converted(values, self._value_dtype, "values")
            return self._op("LookupTableInsertV2", [keys, values])

    def insert(self, keys, values, name=None):
        return self.insert_or_assign(keys, values, name)

    def erase(self, keys, name=None):
        """The op dropping ``keys`` (keys it lacks are ignored); TypeError, as TF's, for
        keys of another dtype."""
        if isinstance(keys, Tensor) and keys.dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype "
                            f"{_tf_repr(self._key_dtype)}, got {_tf_repr(keys.dtype)}.")
        with name_scope(name or f"{self.name}_lookup_table_remove"):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            return self._op("LookupTableRemoveV2", [keys])

    def remove(self, keys, name=None):
        return self.erase(keys, name)


def _converted(value, dtype, name: str) -> Tensor:
    """``value`` as a tensor of ``dtype``; a tensor of another dtype is ValueError, as
    TF's ``convert_to_tensor`` makes it."""
    if isinstance(value, Tensor) and value.dtype != dtype:
        raise ValueError(f"{name}: Tensor conversion requested dtype {dtype.name} for "
                         f"Tensor with dtype {value.dtype.name}: {value!r}")
    return convert_to_tensor(value, dtype=dtype, name=name)


def _tf_repr(dtype) -> str:
    return f"<dtype: '{dtype.name}'>"
