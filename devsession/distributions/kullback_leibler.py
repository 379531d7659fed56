"""TF1's ``tf.distributions.kl_divergence`` and ``RegisterKL``: KL divergences registered
per pair of distribution classes, looked up along both classes' method resolution
orders (the nearest registered pair wins, as TF's ``_registered_kl``)."""

from __future__ import annotations

from ..graph import control_dependencies, name_scope
from ..ops.array import identity
from ..ops.assertions import assert_equal
from ..ops.elementwise import is_nan
from ..ops.reduce import reduce_any
from ..ops.elementwise import logical_not

__all__ = ["kl_divergence", "RegisterKL"]

_DIVERGENCES: dict = {}


def _registered_kl(type_a, type_b):
    best, best_distance = None, None
    for i, parent_a in enumerate(type_a.__mro__):
        for j, parent_b in enumerate(type_b.__mro__):
            fn = _DIVERGENCES.get((parent_a, parent_b))
            if fn is not None and (best_distance is None or i + j < best_distance):
                best, best_distance = fn, i + j
    return best


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """``KL[a || b]`` by the function registered for their classes (TF1's).  With
    ``allow_nan_stats=False`` a NaN in the result fails at run time."""
    fn = _registered_kl(type(distribution_a), type(distribution_b))
    if fn is None:
        raise NotImplementedError(
            f"No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type "
            f"{type(distribution_b).__name__}")
    with name_scope("KullbackLeibler"):
        kl = fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl
        check = assert_equal(logical_not(reduce_any(is_nan(kl))), True,
                             message=f"KL calculation between {distribution_a.name} and "
                                     f"{distribution_b.name} returned NaN values")
        with control_dependencies([check]):
            return identity(kl)


class RegisterKL:
    """Decorator registering ``fn(a, b, name=None)`` as ``KL[a || b]`` for two classes."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has "
                             f"already been registered to: {_DIVERGENCES[self._key]}")
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
