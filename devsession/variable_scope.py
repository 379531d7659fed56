"""TF1's ``tf.variable_scope`` and ``tf.get_variable``: variables shared by name.

A variable scope names variables, a name scope names ops; ``variable_scope("layer1")``
opens both (the name scope made unique, the variable scope not: entering "layer1" twice
builds ops under "layer1" then "layer1_1", variables under "layer1" both times).
``get_variable(name)`` ignores name scopes: it looks ``<variable scope>/<name>`` up in the
graph's variable store and

* creates the variable when it is not there, unless the scope reuses (``reuse=True``):
  then ValueError, as TF1 ("... does not exist, or was not created with
  tf.get_variable() ...");
* returns the stored variable when the scope reuses (``reuse=True`` or
  ``reuse=ds.AUTO_REUSE``), checking shape and dtype; otherwise ValueError, as TF1
  ("Variable layer1/w already exists, disallowed. Did you mean to set reuse=True ...").

Reuse is inherited: a scope inside a reusing scope reuses; ``scope.reuse_variables()``
turns it on for the rest of a ``with`` block.  A scope's ``initializer``, ``regularizer``
and ``dtype`` are its variables' defaults (inherited too); without an initializer, floats
start from ``glorot_uniform_initializer`` and other types from zeros, as in TF1.  A
regularizer's penalty joins ``REGULARIZATION_LOSSES`` when the variable is made, not when
it is reused.  A ``constraint`` (a scope's, inherited, or one call's) goes to the variable
made (``v.constraint``), which the optimizers apply after each update.

A ``partitioner`` (a scope's, inherited, or one call's) makes ``get_variable`` return a
``PartitionedVariable`` of parts ``<name>/part_<i>`` (``partitioned_variables.py``) for
any variable but a scalar; TF1's rules and messages for reusing one (same shape, dtype
and partitions), and for a name taken by a variable of the other kind.

A ``custom_getter`` (of a scope, or of one ``get_variable`` call, which then replaces the
scope's) is called instead of the getter, with the getter and the call's arguments as
keywords (``name`` the full name): it may change them, call the getter, and return what it
likes (a cast of the variable, for mixed precision).  A scope's getter wraps its parent
scope's: the innermost runs first, its ``getter`` argument calls the outer one.

Default names are made unique as TF1's ``_VariableScopeStore`` does: every scope
entered counts one more use of its full name; ``default_name="dense"`` takes "dense"
while that count is 0, else the first "dense_<i>" whose count is 0.  Leaving a scope
entered by name resets the counts of the scopes under it, and leaving a re-entered
``VariableScope`` object restores every count to what it was on entering; so
``with variable_scope("foo", reuse=True): tf.layers.dense(x, 3)`` finds "foo/dense"
again, the TF1 idiom for calling a network twice (and what ``make_template`` relies on).

State: a per-thread stack of the current ``VariableScope`` objects and, per graph, the
store of the variables ``get_variable`` made and the use counts of scope names.
"""

from __future__ import annotations

import collections.abc as collections_abc
import contextlib
import enum
import functools
import inspect
import threading
import weakref


from . import dtypes, variable_sync
from .graph import (Tensor, convert_to_tensor, current_name_scope, get_default_graph,
                    name_scope)
from .graph_keys import GraphKeys, add_to_collection
from .initializers import glorot_uniform_initializer, zeros_initializer
from .ops.array_index import slice as slice_op
from .partitioned_variables import (PartitionedVariable, PartitionInfo, call_partitioner,
                                    iter_slices, slice_axis_and_count, _shape_text)
from .tensor_shape import TensorShape, as_shape
from .variables import SaveSliceInfo, Variable

__all__ = ["AUTO_REUSE", "VariableScope", "variable_scope", "get_variable", "get_local_variable",
           "create_partitioned_variables",
           "get_variable_scope"]


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """A variable scope: its ``name``, ``reuse`` (False, True or AUTO_REUSE), the
    ``initializer``, ``regularizer``, ``constraint``, ``partitioner`` and ``dtype`` its
    variables default to, and its ``custom_getter``."""

    def __init__(self, name: str = "", reuse=False, initializer=None, dtype=None,
                 name_scope: str = "", regularizer=None, custom_getter=None,
                 constraint=None, partitioner=None):
        self._name = name
        self._reuse = reuse
        self.initializer = initializer
        self.regularizer = regularizer
        self.constraint = constraint
        self.partitioner = partitioner
        self.custom_getter = custom_getter
        self.dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self.original_name_scope = name_scope

    name = property(lambda self: self._name)
    reuse = property(lambda self: self._reuse)

    def reuse_variables(self) -> None:
        """Reuse variables in this scope from now on."""
        self._reuse = True

    def set_initializer(self, initializer) -> None:
        self.initializer = initializer

    def set_regularizer(self, regularizer) -> None:
        self.regularizer = regularizer

    def set_custom_getter(self, custom_getter) -> None:
        self.custom_getter = custom_getter

    def set_constraint(self, constraint) -> None:
        self.constraint = constraint

    def set_partitioner(self, partitioner) -> None:
        self.partitioner = partitioner

    def get_variable(self, name, shape=None, dtype=None, initializer=None, regularizer=None,
                     trainable=None, collections=None, custom_getter=None, constraint=None,
                     partitioner=None, **kwargs):
        sync, trainable = _synchronized(kwargs, trainable, name)
        return _get_variable(self, name, shape, dtype, initializer, trainable, collections,
                             regularizer, custom_getter, constraint, partitioner, sync)

    def __repr__(self):
        return f"<ds.VariableScope '{self._name}' reuse={self._reuse}>"


class _Stack(threading.local):
    def __init__(self):
        self.scopes: list[VariableScope] = []


_STACK = _Stack()
_STORES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _store(graph) -> dict:
    """The graph's {"variables": {name: Variable}, "partitioned": {name:
    PartitionedVariable}, "scope_counts": {name: n}}: a function graph's (a cond branch,
    a loop body) is the one of the graph it is built in, where its variables live."""
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    store = _STORES.get(graph)
    if store is None:
        store = _STORES[graph] = {"variables": {}, "partitioned": {}, "scope_counts": {}}
    return store


def get_variable_scope() -> VariableScope:
    """The current variable scope (the root scope, named "", outside every scope)."""
    return _STACK.scopes[-1] if _STACK.scopes else VariableScope()


@contextlib.contextmanager
def variable_scope(name_or_scope=None, default_name=None, values=None, initializer=None,
                   regularizer=None, caching_device=None, partitioner=None,
                   custom_getter=None, reuse=None, dtype=None, use_resource=None,
                   constraint=None, auxiliary_name_scope=True):
    """Open a variable scope (and a name scope for the ops built inside); yields the
    ``VariableScope``.  ``name_or_scope`` is a name, a ``VariableScope`` to re-enter, or
    None with ``default_name`` (made unique: "dense", "dense_1"...)."""
    _refuse("variable_scope", caching_device=caching_device)
    if reuse not in (None, True, False, AUTO_REUSE):
        raise ValueError(f"reuse must be True, False, None or ds.AUTO_REUSE, not {reuse!r}.")
    parent = get_variable_scope()
    graph = get_default_graph()
    reentered = isinstance(name_or_scope, VariableScope)
    if reentered:
        full_name, ns_name, base = name_or_scope.name, None, name_or_scope
    else:
        if name_or_scope is None:
            if default_name is None:
                raise TypeError("variable_scope needs name_or_scope or default_name.")
            name_or_scope = _unique_scope_name(graph, parent.name, default_name)
        elif not isinstance(name_or_scope, str):
            raise TypeError(f"variable_scope takes a name or a VariableScope, not "
                            f"{type(name_or_scope).__name__}.")
        full_name = f"{parent.name}/{name_or_scope}" if parent.name else name_or_scope
        ns_name, base = name_or_scope, parent
    scope_reuse = True if (reuse is True or parent.reuse is True) else \
        AUTO_REUSE if (reuse is AUTO_REUSE or parent.reuse is AUTO_REUSE) else \
        (base.reuse if base is not parent else False)
    with _scope_names(name_or_scope if reentered else ns_name, auxiliary_name_scope) as opened:
        scope = VariableScope(full_name, scope_reuse,
                              initializer if initializer is not None else base.initializer,
                              dtype if dtype is not None else base.dtype, opened or "",
                              regularizer if regularizer is not None else base.regularizer,
                              _wrap_getter(custom_getter, base.custom_getter),
                              constraint if constraint is not None else base.constraint,
                              partitioner if partitioner is not None else base.partitioner)
        store = _store(graph)
        counts = store["scope_counts"]
        counts[full_name] = counts.get(full_name, 0) + 1
        saved = dict(counts) if reentered else None
        _STACK.scopes.append(scope)
        try:
            yield scope
        finally:
            _STACK.scopes.pop()
            if saved is not None:
                store["scope_counts"] = saved
            else:
                _close_subscopes(store["scope_counts"], full_name)


@contextlib.contextmanager
def layer_scope(name, default_name: str, reuse=None):
    """The variable scope a ``tf.layers`` function builds in: ``variable_scope(name,
    default_name, reuse=reuse)``, except that a ``VariableScope`` (a layer object's,
    made on its first call) is re-entered as TF1's ``Layer.__call__`` re-enters it:
    without a name scope of its own, the ops under its ``original_name_scope``, so a
    layer object called twice builds both calls' ops under "dense_obj/"."""
    if not isinstance(name, VariableScope):
        with variable_scope(name, default_name=default_name, reuse=reuse) as scope:
            yield scope
        return
    with variable_scope(name, reuse=reuse, auxiliary_name_scope=False) as scope, \
            name_scope(name.original_name_scope):
        yield scope


@contextlib.contextmanager
def _scope_names(name_or_scope, auxiliary_name_scope: bool):
    """The name scope a variable scope opens for its ops, as TF1's; yields the scope's
    ``original_name_scope``.  A name opens a name scope of it (made unique); a
    re-entered ``VariableScope`` opens one of its last component in the current name
    scope (``s`` entered again at the top builds ops under "s_1/", inside "tower_0"
    under "tower_0/s/"; the root scope opens none, so ops stay in "tower_0/"), keeping
    its own ``original_name_scope``.  Without ``auxiliary_name_scope`` no name scope is
    opened."""
    reentered = isinstance(name_or_scope, VariableScope)
    last = name_or_scope.name.split("/")[-1] if reentered else name_or_scope
    if auxiliary_name_scope and last:
        with name_scope(last) as opened:
            yield name_or_scope.original_name_scope if reentered else opened
        return
    current = current_name_scope()
    yield name_or_scope.original_name_scope if reentered else (current and current + "/")


def _wrap_getter(custom_getter, outer):
    """``custom_getter`` calling ``outer`` (the enclosing scope's getter) as its getter,
    as TF1's ``_maybe_wrap_custom_getter``."""
    if custom_getter is None or outer is None:
        return custom_getter if custom_getter is not None else outer
    if not callable(custom_getter):
        raise ValueError(f"custom_getter must be callable, not {custom_getter!r}.")
    return lambda getter, *args, **kwargs: custom_getter(
        functools.partial(outer, getter), *args, **kwargs)


def _refuse(function: str, **options) -> None:
    """Raise NotImplementedError for the first TF1 option given that devsession lacks."""
    for option, value in options.items():
        if value is not None:
            raise NotImplementedError(f"{function}({option}=...) is not supported by "
                                      f"devsession yet.")


def _unique_scope_name(graph, parent: str, prefix: str) -> str:
    """``prefix``, or ``prefix_<i>`` with the first i whose full name is unused (TF1's
    ``_get_unique_variable_scope``)."""
    counts = _store(graph)["scope_counts"]
    full = f"{parent}/{prefix}" if parent else prefix
    if not counts.get(full):
        return prefix
    i = 1
    while counts.get(f"{full}_{i}"):
        i += 1
    return f"{prefix}_{i}"


def _close_subscopes(counts: dict, scope: str) -> None:
    """Forget the uses of the scopes under ``scope`` (left by name), as TF1 does."""
    start = scope + "/"
    for name in counts:
        if name.startswith(start):
            counts[name] = 0


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 **kwargs):
    """The variable ``<current variable scope>/<name>``, created or reused by the scope's
    rules (see the module docstring); a ``PartitionedVariable`` with a ``partitioner``
    (or the scope's).  Raises ValueError as TF1 does."""
    sync, trainable = _synchronized(kwargs, trainable, name)
    return _get_variable(get_variable_scope(), name, shape, dtype, initializer, trainable,
                         collections, regularizer, custom_getter, constraint, partitioner, sync)


def _synchronized(kwargs: dict, trainable, name):
    """``((synchronization, aggregation), trainable)`` from get_variable's keywords, by
    TF's rules (variable_sync.py)."""
    synchronization, aggregation, trainable = variable_sync.validate(
        kwargs.get("synchronization"), kwargs.get("aggregation"), trainable, name)
    return (synchronization, aggregation), trainable


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, caching_device=None,
                       partitioner=None, validate_shape=True, use_resource=None,
                       custom_getter=None, constraint=None, **kwargs):
    """``get_variable`` for a variable of ``GraphKeys.LOCAL_VARIABLES`` (and of
    ``collections``), not trainable by default (TF1's ``tf.get_local_variable``)."""
    return get_variable(name, shape, dtype, initializer, regularizer, trainable,
                        list(collections or []) + [GraphKeys.LOCAL_VARIABLES],
                        caching_device, partitioner, validate_shape, use_resource,
                        custom_getter, constraint, **kwargs)


def get_partitioned_variable(name, shape=None, dtype=None, initializer=None,
                             regularizer=None, trainable=True, collections=None,
                             partitioner=None, constraint=None) -> PartitionedVariable:
    """The PartitionedVariable ``<scope>/<name>`` (the scope's own name when ``name`` is
    None) cut by ``partitioner``, whatever the shape (TF1's ``_get_partitioned_variable``,
    behind ``create_partitioned_variables``)."""
    scope = get_variable_scope()
    if scope.custom_getter is not None:
        raise ValueError(f"Private access to _get_partitioned_variable is not allowed when a "
                         f"custom getter is set.  Current custom getter: "
                         f"{scope.custom_getter}.")
    full = scope.name if name is None else (f"{scope.name}/{name}" if scope.name else name)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else (scope.dtype or dtypes.float32)
    with name_scope(None):
        return _stored_or_new_partitioned(
            scope.reuse, full, shape, dtype,
            initializer if initializer is not None else scope.initializer,
            regularizer if regularizer is not None else scope.regularizer, trainable,
            collections, constraint, partitioner or scope.partitioner)


def _get_variable(scope, name, shape, dtype, initializer, trainable, collections=None,
                  regularizer=None, custom_getter=None, constraint=None, partitioner=None,
                  sync=(None, None)):
    """Through the custom getter, if there is one (see the module docstring)."""
    full = f"{scope.name}/{name}" if scope.name else name
    if dtype is not None and initializer is not None and not callable(initializer):
        _check_initializer_dtype(initializer, dtypes.as_dtype(dtype))
    dtype = dtypes.as_dtype(dtype) if dtype is not None else (scope.dtype or dtypes.float32)
    regularizer = regularizer if regularizer is not None else scope.regularizer
    constraint = constraint if constraint is not None else scope.constraint
    partitioner = partitioner if partitioner is not None else scope.partitioner
    custom_getter = custom_getter if custom_getter is not None else scope.custom_getter

    def getter(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None,
               reuse=None, trainable=None, collections=None, constraint=None,
               partitioner=None, synchronization=None, aggregation=None, **unused):
        sync = (synchronization, aggregation)
        reuse = scope.reuse if reuse is None else reuse
        initializer = initializer if initializer is not None else scope.initializer
        scalar = isinstance(shape, collections_abc.Sequence) and not shape
        if partitioner is not None and not scalar:
            if not callable(partitioner):
                raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
            with name_scope(None):
                return _stored_or_new_partitioned(reuse, name, shape, dtype, initializer,
                                                  regularizer, trainable, collections,
                                                  constraint, partitioner, sync)
        store = _store(get_default_graph())
        if reuse is True and partitioner is None and name in store["partitioned"]:
            return _stored_or_new_partitioned(reuse, name, shape, dtype, initializer,
                                              regularizer, trainable, collections,
                                              constraint, None, sync)
        if f"{name}/part_0" in store["variables"]:
            raise ValueError(f"No partitioner was provided, but a partitioned version of the "
                             f"variable was found: {name}/part_0. Perhaps a variable of the "
                             f"same name was already created with partitioning?")
        return _stored_or_new(reuse, name, shape, dtype, initializer, regularizer, trainable,
                              collections, constraint, sync=sync)
    if custom_getter is None:
        return getter(full, shape, dtype, initializer, regularizer, None, trainable,
                      collections, constraint, partitioner, *sync)
    if not callable(custom_getter):
        raise ValueError(f"custom_getter must be callable, not {custom_getter!r}.")
    return custom_getter(getter=getter, name=full, shape=shape, dtype=dtype,
                         initializer=initializer, regularizer=regularizer, reuse=scope.reuse,
                         trainable=trainable, collections=collections, caching_device=None,
                         partitioner=partitioner, validate_shape=True, use_resource=None,
                         constraint=constraint, synchronization=sync[0], aggregation=sync[1])


def _stored_or_new_partitioned(reuse, full: str, shape, dtype, initializer, regularizer,
                               trainable, collections, constraint, partitioner,
                               sync=(None, None)):
    """The stored PartitionedVariable ``full`` or its new parts, by TF1's
    ``_VariableStore._get_partitioned_variable`` rules and messages."""
    store = _store(get_default_graph())
    if full in store["variables"]:
        raise ValueError(f"A partitioner was provided, but an unpartitioned version of the "
                         f"variable was found: {full}.  Perhaps a variable of the same name "
                         f"was already created without partitioning?")
    shape = as_shape(shape)
    from_value = isinstance(initializer, Tensor)
    if from_value:
        shape = shape.merge_with(initializer.shape)
    partitions = None
    if not reuse or partitioner:
        partitions = call_partitioner(partitioner, shape, dtype)
    found = store["partitioned"].get(full)
    if found is not None:
        _check_partitioned_reuse(found, reuse, full, shape, dtype, partitions)
        return found
    if reuse is True:
        raise ValueError(f"PartitionedVariable {full} does not exist, or was not created with "
                         f"tf.get_variable(). Did you mean to set reuse=False or "
                         f"reuse=tf.AUTO_REUSE in VarScope?")
    axis, count = slice_axis_and_count(partitions)
    _check_existing_parts(store["variables"], full, count)
    parts = []
    for i, (offset, part_shape) in enumerate(iter_slices(shape.as_list(), count, axis)):
        info = PartitionInfo(shape.as_list(), offset)
        part = f"{full}/part_{i}"
        init, init_shape = initializer, part_shape
        if initializer is not None and (from_value or not callable(initializer)):
            with name_scope(part + "/PartitionedInitializer/"):
                value = initializer if from_value else convert_to_tensor(initializer, dtype)
                init, init_shape = slice_op(value, offset, part_shape), None
            dtype = init.dtype
        variable = _stored_or_new(reuse, part, init_shape, dtype, init, regularizer,
                                  trainable, collections, constraint, info, sync)
        variable._set_save_slice_info(SaveSliceInfo(full, shape.as_list(), offset, part_shape))
        parts.append(variable)
    made = PartitionedVariable(full, shape, dtype, parts, partitions)
    store["partitioned"][full] = made
    return made


def _check_partitioned_reuse(found, reuse, full, shape, dtype, partitions) -> None:
    if reuse is False:
        raise ValueError(f"Partitioned variable with name {full} already exists. Did you "
                         f"mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
    if not shape.is_compatible_with(found.get_shape()):
        raise ValueError(f"Trying to reuse partitioned variable {full}, but specified shape "
                         f"{_shape_text(shape)} and found shape "
                         f"{_shape_text(found.get_shape())}.")
    if dtypes.as_dtype(dtype) != found.dtype:
        raise ValueError(f"Trying to reuse partitioned variable {full}, but specified dtype "
                         f"{dtypes.as_dtype(dtype).name} and found dtype {found.dtype.name}.")
    if partitions is not None and found._get_partitions() != partitions:
        raise ValueError(f"Trying to reuse partitioned variable {full}, but specified "
                         f"partitions {partitions} and found partitions "
                         f"{found._get_partitions()}.")


def _check_existing_parts(variables: dict, full: str, count: int) -> None:
    if f"{full}/part_0" not in variables:
        return
    if f"{full}/part_{count - 1}" not in variables:
        raise ValueError(f"Partitioner returned a different partitioning than what was "
                         f"already found.  Partitioner returned {count} shards, and shard "
                         f"{full}/part_0 was found, but {full}/part_{count - 1} was not.")
    if f"{full}/part_{count}" in variables:
        raise ValueError(f"Partitioner returned a different partitioning than what was "
                         f"already found.  Partitioner returned {count} shards, and shard "
                         f"{full}/part_0 was found, but so was the extra shard "
                         f"{full}/part_{count}.")


def _stored_or_new(reuse, full: str, shape, dtype, initializer, regularizer, trainable,
                   collections, constraint=None, partition_info=None, sync=(None, None)):
    graph = get_default_graph()
    variables = _store(graph)["variables"]
    found = variables.get(full)
    if found is not None:
        if reuse is False:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to "
                             f"set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
        _check_shared(found, full, shape, dtype)
        return found
    if reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with "
                         f"tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                         f"VarScope?")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32
    initial_value = _initial_value(full, shape, dtype, initializer, partition_info)
    if not callable(initial_value):
        dtype = None                  # a value (a tensor, an array) keeps its own, as TF's
    variable = Variable(initial_value, name=full + "/", dtype=dtype, trainable=trainable,
                        collections=collections, constraint=constraint,
                        synchronization=sync[0], aggregation=sync[1])
    variables[full] = variable
    if regularizer is not None:
        with name_scope(full + "/Regularizer/"):
            penalty = regularizer(variable)
        if penalty is not None:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, penalty)
    return variable


def _check_initializer_dtype(initializer, dtype) -> None:
    """TF's ValueError for a value initializer whose dtype is not an explicit ``dtype``
    (converted at the top level, as TF converts it to check)."""
    with name_scope(None):
        found = convert_to_tensor(initializer).dtype
    if found != dtype:
        raise ValueError(f"Initializer type '{found}' and explicit dtype '{dtype}' don't "
                         f"match.")


def _initial_value(full: str, shape, dtype, initializer, partition_info=None):
    """A function making the initial value (called inside the variable's name scope); an
    initializer of a part that takes ``partition_info`` is given it, as in TF1."""
    if isinstance(initializer, Tensor) or hasattr(initializer, "_as_tensor") or (
            initializer is not None and not callable(initializer)):
        if shape is not None:
            raise ValueError(f"If initializer is a constant, do not specify shape "
                             f"(variable {full}).")
        return initializer
    if shape is None:
        raise ValueError(f"Shape of a new variable ({full}) must be fully defined, but "
                         f"instead was None.")
    dims = as_shape(shape)
    if not dims.is_fully_defined():
        raise ValueError(f"Shape of a new variable ({full}) must be fully defined, but "
                         f"instead was {dims}.")
    if initializer is None:
        initializer = glorot_uniform_initializer() if dtype.is_floating else \
            zeros_initializer()
    if partition_info is not None and _takes_partition_info(initializer):
        return lambda: initializer(dims.as_tuple(), dtype=dtype, partition_info=partition_info)
    return lambda: initializer(dims.as_tuple(), dtype=dtype)


def _takes_partition_info(initializer) -> bool:
    try:
        return "partition_info" in inspect.signature(initializer).parameters
    except (TypeError, ValueError):
        return False


def _check_shared(variable, full: str, shape, dtype) -> None:
    if shape is not None and not TensorShape(variable.shape).is_compatible_with(
            as_shape(shape)):
        raise ValueError(f"Trying to share variable {full}, but specified shape "
                         f"{as_shape(shape)} and found shape {variable.shape}.")
    if dtype is not None and dtypes.as_dtype(dtype) != variable.dtype:
        raise ValueError(f"Trying to share variable {full}, but specified dtype "
                         f"{dtypes.as_dtype(dtype).name} and found dtype "
                         f"{variable.dtype.name}.")


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32,
                                 trainable=True, collections=None, name=None, reuse=None):
    """TF1's deprecated list form: the parts (a list) of a variable of ``shape`` cut as
    ``slicing`` says, under ``name`` (default "PartitionedVariable", made unique)."""
    if len(shape) != len(slicing):
        raise ValueError(f"The 'shape' and 'slicing' of a partitioned Variable must have the "
                         f"length: shape: {shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        return list(get_partitioned_variable(
            None, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable,
            partitioner=lambda **unused: slicing, collections=collections))
