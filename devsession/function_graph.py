"""Function graphs: the bodies of ``ds.cond`` branches and ``ds.while_loop`` loops.

A control-flow op (``If``, ``While``: ``ops/control_flow.py``) runs small graphs of its
own.  Each is traced by calling the user's Python function while a ``FunctionGraph``
is the default graph, and travels inside the op's attrs as bytes (``serialize``), so a
control-flow node is one node wherever it goes: in a GraphDef, through the optimizer,
inside a cluster partition.  The runtime imports the bytes back (``import_function``)
and plans them like any graph (``runtime/functions.py``).

Tracing, as TF2's ``FuncGraph``:

* Every op built while the function graph is the default graph lands in it, even one
  whose builder picked an input's graph (``Graph.create_op`` redirects there).
* A tensor of an enclosing graph used by such an op is *captured*: it becomes a
  ``Placeholder`` of the function graph, and the outer tensor an extra input of the
  control-flow op, so it is computed outside, before the op runs (an op built outside a
  branch runs whichever branch is taken: TF1's well-known gotcha).  Nested function
  graphs capture through each level.  A small integer or bool tensor whose value the
  graph already knows (a shape, an axis) is copied in as a ``Const`` instead, so shapes
  given as tensors still infer inside; floats are always captured, so gradients reach
  them.
* A variable of an enclosing graph that an op inside assigns to (a ref input) is
  re-created as a ``VariableV2`` node with the variable's container and shared name:
  the runtime finds resources by name, so the op updates the very same variable, and
  only when the op runs.  Reading a variable inside captures its value.
* An outer op named in ``control_dependencies`` inside the function becomes a control
  input of the control-flow op (``control_captures``).

The attr value is a ``FunctionAttr`` (``graph_codec.py``): the bytes of a
``NameAttrList`` message (``proto/graph.proto``) with attrs ``graph`` (the function's
GraphDef), ``inputs`` and ``outputs`` (tensor names, in order).  A GraphDef
holds it in the attr's ``func`` field, where TF keeps function-valued attrs.
"""

from __future__ import annotations

import functools

from . import dtypes
from .errors import InvalidArgumentError, NotFoundError
from .graph import (Graph, Operation, Tensor, active_control_inputs, constant_value,
                    control_dependencies)
from .graph_codec import FunctionAttr
from .ops.registry import get_op_def
from .proto import graph_pb2

__all__ = ["FunctionGraph", "serialize", "function_attr", "parse", "import_function",
           "assigned_variables", "function_nodes", "holds_draws", "draws",
           "INLINE_CONSTANT_LIMIT"]

# Integer constants up to this many elements are copied into a function, not captured.
INLINE_CONSTANT_LIMIT = 1 << 12

# The random ops (``ops/random.py``, ``ops/candidate_sampling.py``): each run draws new
# values.  A cond or while_loop whose functions hold one records what it drew (all its
# outputs), so that its gradient computes with those very values
# (``ops/control_flow.py``, ``ops/control_flow_grad.py``).
def draws(op_type: str) -> bool:
    """Whether ``op_type`` draws random values (``OpDef.draws``)."""
    try:
        return get_op_def(op_type).draws
    except NotFoundError:          # a function's internal op types (none draws)
        return False


class FunctionGraph(Graph):
    """The graph of one function being traced over ``outer_graph`` (see the module
    docstring).  ``inputs`` are its Placeholders in argument order: the explicit
    arguments (``add_input``), then one per captured outer tensor; ``outputs`` are set
    by the control-flow builder."""

    def __init__(self, name: str, outer_graph: Graph):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.seed = outer_graph.seed
        self.arguments: list[Tensor] = []
        self.outputs: list[Tensor] = []
        self._captures: dict[Tensor, Tensor] = {}       # outer tensor -> Placeholder
        self._inlined: dict[Tensor, Tensor] = {}        # outer constant -> its copy here
        self.variables: dict[Operation, Operation] = {}  # outer VariableV2 -> its copy here
        self.control_captures: list[Operation] = []
        self.bound_inputs: list[Tensor] | None = None    # fixed by the control-flow builder
        self._importing = False         # import_function copies variables' nodes as they are
        # the name scope TF1 gives what a branch makes outside itself (an optimizer's
        # variables): its cond's ("cond_1/"); "" where none was given
        self.lifted_scope = ""

    # --- what the control-flow op needs -------------------------------------------------

    @property
    def captured(self) -> list[Tensor]:
        """The outer tensors (of ``outer_graph``) captured so far, in capture order."""
        return list(self._captures)

    @property
    def inputs(self) -> list[Tensor]:
        if self.bound_inputs is not None:
            return list(self.bound_inputs)
        return self.arguments + list(self._captures.values())

    @property
    def is_stateful(self) -> bool:
        """Whether any op inside has effects or reads state (If rather than StatelessIf)."""
        return any(get_op_def(op.type).stateful for op in self.get_operations())

    @property
    def holds_draws(self) -> bool:
        """Whether a random op (``OpDef.draws``) is inside, maybe in a nested function."""
        return any(draws(op.type) or holds_draws(op) for op in self.get_operations())

    def needed_operations(self) -> set:
        """The ops that computing the outputs runs (through control inputs too)."""
        needed, stack = set(), [t.op for t in self.outputs]
        while stack:
            op = stack.pop()
            if op not in needed:
                needed.add(op)
                stack.extend(t.op for t in op.inputs)
                stack.extend(op.control_inputs)
        return needed

    def add_input(self, dtype, shape, name: str) -> Tensor:
        """A new explicit argument (a loop variable): a Placeholder."""
        t = self._placeholder(dtype, shape, name)
        self.arguments.append(t)
        return t

    def capture(self, tensor: Tensor) -> Tensor:
        """The tensor of this graph standing for ``tensor`` of an enclosing graph."""
        if tensor.graph is self:
            return tensor
        if not self._captures_from(tensor.graph):
            raise ValueError(f"Tensor '{tensor.name}' is used in function '{self.name}' but "
                             f"belongs to a graph that does not enclose it.")
        if tensor.graph is not self.outer_graph:
            tensor = self.outer_graph.capture(tensor)       # through each nesting level
        found = self._captures.get(tensor)
        if found is None:
            found = self._inlined.get(tensor)
        if found is None:
            value = constant_value(tensor)
            if value is not None and not tensor.dtype.is_floating \
                    and value.size <= INLINE_CONSTANT_LIMIT:
                found = self._inlined[tensor] = self._inlined_constant(tensor, value)
            else:
                found = self._captures[tensor] = self._placeholder(tensor.dtype, tensor.shape,
                                                                   tensor.op.name)
        return found

    # --- tracing ------------------------------------------------------------------------

    def _captures_from(self, graph) -> bool:
        outer = self.outer_graph
        while outer is not None:
            if outer is graph:
                return True
            outer = getattr(outer, "outer_graph", None)
        return False

    def as_graph_element(self, obj, allow_tensor: bool = True, allow_operation: bool = True):
        """As ``Graph``'s, also accepting elements of enclosing graphs (the operands of
        ``control_dependencies`` and ``group`` inside a branch)."""
        element = obj._as_graph_element() if hasattr(obj, "_as_graph_element") else obj
        if isinstance(element, (Tensor, Operation)) and self._captures_from(element.graph):
            return element
        return super().as_graph_element(obj, allow_tensor, allow_operation)

    def _create_op(self, op_type, inputs, attrs, name, device, control_inputs, exact_name):
        op_def = get_op_def(op_type)
        if op_type == "VariableV2" and not self._importing:
            raise ValueError(
                f"Cannot create a variable inside the function '{self.name}' (a ds.cond "
                f"branch or ds.while_loop body): create it outside and use it inside.")
        inputs = [self._local_input(t, k in op_def.ref_inputs) for k, t in enumerate(inputs)]
        for op in list(control_inputs) + active_control_inputs():
            if op.graph is not self and self._captures_from(op.graph) \
                    and op not in self.control_captures:
                self.control_captures.append(op)
        return super()._create_op(op_type, inputs, attrs, name, device,
                                  [op for op in control_inputs if op.graph is self], exact_name)

    def _create_own_op(self, op_type, attrs, name, device=None) -> Operation:
        """A source node of this graph's own making (an input, a copy), outside any
        control_dependencies block of the user's."""
        with control_dependencies(None):
            return super()._create_op(op_type, (), attrs, name, device, (), False)

    def _local_input(self, t, is_ref: bool):
        if not isinstance(t, Tensor) or t.graph is self or not self._captures_from(t.graph):
            return t            # create_op reports what is wrong with it
        if is_ref and t.op.type == "VariableV2":
            return self._variable_copy(t.op).outputs[0]
        return self.capture(t)

    def _variable_copy(self, variable: Operation) -> Operation:
        copy = self.variables.get(variable)
        if copy is None:
            attrs = variable.attrs
            attrs["shared_name"] = attrs.get("shared_name") or variable.name
            copy = self._create_own_op("VariableV2", attrs, variable.name,
                                       variable.device_spec)
            self.variables[variable] = copy
        return copy

    def _placeholder(self, dtype, shape, name: str) -> Tensor:
        return self._create_own_op("Placeholder", {"dtype": dtypes.as_dtype(dtype),
                                                   "shape": shape}, name).outputs[0]

    def _inlined_constant(self, tensor: Tensor, value) -> Tensor:
        return self._create_own_op("Const", {"value": value, "dtype": tensor.dtype},
                                   tensor.op.name).outputs[0]


# --- bytes ------------------------------------------------------------------------------

def serialize(function: FunctionGraph) -> FunctionAttr:
    """The attr value of a traced function (its GraphDef, input and output names).
    The function's name stays out, so two ops with the same functions have equal attrs
    (the optimizer may then merge stateless ones)."""
    return function_attr(function.as_graph_def(), [t.name for t in function.inputs],
                         [t.name for t in function.outputs])


def function_attr(graph_def, inputs, outputs) -> FunctionAttr:
    """The attr value of a function given as a GraphDef and the names of its input and
    output tensors (``serialize``'s, for a function rewritten as a GraphDef)."""
    message = graph_pb2.NameAttrList()
    message.attr[FunctionAttr.BODY_KEY].s = graph_def.SerializeToString(deterministic=True)
    message.attr["inputs"].list.s.extend(name.encode() for name in inputs)
    message.attr["outputs"].list.s.extend(name.encode() for name in outputs)
    return FunctionAttr(message.SerializeToString(deterministic=True))


def parse(function, node_name: str | None = None):
    """(name, GraphDef, input names, output names) of a ``FunctionAttr``;
    InvalidArgumentError, naming ``node_name``, for a value that is not a function."""
    if not isinstance(function, FunctionAttr):
        raise InvalidArgumentError(f"Node '{node_name}' holds {type(function).__name__} "
                                   f"where a function body belongs.", node_name)
    message = graph_pb2.NameAttrList()
    try:
        message.ParseFromString(function.data)
        graph_def = graph_pb2.GraphDef()
        graph_def.ParseFromString(message.attr[FunctionAttr.BODY_KEY].s)
    except Exception as e:      # protobuf's DecodeError
        raise InvalidArgumentError(f"Node '{node_name}' holds a function body that does not "
                                   f"parse: {e}", node_name) from None
    inputs = [s.decode() for s in message.attr["inputs"].list.s]
    outputs = [s.decode() for s in message.attr["outputs"].list.s]
    return message.name, graph_def, inputs, outputs


def assigned_variables(op) -> tuple[str, ...]:
    """The shared names of the variables that the function bodies of ``op`` (a cond or
    while_loop, nested ones included) assign to, sorted: the variables it must run
    beside, as the runtime finds them by name where the op runs."""
    names: set = set()
    for value in op.attrs.values():
        if isinstance(value, FunctionAttr):
            names.update(_function_variables(value.data))
    return tuple(sorted(names))


@functools.lru_cache(maxsize=256)
def _function_variables(data: bytes) -> frozenset:
    names = set()
    for node in _graph_def_of(data).node:
        if node.op == "VariableV2":
            names.add(node.attr["shared_name"].s.decode() or node.name)
        for value in node.attr.values():
            if value.HasField("func") and FunctionAttr.BODY_KEY in value.func.attr:
                names.update(_function_variables(value.func.SerializeToString()))
    return frozenset(names)


def function_nodes(function: FunctionAttr) -> tuple:
    """(name, op type) of every node of ``function`` and of the functions its nodes hold
    (nested ones named ``outer/inner``), in GraphDef order."""
    return _function_nodes(function.data)


@functools.lru_cache(maxsize=256)
def _function_nodes(data: bytes) -> tuple:
    found = []
    for node in _graph_def_of(data).node:
        found.append((node.name, node.op))
        for value in node.attr.values():
            if value.HasField("func") and FunctionAttr.BODY_KEY in value.func.attr:
                found.extend((f"{node.name}/{name}", op_type) for name, op_type
                             in _function_nodes(value.func.SerializeToString()))
    return tuple(found)


def holds_draws(op) -> bool:
    """Whether a function of ``op`` (a cond's or loop's node), or one nested in it, holds a
    random op (``OpDef.draws``)."""
    return any(draws(op_type) for value in op.attrs.values()
               if isinstance(value, FunctionAttr) for _, op_type in function_nodes(value))


def _graph_def_of(data: bytes) -> graph_pb2.GraphDef:
    message = graph_pb2.NameAttrList()
    message.ParseFromString(data)
    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString(message.attr[FunctionAttr.BODY_KEY].s)
    return graph_def


_CLEARING = "clear_after_read"


def _drop_clearing(graph_def) -> None:
    """Take ``clear_after_read`` off the TensorArray reads and writes of ``graph_def``
    and of the functions its nodes hold (their arrays' creation keeps it)."""
    for node in graph_def.node:
        if node.op != "_TensorArray" and _CLEARING in node.attr:
            del node.attr[_CLEARING]
        for value in node.attr.values():
            if value.HasField("func") and FunctionAttr.BODY_KEY in value.func.attr:
                inner = graph_pb2.GraphDef()
                inner.ParseFromString(value.func.attr[FunctionAttr.BODY_KEY].s)
                _drop_clearing(inner)
                value.func.attr[FunctionAttr.BODY_KEY].s = inner.SerializeToString(
                    deterministic=True)


def without_clearing(function: FunctionAttr) -> FunctionAttr:
    """``function`` whose TensorArrays do not clear their elements once read: what a
    gradient runs again reads again what the forward pass read (TF1's gradients read
    the values the forward pass kept)."""
    if _CLEARING.encode() not in function.data:
        return function
    _, graph_def, inputs, outputs = parse(function)
    _drop_clearing(graph_def)
    return function_attr(graph_def, inputs, outputs)


def import_function(function: FunctionAttr, graph: Graph, node_name: str | None = None,
                    drop_control_inputs: bool = False) -> tuple[list, list]:
    """Import a function's nodes into ``graph``; returns (input tensors, output
    tensors).  ``drop_control_inputs`` leaves out control edges (a gradient's copy of a
    function needs values, not the order of effects) and the clearing of TensorArray
    reads (``without_clearing``)."""
    from .graph_def import import_graph_def

    _, graph_def, inputs, outputs = parse(function, node_name)
    if drop_control_inputs:
        if _CLEARING.encode() in function.data:
            _drop_clearing(graph_def)
        for node in graph_def.node:
            kept = [i for i in node.input if not i.startswith("^")]
            del node.input[:]
            node.input.extend(kept)
    copying = isinstance(graph, FunctionGraph)
    if copying:
        graph._importing = True
    try:
        import_graph_def(graph_def, graph=graph)
    finally:
        if copying:
            graph._importing = False
    try:
        return ([graph.get_tensor_by_name(n) for n in inputs],
                [graph.get_tensor_by_name(n) for n in outputs])
    except (KeyError, ValueError) as e:
        raise InvalidArgumentError(f"Node '{node_name}' holds a function whose inputs or "
                                   f"outputs are not in its graph: {e}", node_name) from None
