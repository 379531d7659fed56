"""``Optimizer``: TF1's base class, turning a loss into fused variable updates.

``minimize(loss)`` = ``compute_gradients`` (``ds.gradients`` of the loss with respect to
the trainable variables, or ``var_list``) + ``apply_gradients``, which builds, in a name
scope named after the optimizer (``GradientDescent``, ``Momentum``, ``Adam``...):

1. the slot variables each algorithm keeps per variable, created once per variable and
   named as TF names them (``w/Momentum``, ``w/Adam``, ``w/Adam_1``), not trainable, on
   their variable's device (``ds.device(var.device)``), outside any control dependency;
2. one fused update op per variable with a gradient (``ApplyMomentum``... in
   ``ops/training.py``; ``update_<var>/`` scopes), the hyper-parameters converted once
   (``learning_rate``, a float or a Tensor) and cast to each variable's dtype;
3. ``_finish``: what runs after every update (Adam's ``beta1_power``/``beta2_power``),
   grouped into one op named after the scope; with ``global_step``, an ``AssignAdd`` of
   1 to it, after the updates, is the op returned instead (as TF1's).

Subclasses implement ``_create_slots(var_list)``, ``_prepare()`` and
``_apply_dense(grad, var)`` (and may extend ``_finish``), as in TF.  Those whose step
moves a row with a zero gradient also implement ``_apply_sparse(grad, indices, var)``
(``sparse_updates.py``): it updates only the rows of a gradient TF keeps as an
IndexedSlices (``rows_of``: it came through gathers of the variable alone), their ids
deduplicated and their values summed first, as TF's ``_apply_sparse_duplicate_indices``.
The slots of the parts of a partitioned variable are parts of one slot (``_slice_like``).

A user's subclass written against TF's semi-private API works unchanged: its
``_apply_sparse(grad, var)`` (or ``_apply_sparse_duplicate_indices``) receives an
``IndexedSlices`` (values, indices, dense_shape), as TF's, and one without it, given a
gradient TF keeps sparse, raises TF's NotImplementedError (``_tf_sparse_api``: decided by
where the methods are defined, devsession's own optimizers keeping their dense
fallback); TF's helpers ``_get_or_make_slot``, ``_get_or_make_slot_with_initializer``,
``_create_non_slot_variable``/``_get_non_slot_variable`` and ``_call_if_callable`` are
here too.

A variable with a ``constraint`` (``Variable(constraint=...)``, ``get_variable``, the
layers' ``kernel_constraint``...) is then assigned ``constraint(var)``, read after its
update (TF1's ``_RefVariableProcessor.update_op``: ``var.assign(var.constraint(var))``
under a control dependency on the update).  As TF's, a constraint cannot follow a
sparse update: a constrained variable whose gradient TF keeps as an IndexedSlices is
``RuntimeError`` ("Cannot use a constraint function on a sparse variable."), whichever
update devsession would have built for it.

Errors at build time, as TF1's: no variables to optimize, or no gradient for any of
them: ``ValueError``; a loss (or ``grad_loss``) that is not floating point:
``ValueError``; something other than a Variable in ``var_list``: ``TypeError``.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .. import dtypes
from ..gradients import gradients
from ..graph import (Operation, Tensor, building_graph, control_dependencies,
                     convert_to_tensor, device, get_default_graph, name_scope)
from ..indexed_slices import IndexedSlices
from ..ops.array_fill import shape as shape_of
from ..ops.common import graph_of
from ..ops.elementwise import cast
from ..ops.indexed_rows import rows_of
from ..ops.state import variable_ref
from ..variables import SaveSliceInfo, Variable, trainable_variables
from .sparse_updates import deduplicated

__all__ = ["Optimizer", "group_after"]

_VALID_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


class Optimizer:
    """The base class of the optimizers (see the module docstring)."""

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name.")
        self._use_locking = bool(use_locking)
        self._name = name
        self._slots: dict[str, dict] = {}            # slot name -> {VariableV2 op: slot}
        self._non_slot: dict = {}                    # (name, graph) -> Variable
        self._cast_cache: dict = {}
        self._variables_graph = None                 # the graph of the variables updated

    def get_name(self) -> str:
        return self._name

    # --- the public API ---------------------------------------------------------------------

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None) -> Operation:
        """``compute_gradients`` then ``apply_gradients``; the train op."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, grad_loss=grad_loss,
            colocate_gradients_with_ops=colocate_gradients_with_ops)
        if not any(g is not None for g, _ in grads_and_vars):
            raise ValueError(
                f"No gradients provided for any variable, check your graph for ops that do "
                f"not support gradients, between variables "
                f"{[v.name for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None) -> list:
        """``[(gradient or None, variable)]`` for ``var_list`` (default: the trainable
        variables of the loss's graph); ``colocate_gradients_with_ops`` places each
        op's gradient with it (``ds.gradients``)."""
        if callable(loss) and not isinstance(loss, (Tensor, Variable)):
            raise TypeError("compute_gradients takes a loss tensor; a callable loss is "
                            "eager execution, which devsession does not have.")
        loss = convert_to_tensor(loss)
        _check_dtypes([loss] + ([] if grad_loss is None else [convert_to_tensor(grad_loss)]))
        var_list = trainable_variables(graph=loss.graph) if var_list is None else list(var_list)
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError(f"var_list holds {v!r}; it takes ds.Variable objects.")
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, grad_ys=None if grad_loss is None else [grad_loss],
                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> Operation:
        """Build the updates of ``grads_and_vars`` (pairs with a None gradient are
        skipped); returns the train op (see the module docstring)."""
        pairs = self._checked_pairs(grads_and_vars)
        step = None if global_step is None else variable_ref(
            global_step, "train.Optimizer.apply_gradients(global_step=)")
        var_list = [v for g, v in pairs if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{[v.name for _, v in pairs]}.")
        graph = self._variables_graph = var_list[0].graph
        building = building_graph(graph)        # a cond's branch being traced, or graph
        lifted = getattr(building, "lifted_scope", "")     # TF1's scope for them in a cond
        with graph.as_default(), control_dependencies(None), \
                (name_scope(lifted) if lifted else contextlib.nullcontext()):
            self._create_slots(var_list)        # variables live in the graph, not a branch
        with building.as_default():
            with name_scope(name or self._name) as scope:
                self._cast_cache = {}
                self._prepare()
                updates = []
                for grad, var in pairs:
                    if grad is None:
                        continue
                    with name_scope("update_" + var.op.name), device(var.device or None):
                        update = self._apply(grad, var)
                        updates.append(update.op if isinstance(update, Tensor) else update)
                if step is None:
                    train_op = self._finish(updates, scope)
                else:
                    # the increment beside the step variable (on its ps), as TF's
                    with control_dependencies([self._finish(updates, "update")]), \
                            graph_of(step).colocate_with(step):
                        train_op = self._increment(step, scope)
        if building is graph:
            graph.add_to_collection("train_op", train_op)
        return train_op

    def get_slot(self, var, name: str):
        """The slot variable ``name`` of ``var`` (None if it has none)."""
        return self._slots.get(name, {}).get(var.op)

    def get_slot_names(self) -> list:
        return sorted(self._slots)

    def variables(self) -> list:
        """The variables this optimizer created in the default graph (slots and e.g.
        Adam's beta powers), sorted by name as TF1's."""
        made = [v for slots in self._slots.values() for v in slots.values()]
        graph = get_default_graph()
        return sorted((v for v in made + list(self._non_slot.values()) if v.graph is graph),
                      key=lambda v: v.name)

    # --- what subclasses implement ------------------------------------------------------------

    def _create_slots(self, var_list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_dense.")

    def _resource_apply_dense(self, grad, handle):
        """TF's hook for a resource variable's dense update; devsession's variables take
        ``_apply_dense`` (TF1's ref variables), so only a subclass's alias uses it."""
        raise NotImplementedError(f"{type(self).__name__} does not implement "
                                  f"_resource_apply_dense.")

    def _resource_apply_sparse(self, grad, handle, indices):
        raise NotImplementedError(f"{type(self).__name__} does not implement "
                                  f"_resource_apply_sparse.")

    def _apply_sparse(self, grad, *args):
        """The sparse update.  devsession's optimizers take ``(grad, indices, var)``: rows
        ``indices`` (unique) of ``var`` by their gradients ``grad`` alone; an optimizer of
        devsession's without it updates densely (the same where a zero gradient leaves a
        row unchanged).  A user's subclass (TF's API) takes ``(grad, var)``, ``grad`` an
        ``IndexedSlices`` (see ``_apply``); TF's base raises NotImplementedError."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_sparse.")

    def _apply_sparse_duplicate_indices(self, grad, var):
        """TF's: ``grad`` (an IndexedSlices) with the values of repeated indices summed,
        then ``_apply_sparse(grad, var)``."""
        values, indices = deduplicated(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(values, indices, grad.dense_shape), var)

    def _apply(self, grad, var):
        """The sparse update where TF's gradient is an IndexedSlices (``rows_of``) and
        the optimizer has one, else the dense update, then ``var``'s constraint.  A
        subclass written against TF's API (``_tf_sparse_api``) gets TF's sparse path:
        ``_apply_sparse_duplicate_indices(IndexedSlices, var)``."""
        rows = rows_of(grad)
        if rows is not None and var.constraint is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        if rows is None:
            return _constrained(self._apply_dense(grad, var), var)
        if _tf_sparse_api(type(self)):
            values, indices = rows.concatenated()
            return self._apply_sparse_duplicate_indices(
                IndexedSlices(values, indices, shape_of(var, out_type=indices.dtype)), var)
        if _defined_by(type(self), "_apply_sparse") is Optimizer:
            return _constrained(self._apply_dense(grad, var), var)
        return self._apply_sparse(*deduplicated(*rows.concatenated()), var)

    def _finish(self, update_ops, name: str) -> Operation:
        """What runs after the updates, as one op named ``name`` (see ``_group``)."""
        return group_after(update_ops, name)

    # --- helpers for subclasses -------------------------------------------------------------

    def _zeros_slot(self, var, slot_name: str, op_name: str):
        """The zero-initialized slot ``slot_name`` of ``var`` (see ``_filled_slot``)."""
        return self._filled_slot(var, slot_name, op_name, 0)

    def _filled_slot(self, var, slot_name: str, op_name: str, value):
        """The slot ``slot_name`` of ``var`` (made once), starting as ``value`` everywhere,
        named ``<var>/<op_name>`` (``_1``... when taken) in the current variable scope, as
        TF1's (``m/m/w/Adam`` for ``m/w`` trained under ``variable_scope("m")``), on the
        variable's device."""
        return self._make_slot(var, slot_name, op_name,
                               lambda: np.full(var.shape.as_list(), value, var.dtype.np))

    def _make_slot(self, var, slot_name: str, op_name: str, initial):
        """The slot ``slot_name`` of ``var``, made once with the value ``initial()``
        (see ``_filled_slot``)."""
        from ..variable_scope import get_variable_scope

        slots = self._slots.setdefault(slot_name, {})
        if var.op not in slots:
            scope = get_variable_scope().name
            name = f"{scope}/{var.op.name}/{op_name}" if scope else f"{var.op.name}/{op_name}"
            with name_scope(None), device(None), device(var.device or None):
                slots[var.op] = colocated(Variable(initial(), name=name, trainable=False),
                                          var)
            _slice_like(slots[var.op], var)
        return slots[var.op]

    def _get_or_make_slot(self, var, val, slot_name: str, op_name: str):
        """TF's: the slot ``slot_name`` of ``var``, made once with the initial value
        ``val`` (a tensor or array of ``var``'s shape), named as ``_zeros_slot``'s."""
        return self._make_slot(var, slot_name, op_name, lambda: val)

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype,
                                           slot_name: str, op_name: str):
        """TF's: the slot ``slot_name`` of ``var``, made once from ``initializer``
        (called with ``shape`` and ``dtype``)."""
        shape = shape.as_list() if hasattr(shape, "as_list") else list(shape)
        dtype = dtypes.as_dtype(dtype)
        return self._make_slot(var, slot_name, op_name,
                               lambda: initializer(shape, dtype=dtype))

    def _create_non_slot_variable(self, initial_value, name: str, colocate_with):
        """TF's name for ``_non_slot_variable``."""
        return self._non_slot_variable(initial_value, name, colocate_with)

    def _call_if_callable(self, param):
        """TF's: ``param()`` if it is callable, else ``param``."""
        return param() if callable(param) else param

    def _non_slot_variable(self, initial_value, name: str, colocate_with):
        """A variable of the optimizer itself (Adam's beta powers), made once per graph,
        on the device of ``colocate_with``."""
        key = (name, colocate_with.graph)
        if key not in self._non_slot:
            with device(None), device(colocate_with.device or None):
                self._non_slot[key] = colocated(Variable(initial_value, name=name,
                                                         trainable=False), colocate_with)
        return self._non_slot[key]

    def _get_non_slot_variable(self, name: str, graph=None):
        """TF1's: the optimizer's variable ``name`` (Adam's ``beta1_power``) in ``graph``,
        or None -- scripts read Adam's beta powers through it.  As TF's, without
        ``graph`` it is None (TF's key for eager execution's variables)."""
        return self._non_slot.get((name, graph))

    def _hyper(self, value, name: str):
        """A hyper-parameter as a tensor (a float becomes a float32 Const, as in TF)."""
        value = value() if callable(value) and not isinstance(value, (Tensor, Variable)) \
            else value
        return convert_to_tensor(value, name=name)

    def _cast(self, t, dtype):
        """``t`` in ``dtype`` (one Cast per tensor and dtype, shared by the updates)."""
        t = convert_to_tensor(t)
        if t.dtype == dtype:
            return t
        key = (t, dtype)
        if key not in self._cast_cache:
            with device(None):       # a scalar: wherever its readers run
                self._cast_cache[key] = cast(t, dtype)
        return self._cast_cache[key]

    def _checked_pairs(self, grads_and_vars) -> list:
        pairs = list(grads_and_vars)
        if not pairs:
            raise ValueError("No variables provided.")
        checked = []
        for pair in pairs:
            try:
                grad, var = pair
            except (TypeError, ValueError):
                raise TypeError(f"apply_gradients takes (gradient, variable) pairs, got "
                                f"{pair!r}.") from None
            if not isinstance(var, Variable):
                raise TypeError(f"apply_gradients: {var!r} is not a ds.Variable.")
            if grad is not None:
                grad = convert_to_tensor(grad, dtype_hint=var.dtype, graph=var.graph)
                if grad.dtype != var.dtype:
                    raise TypeError(f"The gradient '{grad.name}' of variable '{var.op.name}' "
                                    f"is {grad.dtype.name}, the variable {var.dtype.name}.")
            checked.append((grad, var))
        return checked

    def _increment(self, step, scope: str) -> Operation:
        """``step += 1`` (``step``: a VariableV2 tensor), the op named after ``scope``
        (ending in "/")."""
        one = convert_to_tensor(1, dtype_hint=step.dtype, name="value")
        return graph_of(step).create_op("AssignAdd", [step, one], name=scope.rstrip("/"),
                                        exact_name=True)


def _defined_by(cls, method: str):
    """The class of ``cls``'s MRO whose body defines ``method``."""
    return next(c for c in cls.__mro__ if method in vars(c))


def _tf_sparse_api(cls) -> bool:
    """Whether ``cls`` takes TF's sparse path (``_apply_sparse(IndexedSlices, var)``):
    its ``_apply_sparse`` or ``_apply_sparse_duplicate_indices`` is a user's (defined
    outside devsession), or it subclasses ``Optimizer`` itself with a ``_apply_dense`` of
    its own and neither (TF's NotImplementedError then).  A user's subclass of one of
    devsession's optimizers keeps that optimizer's sparse update, or its dense one."""
    def users(method):
        return not _defined_by(cls, method).__module__.startswith("devsession.")

    if users("_apply_sparse") or users("_apply_sparse_duplicate_indices"):
        return True
    own_base = next(c for c in cls.__mro__ if c.__module__.startswith("devsession."))
    return own_base is Optimizer and users("_apply_dense")


def _slice_like(slot, var) -> None:
    """A slot of a part of a partitioned variable is the same part of the slot of the
    whole (``emb/part_1/Adagrad`` of ``emb/Adagrad``), as TF1's ``slot_creator``: so the
    Saver writes the slots of the parts as one tensor."""
    info = var._get_save_slice_info() if isinstance(var, Variable) else None
    rank = slot.shape.ndims
    if info is None or rank == 0:
        return
    slot_name = slot.op.name[len(var.op.name) + 1:]
    slot._set_save_slice_info(SaveSliceInfo(f"{info.full_name}/{slot_name}",
                                            info.full_shape[:rank], info.var_offset[:rank],
                                            info.var_shape[:rank]))


def _check_dtypes(tensors) -> None:
    for t in tensors:
        if t.dtype not in _VALID_DTYPES:
            raise ValueError(f"Invalid type {t.dtype.name} for {t.name}, expected: "
                             f"{[d.name for d in _VALID_DTYPES]}.")


def _constrained(update, var):
    """``update``, then ``var`` assigned its constraint of the updated value (TF1's
    ``var.assign(var.constraint(var))``, the read after the update); ``update`` itself
    when ``var`` has no constraint."""
    if var.constraint is None:
        return update
    with control_dependencies([update.op if isinstance(update, Tensor) else update]):
        return var.assign(var.constraint(var), name="Assign")


def group_after(ops, name: str) -> Operation:
    """A NoOp that runs after ``ops``.  A ``name`` ending in "/" is a scope's own name,
    used exactly (TF's convention: the train op is named after its scope)."""
    graph = ops[0].graph
    if name.endswith("/"):
        return graph.create_op("NoOp", (), name=name.rstrip("/"), control_inputs=ops,
                               exact_name=True)
    return graph.create_op("NoOp", (), name=name, control_inputs=ops)


def colocated(variable: Variable, with_variable) -> Variable:
    """``variable`` placed wherever ``with_variable`` ends up (TF's ``_class`` attr
    "loc:@var"), also when devices are only assigned after the graph is built."""
    variable.op._attrs["_class"] = (f"loc:@{with_variable.op.name}",)
    return variable
