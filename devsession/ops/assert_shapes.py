"""TF1's ``tf.debugging.assert_shapes(shapes, data=None, summarize=None, message=None,
name=None)``: that tensors have the ranks and sizes a list of symbolic shapes gives them,
with the sizes named by the same symbol equal across all of them.

``shapes`` is a dict or a list of ``(tensor, shape)``; a shape is an iterable of sizes: an
int, a symbol (any other hashable, e.g. "N"), or ``None`` / "." for any size, and it may
start with ``...`` or "*" for any number of leading dimensions.  A scalar checks as a
shape of one size 1 (``()`` means "rank 0 or 1, size 1").

What the static shapes decide is decided at build time (TF's ValueError, naming the tensor,
its dimension, the size expected and who specified it); the rest becomes rank assertions
and ``Assert`` ops that fail at run time (InvalidArgumentError).  The result is an op
grouping them (a NoOp when nothing is left to check).
"""

from __future__ import annotations

from ..graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from .array_fill import rank as rank_of
from .array_fill import shape as shape_of
from .assertions import assert_rank, assert_rank_at_least
from .check_helpers import assert_rank_in
from .control_flow import Assert, cond
from .elementwise import equal
from .state import constant, group

__all__ = ["assert_shapes"]

_ANY_LEADING = (Ellipsis, "*")
_ANY_SIZE = (None, ".")


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """See the module docstring."""
    prefix = f"{message}.  " if message else ""
    items = shapes.items() if isinstance(shapes, dict) else shapes
    with name_scope(name or "assert_shapes"):
        checked = [_Checked(convert_to_tensor(x), shape, prefix) for x, shape in items
                   if shape is not None]
        ranks = [assertion for c in checked
                 if (assertion := c.rank_assertion(data, summarize, message, name))]
        sizes, named = [], {}
        for c in checked:
            for index, symbol in enumerate(c.symbols):
                if symbol in _ANY_SIZE:
                    continue
                dim = index - len(c.symbols) if c.leading else index
                with control_dependencies(ranks):
                    actual = c.sizes[dim]
                if _is_int(symbol):
                    expected, said = int(symbol), "Specified explicitly"
                elif symbol in named:
                    expected, by, at = named[symbol]
                    said = f"Specified by tensor {by.name} dimension {at}"
                else:
                    named[symbol] = (actual, c.x, dim)
                    continue
                if _is_int(actual) and _is_int(expected):
                    if int(actual) != int(expected):
                        raise ValueError(f"{prefix}{said}.  Tensor {c.x.name} dimension {dim} "
                                         f"must have size {int(expected)}.  Received size "
                                         f"{int(actual)}, shape {c.x.shape}")
                    continue
                shown = data if data is not None else [
                    prefix, said, f"Tensor {c.x.name} dimension", dim, "must have size",
                    expected, "Received shape: ", shape_of(c.x)]
                sizes.append(Assert(equal(convert_to_tensor(actual),
                                          convert_to_tensor(expected)),
                                    shown, summarize=summarize))
    with control_dependencies(ranks):
        return group(*sizes)


class _Checked:
    """One ``(tensor, symbolic shape)``: its symbols, whether it starts with ``...``, and
    its sizes (ints where the static shape knows them, else tensors)."""

    def __init__(self, x: Tensor, shape, prefix: str):
        if not (hasattr(shape, "__iter__") or hasattr(shape, "__getitem__")):
            raise ValueError(f"{prefix}Tensor {x.name}.  Specified shape must be an "
                             f"iterable.  An iterable has the attribute `__iter__` or "
                             f"`__getitem__`.  Received specified shape: {shape}")
        symbols = tuple(shape)
        for index, symbol in enumerate(symbols):
            if symbol in _ANY_LEADING and index != 0:
                raise ValueError(f"{prefix}Tensor {x.name} specified shape index {index}.  "
                                 f"Symbol `...` or `*` for a variable number of unspecified "
                                 f"dimensions is only allowed as the first entry")
        self.x = x
        self.leading = bool(symbols) and symbols[0] in _ANY_LEADING
        self.symbols = (symbols[1:] if self.leading else symbols) or (1,)
        self.sizes = _sizes(x)

    def rank_assertion(self, data, summarize, message, name):
        rank = len(self.symbols)
        if self.leading:
            return None if rank <= 1 else assert_rank_at_least(
                self.x, rank, data=data, summarize=summarize, message=message, name=name)
        if rank <= 1:
            return assert_rank_in(self.x, [0, 1], data=data, summarize=summarize,
                                  message=message, name=name)
        return assert_rank(self.x, rank, data=data, summarize=summarize, message=message,
                           name=name)


def _sizes(x: Tensor):
    """``x``'s sizes, a scalar's being (1,): static ints where known."""
    if x.shape.rank == 0:
        return (1,)
    if x.shape.rank is not None:
        dynamic = shape_of(x)
        return [d if d is not None else dynamic[i] for i, d in enumerate(x.shape.as_list())]
    return cond(equal(rank_of(x), 0), lambda: constant([1]), lambda: shape_of(x))


def _is_int(value) -> bool:
    if value is None or isinstance(value, Tensor):
        return False
    try:
        int(value)
    except (ValueError, TypeError):
        return False
    return True
