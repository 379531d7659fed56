"""TF1's ``tf.nn`` names built from existing ops, as TF's ``nn_impl.py``/``nn_ops.py``
build them (so they fuse, place and differentiate like the rest):

* ``silu(x, beta=1.0)``: ``x * sigmoid(beta * x)`` (TF2's name of ``swish``).
* ``crelu(x, axis=-1)``: ``relu(concat([x, -x], axis))``, twice as deep along ``axis``.
* ``relu_layer(x, w, b)``: ``relu(bias_add(matmul(x, w), b))``.
* ``zero_fraction(value)``: the float32 fraction of zeros (NaN for no elements).
* ``log_poisson_loss(targets, log_input, compute_full_loss)``: ``exp(log_input) -
  log_input * targets``, plus Stirling's approximation of ``log(targets!)`` where
  ``targets > 1`` when ``compute_full_loss``.
"""

from __future__ import annotations

import math

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .array import concat, identity
from .array_fill import ones_like, size, zeros_like
from .elementwise import cast, exp, log, logical_and, multiply, negative, relu, sigmoid, where
from .linalg import matmul
from .masking import count_nonzero
from .nn import bias_add, swish

__all__ = ["silu", "crelu", "relu_layer", "zero_fraction", "log_poisson_loss"]


def silu(features, beta=1.0, name=None) -> Tensor:
    """``x * sigmoid(beta * x)``; ``beta`` 1 is ``swish``."""
    if isinstance(beta, (int, float)) and beta == 1.0:
        return swish(features, name=name)
    with name_scope(name or "swish"):
        x = convert_to_tensor(features, name="features")
        beta = convert_to_tensor(beta, dtype=x.dtype, name="beta")
        if beta.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {beta.shape.ndims} for "
                             f"beta '{beta.name}'.")
        return x * sigmoid(multiply(beta, x))


def crelu(features, name=None, axis=-1) -> Tensor:
    """``relu`` of ``features`` and of ``-features``, concatenated along ``axis``."""
    with name_scope(name or "CRelu") as scope:
        x = convert_to_tensor(features, name="features")
        return relu(concat([x, negative(x)], axis, name=scope))


def relu_layer(x, weights, biases, name=None) -> Tensor:
    """``relu(matmul(x, weights) + biases)``."""
    with name_scope(name or "relu_layer") as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, dtype_hint=x.dtype, name="weights")
        biases = convert_to_tensor(biases, dtype_hint=x.dtype, name="biases")
        return relu(bias_add(matmul(x, weights), biases), name=scope)


def zero_fraction(value, name=None) -> Tensor:
    """The fraction of ``value``'s elements that are zero, a float32 scalar."""
    with name_scope(name or "zero_fraction"):
        value = convert_to_tensor(value, name="value")
        total = size(value, out_type=dtypes.int64)
        nonzero = count_nonzero(value, dtype=dtypes.int64)
        with name_scope("counts_to_fraction"):
            zeros = cast(total - nonzero, dtypes.float32)
            fraction = zeros / cast(total, dtypes.float32)
        return identity(fraction, name="fraction")


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None) -> Tensor:
    """The Poisson negative log likelihood of ``targets`` given ``log_input`` (the log
    of the rate), elementwise; with ``compute_full_loss``, Stirling's term
    ``t log t - t + log(2 pi t) / 2`` is added where ``t > 1`` (0 for t in [0, 1])."""
    with name_scope(name or "log_poisson_loss"):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, dtype_hint=log_input.dtype, name="targets")
        if not targets.shape.is_compatible_with(log_input.shape):
            raise ValueError(f"log_input and targets must have the same shape "
                             f"({log_input.shape} vs {targets.shape})")
        result = exp(log_input) - log_input * targets
        if compute_full_loss:
            half = convert_to_tensor(0.5, dtype=targets.dtype)
            two_pi = convert_to_tensor(2 * math.pi, dtype=targets.dtype)
            stirling = targets * log(targets) - targets + half * log(two_pi * targets)
            zeros = zeros_like(targets)
            ones = ones_like(targets)
            small = logical_and(targets >= zeros, targets <= ones)
            result = result + where(small, zeros, stirling)
        return result
