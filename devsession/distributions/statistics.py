"""A statistic undefined for some batch members: NaN there when the distribution
allows NaN statistics, else a run-time check that fails (TF1's ``allow_nan_stats``)."""

from __future__ import annotations

import numpy as np

from ..graph import control_dependencies, convert_to_tensor
from ..ops.array import identity
from ..ops.array_fill import ones_like
from ..ops.assertions import assert_equal, assert_less, assert_non_negative
from ..ops.elementwise import round as round_
from ..ops.elementwise import where
from ..ops.reduce import reduce_all, reduce_sum

__all__ = ["nan_or_raise", "checked", "integer_counts"]


def nan_or_raise(dist, value, defined, message: str, above_one=()):
    """``value`` where ``defined``; elsewhere NaN, or an InvalidArgumentError when
    ``dist.allow_nan_stats`` is False.  A statistic defined where parameters exceed one
    names them in ``above_one``: then the check is TF's ``assert_less(1, parameter)``,
    which fails while building when the parameter is a constant, as TF's does."""
    if dist.allow_nan_stats:
        nan = convert_to_tensor(np.nan, dtype=value.dtype) * ones_like(value)
        return where(defined, value, nan)
    if above_one:
        one = convert_to_tensor(1.0, dtype=value.dtype)
        checks = [assert_less(one, t, message=message) for t in above_one]
    else:
        checks = [assert_equal(reduce_all(defined), True, message=message)]
    with control_dependencies(checks):
        return identity(value)


def checked(value, checks):
    """``value`` once ``checks`` (assertions) pass: an identity depending on them."""
    with control_dependencies(checks):
        return identity(value)


def integer_counts(dist, counts, total_count):
    """Counts checked, when ``dist.validate_args``, to be non-negative whole numbers
    summing over the last axis to ``total_count`` (TF's Multinomial and
    DirichletMultinomial ``_maybe_assert_valid_sample``)."""
    if not dist.validate_args:
        return counts
    counts = checked(counts, [
        assert_non_negative(counts, message="x has negative components."),
        assert_equal(counts, round_(counts), message="x has non-integer components.")])
    return checked(counts, [assert_equal(
        total_count, reduce_sum(counts, -1),
        message="counts last-dimension must sum to `self.total_count`")])
