"""A statistic undefined for some batch members: NaN there when the distribution
allows NaN statistics, else a run-time check that fails (TF1's ``allow_nan_stats``)."""

from __future__ import annotations

import numpy as np

from ..graph import control_dependencies, convert_to_tensor
from ..ops.array import identity
from ..ops.array_fill import ones_like
from ..ops.assertions import assert_equal
from ..ops.elementwise import where
from ..ops.reduce import reduce_all

__all__ = ["nan_or_raise"]


def nan_or_raise(dist, value, defined, message: str):
    """``value`` where ``defined``; elsewhere NaN, or an InvalidArgumentError at run time
    when ``dist.allow_nan_stats`` is False."""
    if dist.allow_nan_stats:
        nan = convert_to_tensor(np.nan, dtype=value.dtype) * ones_like(value)
        return where(defined, value, nan)
    with control_dependencies([assert_equal(reduce_all(defined), True, message=message)]):
        return identity(value)
