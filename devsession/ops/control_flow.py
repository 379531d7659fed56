"""Control flow: ``ds.cond``, ``ds.case``, ``ds.while_loop`` (TF1's semantics) and
``ds.Assert``.

Functional, as TF2 builds them: each branch (or the loop's cond and body) is traced
into a ``FunctionGraph`` (``function_graph.py``) and becomes one node, ``If`` or
``While``, whose attrs hold the traced functions and whose inputs are the predicate
(``If``), the loop variables (``While``) and every outer tensor the functions captured.
The kernels (``kernels/reference/control_flow.py``) run only the taken branch, or the
body while the cond holds, through sub-plans the runtime builds for them
(``runtime/functions.py``).  What TF1 users rely on follows:

* Only the taken branch runs: an ``assign_add`` built inside the untaken branch's
  function does not happen.  An op built *outside* the branch functions and used
  inside is an input of the ``If``, so it runs whichever branch is taken.
* Ops inside a function run only if the function's outputs need them (directly or
  through ``control_dependencies``), as in TF1.
* Branch results may be any nesting of tensors (``ops/nest.py``); both branches must
  return the same structure (ValueError, or TypeError for list against tuple) and
  dtypes (ValueError); the static shapes are merged.  A singleton list or tuple is
  unpacked unless ``strict=True``.  An Operation result gives a bool tensor, as TF1.
* ``while_loop`` carries a tensor or a nested list/tuple of tensors; a loop variable
  whose static shape changes in the body is a ValueError unless ``shape_invariants``
  relaxes it; its dtype may not change (TypeError).  ``maximum_iterations`` adds a
  counter, as TF1 does.
* A TensorArray or a SparseTensor goes through either as its tensors.  A SparseTensor's
  number of values may change in a loop (its shape invariant, if given, is TF1's: the
  shape of its ``dense_shape``, ``[rank]``); its static shape after a cond is the true
  branch's, after a loop its entry value's (TF's SparseTensorSpec).  A SparseTensor
  against a tensor is ValueError, as TF's nest.

Ops whose functions hold no stateful op are ``StatelessIf``/``StatelessWhile``: the
optimizer may fold or merge those; ``If``/``While`` it never touches.  A function that
assigns a variable runs where that variable lives when it has a device (the assign
needs it; on a cluster, the variable's task).

Random ops inside *record* what they drew, for the gradient, which computes the
functions again (``control_flow_grad.py`` says why and how): extra outputs after the
op's own, counted by attr ``num_records`` (absent where there is nothing to record,
so other conds and loops are exactly as before).  An ``If`` records each value its
branches' random ops (``OpDef.draws``) drew (a branch gives empty stand-ins for the other
branch's); a ``While`` (unless ``back_prop=False``) the number of iterations, then per
random op of the body its draws of every iteration, raveled and concatenated, and their
shapes (``[iterations, rank]`` int64: shapes may change between iterations).  A cond
or loop nested in a function records through it: the function records the inner op's
records (a loop with ``back_prop=False`` holding random ops: its outputs).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import dtypes
from ..function_graph import FunctionGraph, draws, holds_draws, serialize
from .assert_op import Assert  # noqa: F401  (ds.Assert, imported from here too)
from ..graph import (Operation, Tensor, building_graph, control_dependencies,
                     convert_to_tensor, name_scope)
from ..sparse_tensor import SparseTensor
from ..tensor_shape import TensorShape, as_shape
from . import nest
from .elementwise import add, cast, less, less_equal, logical_and
from .registry import InferError, OpDef, register_op
from .state import constant

__all__ = ["cond", "case", "while_loop", "Assert", "IF_OPS", "WHILE_OPS", "WHILE_GRAD_OP",
           "WHILE_REPLAY_OP", "create_if", "create_while", "create_control_flow_op",
           "most_specific_compatible", "record_count"]

IF_OPS = ("If", "StatelessIf")
WHILE_OPS = ("While", "StatelessWhile")
WHILE_GRAD_OP = "_WhileGrad"
WHILE_REPLAY_OP = "_WhileReplay"
RECORDS_ATTR = "num_records"


# --- op definitions ----------------------------------------------------------------------

def _require_bool_scalar(t, what: str, shape_error=InferError) -> None:
    """TypeError unless ``t`` (a Tensor or an InputSpec) is bool; ``shape_error``
    unless it may be a scalar."""
    if t.dtype != dtypes.bool_:
        raise TypeError(f"{what} '{t.name}' must be a bool tensor, not {t.dtype.name}.")
    if t.shape.ndims not in (None, 0):
        raise shape_error(f"{what} '{t.name}' must be a scalar, but has shape {t.shape}.")


def _declared_outputs(attrs, node: str) -> list:
    types, shapes = attrs["output_types"], attrs["output_shapes"]
    if len(types) != len(shapes):
        raise InferError(f"Op '{node}': {len(types)} output_types but {len(shapes)} "
                         f"output_shapes.")
    return [(dtypes.as_dtype(t), as_shape(s)) for t, s in zip(types, shapes)]


def _infer_if(inputs, attrs, node):
    if not inputs:
        raise InferError(f"Op '{node}': an If takes its predicate as first input.")
    _require_bool_scalar(inputs[0], f"Op '{node}': the predicate")
    return _declared_outputs(attrs, node)


def _infer_while(inputs, attrs, node):
    outputs = _declared_outputs(attrs, node)
    loop_vars = len(outputs) - attrs.get(RECORDS_ATTR, 0)
    if len(inputs) < loop_vars:
        raise InferError(f"Op '{node}': {loop_vars} loop variables declared but only "
                         f"{len(inputs)} inputs.")
    for spec, (dtype, shape) in zip(inputs, outputs[:loop_vars]):
        if spec.dtype != dtype or not _less_or_equal(spec.shape, shape):
            raise InferError(f"Op '{node}': loop variable '{spec.name}' ({spec.dtype.name}, "
                             f"{spec.shape}) does not fit its declared {dtype.name} {shape}.")
    return outputs


def _infer_while_grad(inputs, attrs, node):
    return _declared_outputs(attrs, node)


def _infer_assert(inputs, attrs, node):
    if not inputs:
        raise InferError(f"Op '{node}': an Assert takes its condition as first input.")
    _require_bool_scalar(inputs[0], f"Op '{node}': the condition")
    return None


def _register() -> None:
    _if_attrs = {"output_types": (), "output_shapes": ()}
    _while_attrs = {"output_types": (), "output_shapes": (), "parallel_iterations": 10}
    for op_type, stateful in zip(IF_OPS, (True, False)):
        register_op(OpDef(op_type, _infer_if, None, attr_defaults=_if_attrs, stateful=stateful,
                          host_inputs=(0,), function_attrs=("then_branch", "else_branch")))
    for op_type, stateful in zip(WHILE_OPS, (True, False)):
        register_op(OpDef(op_type, _infer_while, None, attr_defaults=_while_attrs,
                          stateful=stateful, function_attrs=("cond", "body")))
    register_op(OpDef("Assert", _infer_assert, None, attr_defaults={"summarize": 3, "message": ""},
                      stateful=True, has_output=False, host_inputs=(0,)))
    # While's gradient (control_flow_grad.py): inputs are the loop's initial values, its
    # captured tensors, the gradients of its outputs and the loop's records; outputs the
    # gradients of the initial values (attr ``loop_var_grads`` says which) and of the
    # captured tensors (``capture_grads``).  Its kernel runs the loop again, keeping every
    # iteration's values, then the body's gradient function backwards over them.
    register_op(OpDef(WHILE_GRAD_OP, _infer_while_grad, None,
                      attr_defaults={"output_types": (), "output_shapes": ()},
                      function_attrs=("cond", "body", "body_grad")))
    # A recording While inside a function that a gradient replays: the body (its random
    # ops replaced by inputs) once per recorded iteration, reading the draws from the
    # records (inputs after the loop values and captured tensors); no cond.
    register_op(OpDef(WHILE_REPLAY_OP, _infer_while_grad, None,
                      attr_defaults={"output_types": (), "output_shapes": ()},
                      function_attrs=("body",)))


_register()


# --- shapes --------------------------------------------------------------------------------

def _less_or_equal(shape: TensorShape, bound: TensorShape) -> bool:
    """Whether ``shape`` is at least as specific as ``bound`` (TF's
    ``_ShapeLessThanOrEqual``: what a shape invariant allows)."""
    if bound.dims is None:
        return True
    if shape.dims is None or len(shape.dims) != len(bound.dims):
        return False
    return all(b is None or a == b for a, b in zip(shape.dims, bound.dims))


def most_specific_compatible(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both ``a`` and ``b`` fit (a dimension they disagree
    on becomes unknown; different ranks give an unknown rank)."""
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return TensorShape(None)
    return TensorShape(x if x == y else None for x, y in zip(a.dims, b.dims))


# --- tracing ---------------------------------------------------------------------------------

def _new_function(graph, name: str) -> FunctionGraph:
    return FunctionGraph(graph.unique_name(name), graph)


def _trace(function: FunctionGraph, fn, args=()):
    """Call ``fn(*args)`` with ``function`` as the default graph (and no name scope)."""
    with function.as_default(), name_scope(None):
        return fn(*args)


def _as_output(function: FunctionGraph, value, dtype_hint=None, op_value=None) -> Tensor:
    """``value`` (a branch's or body's result leaf) as a tensor of ``function``."""
    with function.as_default():
        if isinstance(value, Operation):
            # TF1 gives the predicate's value: True from the true branch, False from the other
            with control_dependencies([value]):
                return constant(op_value, name="op_done")
        return function.capture(convert_to_tensor(value, dtype_hint=dtype_hint))


def _bind_inputs(functions, captured_by_op: list) -> None:
    """Give every function one input per captured tensor of any of them, in one order."""
    for function in functions:
        function.bound_inputs = function.arguments + [function.capture(t)
                                                      for t in captured_by_op]


def _all_captured(functions) -> list:
    seen: dict = {}
    for function in functions:
        for t in function.captured:
            seen.setdefault(t, None)
    return list(seen)


def record_count(op) -> int:
    """How many of ``op``'s outputs are records (an If or While; see the module
    docstring), or, for a ``_WhileReplay``, of its inputs."""
    return op.attrs.get(RECORDS_ATTR, 0)


def _recorded_values(function: FunctionGraph) -> list:
    """The values of ``function`` its op records (see the module docstring): what the
    random ops its outputs need drew, and the records of the conds and loops nested in
    it (all the outputs of a loop that holds random ops but records nothing)."""
    needed, values = function.needed_operations(), []
    for op in function.get_operations():
        if op not in needed:
            continue
        if draws(op.type):
            values.extend(op.outputs)
        elif op.type in IF_OPS + WHILE_OPS:
            records = record_count(op)
            if records:
                values.extend(op.outputs[len(op.outputs) - records:])
            elif op.type in WHILE_OPS and not op.attrs.get("back_prop", True) \
                    and holds_draws(op):
                values.extend(op.outputs)
    return values


def create_control_flow_op(graph, op_type, inputs, attrs, name, functions) -> Operation:
    """The node running ``functions``, after their control captures, and placed with the
    variables they assign when it has no device of its own."""
    control = []
    for function in functions:
        control.extend(c for c in function.control_captures if c not in control)
    op = graph.create_op(op_type, inputs, attrs, name=name, control_inputs=control)
    variables = [v for f in functions for v in f.variables if not v.device_spec.is_empty]
    if variables and op.device_spec.is_empty:
        op._set_device(variables[0].device_spec)   # the assigns inside need their variable
    return op


# --- cond ------------------------------------------------------------------------------------

def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, running only that branch (TF1's
    ``tf.cond``; see the module docstring).

    Raises TypeError for a Python bool or a non-bool ``pred``, a missing or
    non-callable branch, or results of different container types; ValueError for a
    non-scalar ``pred``, a branch returning None or nothing, or branches whose results
    differ in structure or dtype.
    """
    true_fn = _one_of(true_fn, fn1, "true_fn", "fn1")
    false_fn = _one_of(false_fn, fn2, "false_fn", "fn2")
    if isinstance(pred, bool):
        raise TypeError("'pred' must not be a Python bool.")
    pred = convert_to_tensor(pred)
    _require_bool_scalar(pred, "'pred' of ds.cond", ValueError)
    graph = building_graph(pred.graph)
    with graph.as_default():
        base = graph.unique_name(name or "cond", mark_as_used=False)
        branches = [_new_function(graph, f"{base}_true"), _new_function(graph, f"{base}_false")]
        for function in branches:
            function.lifted_scope = f"{base}/"
        results = []
        for function, fn, label, value in zip(branches, (true_fn, false_fn),
                                              ("true_fn", "false_fn"), (True, False)):
            result = _trace(function, fn)
            if result is None:
                raise ValueError(f"'{label}' must have a return value.")
            if not strict and isinstance(result, (list, tuple)) and len(result) == 1 \
                    and not hasattr(result, "_fields"):
                result = result[0]
            function.outputs = [_as_output(function, part, op_value=value)
                                for leaf in nest.flatten(result)
                                for part in _branch_parts(leaf)]
            results.append(result)
        _check_branches_agree(results, branches)
        declared = len(branches[0].outputs)
        records = _record_branches(branches)
        captured = _all_captured(branches)
        _bind_inputs(branches, captured)
        op = create_if(graph, pred, captured, *branches, name or "cond", records)
    return nest.pack_sequence_as(results[0], _rebuilt(nest.flatten(results[0]),
                                                      op.outputs[:declared]))


def create_if(graph, pred, inputs, then_fn: FunctionGraph, else_fn: FunctionGraph,
              name: str, num_records: int = 0) -> Operation:
    """The If (or StatelessIf) node running ``then_fn`` or ``else_fn`` on ``inputs``
    (both functions take exactly those, in that order); the last ``num_records`` of
    their outputs are records (see the module docstring)."""
    stateful = then_fn.is_stateful or else_fn.is_stateful
    attrs = {"then_branch": serialize(then_fn), "else_branch": serialize(else_fn),
             "output_types": tuple(t.dtype for t in then_fn.outputs),
             "output_shapes": tuple(most_specific_compatible(a.shape, b.shape)
                                    for a, b in zip(then_fn.outputs, else_fn.outputs))}
    if num_records:
        attrs[RECORDS_ATTR] = num_records
    return create_control_flow_op(graph, IF_OPS[0] if stateful else IF_OPS[1],
                                  [pred, *inputs], attrs, name, (then_fn, else_fn))


def _record_branches(branches) -> int:
    """Add the branches' records to their outputs (see the module docstring): the
    values the true branch drew, then the false branch's, each branch giving an empty
    stand-in for the other's; returns how many."""
    if not any(function.is_stateful for function in branches):    # as random ops are
        return 0
    drawn = [_recorded_values(function) for function in branches]
    for k, function in enumerate(branches):
        for j, values in enumerate(drawn):
            function.outputs.extend(values if j == k else
                                    [_stand_in(function, t) for t in values])
    return sum(len(values) for values in drawn)


def _stand_in(function: FunctionGraph, t: Tensor) -> Tensor:
    """A constant of ``t``'s dtype and rank, empty (but for a scalar), keeping the
    dimensions ``t`` is known to have but one: a record keeps its rank whichever branch
    ran, and its static shape what it can."""
    dims = [d if d is not None else 0 for d in t.shape.dims or ()]
    if dims and 0 not in dims:
        dims[0] = 0
    with function.as_default(), control_dependencies(None):
        return constant(np.zeros(dims, t.dtype.np), dtype=t.dtype, name="unused_record")


def _branch_parts(leaf) -> list:
    """The tensors of a branch result ``leaf`` (a TensorArray's are two)."""
    return leaf._loop_parts() if hasattr(leaf, "_loop_parts") else [leaf]


def _one_of(value, old, name: str, old_name: str):
    if old is not None:
        if value is not None:
            raise TypeError(f"cond(): '{name}' and '{old_name}' may not be set simultaneously.")
        value = old
    if value is None:
        raise TypeError(f"cond(): '{name}' argument required")
    if not callable(value):
        raise TypeError(f"'{name}' must be callable.")
    return value


def _check_branches_agree(results, branches) -> None:
    try:
        nest.assert_same_structure(results[0], results[1])
    except TypeError as e:
        raise TypeError(f"Incompatible return types of 'true_fn' and 'false_fn': {e}") from None
    except ValueError as e:
        raise ValueError(f"Incompatible return values of 'true_fn' and 'false_fn': {e}") \
            from None
    for a, b in zip(nest.flatten(results[0]), nest.flatten(results[1])):
        if hasattr(a, "_loop_parts") != hasattr(b, "_loop_parts"):
            if isinstance(a, SparseTensor) or isinstance(b, SparseTensor):
                raise ValueError(f"The two structures don't have the same nested structure: "
                                 f"'true_fn' returned {a!r} and 'false_fn' {b!r}.")
            raise TypeError(f"Incompatible return types of 'true_fn' and 'false_fn': "
                            f"{a!r} against {b!r}.")
    if not branches[0].outputs:
        raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
    for a, b in zip(branches[0].outputs, branches[1].outputs):
        if a.dtype != b.dtype:
            raise ValueError(f"Outputs of 'true_fn' and 'false_fn' must have the same "
                             f"type(s). Received {a.dtype.name} from 'true_fn' and "
                             f"{b.dtype.name} from 'false_fn'.")


# --- case ------------------------------------------------------------------------------------

def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first pair whose predicate is true, else of ``default``
    (TF1's ``tf.case``): nested ``cond``s, so only the chosen function runs.

    ``pred_fn_pairs``: a list of (bool scalar tensor, callable), or a dict (ordered by
    the predicates' names).  With ``exclusive=True`` more than one true predicate is an
    ``InvalidArgumentError`` at run time; without ``default`` the last pair is the
    default, and no true predicate at all is an ``InvalidArgumentError``.  TypeError for
    a malformed pair, a non-bool predicate or a non-callable function.
    """
    predicates, actions = _case_pairs(pred_fn_pairs)
    if default is not None and not callable(default):
        raise TypeError("'default' must be callable.")
    with name_scope(name):
        if default is None:
            default, predicates, actions = _last_pair_as_default(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, action, fn, strict=strict)
        if not exclusive:
            return fn()
        with control_dependencies([_assert_at_most_one_true(predicates)]):
            return fn()


def _case_pairs(pred_fn_pairs):
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    elif not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: "
                        f"{type(pred_fn_pairs)}")
    if not pred_fn_pairs:
        raise ValueError("'pred_fn_pairs' must not be empty.")
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred!r}")
        if pred.dtype != dtypes.bool_:
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs)
    return list(predicates), list(actions)


def _last_pair_as_default(predicates, actions):
    predicate, action = predicates[-1], actions[-1]

    def default_action():
        check = Assert(predicate, list(predicates),
                       message="Input error: None of conditions evaluated as True")
        with control_dependencies([check]):
            return action()
    return default_action, predicates[:-1], actions[:-1]


def _assert_at_most_one_true(predicates) -> Operation:
    count = cast(predicates[0], dtypes.int32)
    for p in predicates[1:]:
        count = add(count, cast(p, dtypes.int32))
    return Assert(less_equal(count, 1), list(predicates), name="exclusive_check",
                  message="Input error: exclusive=True: more than 1 conditions evaluated "
                          "as True")


# --- Assert --------------------------------------------------------------------------------

# --- while_loop ------------------------------------------------------------------------------

def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None,
               return_same_structure=False):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the
    final loop variables (TF1's ``tf.while_loop``; see the module docstring).

    ``loop_vars``: a tensor, or a nested list/tuple of tensors.  ``shape_invariants``
    (same structure, TensorShapes) lets a loop variable's shape vary.  The result has
    the structure of ``body``'s result (a single tensor for one loop variable unless
    ``return_same_structure``).  ``parallel_iterations`` and ``swap_memory`` are
    accepted; iterations run one after another.  ``back_prop=False`` stops gradients.

    Raises TypeError for non-callable functions, a non-bool cond result or a loop
    variable changing dtype; ValueError for a body result of another structure, a
    shape invariant the initial value does not fit, or a shape change without one.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    del swap_memory
    single = not nest.is_nested(loop_vars)
    if single:
        loop_vars = [loop_vars]
        if shape_invariants is not None:
            shape_invariants = [shape_invariants]
    if not nest.flatten(loop_vars):
        raise ValueError("'loop_vars' must be provided.")
    if maximum_iterations is not None:
        cond, body, loop_vars, shape_invariants = _with_iteration_counter(
            cond, body, loop_vars, shape_invariants, maximum_iterations,
            len(loop_vars) == 1 and not return_same_structure)
    result, outputs = _build_while(cond, body, loop_vars, shape_invariants, name,
                                   parallel_iterations, back_prop)
    if maximum_iterations is not None:
        return result[1]
    if return_same_structure and not single:
        return result
    return result[0] if len(outputs) == 1 else result


def _with_iteration_counter(cond, body, loop_vars, shape_invariants, maximum_iterations,
                            try_to_pack):
    """TF1's rewrite for ``maximum_iterations``: a counter as an extra first loop
    variable, and ``counter < maximum_iterations`` and-ed into the cond."""
    limit = convert_to_tensor(maximum_iterations, name="maximum_iterations")
    if limit.shape.ndims not in (None, 0):
        raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: "
                         f"{limit.shape}")
    counter = constant(0, dtype=limit.dtype, name="iteration_counter")
    if shape_invariants is not None:
        shape_invariants = (TensorShape([]), shape_invariants[0] if try_to_pack
                            else shape_invariants)
    if try_to_pack:
        return ((lambda i, lv: logical_and(less(i, limit), cond(lv))),
                (lambda i, lv: (i + 1, body(lv))), (counter, loop_vars[0]), shape_invariants)
    return ((lambda i, lv: logical_and(less(i, limit), cond(*lv))),
            (lambda i, lv: (i + 1, body(*lv))), (counter, loop_vars), shape_invariants)


def _build_while(cond_fn, body_fn, loop_vars, shape_invariants, name, parallel_iterations,
                 back_prop):
    leaves = nest.flatten(loop_vars)
    parts = [_parts_of(v) for v in leaves]
    flat = [t for p in parts for t in p]
    graph = building_graph(flat[0].graph)
    with graph.as_default():
        given = _given_invariants(leaves, loop_vars, shape_invariants)
        invariants = _invariants(leaves, parts, given)
        base = graph.unique_name(name or "while", mark_as_used=False)
        cond_graph = _new_function(graph, f"{base}_cond")
        body_graph = _new_function(graph, f"{base}_body")
        for function in (cond_graph, body_graph):
            for t, shape in zip(flat, invariants):
                function.add_input(t.dtype, shape, t.op.name)
        packed = nest.pack_sequence_as(loop_vars, _rebuilt(leaves, cond_graph.arguments, given))
        cond_graph.outputs = [_loop_condition(cond_graph, _trace(cond_graph, cond_fn, packed))]
        packed = nest.pack_sequence_as(loop_vars, _rebuilt(leaves, body_graph.arguments, given))
        body_result = _trace(body_graph, body_fn, packed)
        if not nest.is_nested(body_result):
            body_result = [body_result]
        nest.assert_same_structure(list(packed), list(body_result))
        results = [_parts_of_result(leaf, v)
                   for leaf, v in zip(nest.flatten(body_result), leaves)]
        body_graph.outputs = [_as_output(body_graph, part, dtype_hint=t.dtype)
                              for part, t in zip([p for r in results for p in r], flat)]
        _check_loop_outputs(flat, body_graph.outputs, invariants)
        op = create_while(graph, flat, cond_graph, body_graph, invariants, name or "while",
                          parallel_iterations, back_prop)
    outputs = _rebuilt(leaves, op.outputs[:len(flat)], given)
    return nest.pack_sequence_as(body_result, outputs), outputs


def create_while(graph, loop_vars: list, cond_graph: FunctionGraph, body_graph: FunctionGraph,
                 invariants: list, name: str, parallel_iterations: int = 10,
                 back_prop: bool = True) -> Operation:
    """The While (or StatelessWhile) node looping ``body_graph`` over ``loop_vars`` while
    ``cond_graph`` holds; both functions' arguments are the loop variables (shapes
    ``invariants``), their outputs set.  Binds the functions' captures as extra inputs
    and, for a loop drawing random values, adds its records (see the module docstring)."""
    stateful = cond_graph.is_stateful or body_graph.is_stateful   # as random ops are
    recording = back_prop and stateful and (body_graph.holds_draws
                                            or cond_graph.holds_draws)
    records = _recorded_values(body_graph) if recording else []
    body_graph.outputs.extend(records)
    functions = (cond_graph, body_graph)
    captured = _all_captured(functions)
    _bind_inputs(functions, captured)
    attrs = {"cond": serialize(cond_graph), "body": serialize(body_graph),
             "output_types": tuple(t.dtype for t in loop_vars),
             "output_shapes": tuple(invariants),
             "parallel_iterations": int(parallel_iterations)}
    if not back_prop:
        attrs["back_prop"] = False
    if recording:
        _declare_loop_records(attrs, records)
    return create_control_flow_op(graph, WHILE_OPS[0] if stateful else WHILE_OPS[1],
                                  [*loop_vars, *captured], attrs, name, functions)


# A loop variable (or a branch result) that is not a tensor but a few (a TensorArray, a
# SparseTensor) has ``_loop_parts()`` (its tensors), ``_loop_invariants(given)`` (their
# shapes through the loop, given the shape invariant for it or None) and
# ``_with_loop_parts(tensors, given)`` (the same kind of value, on other tensors).

def _parts_of(value) -> list:
    if hasattr(value, "_loop_parts"):
        return value._loop_parts()
    return [convert_to_tensor(value)]


def _parts_of_result(result, loop_var) -> list:
    """The tensors of the body's ``result`` for ``loop_var``: a TensorArray for a
    TensorArray (TypeError otherwise), as TF1."""
    if hasattr(loop_var, "_loop_parts") != hasattr(result, "_loop_parts"):
        if isinstance(loop_var, SparseTensor) or isinstance(result, SparseTensor):
            raise ValueError(f"The two structures don't have the same nested structure: the "
                             f"loop variable {loop_var!r} and the body's {result!r}.")
        raise TypeError(f"The body of a while_loop must return a "
                        f"{type(loop_var).__name__} where the loop variable is one, and "
                        f"not where it is not; got {result!r} for {loop_var!r}.")
    return result._loop_parts() if hasattr(result, "_loop_parts") else [result]


def _rebuilt(leaves, tensors, given=None) -> list:
    """``leaves`` (loop variables) made again from ``tensors`` (their parts in order);
    ``given``: the shape invariant given for each leaf (None: none given)."""
    out, position = [], 0
    for leaf, invariant in zip(leaves, given or [None] * len(leaves)):
        if hasattr(leaf, "_loop_parts"):
            count = len(leaf._loop_parts())
            out.append(leaf._with_loop_parts(list(tensors[position:position + count]),
                                             invariant))
            position += count
        else:
            out.append(tensors[position])
            position += 1
    return out


def _declare_loop_records(attrs: dict, records) -> None:
    """A recording loop's outputs after its loop variables (see the module docstring):
    the iteration count, then per recorded value its draws (1-D) and their shapes."""
    types, shapes = [dtypes.int64], [TensorShape([])]
    for t in records:
        types += [t.dtype, dtypes.int64]
        shapes += [TensorShape([None]), TensorShape([None, t.shape.ndims])]
    attrs["output_types"] += tuple(types)
    attrs["output_shapes"] += tuple(shapes)
    attrs[RECORDS_ATTR] = len(types)


def _given_invariants(leaves, loop_vars, shape_invariants) -> list:
    """The shape invariant given for each loop variable (None for each when none are)."""
    if shape_invariants is None:
        return [None] * len(leaves)
    try:
        nest.assert_same_structure(list(loop_vars), list(shape_invariants),
                                   check_types=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"'shape_invariants' must have the structure of 'loop_vars': "
                         f"{e}") from None
    return nest.flatten(list(shape_invariants))


def _invariants(leaves, parts, given) -> list:
    """One shape per part of the loop variables: a TensorArray's own (a shape invariant
    given for it is not used: TF1's is its flow's), a SparseTensor's from its rank (or
    the ``[rank]`` given for it), the others' given or entry shape."""
    invariants = []
    for leaf, leaf_parts, shape in zip(leaves, parts, given):
        if hasattr(leaf, "_loop_invariants"):
            invariants.extend(leaf._loop_invariants(shape))
            continue
        t = leaf_parts[0]
        if shape is None:
            invariants.append(t.shape)
            continue
        shape = as_shape(shape)
        if not _less_or_equal(t.shape, shape):
            raise ValueError(f"The shape invariant specified for {t.name} is not compatible "
                             f"with the initial shape of the loop variable. It enters the "
                             f"loop with shape {t.shape}, but the specified shape invariant "
                             f"is {shape}.")
        invariants.append(shape)
    return invariants


def _loop_condition(function: FunctionGraph, value) -> Tensor:
    t = _as_output(function, value)
    _require_bool_scalar(t, "The result of the while_loop's 'cond'", ValueError)
    return t


def _check_loop_outputs(flat, outputs, invariants) -> None:
    for t, out, shape in zip(flat, outputs, invariants):
        if out.dtype != t.dtype:
            raise TypeError(f"Loop variable '{t.name}' enters the loop with type "
                            f"{t.dtype.name}, but has type {out.dtype.name} after one "
                            f"iteration.")
        if not _less_or_equal(out.shape, shape):
            raise ValueError(f"Input tensor '{t.name}' enters the loop with shape {shape}, "
                             f"but has shape {out.shape} after one iteration. To allow the "
                             f"shape to vary across iterations, use the `shape_invariants` "
                             f"argument of ds.while_loop to specify a less-specific shape.")
