"""TF1's ``ds.custom_gradient``: a function that gives its own gradient.

    @ds.custom_gradient
    def reverse(x):
        return ds.identity(x), lambda dy: -dy     # gradient reversal

``f(*args)`` returns ``(y, grad_fn)``; ``grad_fn(*dys)`` returns the gradients of the
args.  Where ``f`` reads trainable variables (ones it was not passed), ``grad_fn`` must
take a ``variables`` keyword (TF's ``TypeError`` otherwise) and return
``(input_grads, variable_grads)``, one gradient per variable of ``variables``.

As TF builds it in graph mode: the results, the args and the variables go through one
``IdentityN`` node (``ops/identity_n.py``) whose gradient is overridden
(``graph.gradient_override_map``) with ``grad_fn`` registered under a fresh name
(``CustomGradient-<n>``), so ``ds.gradients`` reaches the args and the variables through
that node only, never through ``f``'s own ops.  The node carries the name as its
``_gradient_op_type`` attr, in GraphDefs too (the function itself lives in this
process, as in TF).
"""

from __future__ import annotations

import functools
import inspect
import itertools

from .gradient_registration import RegisterGradient
from .graph import Tensor, convert_to_tensor, get_default_graph
from .graph_keys import GraphKeys
from .ops.identity_n import identity_n
from .ops.nest import flatten, pack_sequence_as
from .ops.shape_of import zeros_like_of

__all__ = ["custom_gradient"]

_NAMES = itertools.count(1)


def custom_gradient(f=None):
    """Decorate ``f`` (also usable as ``custom_gradient()``, returning the decorator)."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        return _with_own_gradient(f, args)
    return decorated


def _with_own_gradient(f, args):
    args = [convert_to_tensor(a) for a in args]
    graph = args[0].graph if args else get_default_graph()
    version = graph.version
    result, grad_fn = f(*args)
    variables = _variables_read(graph, graph.operations_since(version), args)
    if variables and not _takes_variables(grad_fn):
        raise TypeError(f"@tf.custom_gradient grad_fn must accept keyword argument "
                        f"'variables', since function uses variables: {variables}")
    results = [convert_to_tensor(t) for t in flatten(result)]
    name = f"CustomGradient-{next(_NAMES)}"
    RegisterGradient(name)(_gradient_of(grad_fn, results, args, variables))
    with graph.as_default(), graph.gradient_override_map({"IdentityN": name}):
        outputs = identity_n(results + args + [v._ref() for v in variables])
    return pack_sequence_as(result, outputs[:len(results)])


def _variables_read(graph, new_ops, args) -> list:
    """The trainable variables the ops ``f`` built take as inputs (their value, their
    read or the variable itself), in the order they were first used (TF watches them
    on a tape)."""
    by_op = {}
    for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
        by_op[v._ref().op] = v
        by_op[v._as_graph_element().op] = v
    passed = {t.op for t in args}
    found: dict = {}
    for op in new_ops:
        for t in op.inputs:
            v = by_op.get(t.op)
            if v is not None and t.op not in passed:
                found.setdefault(id(v), v)
    return list(found.values())


def _takes_variables(grad_fn) -> bool:
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" and p.kind != p.POSITIONAL_ONLY
               or p.kind == p.VAR_KEYWORD for p in params)


def _gradient_of(grad_fn, results, args, variables):
    """The IdentityN node's gradient: ``grad_fn``'s, None for the results' inputs."""
    def gradient(op, *dys):
        dys = [zeros_like_of(y) if dy is None else dy
               for y, dy in zip(results, dys[:len(results)])]
        if variables:
            returned = grad_fn(*dys, variables=variables)
            if not isinstance(returned, (list, tuple)) or len(returned) != 2:
                raise ValueError("@tf.custom_gradient grad_fn must return (input_grads, "
                                 "variable_grads) when the function uses variables.")
            input_grads, variable_grads = returned
            variable_grads = list(flatten(variable_grads))
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from "
                                 "@custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*dys), []
        input_grads = [input_grads] if isinstance(input_grads, Tensor) or \
            input_grads is None else flatten(input_grads)
        if len(input_grads) != len(args):
            raise ValueError(f"@tf.custom_gradient grad_fn returned {len(input_grads)} "
                             f"gradients for {len(args)} inputs.")
        return [None] * len(results) + list(input_grads) + variable_grads
    return gradient
