"""Shape and argument checks the ``ds.image`` modules share, as TF's
``image_ops_impl.py`` makes them: a Python condition that is false is a ``ValueError``
when the graph is built; a tensor condition becomes an ``Assert`` that fails the run
with TF's message.  Dimensions are ints where the graph knows them, scalar tensors
where only the run does.
"""

from __future__ import annotations

from .graph import Tensor, control_dependencies
from .ops import identity, random_uniform, rank, shape
from .ops.control_flow import Assert
from .ops.reduce import reduce_all

__all__ = ["is_tensor", "assert_or_raise", "after", "known_rank",
           "nonzero_inner", "image_dims", "random_factor"]


def is_tensor(value) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def assert_or_raise(condition, message: str) -> list:
    """TF's ``_assert``: a Python ``False`` raises ValueError now; a tensor becomes an
    ``Assert`` op (returned in a list) that fails the run with ``message``."""
    if is_tensor(condition):
        return [Assert(condition, [message], message=message)]
    if not condition:
        raise ValueError(message)
    return []


def after(checks: list, x: Tensor) -> Tensor:
    """``x``, once ``checks`` have run."""
    if not checks:
        return x
    with control_dependencies(checks):
        return identity(x)


def known_rank(image: Tensor, ranks, what: str) -> int:
    rank = image.shape.ndims
    if rank is None or rank not in ranks:
        wanted = " or ".join(str(r) for r in ranks)
        raise ValueError(f"{what}: 'image' (shape {image.shape}) must have {wanted} "
                         f"dimensions (a known rank).")
    return rank


def nonzero_inner(image: Tensor, what: str) -> list:
    """TF's ``_CheckAtLeast3DImage(require_static=False)``: a known 0 among the inner 3
    dimensions is a ValueError; unknown ones get an ``Assert``, and an unknown rank one
    more (at least 3, TF's ``assert_greater_equal``)."""
    if image.shape.ndims is None:
        return [*assert_or_raise(reduce_all(shape(image)[-3:] > 0),
                                 "inner 3 dims of 'image.shape' must be > 0."),
                *assert_or_raise(rank(image) >= 3,
                                 "'image' must be at least three-dimensional.")]
    dims = image.shape.dims[-3:]
    if 0 in dims:
        raise ValueError(f"{what}: inner 3 dims of 'image.shape' must be > 0: {image.shape}")
    if None in dims:
        return assert_or_raise(reduce_all(shape(image)[-3:] > 0),
                       "inner 3 dims of 'image.shape' must be > 0.")
    return []


def image_dims(image: Tensor) -> list:
    """TF's ``_ImageDimensions``: each dimension an int where known, else a scalar tensor
    (``shape(image)[i]``)."""
    dims = image.shape.dims
    dynamic = shape(image) if None in dims else None
    return [dynamic[i] if d is None else d for i, d in enumerate(dims)]


def random_factor(lower, upper, seed=None) -> Tensor:
    """A factor drawn uniformly from [lower, upper) for the ``random_*`` adjustments
    (contrast, saturation); ValueError unless ``0 <= lower < upper``, as TF's."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return random_uniform([], lower, upper, seed=seed)
