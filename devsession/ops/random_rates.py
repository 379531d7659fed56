"""Draws whose law has a parameter per element: ``RandomGamma`` (``tf.random_gamma``,
``tf.random.gamma``) and ``RandomPoissonV2`` (``tf.random_poisson``, ``tf.random.poisson``),
as TF's op types and attrs, seeded as the other random ops (``ops/random.py``).

Both take the drawn ``shape`` (a 1-D int32/int64 tensor, read on the host) and a tensor
of parameters, and give ``shape + parameters.shape``: ``shape`` independent draws for
each parameter, the shape *prepended* as TF does.  ``random_gamma(shape, alpha, beta)``
is TF's composite: alpha broadcast against beta, the standard draw divided by the rate
``beta``, then raised to the dtype's smallest normal number (a Gamma sample is positive).

RandomGamma's gradient in alpha is TF's implicit reparameterisation (Figurnov et al.,
2018): the sample's derivative is ``-dP(alpha, x)/dalpha / p(x; alpha)`` (the regularised
incomplete gamma's derivative, ``IgammaGradA``, over the density), summed over the
drawn dimensions; so Gamma, Beta and Dirichlet samples are differentiable.  Poisson
draws are not.  The draws are TF's, bit for bit (its samplers over its Philox stream):
kernels ``kernels/reference/random_rates.py``, compiled for the CPU (and the GPU, which
draws there) in ``kernels/cpu/philox_rates.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array_operands import shape_operand
from .array_fill import zeros_like
from .common import make_op
from .random import _seeds
from .elementwise import divide, exp, log, maximum, multiply, negative
from .registry import InferError, OpDef, not_differentiable, register_gradient, register_op
from .shape_of import reduce_to_shape_of
from .special import igamma_grad_a, lgamma

__all__ = ["random_gamma", "random_poisson", "random_poisson_v2"]

_GAMMA_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)
_POISSON_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _drawn(shape, params, node) -> TensorShape:
    if shape.dtype not in (dtypes.int32, dtypes.int64) or shape.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': shape must be a 1-D int32 or int64 tensor, got "
                         f"'{shape.name}' ({shape.dtype.name}, {shape.shape}).")
    return shape_operand(shape).concatenate(params.shape)


def _gamma(inputs, attrs, node):
    shape, alpha = inputs
    if alpha.dtype not in _GAMMA_DTYPES:
        raise TypeError(f"Op '{node}': alpha '{alpha.name}' must be half, float or double, "
                        f"not {alpha.dtype.name}.")
    return alpha.dtype, _drawn(shape, alpha, node)


def _poisson(inputs, attrs, node):
    shape, rate = inputs
    out = dtypes.as_dtype(attrs.get("dtype", dtypes.int64))
    for what, dtype in (("rate", rate.dtype), ("dtype", out)):
        if dtype not in _POISSON_DTYPES:
            raise TypeError(f"Op '{node}': {what} must be half, float, double, int32 or "
                            f"int64, not {dtype.name}.")
    return out, _drawn(shape, rate, node)


register_op(OpDef("RandomGamma", _gamma, 2, stateful=True, draws=True, host_inputs=(0,),
                  attr_defaults={"seed": 0, "seed2": 0}))
register_op(OpDef("RandomPoissonV2", _poisson, 2, stateful=True, draws=True,
                  host_inputs=(0,), attr_defaults={"seed": 0, "seed2": 0,
                                                   "dtype": dtypes.int64}))
not_differentiable("RandomPoissonV2")


@register_gradient("RandomGamma")
def _random_gamma_grad(op, dy):
    """TF's ``_RandomGammaGrad``: alpha's gradient by implicit differentiation; alpha
    broadcasts against the sample from the right, the drawn dimensions are summed."""
    alpha, sample = op.inputs[1], op.outputs[0]
    # in log space: Gamma(alpha) and sample^(alpha - 1) overflow where their ratio does not
    log_density = negative(sample) + (alpha - 1.0) * log(sample) - lgamma(alpha)
    partial = negative(divide(igamma_grad_a(alpha, sample), exp(log_density)))
    return [None, reduce_to_shape_of(multiply(dy, partial), alpha)]


# --- builders ----------------------------------------------------------------------------

def _shape_tensor(shape) -> Tensor:
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        return convert_to_tensor(shape, name="shape")
    return convert_to_tensor(shape, dtype=dtypes.int32, name="shape")


def _seed_attrs(seed) -> dict:
    seed1, seed2 = _seeds(seed)
    return {"seed": seed1, "seed2": seed2}


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None,
                 name=None) -> Tensor:
    """``shape`` Gamma draws for each element of alpha (and beta, broadcast together):
    shape ``shape + broadcast(alpha, beta).shape``.  ``beta`` is the rate (inverse scale,
    1 when None).  Differentiable in alpha and beta (TF's implicit gradient)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _GAMMA_DTYPES:
        raise TypeError(f"random_gamma: dtype must be half, float or double, not {dtype.name}.")
    with name_scope(name or "random_gamma"):
        shape = _shape_tensor(shape)
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        if beta is not None:
            beta = convert_to_tensor(beta, dtype=dtype, name="beta")
            if alpha.shape != beta.shape or not alpha.shape.is_fully_defined():
                alpha = alpha + zeros_like(beta)          # broadcast alpha against beta
        draw = make_op("RandomGamma", [shape, alpha], _seed_attrs(seed), "RandomGamma")
        if beta is not None:
            draw = divide(draw, beta)
        tiny = convert_to_tensor(np.finfo(dtype.np).tiny, dtype=dtype)
        return maximum(tiny, draw)


def random_poisson_v2(shape, lam, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """``tf.random.poisson``: ``shape`` Poisson draws for each element of ``lam`` (the
    rate), shape ``shape + lam.shape``, of ``dtype`` (floats or int32/int64).  A negative
    rate draws 0, as TF's."""
    with name_scope(name or "random_poisson"):
        shape = _shape_tensor(shape)
        lam = convert_to_tensor(lam, name="rate")
        if not (lam.dtype.is_floating or lam.dtype.is_integer):
            lam = convert_to_tensor(lam, dtype=dtypes.float32, name="rate")
        return make_op("RandomPoissonV2", [shape, lam],
                       {**_seed_attrs(seed), "dtype": dtypes.as_dtype(dtype)},
                       "RandomPoissonV2")


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """TF1's ``tf.random_poisson(lam, shape, ...)``: ``random_poisson_v2`` with the rate
    first."""
    return random_poisson_v2(shape, lam, dtype=dtype, seed=seed, name=name)
