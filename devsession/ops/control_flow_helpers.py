"""TF1's ``tf.tuple`` and ``tf.switch_case``, built from existing ops.

``tuple(tensors)``: each tensor through an Identity that waits for a ``group`` of every
tensor's op (and of ``control_inputs``), so fetching any one of them runs them all.
``switch_case(branch_index, branch_fns)``: the branch an int scalar picks, as nested
``cond``s (``case``); an index out of range takes ``default``, else the last branch,
as TF's does.
"""

from __future__ import annotations

import builtins

from ..graph import Operation, Tensor, control_dependencies, convert_to_tensor, name_scope
from .array import identity
from .control_flow import case
from .elementwise import equal, greater_equal, less, logical_or, where
from .state import constant, group

__all__ = ["tuple", "switch_case"]


def tuple(tensors, name=None, control_inputs=None) -> list:  # noqa: A001  (TF's name)
    """``tensors`` (Tensors, Operations or None), each gated on all of them."""
    with name_scope(name or "tuple"):
        tensors = [t if t is None or isinstance(t, (Tensor, Operation)) else
                   convert_to_tensor(t) for t in tensors]
        gating = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError(f"'control_inputs' must only contain Operation or Tensor. "
                                f"Received: {type(c)}")
            gating.append(c)
        gating = list(dict.fromkeys(gating))
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating)
        gated = []
        for t in tensors:
            if t is None:
                gated.append(None)
                continue
            with control_dependencies([gate]):
                gated.append(identity(t, name="control_dependency") if isinstance(t, Tensor)
                             else group(t))
        return gated


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The result of ``branch_fns[branch_index]`` (a list of callables, a list of
    ``(int, callable)`` pairs or a dict, keys 0..N-1); out of range: ``default``."""
    fns = _branch_fns(branch_index, branch_fns, default)
    with name_scope(name):
        last = constant(len(fns) - 1, dtype=branch_index.dtype)
        out_of_range = logical_or(less(branch_index, 0), greater_equal(branch_index, len(fns)))
        index = where(out_of_range, last, branch_index)
        if len(fns) == 1:
            return fns[0]()
        pairs = [(equal(index, k), fn) for k, fn in enumerate(fns[:-1])]
        return case(pairs, default=fns[-1], name="case")


def _branch_fns(branch_index, branch_fns, default) -> list:
    """TF's checks (its errors and messages); the callables in key order, then default."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, builtins.tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(keys)}) but found {{{','.join(map(str, sorted(keys)))}}}")
    fns = [fn for _, fn in sorted(branch_fns, key=lambda p: p[0])]
    return fns + ([default] if default is not None else [])
