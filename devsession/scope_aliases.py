"""TF1's deprecated scope spellings and the "no regularizer" marker:

``tf.op_scope(values, name, default_name=None)`` is ``tf.name_scope(name or default_name)``
(the values only pick the graph in TF, devsession has the default one);
``tf.variable_op_scope(values, name_or_scope, default_name=None, ...)`` is
``tf.variable_scope(name_or_scope, default_name, values, ...)``; ``tf.no_regularizer`` is
the regularizer that regularizes nothing (``variable_scope(regularizer=tf.no_regularizer)``
switches an outer one off for the variables inside).
"""

from __future__ import annotations

import contextlib

from .graph import name_scope
from .variable_scope import variable_scope

__all__ = ["op_scope", "variable_op_scope", "no_regularizer"]


@contextlib.contextmanager
def op_scope(values, name, default_name=None):
    """TF1's deprecated ``op_scope``: a name scope; yields its name ("scope/")."""
    del values
    with name_scope(name or default_name) as scope:
        yield scope


def variable_op_scope(values, name_or_scope, default_name=None, initializer=None,
                      regularizer=None, caching_device=None, partitioner=None,
                      custom_getter=None, reuse=None, dtype=None, use_resource=None,
                      constraint=None):
    """TF1's deprecated ``variable_op_scope``: ``variable_scope`` with the values first."""
    return variable_scope(name_or_scope, default_name=default_name, values=values,
                          initializer=initializer, regularizer=regularizer,
                          caching_device=caching_device, partitioner=partitioner,
                          custom_getter=custom_getter, reuse=reuse, dtype=dtype,
                          use_resource=use_resource, constraint=constraint)


def no_regularizer(_):
    """The regularizer that adds no loss (returns None)."""
    return None
