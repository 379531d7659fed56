"""What ``ds.train.Saver`` saves of a lookup table made with ``checkpoint=True``
(TF1's ``MutableHashTable._Saveable`` and ``DenseHashTable._Saveable``): the table's
export, keys under ``<name>-keys`` and values under ``<name>-values`` (``name`` the
table's ``name`` argument, as TF's, not its op's unique name), restored by
``LookupTableImportV2``, which replaces the table's contents (a dense table takes the
buckets back as they were).

The table adds one to the graph's ``GraphKeys.SAVEABLE_OBJECTS``, where a Saver made
without a ``var_list`` finds it.  The export op is built when the table is, and the
restore op under ``<name>_table_restore``, both placed with the table.
"""

from __future__ import annotations

from ..graph import name_scope
from .table_ops import table_op

__all__ = ["TableSaveable"]


class TableSaveable:
    """A table's checkpoint entries: ``specs``, [(name in the checkpoint, tensor)], and
    ``restore(tensors)``, the op importing them."""

    def __init__(self, table, name: str):
        self.op = table              # TF's SaveableObject.op is the table
        self.name = name
        keys, values = table.export()
        self.specs = [(f"{name}-keys", keys), (f"{name}-values", values)]

    @property
    def device(self) -> str:
        return self.op.resource_handle.device

    def restore(self, tensors):
        """The op putting saved ``tensors`` (keys, values) back into the table."""
        with name_scope(f"{self.name}_table_restore"):
            return table_op("LookupTableImportV2", self.op.resource_handle, list(tensors))
