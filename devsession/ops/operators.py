"""The Tensor operators: ``+ - * / ** @``, comparisons, unary ``-``, ``abs()`` and
indexing (``x[1:, ::2, 0]``: a StridedSlice, ``array_index.getitem``).

Installed on ``Tensor`` here, above every op family, so ``graph.py`` (which defines
Tensor) knows nothing of the ops the operators build.
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor
from .array_index import getitem
from .elementwise import (abs, add_v2, divide, greater, greater_equal, less, less_equal,
                          multiply, negative, pow, subtract)
from .linalg import matmul
from .sparse_math import dense_times_sparse

__all__: list = []


def binary_operator(fn, scope: str, reflected: bool = False):
    """The Tensor method for ``fn``, naming nodes as TF1 does: ``x + 2.0`` builds an op
    named after its name scope ("add", "add_1"...) and a constant "add/y" ("add/x" when
    reflected: ``2.0 + x``), converted to the tensor's dtype."""
    def method(self, other):
        with name_scope(scope) as name:
            if not (isinstance(other, Tensor) or hasattr(other, "_as_tensor")):
                other = convert_to_tensor(other, dtype_hint=self.dtype, graph=self.graph,
                                          name="x" if reflected else "y")
        return fn(other, self, name=name) if reflected else fn(self, other, name=name)
    return method


def _install() -> None:
    for method, fn in (("add", add_v2), ("sub", subtract), ("mul", multiply),
                       ("truediv", divide), ("pow", pow), ("matmul", matmul)):
        setattr(Tensor, f"__{method}__", binary_operator(fn, method))
        setattr(Tensor, f"__r{method}__", binary_operator(fn, method, reflected=True))
    Tensor.__mul__ = _mul_dispatch(Tensor.__mul__)
    Tensor.__lt__ = lambda self, other: less(self, other)
    Tensor.__le__ = lambda self, other: less_equal(self, other)
    Tensor.__gt__ = lambda self, other: greater(self, other)
    Tensor.__ge__ = lambda self, other: greater_equal(self, other)
    Tensor.__neg__ = lambda self: negative(self)
    Tensor.__abs__ = lambda self: abs(self)
    Tensor.__getitem__ = getitem
    Tensor.__iter__ = _not_iterable


def _mul_dispatch(dense_mul):
    """``dense * sparse`` is a SparseTensor, as TF's ``_mul_dispatch`` (``sparse_math``)."""
    def method(self, other):
        if isinstance(other, SparseTensor):
            return dense_times_sparse(self, other)
        return dense_mul(self, other)
    return method


def _not_iterable(self):
    # Without this, Python would iterate through __getitem__ forever (or until an
    # index is out of range at build time); TF1 refuses the same way in graph mode.
    raise TypeError(f"Tensor objects are not iterable in graph mode ('{self.name}'); use "
                    f"ds.unstack or index with x[i].")


_install()


# --- TF1 surface (branch tf1): ``// %`` and the bool operators ``& | ^ ~`` ---------------

def _install_tf1() -> None:
    from .elementwise import floordiv, floormod, logical_and, logical_not, logical_or, \
        logical_xor

    for method, fn in (("floordiv", floordiv), ("mod", floormod), ("and", logical_and),
                       ("or", logical_or), ("xor", logical_xor)):
        setattr(Tensor, f"__{method}__", binary_operator(fn, method))
        setattr(Tensor, f"__r{method}__", binary_operator(fn, method, reflected=True))
    Tensor.__invert__ = lambda self: logical_not(self)


_install_tf1()
