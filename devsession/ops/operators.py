"""The Tensor operators: ``+ - * / ** @``, comparisons, unary ``-`` and ``abs()``.

Installed on ``Tensor`` here, above every op family, so ``graph.py`` (which defines
Tensor) knows nothing of the ops the operators build.
"""

from __future__ import annotations

from ..graph import Tensor
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


_install()
