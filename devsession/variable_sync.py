"""``tf.VariableSynchronization`` and ``tf.VariableAggregation``: how a distributed
variable is kept in step across replicas, as TF1 programs (and TF's metrics) declare it.

devsession runs no replicated variables, so neither changes how a variable is updated; a
variable keeps both (``v.synchronization``, ``v.aggregation``), and TF's one rule that
follows from them holds: a variable synchronized ``ON_READ`` (a per-replica statistic) is
not trainable unless ``trainable=True`` is given.
"""

from __future__ import annotations

import enum

__all__ = ["VariableSynchronization", "VariableAggregation", "validate"]


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def validate(synchronization, aggregation, trainable, name):
    """TF's defaults and checks: ``(synchronization, aggregation, trainable)``, the enums
    made from their values; ValueError naming the variable for an unknown mode."""
    aggregation = _mode(VariableAggregation, aggregation, "aggregation", name)
    synchronization = _mode(VariableSynchronization, synchronization, "synchronization", name)
    if trainable is None:
        trainable = synchronization is not VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable


def _mode(kind, value, what: str, name):
    """``value`` (None for the default, a member or its value) as a member of ``kind``."""
    if value is None:
        return next(iter(kind))          # AUTO / NONE: each enum's first member
    try:
        return kind(getattr(value, "value", value))
    except ValueError:
        raise ValueError(f"Invalid variable {what} mode: {value} for variable: {name}") \
            from None
