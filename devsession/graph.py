"""Graphs of operations, as TF1 builds them.

A ``Graph`` owns ``Operation`` nodes in creation order (which is always a topological
order, since an op's inputs exist before it does); each op has at most one output
``Tensor``.  Building a node runs its ``OpDef.infer`` at once, so a dtype or shape
mismatch is raised by the line of user code that made it.  Thread-local stacks hold the
default graph, device scopes (merged as in TF: inner fields win), name scopes and
control dependencies.  ``version`` counts nodes, so a session can tell what was added
since it last looked (``Session.extend``).

    g = Graph()
    with g.as_default(), device("/job:worker/task:1"):
        x = placeholder(float32, (None, 3), name="x")
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Iterator

import numpy as np

from . import defaults, dtypes, tensor_conversion_registry
from .device_spec import DeviceSpec
from .graph_codec import graph_to_graph_def
from .ops.registry import InferError, InputSpec, get_op_def
from .tensor_codec import shape_to_proto
from .tensor_shape import (UNKNOWN_DIMENSION, TensorShape, fully_defined_dims, refined,
                           unknown_dimension_error)

__all__ = ["Graph", "Operation", "Tensor", "get_default_graph", "reset_default_graph",
           "device", "name_scope", "control_dependencies", "convert_to_tensor",
           "constant_from_array", "python_value_to_array", "constant_value",
           "active_control_inputs", "building_graph", "pending_control_inputs"]

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
# TF's name_scope: a scope opened at the root is named as an op is; inside another scope
# its first character may also be '_', '-', '/' or '>' (TF1 code nests "_interpolate").
_VALID_ROOT_SCOPE = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")



def run_in_session(fetch, feed_dict, session, what: str):
    """``session.run(fetch, feed_dict)``, in the default session when ``session`` is None
    (``t.eval()``, ``op.run()``); ValueError saying how to give one when there is none."""
    given = session is not None
    session = session or defaults.default_session()
    if session is None:
        raise ValueError(f"Cannot {what} without a session: pass session= or use "
                         f"'with ds.Session() as sess:'.")
    graph = getattr(session, "graph", None)
    if graph is not None and getattr(fetch, "graph", graph) is not graph:
        # TF's ValueError, before the session sees the fetch (it would say "not an
        # element of this graph"): which session, and how to give the right one.
        which = "given" if given else "default"
        if isinstance(fetch, Operation):
            hint = "" if given else " Pass an explicit session to run(session=sess)."
            raise ValueError(f"Cannot use the {which} session to execute operation: the "
                             f"operation's graph is different from the session's graph.{hint}")
        hint = "" if given else " Pass an explicit session to `eval(session=sess)`."
        raise ValueError(f"Cannot use the {which} session to evaluate tensor: the tensor's "
                         f"graph is different from the session's graph.{hint}")
    return session.run(fetch, feed_dict=feed_dict)


def different_graphs_error(item, original) -> ValueError:
    """TF's ValueError for inputs of one op from two graphs: ``item`` is not from the graph
    of ``original`` (the first input, whose graph the op is built in)."""
    return ValueError(f"{item!r} must be from the same graph as {original!r} (graphs are "
                      f"{item.graph!r} and {original.graph!r}).")

class Tensor:
    """The output of an ``Operation``: a symbolic value with a dtype and a static shape."""

    __array_priority__ = 100  # so ndarray <op> Tensor defers to Tensor's reflected ops

    def __init__(self, op: "Operation", value_index: int, dtype: dtypes.DType, shape: TensorShape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._value_index}"

    def get_shape(self) -> TensorShape:
        return self._shape

    def consumers(self) -> list:
        """The operations that take this tensor as a data input, in graph order (TF1's)."""
        return [op for op in self.graph.get_operations()
                if any(t is self for t in op.inputs)]

    def set_shape(self, shape) -> None:
        """Refine the static shape (as TF1's ``set_shape``); ValueError if incompatible."""
        self._shape = refined(self._shape, shape)

    def eval(self, feed_dict=None, session=None):
        return run_in_session(self, feed_dict, session, "evaluate a tensor")

    def __repr__(self) -> str:
        return f"<ds.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __bool__(self):
        raise TypeError("Using a ds.Tensor as a Python bool is not allowed; use ds.where or "
                        "run the graph and test the numpy value.")

    def __len__(self):
        raise TypeError(f"len() of a symbolic tensor is not defined; use .shape ('{self.name}').")

    __hash__ = object.__hash__

    # Operators are attached by ops/operators.py, above every op family.


# tf_export.tf_attr(op, name), once tf_export is imported (with the package)
TF_ATTR_LOOKUP: list = []


class Operation:
    """A node: an op type, its inputs, attributes, device and control dependencies, and
    its outputs (most ops have one; ``op.outputs[k]`` is the tensor ``name:k``)."""

    def __init__(self, graph, name, op_type, inputs, attrs, device: DeviceSpec, control_inputs):
        self._graph = graph
        self._name = name
        self._type = op_type
        self._inputs = tuple(inputs)
        self._attrs = dict(attrs)
        self._device = device
        self._control_inputs = tuple(control_inputs)
        self._outputs: tuple[Tensor, ...] = ()
        self._listed_outputs = False    # an op whose outputs are a list: Split, Unpack...

    name = property(lambda self: self._name)
    type = property(lambda self: self._type)
    graph = property(lambda self: self._graph)
    inputs = property(lambda self: self._inputs)
    outputs = property(lambda self: self._outputs)
    control_inputs = property(lambda self: self._control_inputs)
    attrs = property(lambda self: dict(self._attrs))

    @property
    def device(self) -> str:
        """The requested device, as TF1 prints it ('' when none was asked for)."""
        return str(self._device)

    @property
    def device_spec(self) -> DeviceSpec:
        """The requested device, parsed (what placement reads)."""
        return self._device

    def get_attr(self, name: str):
        """The attr's value as TF's ``get_attr`` gives it, for every attr TensorFlow's op
        has (its defaults included): bytes for strings, lists, a DType, the protos of a
        shape, a tensor or a function (``tf_export.tf_attr``, which registers itself in
        ``TF_ATTR_LOOKUP``: it builds on this module).  devsession's own attrs that TF's
        op lacks (a Sum's ``axis``) come as devsession holds them, as ``attrs`` gives
        every attr (what devsession's own code reads)."""
        if not TF_ATTR_LOOKUP:
            return self._get_own_attr(name)
        try:
            return TF_ATTR_LOOKUP[0](self, name)
        except KeyError:
            return self._get_own_attr(name)

    def colocation_groups(self) -> list:
        """The colocation groups of this op as bytes (TF1's): its ``_class`` entries
        ("loc:@global_step"), else its own ``loc:@<name>``."""
        return [group.encode() for group in _colocation_groups(self)]

    def _get_own_attr(self, name: str):
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.") from None

    @property
    def node_def(self):
        """This node as a NodeDef (TF1's ``op.node_def``, what graph surgery reads)."""
        from .graph_codec import node_def_of

        return node_def_of(self)

    def _set_device(self, device) -> None:
        self._device = DeviceSpec.parse(device)

    def run(self, feed_dict=None, session=None) -> None:
        run_in_session(self, feed_dict, session, "run an operation")

    def __repr__(self) -> str:
        return f"<ds.Operation '{self._name}' type={self._type}>"


class _ThreadStacks(threading.local):
    """Per-thread builder state, as TF1 keeps it (scopes do not leak across threads)."""

    def __init__(self):
        self.devices: list[DeviceSpec] = []
        self.names: list[str] = []
        self.control: list[list[Operation] | None] = []


_STACKS = _ThreadStacks()
_GLOBAL_DEFAULT_LOCK = threading.Lock()
_global_default_graph: "Graph | None" = None


class Graph:
    """A dataflow graph; build it inside ``with g.as_default():``."""

    def __init__(self):
        self._lock = threading.RLock()
        self._ops: dict[str, Operation] = {}
        self._order: list[Operation] = []
        self._names_in_use: dict[str, int] = {}
        self._collections: dict[str, list] = {}
        self._gradient_override_map: dict[str, str] = {}   # op type -> gradient name
        self._container = ""                                 # TF1's Graph.container
        self._colocation_stack: list = []                    # TF1's Graph.colocate_with
        self._finalized = False
        self._unfeedable: set = set()     # TF1's prevent_feeding / prevent_fetching
        self._unfetchable: set = set()
        self.seed: int | None = None

    # --- building ---------------------------------------------------------------

    @contextlib.contextmanager
    def as_default(self) -> Iterator["Graph"]:
        stack = defaults.graph_stack()
        stack.append(self)
        try:
            yield self
        finally:
            defaults.remove_innermost(stack, self)

    def finalize(self) -> None:
        """Forbid further changes (TF1's ``Graph.finalize``)."""
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    def _unsafe_unfinalize(self) -> None:
        """Allow changes again (TF1's private ``Graph._unsafe_unfinalize``, which a
        MonitoredSession calls as it closes when it finalized the graph itself)."""
        self._finalized = False

    def prevent_feeding(self, tensor) -> None:
        """TF1's ``Graph.prevent_feeding``: a session run feeding ``tensor`` raises
        ValueError ("may not be fed")."""
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor) -> bool:
        return tensor not in self._unfeedable

    def prevent_fetching(self, op) -> None:
        """TF1's ``Graph.prevent_fetching``: fetching ``op`` or one of its outputs raises
        ValueError ("marked as not fetchable")."""
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op) -> bool:
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    @property
    def version(self) -> int:
        return len(self._order)

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` inside the current name scope, made unique as TF does (x, x_1, ...)."""
        scope = "/".join(s for s in _STACKS.names if s) if get_default_graph() is self else ""
        full = f"{scope}/{name}" if scope else name
        with self._lock:
            key = full.lower()
            count = self._names_in_use.get(key, 0)
            candidate = full
            if count:
                candidate = f"{full}_{count}"
                while candidate.lower() in self._names_in_use:
                    count += 1
                    candidate = f"{full}_{count}"
            if mark_as_used:
                self._names_in_use[key] = count + 1
                self._names_in_use.setdefault(candidate.lower(), 1)
        return candidate

    def free_name(self, name: str, scope: bool = False) -> str:
        """``name`` if no node has it (with ``scope``: none has it as its scope either),
        else TF's importer's choice, the first free of ``name_1``, ``name_2``... (outside
        any name scope: a GraphDef's names are absolute)."""
        def taken(candidate: str) -> bool:
            if candidate.lower() in self._names_in_use:
                return True
            return scope and any(op.startswith(candidate + "/") for op in self._ops)

        with self._lock:
            if not taken(name):
                return name
            count = 1
            while taken(f"{name}_{count}"):
                count += 1
            return f"{name}_{count}"

    def create_op(self, op_type: str, inputs=(), attrs=None, name: str | None = None,
                  device: str | None = None, control_inputs=(), exact_name: bool = False) -> Operation:
        """Create a node, inferring its output; raises ValueError/TypeError on bad inputs.

        ``exact_name`` is for the GraphDef importer, whose names are already unique.
        While a ``ds.cond`` branch or ``ds.while_loop`` body is being traced into a
        function graph built over this one (the default graph), the node goes there
        instead, as TF builds every op of a function in the function's graph, whatever
        graph its inputs come from (``function_graph.py``).
        """
        target = _function_built_over(self) or self
        refs = _refs_to_colocate(op_type, inputs) \
            if target is self and device is None and not exact_name else ()
        if refs:
            with self._colocated_with_refs(refs):
                return self._create_op(op_type, inputs, attrs, name, None, control_inputs,
                                       False)
        return target._create_op(op_type, inputs, attrs, name, device, control_inputs,
                                  exact_name)

    @contextlib.contextmanager
    def _colocated_with_refs(self, refs):
        """TF1's op_def_library: an op with reference inputs (an Assign, a training
        Apply, a scatter) is built in ``colocate_with`` each variable it writes: it joins
        their colocation groups, and its device is the last of them that has one (none
        when none has: the scopes' devices are set aside)."""
        chosen = next((op.device for op in reversed(refs) if op.device), None)
        with contextlib.ExitStack() as scopes:
            for op in refs:
                scopes.enter_context(self.colocate_with(op))
            scopes.enter_context(device(None))
            if chosen:
                scopes.enter_context(device(chosen))
            yield

    def _captures_from(self, graph) -> bool:
        """Whether this graph takes tensors of ``graph`` as inputs (a function graph
        nested in it does)."""
        return False

    def _create_op(self, op_type, inputs, attrs, name, device, control_inputs, exact_name):
        op_def = get_op_def(op_type)
        inputs = list(inputs)
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"Inputs of '{op_type}' must be Tensors, got {type(t).__name__}.")
            if t.graph is not self:
                original = next((x for x in inputs
                                 if isinstance(x, Tensor) and x.graph is self), None)
                if original is None:
                    raise ValueError(f"{t!r} is not from the passed-in graph.")
                raise different_graphs_error(t, original)
        if op_def.num_inputs is not None and len(inputs) != op_def.num_inputs:
            raise ValueError(f"Op type '{op_type}' takes {op_def.num_inputs} inputs, "
                             f"got {len(inputs)}.")
        full_attrs = {**op_def.attr_defaults, **(attrs or {})}
        self._add_scoped_attrs(op_type, full_attrs)
        with self._lock:
            if self._finalized:
                raise RuntimeError("Graph is finalized and cannot be modified.")
            if exact_name or (name and name.endswith("/")):
                # A name ending in "/" is a name scope's own name (TF's convention): the op
                # takes it exactly, as `x + y` names its op after its "add/" scope.
                name = name[:-1] if not exact_name else name
                if name in self._ops:
                    raise ValueError(f"Duplicate node name in graph: '{name}'.")
                if not _VALID_NAME.match(name or ""):
                    raise ValueError(f"'{name}' is not a valid node name.")
                self._names_in_use.setdefault(name.lower(), 1)
            else:
                name = self.unique_name(_clean_name(name or _default_name(op_type)))
            specs = [InputSpec(t.dtype, t.shape, t.name, constant_value(t), t) for t in inputs]
            try:
                out = op_def.infer(specs, full_attrs, name)
            except InferError as e:
                raise ValueError(str(e)) from None
            device = _current_device() if device is None else DeviceSpec.parse(device)
            control = list(control_inputs) + _current_control_inputs(self, inputs)
            op = Operation(self, name, op_type, inputs, full_attrs, device,
                           _dedupe(control))
            outs = out if isinstance(out, list) else [] if out is None else [out]
            op._listed_outputs = isinstance(out, list)
            op._outputs = tuple(Tensor(op, k, dtypes.as_dtype(dtype), TensorShape(shape))
                                for k, (dtype, shape) in enumerate(outs))
            if device is _DEVICE_FUNCTIONS_PENDING:
                op._device = _device_from_functions(op)
            self._ops[name] = op
            self._order.append(op)
        return op

    def _add_scoped_attrs(self, op_type: str, attrs: dict) -> None:
        """What the graph's ``gradient_override_map`` and ``container`` scopes give a new
        op, as TF1's: ``_gradient_op_type`` (the gradient ``ds.gradients`` looks up for
        it) and an empty ``container`` attr filled in.  A function graph (a cond
        branch) takes them from the graph it is built over; an override map opened on
        the function graph itself (``custom_gradient`` inside a branch does) comes first."""
        scopes, override = self, self._gradient_override_map.get(op_type)
        while getattr(scopes, "outer_graph", None) is not None:
            scopes = scopes.outer_graph
            override = override or scopes._gradient_override_map.get(op_type)
        if override is not None:
            attrs["_gradient_op_type"] = override
        if scopes._container and attrs.get("container", None) == "":
            attrs["container"] = scopes._container
        if scopes._colocation_stack:
            groups = {g for op in scopes._colocation_stack for g in _colocation_groups(op)}
            attrs["_class"] = tuple(sorted(groups))

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict):
        """Inside, new ops of each type in ``op_type_map`` take the gradient registered
        (``ds.RegisterGradient``) under the mapped name (TF1's)."""
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing: bool = False):
        """Inside, new ops are placed with ``op`` (a Tensor, Operation or Variable): their
        ``_class`` attr names its colocation group ("loc:@<op>"), which placement
        follows, and outer device scopes are set aside for ``op``'s device (TF1's).
        ``ignore_existing`` drops the outer colocate_with blocks; ``op`` None with it
        clears colocation."""
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing "
                             "is not True")
        if op is not None:
            op = self.as_graph_element(op._ref() if hasattr(op, "_ref") else op)
            op = op.op if isinstance(op, Tensor) else op
        saved = self._colocation_stack
        self._colocation_stack = ([] if ignore_existing else list(saved)) + (
            [op] if op is not None else [])
        try:
            with device(None), device(op.device if op is not None and op.device else None):
                yield
        finally:
            self._colocation_stack = saved

    @contextlib.contextmanager
    def container(self, container_name: str):
        """Inside, stateful ops (variables, queues...) keep their state in the resource
        container ``container_name`` (``ds.Session.reset`` clears it), as TF1's."""
        saved, self._container = self._container, container_name
        try:
            yield container_name
        finally:
            self._container = saved

    @contextlib.contextmanager
    def _all_or_nothing(self):
        """Nodes made inside the block stay only if it completes (the GraphDef importer:
        a failed import leaves the graph as it was).  Holds the graph's lock."""
        with self._lock:
            version, names = len(self._order), dict(self._names_in_use)
            try:
                yield
            except BaseException:
                for op in self._order[version:]:
                    del self._ops[op.name]
                del self._order[version:]
                self._names_in_use = names
                raise

    # --- lookup -------------------------------------------------------------------

    def get_operations(self) -> list[Operation]:
        with self._lock:
            return list(self._order)

    def operations_since(self, version: int) -> list[Operation]:
        with self._lock:
            return self._order[version:]

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings, not {type(name).__name__}.")
        if ":" in name:
            raise ValueError(f"Name '{name}' looks like a Tensor name; an Operation name has "
                             f"no ':' (did you mean '{name.split(':')[0]}'?).")
        try:
            return self._ops[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph."
                           f"{_did_you_mean(name, self._ops)}") from None

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str) or ":" not in name:
            raise ValueError(f"The name '{name}' looks like an Operation name; a Tensor name "
                             f"is 'op_name:output_index' (e.g. '{name}:0').")
        op_name, _, index = name.rpartition(":")
        try:
            op = self.get_operation_by_name(op_name)
        except KeyError:    # TF's message, which names the tensor (a feed key's error shows it)
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', does not exist in this graph."
                           f"{_did_you_mean(op_name, self._ops)}") from None
        if not index.isdigit() or int(index) >= len(op.outputs):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist: "
                           f"operation '{op_name}' has {len(op.outputs)} output(s).")
        return op.outputs[int(index)]

    def as_graph_element(self, obj, allow_tensor: bool = True, allow_operation: bool = True):
        """Resolve a Tensor, Operation, Variable or name to an element of this graph."""
        if hasattr(obj, "_as_graph_element"):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            if ":" in obj:
                if not allow_tensor:
                    raise ValueError(f"Expected an Operation name, got tensor name '{obj}'.")
                return self.get_tensor_by_name(obj)
            if not allow_operation:
                raise ValueError(f"Expected a Tensor name, got operation name '{obj}'.")
            return self.get_operation_by_name(obj)
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            if isinstance(obj, Tensor) and not allow_tensor:
                raise ValueError(f"Expected an Operation, got {obj!r}.")
            if isinstance(obj, Operation) and not allow_operation:
                raise ValueError(f"Expected a Tensor, got {obj!r}.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a graph element: {obj!r}.")

    def __contains__(self, name: str) -> bool:
        return name in self._ops

    # --- collections ----------------------------------------------------------------

    def add_to_collection(self, name: str, value) -> None:
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def get_collection(self, name: str) -> list:
        with self._lock:
            return list(self._collections.get(name, []))

    def get_collection_ref(self, name: str) -> list:
        """The collection's own list (created empty if missing): changing it changes
        the collection, as TF1's."""
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_all_collection_keys(self) -> list:
        """The names of the graph's non-empty collections (what a MetaGraphDef saves)."""
        with self._lock:
            return [name for name, items in self._collections.items() if items]

    # --- scopes (methods, as TF1 has them) ------------------------------------------

    def device(self, spec):
        return device(spec)

    def name_scope(self, name):
        return name_scope(name)

    def control_dependencies(self, control_inputs):
        return control_dependencies(control_inputs)

    # --- serialisation --------------------------------------------------------------

    def as_graph_def(self, from_version: int | None = None, add_shapes: bool = False):
        """This graph as a GraphDef protobuf (``ds.import_graph_def`` reads it back).  As
        TF's: ``from_version`` keeps only the ops added since ``graph.version`` was that
        number; ``add_shapes`` gives each node with outputs an ``_output_shapes`` attr, the
        static shapes of its outputs (what serving tools read)."""
        ops = self.get_operations() if from_version is None else \
            self.operations_since(from_version)
        graph_def = graph_to_graph_def(ops)
        if add_shapes:
            for op, node in zip(ops, graph_def.node):
                if op.outputs:
                    node.attr["_output_shapes"].list.shape.extend(
                        shape_to_proto(t.get_shape()) for t in op.outputs)
        return graph_def


def _default_name(op_type: str) -> str:
    return {"ConcatV2": "concat", "SelectV2": "where", "RealDiv": "truediv", "VariableV2":
            "Variable", "RandomStandardNormal": "random_normal", "RandomUniform":
            "random_uniform", "MatMul": "MatMul"}.get(op_type, op_type)


def _clean_name(name: str) -> str:
    name = name.rstrip("/")
    if not _VALID_NAME.match(name):
        raise ValueError(f"'{name}' is not a valid node name: use letters, digits, '.', '_', "
                         "'-' and '/'.")
    return name


def _colocation_groups(op) -> list:
    """The groups ``op`` is placed with: its own ``_class`` entries, else itself."""
    groups = [str(g) for g in op.attrs.get("_class", ()) if str(g).startswith("loc:@")]
    return groups or [f"loc:@{op.name}"]


def _refs_to_colocate(op_type: str, inputs) -> tuple:
    """The variables an op writes through its reference inputs, in input order, for
    the op types whose TF op def declares ``Ref(T)`` inputs (devsession's own
    ``_ReadVariable`` and the stateful random ops, resource ops in TF, are not)."""
    if op_type.startswith(("_", "Rng", "Stateful")):
        return ()
    refs = get_op_def(op_type).ref_inputs
    if not refs:
        return ()
    inputs = list(inputs)
    return tuple(_dedupe(inputs[i].op for i in refs
                         if i < len(inputs) and isinstance(inputs[i], Tensor)
                         and inputs[i].op.type == "VariableV2"))


def _dedupe(ops):
    seen, out = set(), []
    for op in ops:
        if id(op) not in seen:
            seen.add(id(op))
            out.append(op)
    return out


def _did_you_mean(name: str, names) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(names), n=1)
    return f" Did you mean '{close[0]}'?" if close else ""


# --- default graph and scopes --------------------------------------------------------

def get_default_graph() -> Graph:
    """The innermost ``as_default()`` graph of this thread, else the global one."""
    stack = defaults.graph_stack()
    if stack:
        return stack[-1]
    global _global_default_graph
    with _GLOBAL_DEFAULT_LOCK:
        if _global_default_graph is None:
            _global_default_graph = Graph()
        return _global_default_graph


def reset_default_graph() -> None:
    """Replace the global default graph with a new, empty one."""
    if defaults.graph_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. "
                             "If you need a cleared graph, exit the nesting and create a new "
                             "graph.")
    global _global_default_graph
    with _GLOBAL_DEFAULT_LOCK:
        _global_default_graph = Graph()


# _current_device's answer when a device function is in scope: the op must exist first.
_DEVICE_FUNCTIONS_PENDING = DeviceSpec(job="\0device functions pending")


def _current_device() -> DeviceSpec:
    spec = DeviceSpec()
    for d in _STACKS.devices:
        if callable(d):
            return _DEVICE_FUNCTIONS_PENDING
        spec = spec.merge(d)
    return spec


def _device_from_functions(op) -> DeviceSpec:
    """The device of ``op`` when device functions are in scope, in TF1's order: innermost
    scope first; a spec fills in only the fields inner scopes left unset; a function sees
    the op with the device so far (``op.device``) and returns the op's device."""
    spec = DeviceSpec()
    for d in reversed(_STACKS.devices):
        if callable(d):
            op._device = spec
            spec = DeviceSpec.parse(d(op) or "")
        else:
            spec = d.merge(spec)
    return spec


def device_scopes() -> list:
    """The device scopes in force now, for ``under_device_scopes`` to build under later."""
    return list(_STACKS.devices)


@contextlib.contextmanager
def under_device_scopes(scopes: list):
    """Build under ``scopes`` (what ``device_scopes()`` gave earlier) in place of the
    scopes in force: TF's ``colocate_with`` an op made back then, as TF builds an
    iterator's ops with the iterator's resource wherever they are asked for."""
    saved = list(_STACKS.devices)
    _STACKS.devices[:] = scopes
    try:
        yield
    finally:
        _STACKS.devices[:] = saved


@contextlib.contextmanager
def device(spec):
    """Place the nodes built inside on ``spec``; nested scopes merge as in TF.

    ``spec`` may also be a device function, as in TF1: called with each new Operation
    (whose ``device`` is what inner scopes asked), it returns the op's device string
    (``ds.train.replica_device_setter`` makes one).  ``device(None)`` clears the
    placement inherited from outer scopes.
    """
    if spec is None:
        saved = list(_STACKS.devices)
        _STACKS.devices.clear()
        try:
            yield
        finally:
            _STACKS.devices[:] = saved
        return
    _STACKS.devices.append(spec if callable(spec) else DeviceSpec.parse(spec))
    try:
        yield
    finally:
        _STACKS.devices.pop()


def name_scope(name: str | None, default_name: str | None = None, values=None):
    """Prefix the names of nodes built inside with ``name/`` (unique in the graph); TF1's
    form: ``default_name`` when ``name`` is None, in the graph of the tensors in
    ``values`` (TF1 library code writes ``name_scope(name, "Op", [x])``)."""
    if name is None and default_name is not None:
        name = default_name
    elif name is None and values is not None:
        raise ValueError(f"At least one of name ({name}) and default_name ({default_name}) "
                         f"must be provided.")
    graph = next((v.graph for v in _flat(values) if isinstance(getattr(v, "graph", None), Graph)),
                 None)
    if graph is None or graph is get_default_graph():
        return _name_scope(name)
    return _in_graph(graph, name)


def current_name_scope() -> str:
    """The name scope new nodes are named in ("" at the top), as a path."""
    return "/".join(s for s in _STACKS.names if s)


def _flat(values) -> list:
    if values is None:
        return []
    if isinstance(values, (list, tuple)):
        return [leaf for v in values for leaf in _flat(v)]
    return [values]


@contextlib.contextmanager
def _in_graph(graph, name):
    with graph.as_default(), _name_scope(name) as scope:
        yield scope


@contextlib.contextmanager
def _name_scope(name: str | None):
    if not name:
        saved = list(_STACKS.names)
        _STACKS.names.clear()
        try:
            yield ""
        finally:
            _STACKS.names[:] = saved
        return
    _check_scope_name(name)
    graph = get_default_graph()
    unique = graph.unique_name(name.rstrip("/")) if not name.endswith("/") else name.rstrip("/")
    saved = list(_STACKS.names)
    _STACKS.names[:] = [unique]
    try:
        yield unique + "/"
    finally:
        _STACKS.names[:] = saved


def _check_scope_name(name: str) -> None:
    """ValueError, TF's, for a scope name no op could be named under (checked as the scope
    opens, before anything is built in it)."""
    if current_name_scope():
        if not _VALID_SCOPE.match(name):
            raise ValueError(f"'{name}' is not a valid scope name. A scope name has to match "
                             f"the following pattern: {_VALID_SCOPE.pattern}")
    elif not _VALID_ROOT_SCOPE.match(name):
        raise ValueError(f"'{name}' is not a valid root scope name. A root scope name has to "
                         f"match the following pattern: {_VALID_ROOT_SCOPE.pattern}")


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """Make nodes built inside run after ``control_inputs`` (None clears outer ones)."""
    if control_inputs is None:
        _STACKS.control.append(None)
    else:
        graph = get_default_graph()
        ops = []
        for c in control_inputs:
            element = graph.as_graph_element(c)
            ops.append(element.op if isinstance(element, Tensor) else element)
        _STACKS.control.append(ops)
    try:
        yield
    finally:
        _STACKS.control.pop()


def pending_control_inputs(graph: Graph) -> list:
    """The ops a node built now in ``graph`` would depend on (``control_dependencies``)."""
    return _current_control_inputs(graph, ())


def active_control_inputs() -> list:
    """The ops of every ``control_dependencies`` block this thread is in, up to the
    innermost ``control_dependencies(None)``, whatever graph they belong to."""
    ops: list = []
    for entry in reversed(_STACKS.control):
        if entry is None:
            break
        ops.extend(entry)
    return ops


def _current_control_inputs(graph: Graph, inputs) -> list:
    input_ops = {id(t.op) for t in inputs}
    return [op for op in active_control_inputs()
            if op.graph is graph and id(op) not in input_ops]


def building_graph(graph: Graph) -> Graph:
    """The graph a new op on ``graph``'s tensors lands in: ``graph``, or the function
    graph being traced over it."""
    return _function_built_over(graph) or graph


def _function_built_over(graph: Graph) -> "Graph | None":
    """The default graph when it is a function graph being traced over ``graph``."""
    stack = defaults.graph_stack()
    if stack and stack[-1] is not graph and stack[-1]._captures_from(graph):
        return stack[-1]
    return None


def constant_value(tensor: Tensor):
    """The value of ``tensor`` when the graph alone determines it (a Const, or an op
    whose ``OpDef.static_value`` computes it from its inputs' static values), else
    None.  Remembered on the tensor: graphs only grow, so it never changes."""
    cached = getattr(tensor, "_static_value", _UNKNOWN)
    if cached is not _UNKNOWN:
        return cached
    op = tensor.op
    value = None
    if op.type == "Const":
        value = op._attrs["value"]
    else:
        static = get_op_def(op.type).static_value
        if static is not None and len(op.outputs) == 1:
            value = static(op, constant_value)
    tensor._static_value = value
    return value


_UNKNOWN = object()


def convert_to_tensor(value, dtype=None, name: str | None = None, graph: Graph | None = None,
                      dtype_hint=None) -> Tensor:
    """A Tensor for ``value``: Tensors pass through, Variables give their value, anything
    numpy can hold becomes a Const node (Python floats float32, ints int32, as in TF1).

    ``dtype`` is required (TypeError if the value cannot be it without loss);
    ``dtype_hint`` is preferred for Python values when the conversion is exact.
    """
    if hasattr(value, "_as_tensor"):
        value = value._as_tensor()
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise TypeError(f"Tensor '{value.name}' has dtype {value.dtype.name}, but "
                            f"{dtypes.as_dtype(dtype).name} is required here.")
        return value
    if isinstance(value, Operation):
        raise TypeError(f"Operation '{value.name}' has no value; pass one of its outputs.")
    if isinstance(value, (list, tuple)) and _holds_tensors(value):
        return _autopack(value, dtype, name)
    if tensor_conversion_registry.has_functions():   # tf.register_tensor_conversion_function
        converted = tensor_conversion_registry.convert(value, dtype, name, Tensor)
        if converted is not None:
            return converted
    if isinstance(value, TensorShape):
        value = fully_defined_dims(value)
    elif value is UNKNOWN_DIMENSION:
        raise unknown_dimension_error()
    want = dtype if dtype is not None else dtype_hint
    array = python_value_to_array(value, want, strict=dtype is not None)
    return constant_from_array(array, name=name or "Const", graph=graph)


def _holds_tensors(values) -> bool:
    return any(isinstance(v, Tensor) or hasattr(v, "_as_tensor")
               or isinstance(v, (list, tuple)) and _holds_tensors(v) for v in values)


def _first_tensor_dtype(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
        elif isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            return convert_to_tensor(v).dtype
    return None


def _autopack(values, dtype, name: str | None) -> Tensor:
    """TF's auto-packing: a (nested) list holding tensors is their ``tf.stack``, Python
    numbers in it taking the tensors' dtype (``tf.reduce_all([a, b])``,
    ``tf.reshape(x, [tf.shape(x)[0], -1])``)."""
    dtype = dtypes.as_dtype(dtype) if dtype is not None else _first_tensor_dtype(values)
    parts = [convert_to_tensor(v, dtype=dtype) for v in values]
    return parts[0].graph.create_op("Pack", parts, {"N": len(parts), "axis": 0},
                                    name=name or "packed").outputs[0]


def constant_from_array(array: np.ndarray, name: str = "Const", graph: Graph | None = None
                        ) -> Tensor:
    """A Const node holding a private, read-only, C-ordered copy of ``array``."""
    array = np.array(array, copy=True, order="C")
    array.setflags(write=False)
    graph = graph or get_default_graph()
    return graph.create_op("Const", (), {"value": array, "dtype": dtypes.as_dtype(array.dtype)},
                           name=name).outputs[0]


def python_value_to_array(value, want, strict: bool) -> np.ndarray:
    wants_string = want is not None and dtypes.as_dtype(want).is_string
    if wants_string or dtypes.holds_strings(value):
        if want is not None and not wants_string:
            raise TypeError(f"Cannot convert {value!r} to a tensor of dtype "
                            f"{dtypes.as_dtype(want).name}: it holds strings.")
        return dtypes.string_array(value)
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        natural = array.dtype
    else:
        array = np.asarray(value)
        if array.dtype == np.float64:
            natural = np.dtype(np.float32)
        elif array.dtype.kind in "iu":
            natural = np.dtype(np.int32 if dtypes.converts_without_loss(array, np.int32)
                               else np.int64)
        else:
            natural = array.dtype
    if array.dtype == object or array.dtype.kind not in "fiubc":
        raise TypeError(f"Cannot convert {value!r} to a tensor: devsession holds numbers, "
                        f"bools and strings only.")
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
        natural = natural.newbyteorder("=")
    if want is None:
        return array.astype(natural, copy=False)
    want = dtypes.as_dtype(want).np
    if dtypes.converts_without_loss(array, want):
        return array.astype(want, copy=False)
    if want.kind in "iu" and array.dtype.kind in "iu":
        raise TypeError(f"Value {value!r} does not fit in {want.name}.")
    if strict:
        raise TypeError(f"Cannot convert {value!r} to a tensor of dtype {want.name} without "
                        f"losing information.")
    return array.astype(natural, copy=False)
