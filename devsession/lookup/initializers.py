"""What fills a TF1 lookup table: ``ds.lookup.KeyValueTensorInitializer`` (keys and
values given as tensors) and ``ds.lookup.TextFileInitializer`` (one entry per line of a
vocabulary file), with ``TextFileIndex``.

An initializer knows the table's dtypes; ``initialize(table)`` builds the op filling the
table (``LookupTableImportV2`` as TF 2.21 builds it, or
``InitializeTableFromTextFileV2``) and adds it to ``GraphKeys.TABLE_INITIALIZERS``, where
``ds.tables_initializer()`` finds it.  Nodes are named as TF names them (``keys``,
``values``, ``key_value_init/...``, ``text_file_init/asset_filepath``...).

    init = ds.lookup.TextFileInitializer("vocab.txt", ds.string,
                                         ds.lookup.TextFileIndex.WHOLE_LINE, ds.int64,
                                         ds.lookup.TextFileIndex.LINE_NUMBER)
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from ..graph_keys import GraphKeys
from .table_ops import table_op

__all__ = ["TableInitializerBase", "KeyValueTensorInitializer", "TextFileIndex",
           "TextFileInitializer", "check_table_dtypes"]


def check_table_dtypes(table, key_dtype, value_dtype) -> None:
    """TypeError unless ``key_dtype`` and ``value_dtype`` are ``table``'s."""
    if dtypes.as_dtype(key_dtype) != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got "
                        f"{key_dtype}.")
    if dtypes.as_dtype(value_dtype) != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but "
                        f"got {value_dtype}.")


class TableInitializerBase:
    """A table initializer: its dtypes, and the op filling a table."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)

    def initialize(self, table):
        """The op filling ``table``."""
        raise NotImplementedError

    @property
    def _shared_name(self) -> str:
        """The shared name of a table this fills ("": the table picks one)."""
        return ""


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table with ``keys[i] -> values[i]`` (tensors, or values a tensor can
    hold, of one shape)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """The ``LookupTableImportV2`` op filling ``table``; TypeError for a table of
        other dtypes, ValueError when keys and values differ in shape."""
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with name_scope(self._name):
            init_op = table_op("LookupTableImportV2", table.resource_handle,
                               [self._keys, self._values])
        get_default_graph().add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


class TextFileIndex:
    """Which part of a line is a key or a value, besides a column (>= 0)."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file, one entry per line: by ``key_index`` and
    ``value_index``, a column of the line split at ``delimiter``, the line number
    (``TextFileIndex.LINE_NUMBER``: int64) or the whole line (``WHOLE_LINE``: a string
    or an integer).  With ``vocab_size`` only that many lines are read (a shorter file
    is an error when the table is initialized).  ``filename`` may be a string tensor.
    ValueError, as TF's, for an index or dtype that cannot go together."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for "
                             "tf.lookup.TextFileInitializer")
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        _check_index(key_index, key_dtype, "key")
        _check_index(value_index, value_dtype, "value")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename = filename
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._name, self._offset = name, value_index_offset
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        """The ``InitializeTableFromTextFileV2`` op filling ``table`` (TypeError for a
        table of other dtypes); a constant file name joins
        ``GraphKeys.ASSET_FILEPATHS``, as TF's."""
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        graph = get_default_graph()
        with name_scope(self._name or "text_file_init"):
            filename = convert_to_tensor(self._filename, dtypes.string, name="asset_filepath")
            attrs = {"key_index": self._key_index, "value_index": self._value_index,
                     "vocab_size": -1 if self._vocab_size is None else self._vocab_size,
                     "delimiter": self._delimiter, "offset": self._offset}
            init_op = table_op("InitializeTableFromTextFileV2", table.resource_handle,
                               [filename], attrs)
        graph.add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        if filename.op.type == "Const":
            graph.add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return init_op

    @property
    def _shared_name(self) -> str:
        """TF's: tables of one file read the same way share (in a server's sessions)."""
        parts = [self._filename]
        if self._vocab_size:
            parts.append("%d" % self._vocab_size)
        parts += [self._key_index, self._value_index]
        if self._offset:
            parts.append(self._offset)
        return "hash_table_" + "_".join(str(p) for p in parts)


def _check_index(index: int, dtype, what: str) -> None:
    if index < -2:
        raise ValueError(f"`{what}_index` should be >= -2, received: {index}.")
    if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
        raise ValueError(f"`{what}_dtype` must be int64 for `{what}_index` "
                         f"{TextFileIndex.LINE_NUMBER}, received: {dtype}")
    if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != dtypes.string:
        raise ValueError(f"`{what}_dtype` should be either integer or string for "
                         f"`{what}_index` {TextFileIndex.WHOLE_LINE}, received: {dtype}")
