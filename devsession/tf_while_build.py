"""The ``While`` of a TF1 loop that ``tf_while_import.functionalize_whiles`` took apart.

``import_graph_def`` meets the loop's node once its inputs (the loop variables' initial
values, the tensors its cond and body read from outside, the ops they wait for) exist,
and calls ``build_loop``: the cond's and the body's GraphDefs are imported into
``FunctionGraph``s over the graph being imported into, by the importer itself (so TF's
op forms map as everywhere, and loops and conds nested in the body become While and If
ops inside it), each loop variable an argument; then ``create_while`` makes the node,
under the loop's name.

Shapes: a TF1 GraphDef does not say which loop variables change shape (TF1's
``shape_invariants`` leave no trace), so the functions are first built with the initial
values' shapes; where the body returns another shape, they are built again with the
shapes both fit (``most_specific_compatible``), until the body keeps them.  This lives
apart from the pass because function graphs import the GraphDef importer: the importer
reaches it only through ``tf_graph_passes.register_builder``.
"""

from __future__ import annotations

from . import dtypes
from .errors import InvalidArgumentError
from .function_graph import FunctionGraph
from .ops.control_flow import create_while, most_specific_compatible
from .tf_graph_passes import FunctionPart, register_builder
from .tf_part_build import import_part
from .tf_while_import import WHILE_OP, WhilePlan

__all__ = ["build_loop"]


def build_loop(plan: WhilePlan, inits: list, captured: list, controls: list, graph,
               name: str):
    """The While (or StatelessWhile) running ``plan`` from ``inits`` (the loop
    variables' initial values), reading ``captured`` (the outer tensors its functions
    read, in the plan's order).  Raises ``InvalidArgumentError`` for a cond that is not
    a bool scalar or a body that changes a loop variable's dtype."""
    shapes = [t.shape for t in inits]
    for _ in range(1 + max((s.ndims or 0) for s in shapes)):
        body = _function(plan, plan.body, inits, shapes, captured, controls, graph,
                         f"{name}_body")
        relaxed = [most_specific_compatible(s, out.shape) for s, out in
                   zip(shapes, body.outputs)]
        if [s.as_list() if s.ndims is not None else None for s in relaxed] == \
                [s.as_list() if s.ndims is not None else None for s in shapes]:
            break
        shapes = relaxed
    _check_body(plan, inits, body)
    cond = _function(plan, plan.cond, inits, shapes, captured, controls, graph,
                     f"{name}_cond")
    predicate = cond.outputs[0]
    if predicate.dtype != dtypes.bool_ or predicate.shape.ndims not in (None, 0):
        raise InvalidArgumentError(
            f"The cond of the TF1 while loop '{plan.name}' computes a {predicate.dtype.name} "
            f"{predicate.shape}, not a bool scalar.", plan.name)
    return create_while(graph, inits, cond, body, shapes, name, plan.parallel_iterations)


def _check_body(plan: WhilePlan, inits: list, body: FunctionGraph) -> None:
    for k, (init, out) in enumerate(zip(inits, body.outputs)):
        if init.dtype != out.dtype:
            raise InvalidArgumentError(
                f"Loop variable {k} ('{plan.names[k]}') of the TF1 while loop '{plan.name}' "
                f"enters as {init.dtype.name} but its body returns {out.dtype.name} "
                f"('{out.name}').", plan.name)


def _function(plan: WhilePlan, part: FunctionPart, inits, shapes, captured, controls,
              graph, name: str) -> FunctionGraph:
    function = FunctionGraph(name, graph)
    arguments = [function.add_input(t.dtype, shape, merge)
                 for t, shape, merge in zip(inits, shapes, plan.names)]
    function.outputs = import_part(part, function, captured, controls, arguments)
    return function


register_builder(WHILE_OP, build_loop)
