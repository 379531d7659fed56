"""``tf.saved_model.main_op``: the op a SavedModel load runs last, TF1's usual choice."""

from __future__ import annotations

from ..graph import control_dependencies
from ..lookup.tables import tables_initializer
from ..ops.state import group
from ..variables import global_variables_initializer, local_variables_initializer

__all__ = ["main_op", "main_op_with_restore"]


def main_op():
    """Initialize the global and local variables and the tables."""
    return group(global_variables_initializer(), local_variables_initializer(),
                 tables_initializer())


def main_op_with_restore(restore_op_name):
    """``main_op()``, then the op ``restore_op_name`` (a Saver's restore op)."""
    with control_dependencies([main_op()]):
        return group(restore_op_name)
