"""TF's ``StatelessRandomPoisson``: Poisson samples determined by a seed, TF's values bit
for bit (``tf.random.stateless_poisson``; kernel ``reference/stateless_random_rates.py``).

``StatelessRandomPoisson(shape, seed, lam)``: ``shape`` (int32/int64 vector) is the
output's, ``seed`` an int32/int64 [2], ``lam`` the rates (half, float, double, int32 or
int64: ``Rtype``), whose shape must end ``shape`` (InvalidArgumentError at run
otherwise); the output ``dtype`` is half, float, double, int32 or int64.  As TF's, the
builder puts the op under the scope ``stateless_random_poisson``.  Not differentiable.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .common import make_op
from .registry import OpDef, not_differentiable, register_op
from .stateless_random import _drawn, _seed, _seed_tensor, _shape_tensor

__all__ = ["stateless_random_poisson"]

_RATES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _infer_poisson(inputs, attrs, node):
    shape, seed, lam = inputs
    _seed(node, seed)
    if lam.dtype not in _RATES:
        raise TypeError(f"Op '{node}': lam '{lam.name}' must be one of "
                        f"{', '.join(d.name for d in _RATES)}, not {lam.dtype.name}.")
    dtype = dtypes.as_dtype(attrs["dtype"])
    if dtype not in _RATES:
        raise TypeError(f"Op '{node}': Value for attr 'dtype' of {dtype.name} is not in the "
                        f"list of allowed values: {', '.join(d.name for d in _RATES)}")
    return dtype, _drawn(node, shape)


register_op(OpDef("StatelessRandomPoisson", _infer_poisson, 3, host_inputs=(0, 1, 2)))
not_differentiable("StatelessRandomPoisson")


def stateless_random_poisson(shape, seed, lam, dtype=dtypes.int32, name=None) -> Tensor:
    """``tf.random.stateless_poisson``: ``shape`` samples (the rates' shape last) of
    Poisson(``lam``), determined by ``seed``, of ``dtype``."""
    with name_scope(name or "stateless_random_poisson"):
        shape = _shape_tensor(shape)
        seed = _seed_tensor(seed)
        lam = convert_to_tensor(lam, name="lam")
        return make_op("StatelessRandomPoisson", [shape, seed, lam],
                       {"dtype": dtypes.as_dtype(dtype)}, name="StatelessRandomPoisson")
