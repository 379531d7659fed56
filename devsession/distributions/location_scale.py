"""What the location-scale families (``Normal``, ``Laplace``) share: a density of
``z = (x - loc) / scale`` over ``scale``, so the same parameters (float tensors of one
dtype, ``scale`` checked positive when ``validate_args``), the batch shape of their
broadcast, reparameterised samples and mean ``loc``.  Each subclass writes its law."""

from __future__ import annotations

from ..graph import name_scope
from ..ops.array_fill import ones_like
from ..ops.array_fill import shape as shape_of
from .distribution import FULLY_REPARAMETERIZED, Distribution, float_parameters, static_batch

__all__ = ["LocationScale"]


class LocationScale(Distribution):
    """A batch of ``loc``/``scale`` distributions (``parameters``: the subclass
    constructor's arguments, as ``Distribution`` keeps them for ``copy``)."""

    def __init__(self, loc, scale, validate_args, allow_nan_stats, parameters, name):
        with name_scope(name) as name:
            self._loc, self._scale = float_parameters(validate_args, ("scale",), loc=loc,
                                                      scale=scale)
        super().__init__(self._scale.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._loc, self._scale], name)

    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)

    def _batch_shape(self):
        return static_batch(self._loc, self._scale)

    def _batch_shape_tensor(self):
        return shape_of(self._loc + self._scale)

    def _z(self, x):
        return (x - self._loc) / self._scale

    def _mean(self):
        return self._loc * ones_like(self._scale)
