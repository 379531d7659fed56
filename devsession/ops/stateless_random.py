"""TF's stateless random ops: the same seed gives the same values, every run and every
session (TF2's initializers and ``tf.random.stateless_*`` build them; TF's values bit for
bit: ``kernels/reference/stateless_random.py``).

Ops, with TF's names, inputs and attrs, so GraphDefs and MetaGraphs TensorFlow wrote
import as they are:

=================================  ==========================================================
``StatelessRandomGetKeyCounter``   seed (int32/int64 [2]) -> key (uint64 [1]), counter
                                   (uint64 [2]): TF's seed scrambling (Philox)
``StatelessRandomGetKeyCounterAlg``  the same, and alg (int32, 1: Philox)
``StatelessRandomGetAlg``          () -> 1, the algorithm TF picks on CPUs and GPUs
``StatelessRandomUniformV2``       (shape, key, counter, alg): floats in [0, 1) (``dtype``)
``StatelessRandomNormalV2``        ... standard normals
``StatelessTruncatedNormalV2``     ... standard normals within two standard deviations
``StatelessRandomUniformIntV2``    (shape, key, counter, alg, minval, maxval): int32/int64
``StatelessRandomUniformFullIntV2``  (shape, key, counter, alg): int32/int64/uint64 bits
``StatelessRandomUniform`` ...     TF1's forms of the five, (shape, seed[, minval, maxval])
``StatelessMultinomial``           (logits, num_samples, seed): ``stateless_categorical``
``StatelessShuffle``               (value, key, counter, alg): ``value``'s rows permuted,
                                   ``tf.random.experimental.stateless_shuffle``
=================================  ==========================================================

The builders are TF's ``tf.random.stateless_uniform`` / ``stateless_normal`` /
``stateless_truncated_normal`` / ``stateless_categorical`` (and TF1's
``stateless_multinomial``), building TF 2.x's graph: a ``StatelessRandomGetKeyCounter``
of the seed, the V2 op with ``alg`` 3 (auto select), and the bounds, mean and stddev
applied with graph ops under the same names as TF's.  ``alg="philox"`` builds the same
key and counter with ``alg`` 1 (TF computes them with uint64 graph ops; the values are
the same).  A seed of another static shape than [2], or a non-integer one, is TF's
ValueError / TypeError at build; at run time InvalidArgumentError.  Not differentiable,
as TF's (StatelessShuffle has no gradient: a LookupError, as TF's).  Values are computed
on the host (the GPU's are uploaded).
"""

from __future__ import annotations

import enum

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array_operands import shape_operand
from .common import make_op
from .random import _multinomial as _multinomial_shape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["Algorithm", "stateless_random_uniform", "stateless_random_normal",
           "stateless_truncated_normal", "stateless_categorical", "stateless_multinomial",
           "stateless_shuffle", "check_key_counter_alg", "STATELESS_OPS"]

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_INTS = (dtypes.int32, dtypes.int64)
_FULL_INTS = (dtypes.int32, dtypes.int64, dtypes.uint64)
_AUTO_SELECT, _PHILOX, _THREEFRY = 3, 1, 2

# op type -> (output dtypes allowed, TF's default dtype or None: the attr is required)
_V2_DRAWS = {"StatelessRandomUniformV2": (_FLOATS, dtypes.float32),
             "StatelessRandomNormalV2": (_FLOATS, dtypes.float32),
             "StatelessTruncatedNormalV2": (_FLOATS, dtypes.float32),
             "StatelessRandomUniformFullIntV2": (_FULL_INTS, dtypes.uint64),
             "StatelessRandomUniformIntV2": (_INTS, None)}
_V1_DRAWS = {"StatelessRandomUniform": (_FLOATS, dtypes.float32),
             "StatelessRandomNormal": (_FLOATS, dtypes.float32),
             "StatelessTruncatedNormal": (_FLOATS, dtypes.float32),
             "StatelessRandomUniformFullInt": (_FULL_INTS, dtypes.uint64),
             "StatelessRandomUniformInt": (_INTS, None)}
_SEEDED = ("StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg")
STATELESS_OPS = frozenset({*_V2_DRAWS, *_V1_DRAWS, *_SEEDED, "StatelessRandomGetAlg",
                           "StatelessMultinomial"})


def _rank(node, spec, rank: int, what: str) -> None:
    if spec.shape.ndims not in (None, rank):
        raise InferError(f"Op '{node}': Shape must be rank {rank} but is rank "
                         f"{spec.shape.ndims} for {what} '{spec.name}' with shape {spec.shape}.")


def _length(node, spec, length: int, what: str) -> None:
    """``spec`` a vector of ``length`` elements (as far as the graph knows)."""
    _rank(node, spec, 1, what)
    known = spec.shape.dims[0] if spec.shape.ndims == 1 else None
    if known is not None and known != length:
        raise InferError(f"Op '{node}': Dimension must be {length} but is {known} for {what} "
                         f"'{spec.name}' with shape {spec.shape}.")


def _dtype_in(node, spec, allowed, what: str) -> None:
    if spec.dtype not in allowed:
        raise TypeError(f"Op '{node}': {what} '{spec.name}' must be "
                        f"{' or '.join(d.name for d in allowed)}, not {spec.dtype.name}.")


def _seed(node, spec) -> None:
    _dtype_in(node, spec, _INTS, "seed")
    _length(node, spec, 2, "seed")


def _output_dtype(node, attrs, allowed) -> dtypes.DType:
    dtype = dtypes.as_dtype(attrs["dtype"])
    if dtype not in allowed:
        raise TypeError(f"Op '{node}': Value for attr 'dtype' of {dtype.name} is not in the "
                        f"list of allowed values: {', '.join(d.name for d in allowed)}")
    return dtype


def _drawn(node, shape) -> TensorShape:
    _dtype_in(node, shape, _INTS, "shape")
    _rank(node, shape, 1, "shape")
    return shape_operand(shape)


def _bounds(node, inputs, dtype) -> None:
    for what, spec in zip(("minval", "maxval"), inputs):
        if spec.dtype != dtype:
            raise TypeError(f"Op '{node}': {what} '{spec.name}' must be {dtype.name}, not "
                            f"{spec.dtype.name}.")
        if spec.shape.ndims not in (None, 0):
            raise InferError(f"Op '{node}': {what} must be a scalar; got a tensor of shape "
                             f"{spec.shape} ('{spec.name}').")


def check_key_counter_alg(node, key, counter, alg) -> None:
    """A V2 op's key (uint64 [1]), counter (uint64 vector) and alg (int32 scalar), as far
    as the graph knows them."""
    _dtype_in(node, key, (dtypes.uint64,), "key")
    _length(node, key, 1, "key")
    _dtype_in(node, counter, (dtypes.uint64,), "counter")
    _rank(node, counter, 1, "counter")
    _dtype_in(node, alg, (dtypes.int32,), "alg")
    _rank(node, alg, 0, "alg")


def _v2_draw(allowed, bounded: bool):
    def infer(inputs, attrs, node):
        dtype = _output_dtype(node, attrs, allowed)
        shape, key, counter, alg = inputs[:4]
        check_key_counter_alg(node, key, counter, alg)
        if bounded:
            _bounds(node, inputs[4:], dtype)
        return dtype, _drawn(node, shape)
    return infer


def _v1_draw(allowed, bounded: bool):
    def infer(inputs, attrs, node):
        dtype = _output_dtype(node, attrs, allowed)
        _seed(node, inputs[1])
        if bounded:
            _bounds(node, inputs[2:], dtype)
        return dtype, _drawn(node, inputs[0])
    return infer


def _infer_key_counter(inputs, attrs, node):
    _seed(node, inputs[0])
    return [(dtypes.uint64, TensorShape([1])), (dtypes.uint64, TensorShape([2]))]


def _infer_shuffle(inputs, attrs, node):
    value, key, counter, alg = inputs
    check_key_counter_alg(node, key, counter, alg)
    return value.dtype, value.shape


def _infer_key_counter_alg(inputs, attrs, node):
    return [*_infer_key_counter(inputs, attrs, node), (dtypes.int32, TensorShape([]))]


def _stateless_multinomial(inputs, attrs, node):
    _seed(node, inputs[2])
    return _multinomial_shape(inputs[:2], attrs, node)


def _register() -> None:
    for table, infer, inputs in ((_V2_DRAWS, _v2_draw, 4), (_V1_DRAWS, _v1_draw, 2)):
        for name, (allowed, default) in table.items():
            bounded = name.endswith(("UniformIntV2", "UniformInt"))
            count = inputs + 2 * bounded
            register_op(OpDef(name, infer(allowed, bounded), count,
                              attr_defaults={} if default is None else {"dtype": default},
                              host_inputs=tuple(range(count))))
    register_op(OpDef("StatelessRandomGetKeyCounter", _infer_key_counter, 1,
                      host_inputs=(0,)))
    register_op(OpDef("StatelessRandomGetKeyCounterAlg", _infer_key_counter_alg, 1,
                      host_inputs=(0,)))
    register_op(OpDef("StatelessRandomGetAlg", lambda inputs, attrs, node:
                      (dtypes.int32, TensorShape([])), 0))
    register_op(OpDef("StatelessMultinomial", _stateless_multinomial, 3, host_inputs=(1, 2),
                      attr_defaults={"output_dtype": dtypes.int64}))
    not_differentiable(*sorted(STATELESS_OPS))
    register_op(OpDef("StatelessShuffle", _infer_shuffle, 4, host_inputs=(1, 2, 3)))


_register()


# --- builders ----------------------------------------------------------------------------

class Algorithm(enum.Enum):
    """TF's ``tf.random.Algorithm``: the RNG algorithms, by their numbers."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg_number(alg) -> int:
    """TF's ``convert_alg_to_int``: 1/"philox"/``Algorithm.PHILOX``, 2/"threefry",
    3/"auto_select"."""
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, int) and not isinstance(alg, bool):
        return alg
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        named = {"philox": _PHILOX, "threefry": _THREEFRY, "autoselect": _AUTO_SELECT}
        if canon in named:
            return named[canon]
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                         f"philox for the Philox algorithm, threefry for the ThreeFry "
                         f"algorithm, and auto_select for auto-selection.")
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) "
                    f"to int.")


def _seed_tensor(seed) -> Tensor:
    """The seed as TF converts it: a tensor as given, Python ints int32 unless one needs
    int64 (named ``seed`` in the scope of the op taking it)."""
    if isinstance(seed, Tensor) or hasattr(seed, "_as_tensor"):
        return convert_to_tensor(seed)
    return convert_to_tensor(seed, name="seed")


def _key_counter_alg(seed, alg) -> tuple:
    """TF's ``get_key_counter_alg``: the key and counter of ``seed`` (one
    ``StatelessRandomGetKeyCounter``) and the alg number."""
    number = _alg_number(alg)
    with name_scope("StatelessRandomGetKeyCounter") as scope:
        seed = _seed_tensor(seed)
        op = seed.graph.create_op("StatelessRandomGetKeyCounter", [seed], name=scope)
    return op.outputs[0], op.outputs[1], number


def _shape_tensor(shape) -> Tensor:
    """TF's ``shape_util.shape_tensor``: a tensor as given, else an int32 (int64 when a
    size needs it) constant named ``shape``."""
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        return convert_to_tensor(shape)
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    return convert_to_tensor(list(shape), dtype=_shape_dtype(shape), name="shape")


def _shape_dtype(shape) -> dtypes.DType:
    return dtypes.int64 if any(int(d) >= 2**31 for d in shape) else dtypes.int32


def _v2_op(op_type: str, shape, key, counter, alg: int, attrs: dict, bounds=(), name=None):
    """The V2 op, its ``alg`` a constant in its own scope, as TF's generated wrapper."""
    with name_scope(name or op_type) as scope:
        alg_tensor = convert_to_tensor(alg, dtype=dtypes.int32, name="alg")
        return make_op(op_type, [shape, key, counter, alg_tensor, *bounds], attrs, name=scope)


def _check_uniform_dtype(dtype, minval, maxval) -> None:
    accepted = (*_FLOATS, *_FULL_INTS)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         f"({', '.join(repr(d) for d in accepted)}).")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype!r}, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} "
                             f"and `maxval`={maxval}.")
        if minval is not None and dtype.is_unsigned:
            raise ValueError(f"Argument `dtype` got invalid value {dtype!r} when argument "
                             f"`minval` is not None. Please don't use unsigned integers in "
                             f"this case.")


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32,
                             name=None, alg="auto_select") -> Tensor:
    """``tf.random.stateless_uniform``: values in ``[minval, maxval)`` (floats: [0, 1) by
    default; integers need both bounds, or neither for the whole range of ``dtype``),
    determined by ``seed`` (a shape [2] int32/int64 tensor)."""
    dtype = dtypes.as_dtype(dtype)
    _check_uniform_dtype(dtype, minval, maxval)
    if dtype.is_floating and maxval is None:
        maxval = 1
    with name_scope(name or "stateless_random_uniform") as scope:
        shape = _shape_tensor(shape)
        if dtype.is_integer and minval is None:
            key, counter, alg = _key_counter_alg(seed, alg)
            return _v2_op("StatelessRandomUniformFullIntV2", shape, key, counter, alg,
                          {"dtype": dtype}, name=scope)
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        key, counter, alg = _key_counter_alg(seed, alg)
        if dtype.is_integer:
            return _v2_op("StatelessRandomUniformIntV2", shape, key, counter, alg,
                          {"dtype": dtype}, (minval, maxval), name=scope)
        draw = _v2_op("StatelessRandomUniformV2", shape, key, counter, alg, {"dtype": dtype})
        return make_op("AddV2", [draw * (maxval - minval), minval], name=scope)


def _scaled_normal(op_type: str, default_name: str, shape, seed, mean, stddev, dtype, name,
                   alg) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name or default_name) as scope:
        shape = _shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        key, counter, alg = _key_counter_alg(seed, alg)
        draw = _v2_op(op_type, shape, key, counter, alg, {"dtype": dtype})
        return make_op("AddV2", [draw * stddev, mean], name=scope)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                            name=None, alg="auto_select") -> Tensor:
    """``tf.random.stateless_normal``: normal values determined by ``seed``."""
    return _scaled_normal("StatelessRandomNormalV2", "stateless_random_normal", shape, seed,
                          mean, stddev, dtype, name, alg)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None, alg="auto_select") -> Tensor:
    """``tf.random.stateless_truncated_normal``: normal values within two standard
    deviations of the mean, determined by ``seed``."""
    return _scaled_normal("StatelessTruncatedNormalV2", "stateless_truncated_normal", shape,
                          seed, mean, stddev, dtype, name, alg)


def _stateless_classes(logits, num_samples, seed, dtype, scope: str, name) -> Tensor:
    """TF's ``stateless_multinomial_categorical_impl`` under ``name`` or ``scope``."""
    with name_scope(name or scope):
        logits = convert_to_tensor(logits, name="logits")
        dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
        if dtype not in _INTS:
            raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes "
                             f"are {tuple(_INTS)!r}.")
        with name_scope("StatelessMultinomial") as op_scope:
            count = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
            seed = _seed_tensor(seed)
            return make_op("StatelessMultinomial", [logits, count, seed],
                           {"output_dtype": dtype}, name=op_scope)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None) -> Tensor:
    """``tf.random.stateless_categorical``: ``num_samples`` classes per row of ``[batch,
    classes]`` logits, determined by ``seed``."""
    return _stateless_classes(logits, num_samples, seed, dtype, "stateless_categorical", name)


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64,
                          name=None) -> Tensor:
    """TF1's ``tf.random.stateless_multinomial``: ``stateless_categorical`` with the dtype
    as ``output_dtype``."""
    return _stateless_classes(logits, num_samples, seed, output_dtype,
                              "stateless_multinomial", name)


def stateless_shuffle(value, seed, alg="auto_select", name=None) -> Tensor:
    """``tf.random.experimental.stateless_shuffle``: ``value`` with its first dimension
    permuted as ``seed`` (a shape [2] int32/int64 tensor) determines, TF's permutation
    bit for bit."""
    with name_scope(name or "stateless_shuffle"):
        key, counter, alg = _key_counter_alg(seed, alg)
        return _v2_op("StatelessShuffle", convert_to_tensor(value, name="value"), key, counter,
                      alg, {})
