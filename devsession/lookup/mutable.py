"""``ds.lookup.experimental.MutableHashTable``: TF1's table that ops change while the
graph runs (``MutableHashTableV2``): ``insert`` adds or replaces entries, ``remove``
drops them, ``lookup`` reads (``default_value`` where missing), ``export`` gives every
entry, ``size`` counts them.  No initializer: it starts empty.

As TF's, with ``checkpoint=True`` the table op shares its table by the node's name
(``use_node_name_sharing``), so every session of a server sees one table, and a
``ds.train.Saver`` saves it, as its export, under ``<name>-keys`` and ``<name>-values``
(``saveable.py``).
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from ..graph_keys import GraphKeys
from .saveable import TableSaveable
from .table_ops import make_table, table_op
from .tables import LookupInterface

__all__ = ["MutableTable", "MutableHashTable"]


class MutableTable(LookupInterface):
    """What the tables that inserts change share (``MutableHashTable``,
    ``DenseHashTable``): their table op, its saveable, the size, the export."""

    def _made(self, handle: Tensor, name: str, checkpoint: bool) -> None:
        """Keep the table op's ``handle``; a checkpointed table joins the graph's
        ``SAVEABLE_OBJECTS`` (a Saver saves its export)."""
        self._resource_handle = handle
        self._table_name = handle.op.name.split("/")[-1]
        if checkpoint:
            get_default_graph().add_to_collection(GraphKeys.SAVEABLE_OBJECTS,
                                                  TableSaveable(self, name))

    default_value = property(lambda self: self._default_value)

    def size(self, name=None) -> Tensor:
        """The number of entries (int64)."""
        with name_scope(name or f"{self.name}_Size"):
            return self._op("LookupTableSizeV2", []).outputs[0]

    def export(self, name=None):
        """(keys, values): what the table holds (each table's module docstring says how)."""
        with name_scope(name or f"{self.name}_lookup_table_export_values"):
            op = self._op("LookupTableExportV2", [],
                          {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype})
        return op.outputs[0], op.outputs[1]

    def _op(self, op_type: str, inputs, attrs=None):
        return table_op(op_type, self._resource_handle, inputs, attrs)


class MutableHashTable(MutableTable):
    """A table of ``key_dtype`` keys and ``value_dtype`` values (see the module
    docstring); ``default_value`` a scalar."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, experimental_is_anonymous=False):
        super().__init__(key_dtype, value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        if self._default_value.shape.rank not in (None, 0):
            raise ValueError("devsession's MutableHashTable holds scalar values (TF's "
                             "MutableHashTableOfTensors is not supported yet).")
        self._name = name
        self._made(make_table("MutableHashTableV2", self._key_dtype, self._value_dtype, name,
                              use_node_name_sharing=checkpoint), name, checkpoint)

    def lookup(self, keys, dynamic_default_values=None, name=None) -> Tensor:
        """Each key's value (the keys' shape): ``default_value``, or the matching item
        of ``dynamic_default_values`` (the keys' shape), where missing."""
        with name_scope(name or f"{self.name}_lookup_table_find"):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            default = (self._default_value if dynamic_default_values is None else
                       convert_to_tensor(dynamic_default_values, dtype=self._value_dtype))
            return self._op("LookupTableFindV2", [keys, default]).outputs[0]

    def insert(self, keys, values, name=None):
        """The op adding ``keys[i] -> values[i]`` (one shape), replacing what was there;
        TypeError for another dtype than the table's."""
        with name_scope(name or f"{self.name}_lookup_table_insert"):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            values = convert_to_tensor(values, dtype=self._value_dtype, name="values")
            return self._op("LookupTableInsertV2", [keys, values])

    def remove(self, keys, name=None):
        """The op dropping ``keys`` (keys it lacks are ignored)."""
        keys = self._keys(keys)
        with name_scope(name or f"{self.name}_lookup_table_remove"):
            return self._op("LookupTableRemoveV2", [keys])
