"""The two builders every ``ds.lookup`` class uses: ``make_table`` (the table op, whose
output is the table's handle) and ``table_op`` (an op on a table, placed with it)."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, get_default_graph
from ..graph_scopes import init_scope
from ..ops import lookup as _lookup_ops  # noqa: F401  (registers the table ops)

__all__ = ["make_table", "table_op"]


def make_table(op_type: str, key_dtype, value_dtype, name: str, shared_name: str = "",
               use_node_name_sharing: bool = False, inputs=(), attrs=None) -> Tensor:
    """The handle of a new table op (built outside any function being traced, as TF
    makes resources); ``inputs`` (made by calling it, inside that scope, when a
    function) and ``attrs`` are those some tables' ops take besides."""
    attrs = {"key_dtype": dtypes.as_dtype(key_dtype),
             "value_dtype": dtypes.as_dtype(value_dtype),
             "container": "", "shared_name": shared_name or "",
             "use_node_name_sharing": use_node_name_sharing, **(attrs or {})}
    with init_scope():
        inputs = inputs() if callable(inputs) else list(inputs)
        return get_default_graph().create_op(op_type, inputs, attrs, name=name).outputs[0]


def table_op(op_type: str, handle: Tensor, inputs=(), attrs=None):
    """An op on the table ``handle`` names, placed with the table op (as TF places every
    reader of a resource with it), so that it finds the table on that task."""
    graph = get_default_graph()
    if handle.graph is not graph:           # inside a function being traced
        return graph.create_op(op_type, [handle, *inputs], attrs or {}, name=op_type)
    with graph.colocate_with(handle):
        return graph.create_op(op_type, [handle, *inputs], attrs or {}, name=op_type)
