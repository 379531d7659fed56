"""A ``FunctionPart`` (a TF1 cond's branch, a TF1 loop's cond or body) imported into a
``FunctionGraph``: what ``tf_cond_build`` and ``tf_while_build`` share.

The part's nodes are imported by the GraphDef importer itself (``graph_def.import_nodes``),
so TF's op forms map as everywhere and the conds and loops nested in it are built in
turn; what it reads from outside is the function's argument, a capture of an outer
tensor (but an outer variable, which an op inside may assign: the function graph makes
its own twin of it for such an op, and captures its value for the others), or an outer
op to wait for, as its ``external`` says.
"""

from __future__ import annotations

from .function_graph import FunctionGraph
from .graph_def import import_nodes
from .tf_graph_passes import FunctionPart

__all__ = ["import_part"]


def import_part(part: FunctionPart, function: FunctionGraph, captured: list, controls: list,
                arguments: list = ()) -> list:
    """Imports ``part`` into ``function`` and returns the tensors of its outputs.
    ``captured`` are the outer tensors its "data" reads index, ``controls`` the outer
    ops its "control" reads do, ``arguments`` the function's inputs its "arg" reads do."""
    outside = {}
    for key, (kind, k) in part.external.items():
        if kind == "arg":
            outside[key] = arguments[k]
        elif kind == "data" and captured[k].op.type == "VariableV2":
            outside[key] = captured[k]      # a variable the part may assign: the function
        elif kind == "data":                # graph makes its own twin when an op does
            outside[key] = function.capture(captured[k])
        else:
            outside[key] = controls[k]
    with function.as_default():
        created = import_nodes(part.graph_def, function,
                               {key: outside[key] for key in part.node_keys}, "", part.plans)
    outputs = [_tensor(key, outside, created) for key in part.outputs]
    return [t if t.graph is function else function.capture(t) for t in outputs]


def _tensor(key: str, outside: dict, created: dict):
    if key in outside:
        return outside[key]
    producer, _, index = key.rpartition(":")
    return created[producer].outputs[int(index)]
