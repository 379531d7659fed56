"""devsession's If and While -> TensorFlow 2's functional ones, for ``tf_export.py``: the
inverse of ``tf_function_import.py``.

A devsession ``If``/``While`` holds its branches (cond and body) as whole function
bodies in its attrs (``function_graph.py``).  TF's holds names of functions in the
GraphDef's library, so ``export_control_flow`` writes each body as a ``FunctionDef``:

* the body's nodes are exported as any graph's (``tf_export``'s rewrites, nested If and
  While in turn), its input placeholders become the function's arguments (``arg<k>``)
  and its results its outputs (``output<k>``);
* an input ``"x:k"`` becomes TF's function form ``"x:<output arg>:<j>"`` (the k-th
  output of ``x`` is the j-th tensor of its output argument, from TF's signature);
* a ``While`` passes the tensors its functions capture as extra inputs, where TF's
  loops carry everything as loop variables: those become loop variables its body
  returns unchanged (TF's While then has as many outputs as inputs; the loop's own
  outputs keep their indices).

Refused with ``UnimplementedError`` naming the node: a loop or cond that records its
random draws for a gradient (``num_records``), and what ``tf_export`` refuses inside a
body (a variable a branch assigns is a ``VariableV2`` in the body, which TF's functions
do not hold).
"""

from __future__ import annotations

import re

from .function_graph import parse
from .graph import Graph
from .graph_codec import FunctionAttr
from .graph_def import import_graph_def
from .ops.control_flow import IF_OPS, RECORDS_ATTR, WHILE_OPS
from .proto import graph_pb2
from .tf_signatures import tf_signature

__all__ = ["export_control_flow", "CONTROL_FLOW_OPS"]

CONTROL_FLOW_OPS = frozenset(IF_OPS) | frozenset(WHILE_OPS)


def export_control_flow(node, ex):
    """``node`` (a ``tf_export._Node`` of an If or While holding devsession's bodies) as
    TF's: its bodies written to ``ex``'s library, its attrs TF's."""
    if node.attrs.get(RECORDS_ATTR):
        raise node.error("it records the random values it draws (for its gradient), "
                         "which TensorFlow's control flow does not.")
    is_if = node.op in IF_OPS
    keys = ("then_branch", "else_branch") if is_if else ("cond", "body")
    bodies = {key: parse(node.attrs[key], node.name) for key in keys}
    if is_if:
        attrs = {key: _reference(_function(node, ex, key, bodies[key], 0)) for key in keys}
    else:
        loop_vars = len(bodies["body"][3])
        extra = len(node.inputs) - loop_vars                # captured: carried unchanged
        attrs = {"cond": _reference(_function(node, ex, "cond", bodies["cond"], 0)),
                 "body": _reference(_function(node, ex, "body", bodies["body"], extra)),
                 "parallel_iterations": node.attrs.get("parallel_iterations", 10)}
        node.outputs = list(node.dtypes)
    node.attrs = {**{k: v for k, v in node.attrs.items() if k.startswith("_")}, **attrs}
    return node


def _reference(name: str) -> FunctionAttr:
    """A func attr naming a function of the library (no body)."""
    return FunctionAttr(graph_pb2.NameAttrList(name=name).SerializeToString())


def _function(node, ex, key: str, body: tuple, carried: int) -> str:
    """Write ``body`` (``function_graph.parse``'s tuple) as a FunctionDef in ``ex``'s
    library, its last ``carried`` arguments also returned unchanged; its name.  The
    body's nodes go through an exporter of ``ex``'s kind sharing its library."""
    _, graph_def, input_names, output_names = body
    graph = Graph()
    import_graph_def(graph_def, name="", graph=graph)
    arguments = [graph.get_tensor_by_name(n) for n in input_names]
    results = [graph.get_tensor_by_name(n) for n in output_names]
    results += arguments[len(arguments) - carried:] if carried else []
    function = graph_pb2.FunctionDef()
    function.signature.name = _unique_function_name(ex, f"{node.name}_{key}")
    names = {}
    for k, t in enumerate(arguments):
        function.signature.input_arg.add(name=f"arg{k}", type=t.dtype.enum)
        names[t.name] = f"arg{k}"
        if t.value_index == 0:
            names[t.op.name] = f"arg{k}"
    placeholders = {t.op.name for t in arguments}
    assigned = [op for op in graph.get_operations() if op.type == "VariableV2"]
    if assigned:
        raise node.error(f"its {key} assigns the variable '{assigned[0].name}', which "
                         f"TensorFlow's functions cannot hold (they take no reference "
                         f"variables).")
    sub = type(ex)({op.name for op in graph.get_operations()}, ex.library)
    for op in graph.get_operations():
        if op.name not in placeholders:
            sub.export(type(node).of(op))
    emitted = {n.name: n for n in sub.out.node}
    for n in sub.out.node:
        inputs = [_function_input(t, names, emitted) for t in n.input]
        del n.input[:]
        n.input.extend(inputs)
    function.node_def.extend(sub.out.node)
    for k, t in enumerate(results):
        function.signature.output_arg.add(name=f"output{k}", type=t.dtype.enum)
        function.ret[f"output{k}"] = _function_input(t.name, names, emitted)
    ex.library.function.append(function)
    return function.signature.name


def _unique_function_name(ex, wanted: str) -> str:
    """A name TF takes for a function (letters, digits, '_'), no other function's."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", wanted)
    base = base if base[:1].isalpha() else f"f_{base}"
    taken = {f.signature.name for f in ex.library.function}
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


def _function_input(text: str, arguments: dict, emitted: dict) -> str:
    """A GraphDef input (``"x"``, ``"x:k"``, ``"^x"``) in a function body's form."""
    if text.startswith("^"):
        return text
    if text in arguments:
        return arguments[text]
    producer, _, index = text.rpartition(":")
    if not (producer and index.isdigit()):
        producer, index = text, "0"
    node = emitted[producer]
    return f"{producer}:{_output_argument(node, int(index))}"


def _output_argument(node, index: int) -> str:
    """``"<output arg>:<j>"`` of the ``index``-th output of the NodeDef ``node``."""
    start = 0
    for output in tf_signature(node.op)["outputs"]:
        if "number_attr" in output:
            size = node.attr[output["number_attr"]].i
        elif "type_list_attr" in output:
            size = len(node.attr[output["type_list_attr"]].list.type)
        else:
            size = 1
        if index < start + size:
            return f"{output['name']}:{index - start}"
        start += size
    raise ValueError(f"{node.op} '{node.name}' has no output {index}.")
