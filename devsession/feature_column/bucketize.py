"""The bucket of each value given sorted boundaries, as TF's ``Bucketize`` op counts
it: the number of boundaries less than or equal to the value (bucket 0 below the first
boundary, ``len(boundaries)`` at or above the last), an int32 tensor of the input's
shape.

Built from a comparison and a sum instead of an op of its own; the boundaries are
float32 (TF's attr), compared with the values as C++ compares a value with a float.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope

__all__ = ["bucketize"]


def bucketize(values, boundaries, name=None) -> Tensor:
    """The bucket index (int32) of each element of ``values`` (see the module
    docstring)."""
    from ..ops.array import expand_dims
    from ..ops.elementwise import cast, greater_equal
    from ..ops.reduce import reduce_sum

    with name_scope(name or "Bucketize"):
        values = convert_to_tensor(values)
        edges = np.asarray(boundaries, np.float32)
        if values.dtype == dtypes.float64:
            edges = edges.astype(np.float64)
        elif values.dtype != dtypes.float32:
            values = cast(values, dtypes.float32)
        edges = convert_to_tensor(edges, name="boundaries")
        at_or_above = greater_equal(expand_dims(values, -1), edges)
        return reduce_sum(cast(at_or_above, dtypes.int32), axis=-1)
