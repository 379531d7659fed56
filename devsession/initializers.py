"""TF1's variable initializers: ``tf.constant_initializer``, ``zeros_initializer``,
``ones_initializer``, ``random_normal_initializer``, ``truncated_normal_initializer``,
``random_uniform_initializer``, ``glorot_uniform_initializer`` (``get_variable``'s default
for floats, as in TF1), ``glorot_normal_initializer``, ``variance_scaling_initializer``,
``orthogonal_initializer`` and ``uniform_unit_scaling_initializer``.

An initializer is called as ``init(shape, dtype=None, partition_info=None)`` and returns a
Tensor holding the initial value: a constant, or a seeded random op (so every run of the
variable's initializer draws again, as in TF1).  ``dtype`` defaults to the initializer's
own (float32 unless given).

This module is also TF1's ``tf.initializers`` namespace: ``zeros``, ``ones``,
``constant``, ``random_normal``, ``random_uniform``, ``truncated_normal``,
``variance_scaling``, ``glorot_uniform``, ``glorot_normal``, ``orthogonal``,
``uniform_unit_scaling``, ``identity``, ``he_normal``, ``he_uniform``, ``lecun_normal``,
``lecun_uniform`` (TF 1.15's: truncated normal or uniform, variance ``scale / fan_in``),
and the initializer ops ``global_variables``, ``local_variables``, ``variables`` and
``tables_initializer``.  Any other name raises ``UnsupportedTF1Error``.

``orthogonal`` is built as TF builds it: the Q of a QR decomposition (the Qr op) of a
normal draw, its columns signed so that R's diagonal is positive.
"""

from __future__ import annotations

import math

import numpy as np

from . import dtypes
from .ops import random as random_ops
from .ops.array import reshape, transpose
from .ops.elementwise import sign
from .ops.linalg_factor import qr
from .ops.matrix import matrix_diag_part
from .ops.state import constant as constant_op
from .tensor_shape import as_shape
from .lookup.tables import tables_initializer
from .variables import (global_variables_initializer, local_variables_initializer,
                        variables_initializer)

__all__ = ["Initializer", "constant_initializer", "zeros_initializer", "ones_initializer",
           "random_normal_initializer", "truncated_normal_initializer",
           "random_uniform_initializer", "glorot_uniform_initializer",
           "glorot_normal_initializer", "variance_scaling_initializer",
           "orthogonal_initializer", "uniform_unit_scaling_initializer", "identity",
           "he_normal", "he_uniform", "lecun_normal", "lecun_uniform",
           # the tf.initializers names
           "zeros", "ones", "constant", "random_normal", "random_uniform", "truncated_normal",
           "variance_scaling", "glorot_uniform", "glorot_normal", "orthogonal",
           "uniform_unit_scaling", "global_variables", "local_variables", "variables",
           "tables_initializer"]


class Initializer:
    """Base class: ``init(shape, dtype=None, partition_info=None) -> Tensor``.  The
    initializers whose scale follows the shape (``_scaled``) take it from the full
    variable when filling one part of a partitioned variable, as TF1's."""

    _scaled = False

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = as_shape(shape)
        if not dims.is_fully_defined():
            raise ValueError(f"{type(self).__name__} needs a fully defined shape, got {dims}.")
        dtype = dtypes.as_dtype(dtype or self.dtype)
        if self._scaled:
            scale_shape = dims.as_tuple() if partition_info is None else \
                tuple(partition_info.full_shape)
            return self._value(dims.as_tuple(), dtype, scale_shape)
        return self._value(dims.as_tuple(), dtype)

    def _value(self, shape: tuple, dtype: dtypes.DType):
        raise NotImplementedError


class constant_initializer(Initializer):  # noqa: N801  (TF1's names)
    """``value`` (a scalar, broadcast; or as many values as the shape has elements)."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        super().__init__(dtype)
        self.value = value
        self.verify_shape = verify_shape

    def _value(self, shape, dtype):
        """TF1's ``tf.constant(value, shape=shape)``: one value broadcast, as many values
        reshaped, fewer values padded with the last one; more are TF's ValueError, and
        with ``verify_shape`` another shape TF's TypeError."""
        array = np.asarray(self.value, dtype=dtype.np)
        size = math.prod(shape)
        if self.verify_shape and array.shape != tuple(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {array.shape}.")
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=dtype.np)
        elif array.size > size:
            raise ValueError(f"Too many elements provided. Takes at most {size}, but got "
                             f"{array.size}.")
        elif array.size < size:
            if array.size == 0:
                raise ValueError(f"constant_initializer: no values to fill shape "
                                 f"{list(shape)}.")
            flat = array.reshape(-1)
            array = np.concatenate([flat, np.full(size - flat.size, flat[-1], flat.dtype)])
        return constant_op(array.reshape(shape), dtype=dtype)


class zeros_initializer(Initializer):  # noqa: N801
    def _value(self, shape, dtype):
        return constant_op(np.zeros(shape, dtype.np), dtype=dtype)


class ones_initializer(Initializer):  # noqa: N801
    def _value(self, shape, dtype):
        return constant_op(np.ones(shape, dtype.np), dtype=dtype)


class random_normal_initializer(Initializer):  # noqa: N801
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def _value(self, shape, dtype):
        return random_ops.random_normal(shape, self.mean, self.stddev, dtype,
                                        seed=self.seed)


class truncated_normal_initializer(random_normal_initializer):  # noqa: N801
    def _value(self, shape, dtype):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype,
                                           seed=self.seed)


class random_uniform_initializer(Initializer):  # noqa: N801
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def _value(self, shape, dtype):
        return random_ops.random_uniform(shape, self.minval, self.maxval, dtype,
                                         seed=self.seed)


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

    _scaled = True

    def _value(self, shape, dtype, scale_shape):
        fan_in, fan_out = _fans(scale_shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(variance), dtype,
                                            seed=self.seed)
        # 0.8796... is the stddev of a standard normal truncated at two stddevs (TF's)
        return random_ops.truncated_normal(shape, 0.0, math.sqrt(variance) / 0.87962566103423978,
                                           dtype, seed=self.seed)


def glorot_uniform_initializer(seed=None, dtype=dtypes.float32):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))``."""
    return variance_scaling_initializer(1.0, "fan_avg", "uniform", seed, dtype)


def glorot_normal_initializer(seed=None, dtype=dtypes.float32):
    """Truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``."""
    return variance_scaling_initializer(1.0, "fan_avg", "truncated_normal", seed, dtype)


class uniform_unit_scaling_initializer(Initializer):  # noqa: N801
    """Uniform in ``[-limit, limit]``, ``limit = factor * sqrt(3 / input_size)``, the
    input size being the product of every dimension but the last (TF1's estimate)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.factor, self.seed = factor, seed

    _scaled = True

    def _value(self, shape, dtype, scale_shape):
        input_size = max(float(math.prod(scale_shape[:-1])), 1.0)
        limit = math.sqrt(3.0 / input_size) * self.factor
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)


class orthogonal_initializer(Initializer):  # noqa: N801
    """``gain`` times a random matrix with orthonormal rows or columns (whichever are
    fewer); a shape of rank > 2 is that matrix of (every dimension but the last, the
    last) reshaped, as TF1's.  ValueError below rank 2.  (See the module docstring.)"""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.gain, self.seed = gain, seed

    def _value(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        tall = (max(rows, cols), min(rows, cols))
        if rows * cols == 0:
            return constant_op(np.zeros(shape, dtype.np), dtype=dtype)
        draw = random_ops.random_normal(tall, 0.0, 1.0, dtype, seed=self.seed)
        q, r = qr(draw, full_matrices=False)
        q = q * sign(matrix_diag_part(r))          # R's diagonal made positive: unique Q
        if rows < cols:
            q = transpose(q)
        return reshape(q * self.gain if self.gain != 1.0 else q, shape)


class identity(Initializer):  # noqa: N801  (tf.initializers.identity)
    """``gain`` times the identity matrix; ValueError for a shape that is not 2-D."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        super().__init__(dtype)
        self.gain = gain

    def _value(self, shape, dtype):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return constant_op((self.gain * np.eye(*shape)).astype(dtype.np), dtype=dtype)


def he_normal(seed=None):
    """Truncated normal of variance ``2 / fan_in`` (TF 1.15's)."""
    return variance_scaling_initializer(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    """Uniform of variance ``2 / fan_in``."""
    return variance_scaling_initializer(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    """Truncated normal of variance ``1 / fan_in`` (TF 1.15's)."""
    return variance_scaling_initializer(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    """Uniform of variance ``1 / fan_in``."""
    return variance_scaling_initializer(1.0, "fan_in", "uniform", seed)


def _fans(shape: tuple) -> tuple[float, float]:
    if not shape:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = math.prod(shape[:-2])          # convolution kernels: HWIO
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


# --- the tf.initializers namespace (TF 1.15's names) ----------------------------------------

zeros = zeros_initializer
ones = ones_initializer
constant = constant_initializer
random_normal = random_normal_initializer
random_uniform = random_uniform_initializer
truncated_normal = truncated_normal_initializer
variance_scaling = variance_scaling_initializer
glorot_uniform = glorot_uniform_initializer
glorot_normal = glorot_normal_initializer
orthogonal = orthogonal_initializer
uniform_unit_scaling = uniform_unit_scaling_initializer
global_variables = global_variables_initializer
local_variables = local_variables_initializer
variables = variables_initializer


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("initializers", name)
