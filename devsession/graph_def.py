"""GraphDef -> Graph (``import_graph_def``), and GraphDef files.

The encoding side is ``graph_codec.py`` (``Graph.as_graph_def``).  Importing re-creates
every node through ``Graph.create_op``, so an imported graph is checked exactly like a built
one; nodes may arrive in any order, and a cycle or a dangling input is an
``InvalidArgumentError`` naming the nodes involved.
"""

from __future__ import annotations

from .errors import InvalidArgumentError
from .graph import Graph, get_default_graph
from .graph_codec import decode_attr, graph_to_graph_def
from .proto import graph_pb2

__all__ = ["graph_to_graph_def", "import_graph_def", "write_graph", "read_graph_def",
           "GraphDef"]

GraphDef = graph_pb2.GraphDef


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


def _topological(graph_def: graph_pb2.GraphDef) -> list:
    nodes = {}
    for node in graph_def.node:
        if node.name in nodes:
            raise InvalidArgumentError(f"Duplicate node name '{node.name}' in GraphDef.", node.name)
        nodes[node.name] = node
    deps = {}
    for node in graph_def.node:
        names = []
        for text in node.input:
            producer = _parse_input(text, node.name)[0]
            if producer not in nodes:
                raise InvalidArgumentError(
                    f"Node '{node.name}' has input '{text}', but no node '{producer}' is in "
                    f"the GraphDef.", node.name)
            names.append(producer)
        deps[node.name] = names
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


def import_graph_def(graph_def, name: str = "", graph: Graph | None = None,
                     return_elements=None):
    """Add the nodes of ``graph_def`` to ``graph`` (default: the default graph).

    Node names get the prefix ``name/`` when ``name`` is set.  Returns the elements named
    in ``return_elements`` ("op" or "op:0"), else None.  Raises ``NotFoundError`` for an
    op type devsession does not know and ``InvalidArgumentError`` for a malformed graph.
    """
    if isinstance(graph_def, (bytes, bytearray)):
        graph_def = graph_def_from_bytes(bytes(graph_def))
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"import_graph_def takes a GraphDef or its bytes, not "
                        f"{type(graph_def).__name__}.")
    graph = graph or get_default_graph()
    prefix = f"{name}/" if name else ""
    created = {}
    for node in _topological(graph_def):
        data, control = [], []
        for text in node.input:
            producer, index, is_control = _parse_input(text, node.name)
            op = created[producer]
            if is_control:
                control.append(op)
            elif index >= len(op.outputs):
                raise InvalidArgumentError(f"Node '{node.name}' reads output {index} of "
                                           f"'{producer}', which has {len(op.outputs)}.", node.name)
            else:
                data.append(op.outputs[index])
        attrs = {key: decode_attr(value) for key, value in node.attr.items()}
        try:
            created[node.name] = graph.create_op(
                node.op, data, attrs, name=prefix + node.name, device=node.device,
                control_inputs=control, exact_name=True)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise InvalidArgumentError(f"Cannot import node '{node.name}' ({node.op}): {e}",
                                       node.name) from None
    if return_elements is None:
        return None
    try:
        return [graph.as_graph_element(prefix + e) for e in return_elements]
    except KeyError as e:
        raise ValueError(f"Requested return element not found: {e.args[0]}") from None


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
    """Load a binary GraphDef file (``write_graph``'s output)."""
    with open(path, "rb") as f:
        return graph_def_from_bytes(f.read())
