"""The Tensor operators: ``+ - * / ** @``, comparisons, unary ``-``, ``abs()`` and
indexing (``x[1:, ::2, 0]``: a StridedSlice, ``array_index.getitem``).

Installed on ``Tensor`` here, above every op family, so ``graph.py`` (which defines
Tensor) knows nothing of the ops the operators build.
"""

from __future__ import annotations

from ..graph import Tensor
from .array_index import getitem
from .elementwise import (abs, add, divide, greater, greater_equal, less, less_equal,
                          multiply, negative, pow, subtract)
from .linalg import matmul

__all__: list = []


def _install() -> None:
    def binary(fn, reflected=False):
        if reflected:
            return lambda self, other: fn(other, self)
        return lambda self, other: fn(self, other)

    for method, fn in (("add", add), ("sub", subtract), ("mul", multiply),
                       ("truediv", divide), ("pow", pow), ("matmul", matmul)):
        setattr(Tensor, f"__{method}__", binary(fn))
        setattr(Tensor, f"__r{method}__", binary(fn, reflected=True))
    Tensor.__lt__ = binary(less)
    Tensor.__le__ = binary(less_equal)
    Tensor.__gt__ = binary(greater)
    Tensor.__ge__ = binary(greater_equal)
    Tensor.__neg__ = lambda self: negative(self)
    Tensor.__abs__ = lambda self: abs(self)
    Tensor.__getitem__ = getitem
    Tensor.__iter__ = _not_iterable


def _not_iterable(self):
    # Without this, Python would iterate through __getitem__ forever (or until an
    # index is out of range at build time); TF1 refuses the same way in graph mode.
    raise TypeError(f"Tensor objects are not iterable in graph mode ('{self.name}'); use "
                    f"ds.unstack or index with x[i].")


_install()
