"""The rest of TF1's ``check_ops``: ``assert_near`` (``|x - y| < atol + rtol * |y|``
element-wise), ``assert_rank_in``, ``assert_same_float_dtype``, ``assert_proper_iterable``,
``is_numeric_tensor`` and the order predicates ``is_non_decreasing`` and
``is_strictly_increasing`` (of ``x`` flattened; true for fewer than two elements).

Built as TF1's ``check_ops.py`` builds them, with its messages: ``assert_near`` is an
``Assert`` at run time whose data say "x and y not equal to tolerance rtol = ..., atol =
...", with x and y; ``assert_rank_in`` decides at build time when the static rank and
the ranks are known (a NoOp, or TF's ValueError), else asserts at run time.  The
predicates compare ``x[1:]`` with ``x[:-1]`` (TF's ``cond`` on the size is not needed:
both slices are empty below two elements and ``reduce_all`` of nothing is true).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from .array import reshape
from .array_fill import rank as rank_of
from .array_fill import shape as shape_of
from .control_flow import Assert
from .elementwise import (abs, add, equal, greater, greater_equal, less, logical_or,
                          multiply, subtract)
from .reduce import reduce_all
from .state import no_op

__all__ = ["assert_near", "assert_rank_in", "assert_same_float_dtype",
           "assert_proper_iterable", "is_numeric_tensor", "is_non_decreasing",
           "is_strictly_increasing"]


def _prefix(message) -> str:
    return f"{message}.  " if message else ""


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """An ``Assert`` that ``|x - y| < atol + rtol * |y|`` for every element (broadcast);
    ``rtol`` and ``atol`` default to ten machine epsilons of ``x``'s dtype, as TF's."""
    with name_scope(name or "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        real = {dtypes.complex64: dtypes.float32,
                dtypes.complex128: dtypes.float64}.get(x.dtype, x.dtype)
        eps = np.finfo(real.np).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=real)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=real)
        if data is None:
            data = [_prefix(message),
                    f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tolerance = add(atol, multiply(rtol, abs(y)))
        return Assert(reduce_all(less(abs(subtract(x, y)), tolerance)), data,
                      summarize=summarize)


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """That ``x``'s rank is one of ``ranks``: a NoOp, or TF's ValueError, when the graph
    knows both; else an ``Assert`` at run time."""
    with name_scope(name or "assert_rank_in"):
        x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(r, name="rank") for r in ranks)
        static = [constant_value(r) for r in ranks]
        if all(s is not None for s in static):
            if any(np.ndim(s) != 0 for s in static):
                raise ValueError("Rank must be a scalar.")
            if x.shape.ndims is not None:
                if x.shape.ndims not in [int(s) for s in static]:
                    raise ValueError(f"{_prefix(message)}Tensor {x.name} must have rank in "
                                     f"{tuple(int(s) for s in static)}.  Received rank "
                                     f"{x.shape.ndims}, shape {x.shape}")
                return no_op(name="static_checks_determined_all_ok")
        if data is None:
            data = [_prefix(message), f"Tensor {x.name} must have rank in", *ranks,
                    "Received shape: ", shape_of(x)]
        held = None
        for r in ranks:
            this = equal(rank_of(x), r)
            held = this if held is None else logical_or(held, this)
        return Assert(held, data, summarize=summarize)


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``), float32 when none says;
    ValueError when they differ or it is not floating."""
    first = None
    for t in tensors or ():
        if first is None:
            first = t
            if dtype is None:
                dtype = t.dtype
        if t.dtype != dtypes.as_dtype(dtype):
            raise ValueError(f"{t.name}, type=<dtype: '{t.dtype.name}'>, must be of the same "
                             f"type (<dtype: '{dtypes.as_dtype(dtype).name}'>) as "
                             f"{first.name}.")
    if not dtype:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got <dtype: '{dtype.name}'>.")
    return dtype


def assert_proper_iterable(values) -> None:
    """TypeError when ``values`` is a tensor, an array, a string or not iterable (what a
    list of checks must not be); TF's messages."""
    from ..sparse_tensor import SparseTensor

    if isinstance(values, (Tensor, SparseTensor, np.ndarray, str, bytes)):
        raise TypeError('Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def is_numeric_tensor(tensor) -> bool:
    """Whether ``tensor`` is a Tensor of a number dtype (integer, floating or complex)."""
    return isinstance(tensor, Tensor) and (tensor.dtype.is_numeric or tensor.dtype.is_complex)


def _monotonic(x, compare, default_name: str, name):
    with name_scope(name or default_name):
        x = reshape(convert_to_tensor(x, name="x"), [-1])
        if not is_numeric_tensor(x) or x.dtype.is_complex:
            raise TypeError(f"Expected x to be numeric, instead found: {x}")
        return reduce_all(compare(x[1:], x[:-1]))


def is_non_decreasing(x, name=None) -> Tensor:
    """True when every element of ``x`` (flattened) is >= the one before it."""
    return _monotonic(x, greater_equal, "is_non_decreasing", name)


def is_strictly_increasing(x, name=None) -> Tensor:
    """True when every element of ``x`` (flattened) is > the one before it."""
    return _monotonic(x, greater, "is_strictly_increasing", name)
