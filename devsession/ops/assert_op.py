"""TF1's ``tf.Assert`` on its own, a leaf module: ``control_flow`` re-exports it, and
builders that ``control_flow`` itself imports (``masking``'s ``reverse_sequence``) can
check their inputs at run time without an import cycle."""

from __future__ import annotations

from ..graph import Operation, building_graph, convert_to_tensor

__all__ = ["Assert"]


def Assert(condition, data, summarize=None, name=None, message: str = "") -> Operation:
    """An op that raises ``InvalidArgumentError`` when ``condition`` (a bool scalar) is
    false, showing ``data`` (a list of tensors, their first ``summarize`` values);
    TF1's ``tf.Assert``.  Run it as a target or through ``control_dependencies``."""
    condition = convert_to_tensor(condition)
    values = [convert_to_tensor(d) for d in data]
    graph = building_graph(condition.graph)
    return graph.create_op("Assert", [condition, *values],
                           {"summarize": 3 if summarize is None else int(summarize),
                            "message": message}, name=name or "Assert")
