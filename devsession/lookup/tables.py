"""TF1's lookup tables: ``ds.lookup.StaticHashTable`` (filled once by an initializer,
then read), ``ds.lookup.StaticVocabularyTable`` (a vocabulary's ids, and hash buckets
for the words it lacks) and ``ds.lookup.experimental.MutableHashTable`` (changed by
inserts), with ``ds.tables_initializer``.

A table is a session resource (``runtime/lookup_tables.py``) made by its table op and
named by the op's output, a handle.  A static table must be initialized before it is
read: run ``table.initializer``, or ``ds.tables_initializer()``, which groups every
initializer of the graph (``GraphKeys.TABLE_INITIALIZERS``).  Reading it earlier is
``FailedPreconditionError`` ("Table not initialized."), as TF's.

    table = ds.lookup.StaticVocabularyTable(
        ds.lookup.KeyValueTensorInitializer(["emerson", "lake"], ds.constant([0, 1], ds.int64)),
        num_oov_buckets=3)
    ids = table.lookup(ds.constant(["lake", "palmer"]))   # [1, 2 + a bucket in [0, 3)]
    with ds.Session() as sess:
        sess.run(ds.tables_initializer())
        sess.run(ids)

A vocabulary table's bucket for a word it lacks is ``size + Fingerprint64(word) %
num_oov_buckets`` (an integer key's decimal text is hashed), as TF builds it from
``StringToHashBucketFast``, ``LookupTableFindV2`` and ``SelectV2``.  Keys of another
dtype than the table's are TypeError when the lookup is built.  Nodes and shared names
are TF's (``hash_table``, ``hash_table_Lookup/LookupTableFindV2``...), so a GraphDef
TensorFlow wrote imports and runs.
"""

from __future__ import annotations

import uuid

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from ..graph_keys import GraphKeys
from ..ops.elementwise import add_v2, cast, not_equal, where
from ..ops.lookup import KEY_DTYPES
from ..ops.state import group, no_op
from ..ops.strings import as_string, string_to_hash_bucket_fast
from ..sparse_tensor import SparseTensor
from .table_ops import make_table, table_op

__all__ = ["LookupInterface", "StaticHashTable", "StaticVocabularyTable",
           "tables_initializer", "initialize_all_tables"]


def tables_initializer(name: str = "init_all_tables"):
    """The op running every table initializer of the default graph (a NoOp when it has
    none), as TF1's."""
    initializers = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)


initialize_all_tables = tables_initializer     # TF1's older name


class LookupInterface:
    """What every table has: its dtypes, name and handle, ``lookup`` and ``size``."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    name = property(lambda self: self._table_name)
    resource_handle = property(lambda self: self._resource_handle)

    def lookup(self, keys, name=None):
        raise NotImplementedError

    def size(self, name=None) -> Tensor:
        raise NotImplementedError

    def __getitem__(self, keys):
        return self.lookup(keys)

    def _keys(self, keys):
        """``keys`` (a Tensor or SparseTensor, or values one can hold) as the table's key
        dtype; TypeError for a tensor of another."""
        if not isinstance(keys, (Tensor, SparseTensor)):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: "
                            f"{keys.dtype}")
        return keys


def _dense_then_back(keys, lookup):
    """``lookup`` of a dense keys tensor: ``keys`` itself, or a SparseTensor's values
    (the result a SparseTensor of the same indices)."""
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, lookup(keys.values), keys.dense_shape)
    return lookup(keys)


class StaticHashTable(LookupInterface):
    """A table an initializer fills once (``HashTableV2``); ``lookup`` gives
    ``default_value`` (a scalar of the value dtype) for a missing key."""

    def __init__(self, initializer, default_value, name=None,
                 experimental_is_anonymous=False):
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        if self._key_dtype not in KEY_DTYPES:
            raise TypeError(f"A table's keys are int32, int64 or string, not "
                            f"{self._key_dtype.name}.")
        self._initializer = initializer
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        if self._default_value.shape.rank not in (None, 0):
            raise ValueError(f"Shapes {self._default_value.shape} and () are incompatible")
        shared = initializer._shared_name or f"hash_table_{uuid.uuid4()}"
        self._resource_handle = make_table("HashTableV2", self._key_dtype,
                                           self._value_dtype, name or "hash_table", shared)
        self._table_name = self._resource_handle.op.name.split("/")[-1]
        self._init_op = initializer.initialize(self)

    initializer = property(lambda self: self._init_op)
    default_value = property(lambda self: self._default_value)

    def size(self, name=None) -> Tensor:
        """The number of entries (int64; 0 before the table is initialized)."""
        with name_scope(name or f"{self.name}_Size"):
            return table_op("LookupTableSizeV2", self._resource_handle).outputs[0]

    def lookup(self, keys, name=None):
        """Each key's value, ``default_value`` where missing: a tensor of the keys'
        shape (a SparseTensor for SparseTensor keys).  TypeError for keys of another
        dtype than the table's."""
        keys = self._keys(keys)

        def find(dense):
            with name_scope(name or f"{self.name}_Lookup"):
                return table_op("LookupTableFindV2", self._resource_handle,
                                [dense, self._default_value]).outputs[0]
        return _dense_then_back(keys, find)

    def export(self, name=None):
        """(keys, values): every entry, in no particular order."""
        with name_scope(name or f"{self.name}_Export"):
            op = table_op("LookupTableExportV2", self._resource_handle, (),
                          {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype})
        return op.outputs[0], op.outputs[1]


class StaticVocabularyTable(LookupInterface):
    """String (or integer) keys to int64 ids: the initializer's ids for the keys it
    holds, ``size + Fingerprint64(key) % num_oov_buckets`` for the others (see the
    module docstring).  Without an initializer every key gets a bucket."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        name = name.rstrip("/") if name else name
        if initializer:
            lookup_key_dtype = dtypes.as_dtype(lookup_key_dtype or initializer.key_dtype)
            if initializer.key_dtype not in (dtypes.int64, dtypes.string):
                raise TypeError(f"Invalid `key_dtype`, expected one of (tf.int64, "
                                f"tf.string), but got {initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError(f"Invalid `key_dtype`, expected "
                                f"{'integer' if lookup_key_dtype.is_integer else 'non-integer'}"
                                f" but got {initializer.key_dtype}.")
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64} but got "
                                f"{initializer.value_dtype}.")
            self._table = StaticHashTable(initializer, default_value=-1)
            name = name or self._table.name
        else:
            lookup_key_dtype, self._table = dtypes.string, None
            name = name or "hash_bucket"
        if not lookup_key_dtype.is_integer and lookup_key_dtype != dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got "
                            f"{lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._table_name = name.split("/")[-1]
        super().__init__(lookup_key_dtype, dtypes.int64)

    @property
    def initializer(self):
        if self._table is not None:
            return self._table.initializer
        with name_scope("init"):
            return no_op()

    resource_handle = property(lambda self: self._table and self._table.resource_handle)

    def size(self, name=None) -> Tensor:
        """The vocabulary's size plus the number of buckets (int64)."""
        with name_scope(name or f"{self.name}_Size"):
            held = (self._table.size() if self._table is not None
                    else convert_to_tensor(0, dtype=dtypes.int64))
            return add_v2(held, convert_to_tensor(self._num_oov_buckets, dtype=dtypes.int64))

    def lookup(self, keys, name=None):
        """Each key's id (int64, the keys' shape; a SparseTensor for SparseTensor keys).
        TypeError for keys of another dtype than the table's."""
        keys = self._keys(keys)

        def ids(values):
            if self._table is not None and self._table.key_dtype == dtypes.int64:
                values = cast(values, dtypes.int64)
            with name_scope(name or f"{self.name}_Lookup"):
                text = values if values.dtype == dtypes.string else as_string(values)
                buckets = string_to_hash_bucket_fast(text, num_buckets=self._num_oov_buckets,
                                                     name="hash_bucket")
                if self._table is None:
                    return buckets
                found = self._table.lookup(values)
                buckets = add_v2(buckets, self._table.size())
                return where(not_equal(found, self._table.default_value), found, buckets)
        return _dense_then_back(keys, ids)
