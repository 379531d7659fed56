"""TF's stateful random ops: draws that read an RNG state held in a variable and advance
it (``tf.random.Generator``, ``devsession/random_generator.py``, builds them; kernels
``kernels/reference/stateful_random.py``, TF's values bit for bit).

The state is an int64 variable: for Philox (algorithm 1, and 3, auto select, which TF
runs as Philox) three words, the 128-bit counter (low word first) and the 64-bit key;
for ThreeFry (2) two, which TF's CPU and GPU kernels refuse.  A draw of ``n`` values
uses the Philox stream at the state, as a stateless op given that key and counter does,
and moves the counter ``256 n`` blocks on.  In devsession the op takes the variable
itself where TF's takes its handle (``tf_resource_import.py`` keeps these ops as they
are when it turns TF's handles into devsession's variables).

===============================  ============================================================
``RngReadAndSkip``               (variable, alg int32, delta uint64) -> the state before
                                 (int64 [3], ThreeFry's padded), the counter ``256 delta``
                                 on: TF 2's Generator draws with it and a V2 stateless op
``RngSkip``                      (variable, algorithm int64, delta int64): the same, no
                                 output (TF 2.0's ``skip``)
``StatefulStandardNormalV2``     (variable, algorithm int64, shape) -> ``dtype`` normals
``StatefulUniform``              ... uniform floats in [0, 1)
``StatefulTruncatedNormal``      ... normals within two standard deviations
``StatefulUniformFullInt``       ... integers over their dtype's whole range
``StatefulUniformInt``           (variable, algorithm, shape, minval, maxval)
``StatefulRandomBinomial``       (variable, algorithm, shape, counts, probs): Philox only;
                                 the counter ``256 * batches * 200 * (samples + 3) / 4`` on
``NonDeterministicInts``         (shape) -> ``dtype`` integers from the OS's entropy
===============================  ============================================================

The builders here are TF's raw ops (``gen_stateful_random_ops``' names), taking the
variable as ``resource``.  Not differentiable, as TF's.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op
from .state import variable_ref
from .stateless_random import _FLOATS, _FULL_INTS, _INTS, _drawn, _dtype_in, _rank, \
    _output_dtype

__all__ = ["rng_read_and_skip", "rng_skip", "stateful_standard_normal_v2",
           "stateful_uniform", "stateful_truncated_normal", "stateful_uniform_full_int",
           "stateful_uniform_int", "stateful_random_binomial", "non_deterministic_ints",
           "STATEFUL_RANDOM_OPS"]

_RATES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
# op type -> (output dtypes allowed, TF's default dtype)
_DRAWS = {"StatefulStandardNormalV2": (_FLOATS, dtypes.float32),
          "StatefulUniform": (_FLOATS, dtypes.float32),
          "StatefulTruncatedNormal": (_FLOATS, dtypes.float32),
          "StatefulUniformFullInt": (_FULL_INTS, dtypes.uint64),
          "StatefulUniformInt": (_INTS, dtypes.int64)}
STATEFUL_RANDOM_OPS = frozenset({*_DRAWS, "RngReadAndSkip", "RngSkip",
                                 "StatefulRandomBinomial", "NonDeterministicInts"})


def _state(node, spec) -> None:
    if spec.dtype != dtypes.int64:
        raise TypeError(f"Op '{node}': the RNG state '{spec.name}' must be an int64 "
                        f"variable, not {spec.dtype.name}.")
    _rank(node, spec, 1, "state")


def _algorithm(node, spec, dtype) -> None:
    _dtype_in(node, spec, (dtype,), "algorithm")
    _rank(node, spec, 0, "algorithm")


def _infer_draw(allowed, bounded: bool):
    def infer(inputs, attrs, node):
        dtype = _output_dtype(node, attrs, allowed)
        state, algorithm, shape = inputs[:3]
        _state(node, state)
        _algorithm(node, algorithm, dtypes.int64)
        if bounded:
            for what, spec in zip(("minval", "maxval"), inputs[3:]):
                _dtype_in(node, spec, (dtype,), what)
                _rank(node, spec, 0, what)
        return dtype, _drawn(node, shape)
    return infer


def _infer_read_and_skip(inputs, attrs, node):
    state, alg, delta = inputs
    _state(node, state)
    _algorithm(node, alg, dtypes.int32)
    _dtype_in(node, delta, (dtypes.uint64,), "delta")
    _rank(node, delta, 0, "delta")
    return dtypes.int64, TensorShape([3])


def _infer_skip(inputs, attrs, node):
    state, algorithm, delta = inputs
    _state(node, state)
    _algorithm(node, algorithm, dtypes.int64)
    _dtype_in(node, delta, (dtypes.int64,), "delta")
    _rank(node, delta, 0, "delta")
    return None


def _infer_binomial(inputs, attrs, node):
    state, algorithm, shape, counts, probs = inputs
    _state(node, state)
    _algorithm(node, algorithm, dtypes.int64)
    for what, spec in (("counts", counts), ("probs", probs)):
        if spec.dtype not in _RATES[:3] or spec.dtype != probs.dtype:
            raise TypeError(f"Op '{node}': {what} '{spec.name}' must be float16, float32 or "
                            f"float64, the dtype of probs, not {spec.dtype.name}.")
    return _output_dtype(node, attrs, _RATES), _drawn(node, shape)


def _infer_non_deterministic(inputs, attrs, node):
    dtype = dtypes.as_dtype(attrs["dtype"])
    if not dtype.is_integer:
        raise InferError(f"Op '{node}': NonDeterministicInts makes integers, not "
                         f"{dtype.name}.")
    return dtype, _drawn(node, inputs[0])


def _register() -> None:
    for name, (allowed, default) in _DRAWS.items():
        bounded = name == "StatefulUniformInt"
        register_op(OpDef(name, _infer_draw(allowed, bounded), 3 + 2 * bounded,
                          attr_defaults={"dtype": default, "shape_dtype": dtypes.int64},
                          ref_inputs=(0,), stateful=True,
                          host_inputs=tuple(range(1, 3 + 2 * bounded))))
    register_op(OpDef("RngReadAndSkip", _infer_read_and_skip, 3, ref_inputs=(0,),
                      stateful=True, host_inputs=(1, 2)))
    register_op(OpDef("RngSkip", _infer_skip, 3, ref_inputs=(0,), stateful=True,
                      has_output=False, host_inputs=(1, 2)))
    register_op(OpDef("StatefulRandomBinomial", _infer_binomial, 5, ref_inputs=(0,),
                      stateful=True, host_inputs=(1, 2, 3, 4),
                      attr_defaults={"dtype": dtypes.int64}))
    register_op(OpDef("NonDeterministicInts", _infer_non_deterministic, 1, stateful=True,
                      host_inputs=(0,), attr_defaults={"dtype": dtypes.int64}))
    not_differentiable(*sorted(STATEFUL_RANDOM_OPS))


_register()


# --- TF's raw ops ------------------------------------------------------------------------

def _draw(op_type: str, resource, algorithm, shape, dtype, bounds=(), name=None) -> Tensor:
    state = variable_ref(resource, "random.Generator")
    algorithm = convert_to_tensor(algorithm, dtype=dtypes.int64, name="algorithm")
    shape = convert_to_tensor(shape, name="shape")
    attrs = {"dtype": dtypes.as_dtype(dtype), "shape_dtype": shape.dtype}
    return make_op(op_type, [state, algorithm, shape, *bounds], attrs, name=name or op_type)


def stateful_standard_normal_v2(resource, algorithm, shape, dtype=dtypes.float32,
                                name=None) -> Tensor:
    """TF's ``StatefulStandardNormalV2``: standard normals at the state, which moves on."""
    return _draw("StatefulStandardNormalV2", resource, algorithm, shape, dtype, name=name)


def stateful_uniform(resource, algorithm, shape, dtype=dtypes.float32, name=None) -> Tensor:
    """TF's ``StatefulUniform``: floats in [0, 1) at the state, which moves on."""
    return _draw("StatefulUniform", resource, algorithm, shape, dtype, name=name)


def stateful_truncated_normal(resource, algorithm, shape, dtype=dtypes.float32,
                              name=None) -> Tensor:
    """TF's ``StatefulTruncatedNormal``: normals within (-2, 2) at the state."""
    return _draw("StatefulTruncatedNormal", resource, algorithm, shape, dtype, name=name)


def stateful_uniform_full_int(resource, algorithm, shape, dtype=dtypes.uint64,
                              name=None) -> Tensor:
    """TF's ``StatefulUniformFullInt``: integers over ``dtype``'s whole range."""
    return _draw("StatefulUniformFullInt", resource, algorithm, shape, dtype, name=name)


def stateful_uniform_int(resource, algorithm, shape, minval, maxval, name=None) -> Tensor:
    """TF's ``StatefulUniformInt``: integers in ``[minval, maxval)`` (their dtype)."""
    minval = convert_to_tensor(minval, name="minval")
    maxval = convert_to_tensor(maxval, dtype=minval.dtype, name="maxval")
    return _draw("StatefulUniformInt", resource, algorithm, shape, minval.dtype,
                 (minval, maxval), name=name)


def stateful_random_binomial(resource, algorithm, shape, counts, probs, dtype=dtypes.int64,
                             name=None) -> Tensor:
    """TF's ``StatefulRandomBinomial``: Binomial(counts, probs) samples, their broadcast
    shape last in ``shape``."""
    state = variable_ref(resource, "random.Generator")
    algorithm = convert_to_tensor(algorithm, dtype=dtypes.int64, name="algorithm")
    shape = convert_to_tensor(shape, name="shape")
    counts = convert_to_tensor(counts, name="counts")
    probs = convert_to_tensor(probs, dtype=counts.dtype, name="probs")
    return make_op("StatefulRandomBinomial", [state, algorithm, shape, counts, probs],
                   {"dtype": dtypes.as_dtype(dtype)}, name=name or "StatefulRandomBinomial")


def rng_read_and_skip(resource, alg, delta, name=None) -> Tensor:
    """TF's ``RngReadAndSkip``: the state (int64 [3]) before the counter moves ``delta``
    draws on."""
    state = variable_ref(resource, "random.Generator")
    alg = convert_to_tensor(alg, dtype=dtypes.int32, name="alg")
    delta = convert_to_tensor(delta, dtype=dtypes.uint64, name="delta")
    return make_op("RngReadAndSkip", [state, alg, delta], name=name or "RngReadAndSkip")


def rng_skip(resource, algorithm, delta, name=None):
    """TF's ``RngSkip``: moves the counter ``delta`` draws on (an Operation)."""
    state = variable_ref(resource, "random.Generator")
    algorithm = convert_to_tensor(algorithm, dtype=dtypes.int64, name="algorithm")
    delta = convert_to_tensor(delta, dtype=dtypes.int64, name="delta")
    return state.graph.create_op("RngSkip", [state, algorithm, delta], name=name or "RngSkip")


def non_deterministic_ints(shape, dtype=dtypes.int64, name=None) -> Tensor:
    """TF's ``NonDeterministicInts``: integers of ``dtype`` from the OS's entropy."""
    shape = convert_to_tensor(shape, name="shape")
    return make_op("NonDeterministicInts", [shape],
                   {"dtype": dtypes.as_dtype(dtype), "shape_dtype": shape.dtype},
                   name=name or "NonDeterministicInts")
