"""The behaviour switches a TF1 script written for TF2's ``tensorflow.compat.v1`` calls:

    import devsession as tf          # was: import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()

devsession always builds graphs and runs them in sessions, which is what these switches
ask TensorFlow for, so they are no-ops here and the queries answer as TF 1.15 in graph
mode (``executing_eagerly()`` is False).  Two describe what devsession already does in
TF2's way, and say so: its ``cond`` and ``while_loop`` build TF's functional forms
(StatelessIf, StatelessWhile: ``control_flow_v2_enabled()`` is True, and
``disable_control_flow_v2`` changes nothing a program computes), and a static shape
indexes to ints or None, TF2's ``TensorShape`` (so both tensorshape switches are no-ops).

The switches to TF2 behaviour devsession does not have (``enable_eager_execution``,
``enable_v2_behavior``, ``enable_resource_variables``, ``enable_tensor_equality``) are
not here: using one raises ``UnsupportedTF1Error`` saying why (``unsupported.py``).
"""

from __future__ import annotations

__all__ = ["disable_v2_behavior", "disable_eager_execution", "disable_resource_variables",
           "disable_tensor_equality", "disable_v2_tensorshape", "enable_v2_tensorshape",
           "disable_control_flow_v2", "enable_control_flow_v2", "control_flow_v2_enabled",
           "executing_eagerly", "executing_eagerly_outside_functions",
           "resource_variables_enabled"]


def disable_v2_behavior() -> None:
    """A no-op: devsession has TF1's graph-mode behaviour only."""


def disable_eager_execution() -> None:
    """A no-op: devsession builds graphs and runs them in sessions."""


def disable_resource_variables() -> None:
    """A no-op: devsession's variables are TF1's reference variables (VariableV2)."""


def disable_tensor_equality() -> None:
    """A no-op: a Tensor's ``==`` compares identity and Tensors hash, as in TF1."""


def disable_v2_tensorshape() -> None:
    """A no-op; a static shape still indexes to ints or None (TF2's form), not TF1's
    ``Dimension``: ``tf.compat.dimension_value`` reads both."""


def enable_v2_tensorshape() -> None:
    """A no-op: a static shape already indexes to ints or None."""


def disable_control_flow_v2() -> None:
    """A no-op: ``cond`` and ``while_loop`` build functional nodes, with the values and
    gradients TF1's control flow gives."""


def enable_control_flow_v2() -> None:
    """A no-op: ``cond`` and ``while_loop`` already build functional nodes."""


def control_flow_v2_enabled() -> bool:
    """True: ``cond`` and ``while_loop`` build StatelessIf and StatelessWhile nodes."""
    return True


def executing_eagerly() -> bool:
    """False: ops build graph nodes; values come from ``Session.run``."""
    return False


def executing_eagerly_outside_functions() -> bool:
    """False, as ``executing_eagerly``."""
    return False


def resource_variables_enabled() -> bool:
    """False: variables are reference variables (VariableV2)."""
    return False
