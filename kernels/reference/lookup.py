"""Kernels of TF1's lookup-table ops (``devsession/ops/lookup.py``), for the reference
device and the CPU (``HOST``; GPU sessions place them on the CPU, as TF keeps its tables
in host memory).

The table op makes its ``StaticTable`` or ``MutableTable``
(``devsession/runtime/lookup_tables.py``), or its ``DenseTable`` (``lookup_dense.py``,
from the op's empty and deleted keys), in the session's resources on its first run,
under the container ``_lookup_tables`` and a key from its ``container`` and
``shared_name`` (the node's name when that is empty; with ``use_node_name_sharing``,
the node's name is the shared name), and outputs that key as its handle.  A table made
with a shared name is shared by every session of a server, as TF's device resources
are; a second node asking for it with another kind or dtypes is
``InvalidArgumentError``.  The handle is the key as bytes (a string tensor's value), so
it may cross tasks; the ops on a table are built placed with it.  Ops inside a
dataset's functions find the tables of the session running the iterator.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InvalidArgumentError
from devsession.runtime.lookup_tables import MutableTable, StaticTable

from ..registry import HOST, register_kernel
from .lookup_dense import DenseTable
from .lookup_text_file import read_entries
from .queues import find_resource, resource_name

__all__ = ["CONTAINER", "find_table"]

CONTAINER = "_lookup_tables"
_KINDS = {"HashTableV2": StaticTable, "MutableHashTableV2": MutableTable}
_MUTABLE = (MutableTable, DenseTable)


def _resources(node):
    """The session's resources: through the function service inside a dataset's
    functions, else the state context stateful ops get."""
    context = node.context
    return context.factory.resources if hasattr(context, "factory") else context.resources


@register_kernel(tuple(_KINDS), HOST)
def build_make_table(node):
    return _table_maker(node, _KINDS[node.op], _KINDS[node.op])


@register_kernel("MutableDenseHashTableV2", HOST)
def build_make_dense_table(node):
    attrs = node.attrs

    def make_dense(empty_key, deleted_key):
        def make(name, key_dtype, value_dtype):
            return DenseTable(name, key_dtype, value_dtype, empty_key, deleted_key,
                              attrs.get("value_shape", []),
                              int(attrs.get("initial_num_buckets", 131072)),
                              float(attrs.get("max_load_factor", 0.8)), node.name)
        return make
    return _table_maker(node, DenseTable, make_dense, takes_inputs=True)


def _table_maker(node, kind, make, takes_inputs=False):
    """The kernel of a table op: its table, made by ``make(name, key dtype, value
    dtype)`` (by ``make(*inputs)(...)`` when the op ``takes_inputs``) in the session's
    resources when missing, and its handle."""
    attrs = node.attrs
    if attrs.get("use_node_name_sharing") and not attrs.get("shared_name"):
        attrs = {**attrs, "shared_name": node.name}
    shared, key, _ = resource_name(_Named(node.name, attrs))
    handle = np.array(key.encode(), dtype=object)   # bytes, as a string tensor holds
    key_dtype, value_dtype = attrs["key_dtype"], attrs["value_dtype"]

    def make_table(*inputs):
        maker = make(*inputs) if takes_inputs else make
        found = _resources(node).get_or_put(
            CONTAINER, key, lambda: maker(shared or node.name, key_dtype, value_dtype),
            shared=bool(shared))
        if not found.matches(kind.kind, key_dtype, value_dtype):
            raise InvalidArgumentError(
                f"Shared table '{shared}' is a {found.kind} of {found.key_dtype} keys and "
                f"{found.value_dtype} values; node '{node.name}' asks for a {kind.kind} of "
                f"{key_dtype.name} keys and {value_dtype.name} values.", node.name)
        return handle
    return make_table


class _Named:
    """A node's name with other attrs, for ``resource_name``."""

    def __init__(self, name, attrs):
        self.name, self.attrs = name, attrs


def find_table(resources, handle, node_name: str):
    """The table ``handle`` names; ``NotFoundError`` if the session has none by it."""
    key = np.asarray(handle).item()
    key = key.decode() if isinstance(key, bytes) else key
    return find_resource(resources, CONTAINER, key, "lookup table", node_name)


def _table(node, handle, kind=None):
    found = find_table(_resources(node), handle, node.name)
    if kind is not None and not isinstance(found, kind):
        raise InvalidArgumentError(f"Op '{node.name}' needs a mutable table; '{found.name}' "
                                   f"is a {found.kind}.", node.name)
    return found


def _pairs(keys, values, node_name: str) -> tuple[list, list]:
    keys, values = np.asarray(keys), np.asarray(values)
    if keys.shape != values.shape:
        raise InvalidArgumentError(f"Expected shape {list(keys.shape)} for value, got "
                                   f"{list(values.shape)}", node_name)
    return keys.reshape(-1).tolist(), values.reshape(-1).tolist()


def _initializer(node):
    def initialize(handle, keys, values):
        table = _table(node, handle)
        if isinstance(table, DenseTable):        # its buckets, as export gave them
            table.import_(keys, values, node.name)
        elif isinstance(table, MutableTable):    # LookupTableImportV2 on a mutable table
            table.import_(*_pairs(keys, values, node.name))
        else:
            table.initialize(*_pairs(keys, values, node.name), node.name)
    return initialize


@register_kernel(("InitializeTableV2", "LookupTableImportV2"), HOST)
def build_initialize(node):
    return _initializer(node)


@register_kernel("InitializeTableFromTextFileV2", HOST)
def build_initialize_from_text_file(node):
    attrs = node.attrs

    def initialize_from_text_file(handle, filename):
        table = _table(node, handle, StaticTable)
        filename = np.asarray(filename).item()
        entries = read_entries(filename.decode() if isinstance(filename, bytes) else filename,
                               int(attrs["key_index"]), int(attrs["value_index"]),
                               table.key_dtype, table.value_dtype,
                               int(attrs.get("vocab_size", -1)), attrs.get("delimiter", "\t"),
                               int(attrs.get("offset", 0)), node.name)
        table.initialize(*entries, node.name)
    return initialize_from_text_file


@register_kernel("LookupTableFindV2", HOST)
def build_find(node):
    def find(handle, keys, default_value):
        return _table(node, handle).find(keys, default_value, node.name)
    return find


@register_kernel("LookupTableSizeV2", HOST)
def build_size(node):
    def size(handle):
        return np.array(_table(node, handle).size(), np.int64)
    return size


@register_kernel("LookupTableInsertV2", HOST)
def build_insert(node):
    def insert(handle, keys, values):
        table = _table(node, handle, _MUTABLE)
        if isinstance(table, DenseTable):
            table.insert(keys, values, node.name)
        else:
            table.insert(*_pairs(keys, values, node.name))
    return insert


@register_kernel("LookupTableRemoveV2", HOST)
def build_remove(node):
    def remove(handle, keys):
        table = _table(node, handle, _MUTABLE)
        if isinstance(table, DenseTable):
            table.remove(keys, node.name)
        else:
            table.remove(np.asarray(keys).reshape(-1).tolist())
    return remove


@register_kernel("LookupTableExportV2", HOST)
def build_export(node):
    def export(handle):
        return _table(node, handle).export()
    return export
