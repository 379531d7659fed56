"""``ds.Variable``: state that lives in a session's (or a cluster's) resource containers.

A Variable is four nodes, named as in TF1: ``v`` (VariableV2, which names the resource),
``v/initial_value`` (its initial value), ``v/Assign`` (the initializer) and ``v/read``
(the value other ops consume).  The resource itself lives in the target's containers,
keyed by (container, shared_name or node name); an Assign's first input is a *reference*
to that resource, not a read of it, so initializing never reads the uninitialized value.

Collections, as TF1's: every variable is in ``"variables"`` (``global_variables()``),
trainable ones also in ``"trainable_variables"`` (``trainable_variables()``, what the
optimizers train by default); ``collections=`` replaces the first.

A part of a partitioned variable (``partitioned_variables.py``) carries a
``SaveSliceInfo``: the full variable's name and shape and where the part lies in it, which
the Saver uses to write the parts as one tensor and a MetaGraphDef records as TF's
``SaveSliceInfoDef``.
"""

from __future__ import annotations

import numpy as np

from .graph import (Tensor, building_graph, control_dependencies, convert_to_tensor,
                    current_name_scope, device, get_default_graph, name_scope,
                    pending_control_inputs)
from .graph_keys import get_collection
from .tensor_shape import TensorShape
from . import dtypes, variable_creator, variable_sync
from . import ops as api
from .ops.state import is_variable_initialized
from .ops.state_slices import sliced_variable

__all__ = ["Variable", "global_variables_initializer", "global_variables",
           "trainable_variables", "variables_initializer", "local_variables",
           "local_variables_initializer", "report_uninitialized_variables",
           "assert_variables_initialized", "GLOBAL_VARIABLES",
           "TRAINABLE_VARIABLES", "LOCAL_VARIABLES"]

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"
LOCAL_VARIABLES = "local_variables"


class SaveSliceInfo:
    """Where a variable lies in the partitioned variable it is a part of (TF1's
    ``Variable.SaveSliceInfo``): ``full_name``, ``full_shape``, ``var_offset`` and
    ``var_shape``, lists of ints."""

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None,
                 save_slice_info_def=None, import_scope=None):
        if save_slice_info_def is not None:
            prefix = f"{import_scope}/" if import_scope else ""
            full_name = prefix + save_slice_info_def.full_name
            full_shape = save_slice_info_def.full_shape
            var_offset = save_slice_info_def.var_offset
            var_shape = save_slice_info_def.var_shape
        self.full_name = full_name
        self.full_shape = None if full_shape is None else [int(d) for d in full_shape]
        self.var_offset = None if var_offset is None else [int(d) for d in var_offset]
        self.var_shape = None if var_shape is None else [int(d) for d in var_shape]

    @property
    def spec(self) -> str:
        """TF's slice spec string: ``"7 3 3,2:0,3"`` (the full shape, then offset,length
        per axis)."""
        return " ".join(str(d) for d in self.full_shape) + " " + ":".join(
            f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape))

    def to_proto(self, export_scope=None):
        from .proto.meta_graph_pb2 import SaveSliceInfoDef

        return SaveSliceInfoDef(full_name=self.full_name, full_shape=self.full_shape,
                                var_offset=self.var_offset, var_shape=self.var_shape)

    def __repr__(self) -> str:
        return f"SaveSliceInfo({self.full_name!r}, {self.spec!r})"


class _MadeThroughCreators(type):
    """``Variable(...)`` goes through the creators of ``ds.variable_creator_scope`` when
    one is open (variable_creator.py); otherwise it is the plain constructor."""

    def __call__(cls, *args, **kwargs):
        if not variable_creator.active():
            return super().__call__(*args, **kwargs)
        return variable_creator.create(lambda **given: type.__call__(cls, **given),
                                       cls.__init__, args, kwargs)


def _home_graph(graph):
    """The graph a variable made while ``graph`` is the default lives in: ``graph``, or
    for a function graph being traced (not imported: its variables are twins of outer
    ones) the graph it is built in."""
    if getattr(graph, "_importing", False):
        return graph
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


def _check_liftable(initial_value, name) -> None:
    """A variable made inside a cond or loop is built outside it, so its initial value
    cannot be a tensor computed inside (TF1's error); a callable (get_variable's
    initializers) is called outside."""
    if isinstance(initial_value, Tensor) and getattr(initial_value.graph, "outer_graph",
                                                     None) is not None:
        raise ValueError(f"Initializer for variable {name or 'Variable'} is from inside a "
                         f"control-flow construct, such as a loop or conditional. When "
                         f"creating a variable inside a loop or conditional, use a lambda as "
                         f"the initializer.")


_GUARD_STOPS = {"IsVariableInitialized", "VarIsInitializedOp", "ReadVariableOp",
                "_ReadVariable"}


def _guard_uninitialized_dependencies(graph, value: Tensor, scope: str) -> Tensor:
    """TF1's ``_try_guard_against_uninitialized_dependencies``: an initial value that
    reads other variables of the graph's collections reads their ``initialized_value()``
    instead, so ``global_variables_initializer`` may run the initializers in any order.
    Every op between such a variable and ``value`` is copied as ``<op>_<scope>`` (TF's
    names) with the new inputs; stateful ops (a cond, an assignment, a read already
    guarded) are kept as they are.  ``value`` itself when it reads no variable."""
    if not _reads_a_variable(value):
        return value
    variables = {v.op: v for key in (GLOBAL_VARIABLES, LOCAL_VARIABLES)
                 for v in graph.get_collection(key) if isinstance(v, Variable)}
    from .ops.registry import get_op_def

    done: dict = {}

    def guarded(t: Tensor) -> Tensor:
        if t in done:
            return done[t]
        done[t] = t                   # a cycle keeps the tensor as it is
        op = t.op
        if op in variables:
            new = variables[op].initialized_value()
        elif op.type in _GUARD_STOPS or get_op_def(op.type).stateful:
            new = t
        else:
            inputs = [guarded(x) for x in op.inputs]
            if all(a is b for a, b in zip(inputs, op.inputs)):
                new = t
            else:
                copy = graph.create_op(op.type, inputs, dict(op.attrs),
                                       name=f"{op.name}_{scope}")
                for k, out in enumerate(op.outputs):
                    done[out] = copy.outputs[k]
                new = copy.outputs[t.value_index]
        done[t] = new
        return new
    return guarded(value)


def _reads_a_variable(value: Tensor) -> bool:
    """Whether ``value`` depends on a VariableV2 node through data inputs (most initial
    values, constants and random ops, reach none in a step or two)."""
    seen, stack = set(), [value.op]
    while stack:
        op = stack.pop()
        if op.type == "VariableV2":
            return True
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
    return False


class Variable(metaclass=_MadeThroughCreators):
    """A mutable tensor; ``sess.run(v.initializer)`` before reading it.  A
    ``constraint`` (a function of the variable's value, TF1's) is kept as
    ``v.constraint``: the optimizers assign its result after each update."""

    _constraint = None      # a variable imported by from_proto has none
    _save_slice_info = None  # set on the parts of a partitioned variable
    _synchronization = variable_sync.VariableSynchronization.AUTO   # from_proto's
    _aggregation = variable_sync.VariableAggregation.NONE
    SaveSliceInfo = SaveSliceInfo

    def __init__(self, initial_value, name: str | None = None, dtype=None,
                 trainable: bool | None = None, container: str = "", shared_name: str = "",
                 collections=None, validate_shape: bool = True, constraint=None,
                 synchronization=None, aggregation=None, caching_device=None,
                 expected_shape=None, use_resource=None):
        # caching_device, expected_shape and use_resource are TF1's and change no value a
        # step reads, so they are accepted and left alone (as get_variable does).
        if isinstance(name, bool):      # TF1's second positional argument: trainable
            if trainable is not None:
                raise TypeError("Variable() got two values for 'trainable'.")
            name, trainable = None, name
        self._synchronization, self._aggregation, trainable = variable_sync.validate(
            synchronization, aggregation, trainable, name)
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        graph = get_default_graph()
        home = _home_graph(graph)
        if home is not graph:       # a cond branch or loop body being traced: TF1 makes the
            _check_liftable(initial_value, name)          # variable in the graph itself
            prefix = getattr(graph, "lifted_scope", "") + current_name_scope()
            with home.as_default(), name_scope(prefix.rstrip("/") + "/" if prefix else None):
                self.__init__(initial_value, name, dtype, trainable, container, shared_name,
                              collections, validate_shape, constraint, synchronization,
                              aggregation)
            return
        with control_dependencies(None), name_scope(name or "Variable") as scope:
            base = scope.rstrip("/")
            if callable(initial_value):    # TF1: made inside the variable's name scope
                initial_value = initial_value()
            value = convert_to_tensor(initial_value, dtype=dtype, name="initial_value") \
                if dtype is not None else convert_to_tensor(initial_value, name="initial_value")
            if validate_shape and not value.shape.is_fully_defined():
                raise ValueError(f"Variable '{base}' needs an initial value of fully defined "
                                 f"shape, got {value.shape} (or validate_shape=False: a "
                                 f"variable of unknown shape).")
            self._variable = graph.create_op(
                "VariableV2", (), {"dtype": value.dtype,
                                   "shape": value.shape if validate_shape else TensorShape(None),
                                   "container": container, "shared_name": shared_name},
                name=base, exact_name=True).outputs[0]
            guarded = _guard_uninitialized_dependencies(graph, value, scope)
            with device(self._variable.op.device):   # as TF1: both follow the variable
                self._initializer = graph.create_op(
                    "Assign", [self._variable, guarded],
                    None if validate_shape else {"validate_shape": False},
                    name="Assign").outputs[0].op
                self._snapshot = api.identity(self._variable, name="read")
        self._initial_value = value
        self._constraint = constraint
        self.trainable = bool(trainable)
        for collection in (GLOBAL_VARIABLES,) if collections is None else collections:
            graph.add_to_collection(collection, self)
        if self.trainable:
            graph.add_to_collection(TRAINABLE_VARIABLES, self)

    # --- properties, as TF1's ---------------------------------------------------------

    name = property(lambda self: self._variable.name)
    op = property(lambda self: self._variable.op)
    dtype = property(lambda self: self._variable.dtype)
    shape = property(lambda self: self._variable.shape)
    graph = property(lambda self: self._variable.graph)
    device = property(lambda self: self._variable.device)
    initializer = property(lambda self: self._initializer)
    initial_value = property(lambda self: self._initial_value)
    constraint = property(lambda self: self._constraint)
    synchronization = property(lambda self: self._synchronization)
    aggregation = property(lambda self: self._aggregation)

    def get_shape(self):
        return self.shape

    def _set_save_slice_info(self, save_slice_info) -> None:
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    # --- VariableDef, as TF1's (how a MetaGraphDef names a variable) -------------------

    def to_proto(self, export_scope=None):
        """This variable as a ``VariableDef``: the names of its four nodes."""
        from .proto.meta_graph_pb2 import VariableDef

        if export_scope is not None:
            raise NotImplementedError("Variable.to_proto(export_scope=...) is not supported "
                                      "by devsession yet.")
        proto = VariableDef(
            variable_name=self._variable.name, initializer_name=self._initializer.name,
            snapshot_name=self._snapshot.name, trainable=self.trainable,
            initial_value_name=self._initial_value.name if self._initial_value is not None
            else "")
        if self._save_slice_info is not None:
            proto.save_slice_info_def.CopyFrom(self._save_slice_info.to_proto())
        return proto

    @staticmethod
    def from_proto(variable_def, import_scope=None, graph=None) -> "Variable":
        """The Variable whose nodes ``variable_def`` names, already in ``graph`` (the
        default graph), under ``import_scope/`` when given; it joins no collection.
        A resource variable's (``is_resource``) nodes are reference ones once imported
        (``tf_resource_import.py``); a part of a partitioned variable keeps its
        ``SaveSliceInfo``.  ``KeyError`` for a node the graph lacks."""
        from .errors import UnimplementedError

        graph = graph or get_default_graph()
        prefix = f"{import_scope}/" if import_scope else ""
        name = variable_def.variable_name
        var = Variable.__new__(Variable)
        if variable_def.HasField("save_slice_info_def"):
            var._save_slice_info = SaveSliceInfo(
                save_slice_info_def=variable_def.save_slice_info_def,
                import_scope=import_scope)
        var._variable = graph.get_tensor_by_name(prefix + name)
        if var._variable.op.type != "VariableV2":
            raise UnimplementedError(f"Variable '{name}' is a {var._variable.op.type} node; "
                                     f"devsession imports VariableV2 variables only.")
        var._initializer = graph.get_operation_by_name(prefix + variable_def.initializer_name)
        var._snapshot = graph.get_tensor_by_name(prefix + variable_def.snapshot_name)
        var._initial_value = graph.get_tensor_by_name(
            prefix + variable_def.initial_value_name) if variable_def.initial_value_name \
            else None
        var.trainable = bool(variable_def.trainable)
        return var

    def value(self) -> Tensor:
        return self._snapshot

    def read_value(self) -> Tensor:
        """A read of the variable where it is built (TF1's ``identity(variable)``): under
        ``control_dependencies`` it runs after them, so ``with control_dependencies([train]):
        v.read_value()`` sees the update; elsewhere the variable's snapshot."""
        return self._as_tensor()

    def initialized_value(self) -> Tensor:
        """The value once initialized, else the initial value (TF1's cond on
        ``is_variable_initialized``): how one variable is initialized from another's
        value without ordering their initializers."""
        from .ops.control_flow import cond
        from .ops.state import is_variable_initialized

        def read() -> Tensor:             # inside the branch, so only run there
            return building_graph(self.graph).create_op(
                "_ReadVariable", [self._variable], name="read").outputs[0]

        with building_graph(self.graph).as_default():
            return cond(is_variable_initialized(self), read, lambda: self.initial_value)

    def _as_tensor(self) -> Tensor:
        """The value, read where it is used: under ``control_dependencies`` a fresh read
        that runs after them (TF1 reads a variable's buffer when the reader runs, so
        ``with control_dependencies([inc]): tf.identity(v)`` sees the increment)."""
        graph = building_graph(self.graph)     # a cond/while body reads inside it
        if pending_control_inputs(graph):
            return graph.create_op("_ReadVariable", [self._variable],
                                   name=f"{self.op.name}/read").outputs[0]
        return self._snapshot

    def _as_graph_element(self) -> Tensor:
        return self._snapshot

    def _ref(self) -> Tensor:
        """The variable itself (its VariableV2 tensor), as TF1's: what assignments
        write to and what ``ds.gradients`` differentiates with respect to."""
        return self._variable

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """An op that sets the variable; fetching it gives the new value (with
        ``read_value=False`` the Operation, which fetches as None, as TF1's).  Named
        ``Assign`` in the current name scope (not the variable's), as TF1's
        ``RefVariable.assign``: ``v.assign(x)`` at the top is ``Assign``, ``Assign_1``..."""
        return _read_or_op(api.assign(self, value, name=name), read_value)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """An op that adds ``delta`` to the variable; fetching it gives the new value
        (the Operation with ``read_value=False``)."""
        return _read_or_op(api.assign_add(self, delta, name=name), read_value)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """An op that subtracts ``delta`` from the variable; fetching it gives the new
        value (the Operation with ``read_value=False``)."""
        return _read_or_op(api.assign_sub(self, delta, name=name), read_value)

    def count_up_to(self, limit) -> Tensor:
        """An op adding 1 to this integer variable and giving its value before;
        ``OutOfRangeError`` once that reached ``limit``."""
        from .ops.state import count_up_to

        return count_up_to(self, limit)

    def eval(self, session=None):
        return self._snapshot.eval(session=session)

    def load(self, value, session=None) -> None:
        from .session import get_default_session

        session = session or get_default_session()
        session.run(self._initializer, feed_dict={self._initial_value: value})

    def __repr__(self) -> str:
        return f"<ds.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    # As a Tensor's: symbolic, so no truth value, length or iteration (iterating would
    # otherwise fall back to __getitem__ and build slices until one is out of range).
    def __bool__(self):
        return self._snapshot.__bool__()

    def __len__(self):
        return self._snapshot.__len__()

    def __iter__(self):
        return self._snapshot.__iter__()

    def __getitem__(self, key) -> Tensor:
        """``v[key]``: the slice of the value, whose ``assign(value)`` writes into those
        elements of the variable (TF1's ``v[0, 1:].assign(x)``: ``ops/state_slices.py``)."""
        return sliced_variable(self, key)

    # Arithmetic goes through the snapshot, so a Variable works wherever a Tensor does.
    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        try:
            return getattr(self._snapshot, attr)
        except AttributeError:      # say Variable: the user asked a Variable, not its read
            raise AttributeError(f"'Variable' object has no attribute {attr!r} (TF1's "
                                 f"Variable.{attr} is not supported by devsession yet, or "
                                 f"is misspelled)") from None


def _delegate_operators() -> None:
    names = ["add", "sub", "mul", "truediv", "pow", "matmul", "floordiv", "mod", "and", "or",
             "xor"]
    methods = [f"__{n}__" for n in names] + [f"__r{n}__" for n in names] + [
        "__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__abs__", "__invert__"]
    for method in methods:
        def forward(self, *args, _m=method):
            return getattr(self._as_tensor(), _m)(*args)
        setattr(Variable, method, forward)


_delegate_operators()


def global_variables(scope: str | None = None, graph=None) -> list[Variable]:
    """The graph's variables; with ``scope``, those whose name matches it from the start
    (TF1's ``tf.global_variables(scope)``)."""
    return get_collection(GLOBAL_VARIABLES, scope, graph)


def trainable_variables(scope: str | None = None, graph=None) -> list[Variable]:
    """The variables made with ``trainable=True`` (TF1's "trainable_variables"), of
    ``scope`` as ``global_variables``'."""
    return get_collection(TRAINABLE_VARIABLES, scope, graph)


def variables_initializer(var_list, name: str = "init"):
    """An op that runs the initializers of ``var_list``."""
    if not var_list:
        return api.no_op(name=name)
    return api.group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer():
    """An op that initializes every Variable in the default graph."""
    return variables_initializer(global_variables(), name="init")


def local_variables(scope: str | None = None, graph=None) -> list[Variable]:
    """The variables made with ``collections=[LOCAL_VARIABLES]`` (TF1's
    "local_variables": per-process state such as metrics' counters), of ``scope``."""
    return get_collection(LOCAL_VARIABLES, scope, graph)


def local_variables_initializer():
    """An op that initializes the local variables (a NoOp when there are none, as
    TF1's, so ``sess.run([global_init, local_init])`` works unchanged)."""
    return variables_initializer(local_variables(), name="init")


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """TF1's: a string vector of the names of ``var_list``'s variables (default: the
    global and local ones) not initialized yet, empty when all are; each checked where
    it lives, the names gathered on the CPU, as TF1's."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    with name_scope(name):
        if not var_list:
            return api.constant(np.zeros(0, object), dtypes.string)
        ready = [is_variable_initialized(v) for v in var_list]
        with device("/cpu:0"):
            names = api.constant([v.op.name for v in var_list])
            return api.boolean_mask(names, api.logical_not(api.stack(ready)))


def assert_variables_initialized(var_list=None):
    """TF1's: an op whose run fails with ``FailedPreconditionError`` naming a variable of
    ``var_list`` (default: the global and local ones) that is not initialized (None for
    no variables)."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        return None
    with name_scope("assert_variables_initialized"):
        reads = []
        for v in var_list:          # each read where its variable lives: no value moves
            with device(None), device(v.device or None):
                reads.append(api.identity(v))
        return api.group(*reads)


def _read_or_op(assigned: Tensor, read_value: bool):
    """An assignment's new value, or with ``read_value=False`` its Operation (TF1's
    ``RefVariable.assign*``: ``return assign if read_value else assign.op``)."""
    return assigned if read_value else assigned.op
