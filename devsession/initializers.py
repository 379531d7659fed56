"""TF1's variable initializers: ``tf.constant_initializer``, ``zeros_initializer``,
``ones_initializer``, ``random_normal_initializer``, ``truncated_normal_initializer``,
``random_uniform_initializer``, ``glorot_uniform_initializer`` (``get_variable``'s default
for floats, as in TF1), ``glorot_normal_initializer`` and
``variance_scaling_initializer``.

An initializer is called as ``init(shape, dtype=None, partition_info=None)`` and returns a
Tensor holding the initial value: a constant, or a seeded random op (so every run of the
variable's initializer draws again, as in TF1).  ``dtype`` defaults to the initializer's
own (float32 unless given).
"""

from __future__ import annotations

import math

import numpy as np

from . import dtypes
from .ops.random import random_normal, random_uniform, truncated_normal
from .ops.state import constant
from .tensor_shape import as_shape

__all__ = ["Initializer", "constant_initializer", "zeros_initializer", "ones_initializer",
           "random_normal_initializer", "truncated_normal_initializer",
           "random_uniform_initializer", "glorot_uniform_initializer",
           "glorot_normal_initializer", "variance_scaling_initializer"]


class Initializer:
    """Base class: ``init(shape, dtype=None, partition_info=None) -> Tensor``."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = as_shape(shape)
        if not dims.is_fully_defined():
            raise ValueError(f"{type(self).__name__} needs a fully defined shape, got {dims}.")
        return self._value(dims.as_tuple(), dtypes.as_dtype(dtype or self.dtype))

    def _value(self, shape: tuple, dtype: dtypes.DType):
        raise NotImplementedError


class constant_initializer(Initializer):  # noqa: N801  (TF1's names)
    """``value`` (a scalar, broadcast; or as many values as the shape has elements)."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        super().__init__(dtype)
        self.value = value
        self.verify_shape = verify_shape

    def _value(self, shape, dtype):
        array = np.asarray(self.value, dtype=dtype.np)
        size = math.prod(shape)
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=dtype.np)
        elif array.size == size and not self.verify_shape:
            array = array.reshape(shape)
        elif array.shape != shape:
            raise TypeError(f"constant_initializer: {array.size} values do not fill shape "
                            f"{list(shape)} ({size} elements).")
        return constant(array, dtype=dtype)


class zeros_initializer(Initializer):  # noqa: N801
    def _value(self, shape, dtype):
        return constant(np.zeros(shape, dtype.np), dtype=dtype)


class ones_initializer(Initializer):  # noqa: N801
    def _value(self, shape, dtype):
        return constant(np.ones(shape, dtype.np), dtype=dtype)


class random_normal_initializer(Initializer):  # noqa: N801
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def _value(self, shape, dtype):
        return random_normal(shape, self.mean, self.stddev, dtype, seed=self.seed)


class truncated_normal_initializer(random_normal_initializer):  # noqa: N801
    def _value(self, shape, dtype):
        return truncated_normal(shape, self.mean, self.stddev, dtype, seed=self.seed)


class random_uniform_initializer(Initializer):  # noqa: N801
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def _value(self, shape, dtype):
        return random_uniform(shape, self.minval, self.maxval, dtype, seed=self.seed)


class variance_scaling_initializer(Initializer):  # noqa: N801
    """Values of variance ``scale / n`` (n: fan_in, fan_out or their mean, by ``mode``),
    from a truncated normal, or a uniform distribution, as TF1's."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        super().__init__(dtype)
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid mode {mode!r}: fan_in, fan_out or fan_avg.")
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"Invalid distribution {distribution!r}.")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def _value(self, shape, dtype):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return random_uniform(shape, -limit, limit, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_normal(shape, 0.0, math.sqrt(variance), dtype, seed=self.seed)
        # 0.8796... is the stddev of a standard normal truncated at two stddevs (TF's)
        return truncated_normal(shape, 0.0, math.sqrt(variance) / 0.87962566103423978, dtype,
                                seed=self.seed)


def glorot_uniform_initializer(seed=None, dtype=dtypes.float32):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))``."""
    return variance_scaling_initializer(1.0, "fan_avg", "uniform", seed, dtype)


def glorot_normal_initializer(seed=None, dtype=dtypes.float32):
    """Truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``."""
    return variance_scaling_initializer(1.0, "fan_avg", "truncated_normal", seed, dtype)


def _fans(shape: tuple) -> tuple[float, float]:
    if not shape:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = math.prod(shape[:-2])          # convolution kernels: HWIO
    return float(shape[-2] * receptive), float(shape[-1] * receptive)
