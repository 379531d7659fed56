"""TF1's moment composites beside ``moments``: ``sufficient_statistics`` (count, sum
and sum of squares, optionally shifted), ``normalize_moments`` (mean and variance from
those), ``weighted_moments`` (frequency-weighted mean and variance) and
``batch_norm_with_global_normalization`` (TF1's older spelling of
``batch_normalization``).

Each builds the nodes TF's Python builds (its scopes and node names), so the values,
gradients and float16 handling are TF's: ``weighted_moments`` computes float16 in
float32, divides with ``div_no_nan`` (zero total weight gives 0, not NaN) and squeezes
the reduced axes unless ``keepdims``; ``sufficient_statistics``' count is a constant
when the reduced dims are known statically, else the product of the run-time shape's
dims (in ``x``'s dtype).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .array import squeeze, stack
from .array_fill import rank, shape
from .array_index import gather
from .common import normalised_axis
from .elementwise import (add, cast, div_no_nan, multiply, reciprocal, square,
                          squared_difference, subtract)
from .nn import batch_normalization
from .reduce import reduce_prod, reduce_sum
from .shape_of import zeros_like_of
from .state import constant

__all__ = ["sufficient_statistics", "normalize_moments", "weighted_moments",
           "batch_norm_with_global_normalization"]


def _keep(keepdims, keep_dims) -> bool:
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    return bool(keepdims if keepdims is not None else keep_dims)


def _axes(axes) -> list:
    return sorted({int(a) for a in np.atleast_1d(axes)})


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, sum, sum of squares, shift)`` of ``x`` over ``axes``, each shifted by
    ``shift`` when given (``x - shift`` and ``(x - shift) ** 2``); ``count`` is in
    ``x``'s dtype.  The inputs of ``normalize_moments``."""
    keep = _keep(keepdims, keep_dims)
    axes = _axes(axes)
    with name_scope(name or "sufficient_statistics"):
        x = convert_to_tensor(x, name="x")
        dims = x.shape.dims
        if dims is not None and all(dims[a] is not None for a in axes):
            count = 1
            for a in axes:
                count *= dims[normalised_axis(a, len(dims), "sufficient_statistics")]
            counts = constant(np.array(count, x.dtype.np), name="Const")
        else:
            positive = [normalised_axis(a, x.shape.ndims, "sufficient_statistics")
                        for a in axes] if x.shape.ndims is not None else \
                stack([a if a >= 0 else add(a, rank(x)) for a in axes])
            sizes = gather(cast(shape(x), x.dtype), positive)
            counts = reduce_prod(sizes, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, dtype_hint=x.dtype, name="shift")
            m_ss, v_ss = subtract(x, shift), squared_difference(x, shift)
        else:
            m_ss, v_ss = x, square(x)
        m_ss = reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss")
        v_ss = reduce_sum(v_ss, axes, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``(mean, variance)`` from ``sufficient_statistics``' sums: ``mean_ss / counts``
    (plus ``shift``) and ``variance_ss / counts - (mean_ss / counts) ** 2``."""
    with name_scope(name or "normalize"):
        divisor = reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = multiply(mean_ss, divisor, name="shifted_mean")
            mean = add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = mean = multiply(mean_ss, divisor, name="mean")
        variance = subtract(multiply(variance_ss, divisor), square(shifted_mean),
                            name="variance")
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """``(mean, variance)`` of ``x`` over ``axes``, each element counted
    ``frequency_weights`` times (weights broadcast against ``x``); a total weight of 0
    gives 0 (``div_no_nan``), as TF1."""
    keep = _keep(keepdims, keep_dims)
    axes = _axes(axes)
    with name_scope(name or "weighted_moments"):
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        half = x.dtype == dtypes.float16
        if half:
            x = cast(x, dtypes.float32)
        if weights.dtype != x.dtype:
            weights = cast(weights, x.dtype)
        weighted_sum = reduce_sum(weights * x, axes, keepdims=True, name="weighted_input_sum")
        total = reduce_sum(weights + zeros_like_of(x), axes, keepdims=True,
                           name="sum_of_weights")
        mean = div_no_nan(weighted_sum, total)
        distances = reduce_sum(weights * squared_difference(x, mean), axes, keepdims=True,
                               name="weighted_distsq")
        variance = div_no_nan(distances, total)
        if not keep:
            mean, variance = squeeze(mean, axes), squeeze(variance, axes)
        if half:
            mean, variance = cast(mean, dtypes.float16), cast(variance, dtypes.float16)
        return mean, variance


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None,
                                         scale_after_normalization=None, name=None,
                                         input=None, mean=None,  # noqa: A002  (TF's names)
                                         variance=None) -> Tensor:
    """TF1's older batch normalisation: ``batch_normalization(t, m, v, beta, gamma if
    scale_after_normalization else None, variance_epsilon)``, as TF1's Python builds it
    (not the deprecated BatchNormWithGlobalNormalization op)."""
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    if t is None or m is None or v is None or variance_epsilon is None \
            or scale_after_normalization is None:
        raise ValueError("batch_norm_with_global_normalization needs t, m, v, beta, gamma, "
                         "variance_epsilon and scale_after_normalization.")
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name)
