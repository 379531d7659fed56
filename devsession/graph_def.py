"""GraphDef -> Graph (``import_graph_def``), and GraphDef files.

The encoding side is ``graph_codec.py`` (``Graph.as_graph_def``).  Importing re-creates
every node through ``Graph.create_op``, so an imported graph is checked exactly like a built
one, after ``tf_graph.translate`` has mapped the NodeDefs TensorFlow writes onto
devsession's ops, ``tf_resource_import`` TensorFlow's resource variables onto reference
ones, ``tf_tensor_array_import`` TensorFlow's TensorArrays (a handle and a
flow) onto devsession's value TensorArrays, and ``tf_while_import`` and
``tf_cond_import`` have turned TF1's while loops (``Enter``/``Exit``...) into ``While``
nodes and its conds (``Switch``/``Merge``) into ``If`` nodes.  Nodes may arrive in any order; a cycle or a dangling input is an
``InvalidArgumentError`` naming the nodes involved, and a failed import leaves the graph
as it was.

An input names, in this order: an entry of ``input_map`` (TF1's: ``"x:0"`` or ``"x"``
to a Tensor of the graph, ``"^x"`` to an Operation); a node of the GraphDef (imported
under ``name/`` when ``name`` is set); else an existing node of the target graph, by its
full name.  The last is what ``Session.extend`` needs: a GraphDef of new nodes reading
nodes the session's graph already has (TF's ``ExtendSession``).
"""

from __future__ import annotations

from .errors import InvalidArgumentError
from .graph import Graph, Operation, Tensor, get_default_graph
from .graph_codec import graph_to_graph_def
from .proto import graph_pb2
from .proto_files import read_message
from .tf_cond_import import CondPlan, build_cond
from .tf_function_import import functionalize_functions, inline_calls
from .tf_graph import translate
from .tf_graph_passes import without_unread_variant_placeholders
from .tf_resource_import import map_resource_variables
from .tf_tensor_array_import import map_tensor_arrays
from .tf_tensor_list_import import ListPlan, build_list
from .tf_while_import import WhilePlan, build_while, functionalize

__all__ = ["graph_to_graph_def", "import_graph_def", "write_graph", "read_graph_def",
           "GraphDef"]

GraphDef = graph_pb2.GraphDef


class NodeImportError(InvalidArgumentError, ValueError):
    """A node of the GraphDef that cannot be created (an input of the wrong dtype, a bad
    attr): devsession's ``InvalidArgumentError``, and a ``ValueError`` as well, which is
    what TF1's ``import_graph_def`` raises for it (it turns the importer's
    InvalidArgumentError into one), so TF1 code catching ValueError catches it."""

# how the node standing for a cond, a loop or a TensorList op a pass took apart is built
_PLAN_BUILDERS = {CondPlan: build_cond, WhilePlan: build_while, ListPlan: build_list}


# --- import -------------------------------------------------------------------------------

def _parse_input(text: str, node: str) -> tuple[str, int, bool]:
    """('producer', output index, is_control) for one NodeDef input string."""
    if text.startswith("^"):
        return text[1:], -1, True
    name, sep, index = text.rpartition(":")
    if not sep:
        return text, 0, False
    if not index.isdigit():
        raise InvalidArgumentError(f"Node '{node}' has a malformed input '{text}'.", node)
    return name, int(index), False


def _key(producer: str, index: int) -> str:
    """An input's key in ``input_map``: 'x:0', or '^x' for a control input."""
    return f"^{producer}" if index < 0 else f"{producer}:{index}"


def _input_map(input_map, graph: Graph) -> dict:
    """``input_map`` with keys in one form ('x' -> 'x:0'), values checked."""
    out = {}
    for key, value in (input_map or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"input_map keys are input names (strings), not {key!r}.")
        producer, index, control = _parse_input(key, "input_map")
        if hasattr(value, "_as_tensor"):
            value = value._as_tensor()
        if control and isinstance(value, Tensor):
            value = value.op
        wanted = Operation if control else Tensor
        if not isinstance(value, wanted):
            raise TypeError(f"input_map maps '{key}' to {value!r}; it takes "
                            f"{'an Operation' if control else 'a Tensor'}.")
        if value.graph is not graph:
            raise ValueError(f"input_map maps '{key}' to {value!r}, which is not in the graph "
                             f"being imported into.")
        out[_key(producer, -1 if control else index)] = value
    return out


def _topological(graph_def: graph_pb2.GraphDef, graph: Graph, mapped: dict) -> list:
    """The GraphDef's nodes, each after the nodes of the GraphDef it reads; raises for a
    duplicate name, an input found nowhere, an unused ``input_map`` key or a cycle."""
    nodes = {}
    for node in graph_def.node:
        if node.name in nodes:
            raise InvalidArgumentError(f"Duplicate node name '{node.name}' in GraphDef.", node.name)
        nodes[node.name] = node
    deps, used = {}, set()
    for node in graph_def.node:
        names = []
        for text in node.input:
            producer, index, _ = _parse_input(text, node.name)
            key = _key(producer, index)
            if key in mapped:
                used.add(key)
            elif producer in nodes:
                names.append(producer)
            elif producer not in graph:
                raise InvalidArgumentError(
                    f"Node '{node.name}' has input '{text}', but no node '{producer}' is in "
                    f"the GraphDef or in the graph it is imported into.", node.name)
        deps[node.name] = names
    unused = sorted(set(mapped) - used)
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: "
                         f"[{', '.join(unused)}]")
    order, state = [], {}  # state: 1 = on the stack, 2 = done
    for root in nodes:
        if state.get(root) == 2:
            continue
        stack = [(root, iter(deps[root]))]
        state[root] = 1
        while stack:
            name, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                state[name] = 2
                order.append(nodes[name])
            elif state.get(child) == 1:
                cycle = [n for n, _ in stack][[n for n, _ in stack].index(child):]
                raise InvalidArgumentError(
                    f"The GraphDef has a cycle: {' -> '.join(cycle + [child])}. "
                    f"Dataflow graphs must be acyclic.", child)
            elif state.get(child) is None:
                state[child] = 1
                stack.append((child, iter(deps[child])))
    return order


def _source(text: str, node, created: dict, graph: Graph, mapped: dict):
    """The Tensor (data input) or Operation (control input) an input string names."""
    producer, index, control = _parse_input(text, node.name)
    key = _key(producer, index)
    if key in mapped:
        return mapped[key]
    op = created.get(producer) or graph.get_operation_by_name(producer)
    if control:
        return op
    if index >= len(op.outputs):
        raise InvalidArgumentError(f"Node '{node.name}' reads output {index} of "
                                   f"'{producer}', which has {len(op.outputs)}.", node.name)
    return op.outputs[index]


def import_graph_def(graph_def, input_map=None, return_elements=None, name: str = "",
                     op_dict=None, producer_op_list=None, graph: Graph | None = None):
    """Add the nodes of ``graph_def`` (a GraphDef or its bytes, devsession's or
    TensorFlow's) to ``graph`` (default: the default graph); TF1's signature.

    Node names get the prefix ``name/`` when ``name`` is set (devsession's default is no
    prefix; TF1's is "import"), ``name_1/`` where that scope is taken; a node whose name
    is taken is renamed ``<name>_1`` (as TF's importer uniquifies).  ``input_map`` replaces inputs with tensors of the graph
    (see the module docstring for how inputs resolve).  Returns the elements named in
    ``return_elements`` (GraphDef names: "op" for an Operation, "op:0" for a Tensor),
    else None.  ``op_dict`` and ``producer_op_list`` are accepted and ignored, as TF1
    ignores the first and devsession needs no op list.  Raises ``NotFoundError`` for an op
    type devsession does not know, ``UnimplementedError`` for a TF form it does not
    support yet, ``InvalidArgumentError`` for a malformed graph (``NodeImportError``, a
    ValueError too as TF's, for a node that cannot be created); the graph is then
    unchanged.
    """
    del op_dict, producer_op_list
    if isinstance(graph_def, (bytes, bytearray)):
        graph_def = graph_def_from_bytes(bytes(graph_def))
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"import_graph_def takes a GraphDef or its bytes, not "
                        f"{type(graph_def).__name__}.")
    graph = graph or get_default_graph()
    mapped = _input_map(input_map, graph)
    graph_def = without_unread_variant_placeholders(graph_def)  # what freezing leaves
    graph_def = inline_calls(graph_def)            # TF2's function calls -> their nodes
    graph_def = map_resource_variables(graph_def)  # TF's resource variables -> VariableV2
    graph_def, functions, _ = functionalize_functions(graph_def)  # TF2's If/While, lists
    graph_def = map_tensor_arrays(graph_def)      # TF1's TensorArrays -> devsession's values
    graph_def, plans = functionalize(graph_def, functions)  # TF1's loops -> While, conds -> If
    with graph._all_or_nothing():
        prefix = f"{graph.free_name(name, scope=True)}/" if name else ""   # import_1/...
        created = import_nodes(graph_def, graph, mapped, prefix, plans)
    if return_elements is None:
        return None
    return [_return_element(e, created) for e in return_elements]


def import_nodes(graph_def, graph: Graph, mapped: dict, prefix: str, plans: dict) -> dict:
    """Create the nodes of ``graph_def`` in ``graph``; {GraphDef name: Operation}.
    ``mapped``: input names -> Tensors or Operations (of ``graph`` or, for a cond's
    branch or a loop's function, of a graph enclosing it); ``plans``: the CondPlans and
    WhilePlans of its TF1 cond and loop nodes."""
    created: dict = {}
    for node in _topological(graph_def, graph, mapped):
        data, control = [], []
        for text in node.input:
            source = _source(text, node, created, graph, mapped)
            (control if text.startswith("^") else data).append(source)
        plan = plans.get(node.name)
        try:
            if plan is not None:
                build = _PLAN_BUILDERS[type(plan)]
                created[node.name] = build(plan, data, control, graph, prefix + node.name)
                continue
            name = graph.free_name(prefix + node.name)    # TF's: c taken, c_1
            op_type, data, attrs = translate(node, data, name)
            created[node.name] = graph.create_op(
                op_type, data, attrs, name=name, device=node.device,
                control_inputs=control, exact_name=True)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise NodeImportError(f"Cannot import node '{node.name}' ({node.op}): {e}",
                                  node.name) from None
    return created


def _return_element(text: str, created: dict):
    producer, index, control = _parse_input(text, "return_elements")
    op = created.get(producer)
    if op is None or control or (":" in text and index >= len(op.outputs)):
        raise ValueError(f"Requested return element '{text}' was not found in the GraphDef.")
    return op.outputs[index] if ":" in text else op


def graph_def_from_bytes(data: bytes) -> graph_pb2.GraphDef:
    graph_def = graph_pb2.GraphDef()
    try:
        graph_def.ParseFromString(data)
    except Exception as e:  # protobuf raises its own DecodeError
        raise InvalidArgumentError(f"Cannot parse a GraphDef from {len(data)} bytes: {e}") from None
    return graph_def


def write_graph(graph_or_graph_def, path: str) -> str:
    """Save a Graph or GraphDef as a binary GraphDef file; returns the path."""
    graph_def = graph_or_graph_def.as_graph_def() if isinstance(graph_or_graph_def, Graph) \
        else graph_or_graph_def
    with open(path, "wb") as f:
        f.write(graph_def.SerializeToString())
    return path


def read_graph_def(path: str) -> graph_pb2.GraphDef:
    """Load a GraphDef file: binary (``write_graph``'s output) or text format
    (``ds.train.write_graph(..., as_text=True)``, a ``.pbtxt``).  ``InvalidArgumentError``
    when it is neither; file errors as ``proto_files.read_message`` (``NotFoundError``,
    ``FailedPreconditionError`` for a directory...)."""
    return read_message(path, graph_pb2.GraphDef, error=InvalidArgumentError)
