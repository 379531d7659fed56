"""The ``If`` of a TF1 cond that ``tf_cond_import.functionalize_conds`` took apart.

``import_graph_def`` meets the cond's node once its inputs (the predicate, the tensors
its branches read from outside, the ops they wait for) exist, and calls ``build_if``:
each branch's GraphDef is imported into a ``FunctionGraph`` over the graph being
imported into, by the importer itself (``tf_part_build.import_part``: so TF's op forms
map as everywhere, and a cond nested in the branch becomes an If inside it), its outside
tensors captured as ``ds.cond`` captures them; then ``create_if`` makes the node, under the cond's name.
This lives apart from the pass because function graphs import the GraphDef importer
(``function_graph.import_function``): the importer reaches it only through
``tf_graph_passes.register_builder``.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .errors import InvalidArgumentError
from .function_graph import FunctionGraph
from .ops.control_flow import create_if
from .ops.state import constant
from .tf_cond_import import COND_OP, CondPlan
from .tf_graph_passes import register_builder
from .tf_part_build import import_part

__all__ = ["build_if"]


def build_if(plan: CondPlan, pred, captured: list, controls: list, graph, name: str):
    """The If (or StatelessIf) running ``plan``'s true or false branch on ``captured``
    (the outer tensors its branches read, in the plan's order)."""
    true_fn = _branch_function(plan, 1, captured, controls, graph, f"{name}_true")
    false_fn = _branch_function(plan, 0, captured, controls, graph, f"{name}_false")
    for a, b in zip(true_fn.outputs, false_fn.outputs):
        if a.dtype != b.dtype:
            raise InvalidArgumentError(
                f"The branches of the TF1 cond '{plan.name}' return {a.dtype.name} "
                f"('{a.name}') and {b.dtype.name} ('{b.name}'), which one Merge cannot "
                f"join.", plan.name)
    inputs = list(dict.fromkeys(true_fn.captured + false_fn.captured))
    for function in (true_fn, false_fn):
        function.bound_inputs = [function.capture(t) for t in inputs]
    return create_if(graph, pred, inputs, true_fn, false_fn, name)


def _branch_function(plan: CondPlan, port: int, captured, controls, graph,
                     name: str) -> FunctionGraph:
    function = FunctionGraph(name, graph)
    function.outputs = import_part(plan.branches[port], function, captured, controls)
    with function.as_default():
        function.outputs += [constant(np.int32(indices[port]), dtype=dtypes.int32,
                                      name="value_index")
                             for indices in plan.value_indices]
    return function


register_builder(COND_OP, build_if)
