"""TF1's lookup-table ops (``HashTableV2``, ``LookupTableFindV2``...), the graph side of
``ds.lookup`` (``devsession/lookup/``).

As a queue op does (``ops/queues.py``), a table op (``HashTableV2``: a table filled once
by an initializer; ``MutableHashTableV2``: one changed by inserts;
``MutableDenseHashTableV2(empty_key, deleted_key)``: one of buckets, as TF's, whose
``value_shape`` attr and empty key's shape make its values and keys vectors) makes its table in the
session's resources on its first run and outputs its handle, a string scalar (TF's is a
``resource``); every other op takes that handle first.  Their attrs are TF's
(``key_dtype``, ``value_dtype``, ``container``, ``shared_name``,
``use_node_name_sharing``), so GraphDefs TensorFlow wrote import.

Filling a table: ``InitializeTableV2`` and ``LookupTableImportV2`` (what TF 2.21's
``KeyValueTensorInitializer`` builds) from keys and values of one shape;
``InitializeTableFromTextFileV2`` from a text file's lines (``key_index`` and
``value_index``: a column, ``-1`` the line number, ``-2`` the whole line);
``LookupTableInsertV2`` into a mutable table.  Reading one: ``LookupTableFindV2``
(``default_value`` for missing keys; the result has the keys' shape),
``LookupTableSizeV2`` (int64), ``LookupTableExportV2`` (every key and value).  Keys of
another dtype than the table's are refused when the graph is built, when the table op
is in sight.  All run on the host (``kernels/reference/lookup.py``), as TF's; none is
differentiable.
"""

from __future__ import annotations

from ..dtypes import bool_, float32, float64, int32, int64, string
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["TABLE_TYPES", "KEY_DTYPES", "VALUE_DTYPES", "DENSE_DTYPES", "table_dtypes",
           "dense_shapes"]

TABLE_TYPES = ("HashTableV2", "MutableHashTableV2", "MutableDenseHashTableV2")
KEY_DTYPES = (int32, int64, string)
VALUE_DTYPES = (bool_, int32, int64, float32, float64, string)
_TABLE_ATTRS = {"container": "", "shared_name": "", "use_node_name_sharing": False}
# the (key, value) dtypes TF 2.21 registers a MutableDenseHashTable kernel for
DENSE_DTYPES = {int32: (int32, float32, float64),
                int64: (bool_, int32, int64, float32, float64),
                string: (bool_, int32, int64, float32, float64)}


def _make_table(inputs, attrs, node):
    key, value = attrs.get("key_dtype"), attrs.get("value_dtype")
    if key not in KEY_DTYPES or value not in VALUE_DTYPES:
        raise InferError(f"Op '{node}': devsession's tables map int32, int64 or string keys "
                         f"to bool, int32, int64, float32, float64 or string values, not "
                         f"{_name(key)} to {_name(value)}.")
    return string, TensorShape([])


def _make_dense_table(inputs, attrs, node):
    key, value = attrs.get("key_dtype"), attrs.get("value_dtype")
    if value not in DENSE_DTYPES.get(key, ()):
        raise InferError(f"Op '{node}': TF has no MutableDenseHashTable of {_name(key)} keys "
                         f"and {_name(value)} values.")
    for spec in inputs:
        _check_dtype(spec, key, "keys", node)
    return string, TensorShape([])


def dense_shapes(handle_spec):
    """(key shape, value shape) of the dense table ``handle_spec`` names (each a
    TensorShape, the key's possibly unknown), or None for another table."""
    op = getattr(getattr(handle_spec, "tensor", handle_spec), "op", None)
    if op is None or op.type != "MutableDenseHashTableV2":
        return None
    return op.inputs[0].shape, TensorShape(op.attrs.get("value_shape", []))


def _name(dtype) -> str:
    return getattr(dtype, "name", str(dtype))


def table_dtypes(handle_spec) -> tuple:
    """(key dtype, value dtype) of the table ``handle_spec`` (an InputSpec or a Tensor)
    names, when its producer is a table op of this graph; (None, None) otherwise."""
    op = getattr(getattr(handle_spec, "tensor", handle_spec), "op", None)
    if op is None or op.type not in TABLE_TYPES:
        return None, None
    return op.attrs.get("key_dtype"), op.attrs.get("value_dtype")


def _check_handle(inputs, node):
    if not inputs or inputs[0].dtype != string or inputs[0].shape.rank not in (None, 0):
        raise InferError(f"Op '{node}': its first input must be a lookup table's handle.")


def _check_dtype(spec, wanted, what, node):
    if wanted is not None and spec.dtype != wanted:
        raise InferError(f"Op '{node}': the table's {what} are {wanted.name}, got "
                         f"{spec.dtype.name}.")


def _check_pairs(inputs, node):
    """keys (input 1) and values (input 2) of one shape, of the table's dtypes."""
    _check_handle(inputs, node)
    key, value = table_dtypes(inputs[0])
    _check_dtype(inputs[1], key, "keys", node)
    _check_dtype(inputs[2], value, "values", node)
    if not inputs[1].shape.is_compatible_with(inputs[2].shape):
        raise InferError(f"Dimensions must be equal for '{node}': keys of shape "
                         f"{inputs[1].shape}, values of shape {inputs[2].shape}.")


def _fill(inputs, attrs, node):
    if dense_shapes(inputs[0]) is not None:      # TF's kernel checks their shapes
        _check_handle(inputs, node)
        key, value = table_dtypes(inputs[0])
        _check_dtype(inputs[1], key, "keys", node)
        _check_dtype(inputs[2], value, "values", node)
        return None
    _check_pairs(inputs, node)
    return None


def _initialize(inputs, attrs, node):
    _check_pairs(inputs, node)
    if inputs[1].shape.rank not in (None, 1):
        raise InferError(f"Shape must be rank 1 but is rank {inputs[1].shape.rank} for "
                         f"'{node}' (keys).")
    return None


def _from_text_file(inputs, attrs, node):
    _check_handle(inputs, node)
    if inputs[1].dtype != string or inputs[1].shape.rank not in (None, 0):
        raise InferError(f"Op '{node}': the file name must be a string scalar.")
    for what in ("key_index", "value_index"):
        if int(attrs.get(what, 0)) < -2:
            raise InferError(f"Op '{node}': {what} must be >= -2, got {attrs[what]}.")
    if len(attrs.get("delimiter", "\t")) != 1:
        raise InferError(f"Op '{node}': delimiter should be only 1 char.")
    return None


def _find(inputs, attrs, node):
    _check_handle(inputs, node)
    key, value = table_dtypes(inputs[0])
    _check_dtype(inputs[1], key, "keys", node)
    _check_dtype(inputs[2], value, "values", node)
    keys, default = inputs[1].shape, inputs[2].shape
    dense = dense_shapes(inputs[0])
    if dense is not None:                        # TF's kernel checks the keys' shape
        key_shape, value_shape = dense
        if keys.rank is None or key_shape.rank is None or keys.rank < key_shape.rank:
            return inputs[2].dtype, TensorShape(None)
        return inputs[2].dtype, TensorShape(keys.dims[:keys.rank - key_shape.rank]
                                            ).concatenate(value_shape)
    if default.rank not in (None, 0) and not default.is_compatible_with(keys):
        raise InferError(f"Op '{node}': default_value must be a scalar or of the keys' "
                         f"shape {keys}, got {default}.")
    return inputs[2].dtype, keys


def _size(inputs, attrs, node):
    _check_handle(inputs, node)
    return int64, TensorShape([])


def _remove(inputs, attrs, node):
    _check_handle(inputs, node)
    _check_dtype(inputs[1], table_dtypes(inputs[0])[0], "keys", node)
    return None


def _export(inputs, attrs, node):
    _check_handle(inputs, node)
    dense = dense_shapes(inputs[0])
    if dense is not None:                        # the buckets: [n, key size], [n, value size]
        sizes = [s.num_elements() if s.is_fully_defined() else None for s in dense]
        return [(attrs["Tkeys"], TensorShape([None, sizes[0]])),
                (attrs["Tvalues"], TensorShape([None, sizes[1]]))]
    return [(attrs["Tkeys"], TensorShape([None])), (attrs["Tvalues"], TensorShape([None]))]


register_op(OpDef("HashTableV2", _make_table, 0, stateful=True, attr_defaults=_TABLE_ATTRS))
register_op(OpDef("MutableHashTableV2", _make_table, 0, stateful=True,
                  attr_defaults=_TABLE_ATTRS))
register_op(OpDef("MutableDenseHashTableV2", _make_dense_table, 2, stateful=True,
                  attr_defaults={**_TABLE_ATTRS, "value_shape": TensorShape([]),
                                 "initial_num_buckets": 131072, "max_load_factor": 0.8}))
register_op(OpDef("InitializeTableV2", _initialize, 3, stateful=True, has_output=False))
register_op(OpDef("LookupTableImportV2", _fill, 3, stateful=True, has_output=False))
register_op(OpDef("InitializeTableFromTextFileV2", _from_text_file, 2, stateful=True,
                  has_output=False,
                  attr_defaults={"vocab_size": -1, "delimiter": "\t", "offset": 0}))
register_op(OpDef("LookupTableInsertV2", _fill, 3, stateful=True, has_output=False))
register_op(OpDef("LookupTableRemoveV2", _remove, 2, stateful=True, has_output=False))
register_op(OpDef("LookupTableFindV2", _find, 3, stateful=True))
register_op(OpDef("LookupTableSizeV2", _size, 1, stateful=True))
register_op(OpDef("LookupTableExportV2", _export, 1, stateful=True))
not_differentiable("MutableDenseHashTableV2", "InitializeTableV2", "LookupTableImportV2",
                   "InitializeTableFromTextFileV2", "LookupTableInsertV2",
                   "LookupTableRemoveV2", "LookupTableFindV2", "LookupTableSizeV2",
                   "LookupTableExportV2")
