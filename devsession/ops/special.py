"""Special functions as TF's elementwise ops: Lgamma, Digamma, Polygamma, Zeta, Igamma,
Igammac, IgammaGradA (igamma's gradient in ``a``), BesselI0e, BesselI1e, BesselI0,
BesselI1, Erfinv, Ndtri, and ``lbeta`` built from Lgamma and Sum as TF builds it.

The ops take floats only, as TF's (Polygamma, Zeta and the incomplete gammas float32
and float64: TF has no float16 kernels for them); the binary ones broadcast.  Every
device computes them in float64 and rounds once (``kernels/special_math.py`` has the
algorithms and TF's values at the edges: lgamma's poles are +inf, digamma's NaN;
igamma(a, x) is NaN for a <= 0 or x < 0 but 0 at x = 0; erfinv(+-1) and ndtri(0|1) are
infinite).  Their expressions, which the optimizer may fuse with neighbours, are in
``kernels/codegen/expressions.py``; the gradients, TF's, in ``special_grad.py``.

The builders name their nodes as TF1's: ``tf.lgamma(x)`` is "Lgamma",
``tf.math.bessel_i0e(x)`` "bessel_i0e/BesselI0e", ``tf.lbeta(x)`` "lbeta/sub".
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .common import make_op, operands
from .elementwise import _binary, _binary_float, _public, _unary, _unary_float
from .reduce import reduce_sum
from .registry import OpDef, register_op

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "igamma", "igammac", "lbeta",
           "bessel_i0e", "bessel_i1e", "bessel_i0", "bessel_i1", "erfinv", "ndtri",
           "igamma_grad_a", "erfcinv"]

SPECIAL_UNARY = ("Lgamma", "Digamma", "BesselI0e", "BesselI1e", "BesselI0", "BesselI1",
                 "Erfinv", "Ndtri")
SPECIAL_BINARY = ("Polygamma", "Zeta", "Igamma", "Igammac", "IgammaGradA")


def _binary_single_or_double(inputs, attrs, node):
    dtype, shape = _binary_float(inputs, attrs, node)
    if dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(f"Op '{node}' takes float32 or float64 inputs (as TF's), but "
                        f"'{inputs[0].name}' is {dtype.name}.")
    return dtype, shape


def _register() -> None:
    for name in SPECIAL_UNARY:
        register_op(OpDef(name, _unary_float, 1, elementwise=True))
    for name in SPECIAL_BINARY:
        register_op(OpDef(name, _binary_single_or_double, 2, elementwise=True))


_register()


def _scoped_unary(op_type: str, public_name: str):
    """A builder naming its node "<public_name>/<op_type>", as TF's special_math_ops."""
    def build(x, name=None):
        with name_scope(name or public_name):
            return make_op(op_type, operands(x), name=op_type)
    return _public(build, public_name, f"Elementwise {op_type}.")


lgamma = _unary("Lgamma", "lgamma")
digamma = _unary("Digamma", "digamma")
polygamma = _binary("Polygamma", "polygamma", names=("a", "x"))
zeta = _binary("Zeta", "zeta", names=("x", "q"))
igamma = _binary("Igamma", "igamma", names=("a", "x"))
igammac = _binary("Igammac", "igammac", names=("a", "x"))
igamma_grad_a = _binary("IgammaGradA", "igamma_grad_a", names=("a", "x"))
bessel_i0e = _scoped_unary("BesselI0e", "bessel_i0e")
bessel_i1e = _scoped_unary("BesselI1e", "bessel_i1e")
bessel_i0 = _scoped_unary("BesselI0", "bessel_i0")
bessel_i1 = _scoped_unary("BesselI1", "bessel_i1")
erfinv = _scoped_unary("Erfinv", "erfinv")
ndtri = _scoped_unary("Ndtri", "ndtri")


def lbeta(x, name=None) -> Tensor:
    """``log(|Beta(x)|)`` along the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``, as
    TF builds it (an empty last axis gives -inf: lgamma(0) is +inf)."""
    with name_scope(name or "lbeta"):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = reduce_sum(lgamma(x), axis=[-1])
        log_gamma_sum_x = lgamma(reduce_sum(x, axis=[-1]))
        return log_prod_gamma_x - log_gamma_sum_x


def erfcinv(x, name=None) -> Tensor:
    """The inverse of ``erfc``: ``-ndtri(x / 2) * sqrt(1/2)``, as TF builds it (inf at 0,
    -inf at 2, NaN outside [0, 2])."""
    with name_scope(name or "erfcinv"):
        x = convert_to_tensor(x, name="start")
        half = convert_to_tensor(0.5, dtype=x.dtype)
        root_half = convert_to_tensor(0.5 ** 0.5, dtype=x.dtype)
        return -ndtri(half * x) * root_half
