"""TF's ``StatelessRandomPoisson``, ``StatelessRandomGammaV3`` and
``StatelessRandomBinomial``: Poisson, Gamma and Binomial samples determined by a seed,
TF's values bit for bit (``tf.random.stateless_poisson``, ``stateless_gamma``,
``stateless_binomial``; kernels ``reference/stateless_random_rates.py``).

``StatelessRandomPoisson(shape, seed, lam)``: ``shape`` (int32/int64 vector) is the
output's, ``seed`` an int32/int64 [2], ``lam`` the rates (half, float, double, int32 or
int64: ``Rtype``), whose shape must end ``shape`` (InvalidArgumentError at run
otherwise); the output ``dtype`` is half, float, double, int32 or int64.  As TF's, the
builder puts the op under the scope ``stateless_random_poisson``.

``StatelessRandomGammaV3(shape, key, counter, alg, alpha)``: Gamma(alpha, 1) samples of
float ``dtype`` (half, float, double), the alphas' shape last; ``stateless_gamma``
builds TF 2.x's graph: alpha broadcast against beta (``BroadcastArgs`` of their shapes),
the key and counter of the seed, the draw divided by beta and kept at least the dtype's
smallest normal number (``Maximum``).  Not differentiable (TF's stateless gamma has no
gradient in graph mode either).

``StatelessRandomBinomial(shape, seed, counts, probs)``: counts and probs of one dtype
``T`` (half, float, double, int32, int64), broadcast against each other, their shape
last in ``shape``; output ``dtype`` half, float, double, int32 or int64.

``StatelessParameterizedTruncatedNormal(shape, seed, means, stddevs, minvals, maxvals)``:
normals of each batch member's mean and stddev within its bounds, the four parameters of
one float dtype broadcast against each other, their shape last in ``shape``.  TF's CPU
kernel shards large outputs by thread, each shard skipping ahead by its first output, so
its values there depend on the machine; devsession's are TF's one-shard values (TF's for
outputs up to a few dozen values).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .array_fill import broadcast_to, shape as shape_of
from .array_shapes import broadcast_dynamic_shape
from .common import make_op
from .registry import OpDef, not_differentiable, register_op
from .stateless_random import (_drawn, _dtype_in, _key_counter_alg, _seed, _seed_tensor,
                               _shape_tensor, _v2_op, check_key_counter_alg)

__all__ = ["stateless_random_poisson", "stateless_random_gamma",
           "stateless_random_binomial", "stateless_parameterized_truncated_normal"]

_RATES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


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


def _infer_gamma(inputs, attrs, node):
    shape, key, counter, alg, alpha = inputs
    dtype = dtypes.as_dtype(attrs["dtype"])
    if dtype not in _FLOATS:
        raise TypeError(f"Op '{node}': Value for attr 'dtype' of {dtype.name} is not in the "
                        f"list of allowed values: {', '.join(d.name for d in _FLOATS)}")
    check_key_counter_alg(node, key, counter, alg)
    _dtype_in(node, alpha, (dtype,), "alpha")
    return dtype, _drawn(node, shape)


def _infer_binomial(inputs, attrs, node):
    shape, seed, counts, probs = inputs
    _seed(node, seed)
    for what, spec in (("counts", counts), ("probs", probs)):
        if spec.dtype not in _RATES or spec.dtype != probs.dtype:
            raise TypeError(f"Op '{node}': {what} '{spec.name}' must be one of "
                            f"{', '.join(d.name for d in _RATES)}, the dtype of probs, not "
                            f"{spec.dtype.name}.")
    dtype = dtypes.as_dtype(attrs["dtype"])
    if dtype not in _RATES:
        raise TypeError(f"Op '{node}': Value for attr 'dtype' of {dtype.name} is not in the "
                        f"list of allowed values: {', '.join(d.name for d in _RATES)}")
    return dtype, _drawn(node, shape)


def _infer_truncated(inputs, attrs, node):
    shape, seed, *params = inputs
    _seed(node, seed)
    dtype = params[0].dtype
    for what, spec in zip(("means", "stddevs", "minvals", "maxvals"), params):
        if spec.dtype not in _FLOATS or spec.dtype != dtype:
            raise TypeError(f"Op '{node}': {what} '{spec.name}' must be float16, float32 or "
                            f"float64, the dtype of means, not {spec.dtype.name}.")
    return dtype, _drawn(node, shape)


register_op(OpDef("StatelessRandomPoisson", _infer_poisson, 3, host_inputs=(0, 1, 2)))
register_op(OpDef("StatelessParameterizedTruncatedNormal", _infer_truncated, 6,
                  host_inputs=(0, 1, 2, 3, 4, 5)))
register_op(OpDef("StatelessRandomBinomial", _infer_binomial, 4,
                  host_inputs=(0, 1, 2, 3), attr_defaults={"dtype": dtypes.int64}))
register_op(OpDef("StatelessRandomGammaV3", _infer_gamma, 5, host_inputs=(0, 1, 2, 3, 4)))
not_differentiable("StatelessRandomPoisson", "StatelessRandomGammaV3",
                   "StatelessRandomBinomial", "StatelessParameterizedTruncatedNormal")


def stateless_random_poisson(shape, seed, lam, dtype=dtypes.int32, name=None) -> Tensor:
    """``tf.random.stateless_poisson``: ``shape`` samples (the rates' shape last) of
    Poisson(``lam``), determined by ``seed``, of ``dtype``."""
    with name_scope(name or "stateless_random_poisson"):
        shape = _shape_tensor(shape)
        seed = _seed_tensor(seed)
        lam = convert_to_tensor(lam, name="lam")
        return make_op("StatelessRandomPoisson", [shape, seed, lam],
                       {"dtype": dtypes.as_dtype(dtype)}, name="StatelessRandomPoisson")


def stateless_random_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32,
                           name=None) -> Tensor:
    """``tf.random.stateless_gamma``: ``shape`` samples (alpha and beta's broadcast shape
    last) of Gamma(``alpha``, rate ``beta``), determined by ``seed``, of float ``dtype``."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name or "stateless_random_gamma"):
        shape = _shape_tensor(shape)
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = convert_to_tensor(beta if beta is not None else 1, dtype=dtype, name="beta")
        broadcast = broadcast_dynamic_shape(shape_of(alpha), shape_of(beta))
        alpha_broadcast = broadcast_to(alpha, broadcast)
        key, counter, alg = _key_counter_alg(seed, "auto_select")
        draw = _v2_op("StatelessRandomGammaV3", shape, key, counter, alg,
                      {"dtype": dtype}, (alpha_broadcast,))
        scaled = draw / beta
        with name_scope("Maximum") as maximum:
            tiny = convert_to_tensor(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype,
                                     name="x")
            return make_op("Maximum", [tiny, scaled], name=maximum)


def stateless_random_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32,
                              name=None) -> Tensor:
    """``tf.random.stateless_binomial``: ``shape`` samples (counts and probs' broadcast
    shape last) of Binomial(``counts``, ``probs``), determined by ``seed``."""
    with name_scope(name or "stateless_random_binomial"):
        shape = _shape_tensor(shape)
        probs = convert_to_tensor(probs, dtype=None if _is_tensor(probs) else dtypes.float32,
                                  name="probs")
        counts = convert_to_tensor(counts, dtype=None if _is_tensor(counts) else probs.dtype,
                                   name="counts")
        seed = _seed_tensor(seed)
        return make_op("StatelessRandomBinomial", [shape, seed, counts, probs],
                       {"dtype": dtypes.as_dtype(output_dtype)},
                       name="StatelessRandomBinomial")


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0,
                                             minvals=-2.0, maxvals=2.0,
                                             name=None) -> Tensor:
    """``tf.random.stateless_parameterized_truncated_normal``: ``shape`` normals of
    ``means`` and ``stddevs`` within ``[minvals, maxvals]`` (the four broadcast, their
    shape last), determined by ``seed``."""
    with name_scope(name or "stateless_parameterized_truncated_normal"):
        shape = _shape_tensor(shape)
        params = [convert_to_tensor(v, name=n) for v, n in
                  ((means, "means"), (stddevs, "stddevs"), (minvals, "minvals"),
                   (maxvals, "maxvals"))]
        seed = _seed_tensor(seed)
        return make_op("StatelessParameterizedTruncatedNormal", [shape, seed, *params],
                       name="StatelessParameterizedTruncatedNormal")
