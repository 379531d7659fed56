"""Seeded random ops: RandomUniform, RandomStandardNormal, TruncatedNormal,
RandomUniformInt, RandomShuffle and Multinomial, and TF1's ``set_random_seed``.

Seeds as TF derives them: an op seed and the graph's seed (``ds.set_random_seed``) make
a pair; an op given no seed in a graph with one takes the count of such seeds the graph
gave before (TF 2's ``get_seed``, which ``tf.compat.v1`` programs run under); ``(0, 0)``
means unseeded.  Ops devsession builds where TF builds none (an unrolled RNN's later
steps, where TF's loop runs one op again) are built under ``uncounted_seeds``: their op
seeds are hashed from a tag and leave the count alone, so every op built after them still
gets TF's seed; builders that draw no seed where TF's draw one (``dropout`` at rate 0,
``sampled_softmax_loss``'s accidental hits, ``make_one_shot_iterator``) call
``skip_seed``.  A seeded op draws a new value each run and the same sequence again in a
new session: TF's values (its Philox stream, ``runtime/resources.py``'s ``RandomStream``),
so a program seeded as in TF starts from TF's initial weights.  Each op's stream lives in
the session's resources.

Shapes: a shape the graph knows (a list, or a tensor with a static value) is the
``shape`` attr and the op has no shape input; a shape known only at run time (a placeholder,
``tf.shape(x)`` of a partly unknown ``x``) is the op's one input (the last, after
RandomUniformInt's bounds), read on the host.  ``mean``/``stddev``/``minval``/``maxval``
given as tensors are applied with graph ops (``draw * stddev + mean``, as TF1 builds it);
Python numbers stay attrs.  Kernels: ``kernels/reference/state.py`` (host, the CPU's too;
the GPU draws there and uploads).

``Multinomial(logits, num_samples)`` (``tf.random.categorical``, ``tf.multinomial``)
draws ``num_samples`` classes per row of ``[batch, classes]`` logits, as TF's CPU kernel:
class ``j`` with probability ``exp(logits[j])`` over the row's total, counting only
finite logits (a ``-inf``, ``+inf`` or NaN logit is never drawn; a row with none finite
gives ``classes``, TF's out-of-range answer); ``output_dtype`` int64 (default) or int32.
Not differentiable.  Kernel: ``kernels/reference/random.py`` (the GPU's draws there too).
"""

from __future__ import annotations

import contextlib
import weakref
import zlib

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, get_default_graph, name_scope
from ..tensor_shape import TensorShape, as_shape
from .array_operands import holds_tensor, int_operand, shape_operand
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["random_uniform", "random_normal", "truncated_normal", "random_shuffle",
           "set_random_seed", "get_seed", "categorical", "multinomial", "skip_seed",
           "uncounted_seeds"]

_DEFAULT_GRAPH_SEED = 87654321
_SEED_OFFSETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # graph -> op seeds given
_UNCOUNTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()     # graph -> [tag, seeds]
_MAX_INT32 = 2**31 - 1
FLOAT_DRAWS = ("RandomUniform", "RandomStandardNormal", "TruncatedNormal")


def _drawn_shape(shape_input, attrs, node) -> TensorShape:
    if shape_input is None:
        return TensorShape(attrs["shape"])
    if not shape_input.dtype.is_integer or shape_input.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': a shape must be a 1-D integer tensor, got "
                         f"'{shape_input.name}' ({shape_input.dtype.name}, {shape_input.shape}).")
    return shape_operand(shape_input)


def _float_draw(inputs, attrs, node):
    dtype = dtypes.as_dtype(attrs["dtype"])
    if not dtype.is_floating:
        raise TypeError(f"Op '{node}': random values must be floating point, not {dtype.name}.")
    if len(inputs) > 1:
        raise InferError(f"Op '{node}' takes at most one input (its shape).")
    return dtype, _drawn_shape(inputs[0] if inputs else None, attrs, node)


def _uniform_int(inputs, attrs, node):
    dtype = dtypes.as_dtype(attrs["dtype"])
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Op '{node}': random integers are int32 or int64, not {dtype.name}.")
    if len(inputs) not in (2, 3):
        raise InferError(f"Op '{node}' takes minval, maxval and optionally a shape.")
    for bound in inputs[:2]:
        if bound.dtype != dtype or bound.shape.ndims not in (None, 0):
            raise TypeError(f"Op '{node}': minval and maxval must be {dtype.name} scalars, "
                            f"got '{bound.name}' ({bound.dtype.name}, {bound.shape}).")
    return dtype, _drawn_shape(inputs[2] if len(inputs) == 3 else None, attrs, node)


def _shuffle(inputs, attrs, node):
    (x,) = inputs
    return x.dtype, x.shape


def _multinomial(inputs, attrs, node):
    logits, num_samples = inputs
    if not logits.dtype.is_numeric:
        raise TypeError(f"Op '{node}': logits '{logits.name}' must be a real number type, "
                        f"not {logits.dtype.name}.")
    if num_samples.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': num_samples '{num_samples.name}' must be int32, not "
                        f"{num_samples.dtype.name}.")
    out = dtypes.as_dtype(attrs.get("output_dtype", dtypes.int64))
    if out not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Op '{node}': output_dtype must be int32 or int64, not {out.name}.")
    if logits.shape.ndims not in (None, 2):
        raise InferError(f"Op '{node}': Shape must be rank 2 but is rank "
                         f"{logits.shape.ndims} for logits '{logits.name}' with shape "
                         f"{logits.shape}.")
    if num_samples.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': Shape must be rank 0 but is rank "
                         f"{num_samples.shape.ndims} for num_samples '{num_samples.name}'.")
    count = None if num_samples.value is None else int(np.asarray(num_samples.value))
    if count is not None and count < 0:
        raise InferError(f"Op '{node}': Dimension size, given by scalar input 1, must be "
                         f"non-negative but is {count}")
    batch = logits.shape.dims[0] if logits.shape.ndims == 2 else None
    return out, TensorShape([batch, count])


def _register() -> None:
    # TF's own ops draw standard values (what imported TF graphs hold); devsession's
    # builders fold the bounds, mean and stddev into attrs when they are constants.
    standard = {"RandomUniform": {"minval": 0.0, "maxval": 1.0},
                "RandomStandardNormal": {"mean": 0.0, "stddev": 1.0},
                "TruncatedNormal": {"mean": 0.0, "stddev": 1.0}}
    for name in FLOAT_DRAWS:
        register_op(OpDef(name, _float_draw, None, stateful=True, host_inputs=(0,),
                          attr_defaults={"seed": 0, "seed2": 0, **standard[name]},
                          draws=True))
    register_op(OpDef("RandomUniformInt", _uniform_int, None, stateful=True,
                      host_inputs=(0, 1, 2), draws=True))
    register_op(OpDef("RandomShuffle", _shuffle, 1, stateful=True, draws=True))
    register_op(OpDef("Multinomial", _multinomial, 2, stateful=True, draws=True,
                      host_inputs=(1,), attr_defaults={"seed": 0, "seed2": 0,
                                                       "output_dtype": dtypes.int64}))
    not_differentiable("RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                       "RandomUniformInt", "RandomShuffle", "Multinomial")  # draws


_register()


# --- builders ----------------------------------------------------------------------------

def set_random_seed(seed) -> None:
    """Set the default graph's random seed (TF1's ``tf.set_random_seed``): every random op
    built afterwards is seeded from it, so a program's random values repeat run to run."""
    get_default_graph().seed = None if seed is None else int(seed)


def get_seed(op_seed):
    """TF1's ``tf.get_seed``: the (graph seed, op seed) pair a random op built now with
    ``op_seed`` uses, ``(None, None)`` when neither the graph nor the op is seeded."""
    pair = _seeds(op_seed)
    return (None, None) if pair == (0, 0) else pair


def _seeds(seed) -> tuple[int, int]:
    """(graph seed, op seed) as TF1 derives them; (0, 0) means "not seeded"."""
    graph = get_default_graph()
    if graph.seed is None and seed is None:
        return 0, 0
    uncounted = _UNCOUNTED.get(graph)
    if uncounted is not None:   # TF builds no such op: a seed of its own, the count kept
        tag, given = uncounted
        uncounted[1] += 1
        seed = zlib.crc32(f"{tag}/{given}/{seed}".encode())
    elif seed is None:          # TF 2's: the graph's count of such calls so far
        seed = _SEED_OFFSETS.setdefault(graph, 0)
        _SEED_OFFSETS[graph] += 1
    pair = (_truncate(graph.seed) if graph.seed is not None else _DEFAULT_GRAPH_SEED,
            _truncate(seed))
    return (0, _MAX_INT32) if pair == (0, 0) else pair  # (0, 0) means unseeded, as in TF


def skip_seed(seed=None) -> None:
    """Count the op seed a TF builder takes here though devsession builds no seeded op
    (TF's dropout at rate 0 calls ``get_seed`` all the same), so the ops built after get
    TF's seeds."""
    _seeds(seed)


@contextlib.contextmanager
def uncounted_seeds(tag: str):
    """Random ops built inside, in the default graph, take op seeds hashed from ``tag``,
    their order in the block and their own seed, and the graph's count of seeds stays as
    it was: for ops devsession builds where TF builds none (see the module docstring).
    Without a graph seed an op given none stays unseeded."""
    graph = get_default_graph()
    outer = _UNCOUNTED.get(graph)
    _UNCOUNTED[graph] = [tag, 0]
    try:
        yield
    finally:
        if outer is None:
            del _UNCOUNTED[graph]
        else:
            _UNCOUNTED[graph] = outer


def _truncate(seed) -> int:
    """TF's ``_truncate_seed``: a seed brought into int32's range, modulo 2**31 - 1."""
    return int(seed) % _MAX_INT32


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def _shape_attr_or_input(shape) -> tuple[dict, list]:
    """({"shape": dims}, []) for a shape the graph knows, else ({}, [shape tensor])."""
    if holds_tensor(shape):             # a tensor, or a list holding one: [tf.shape(x)[0], 6]
        tensor = int_operand(shape)
        value = constant_value(tensor)
        if value is None:
            return {"shape": ()}, [tensor]
        shape = value.tolist()
    dims = as_shape(shape)
    if not dims.is_fully_defined():
        raise ValueError(f"Random ops need a fully defined shape, got {dims}; pass a shape "
                         f"tensor (e.g. ds.shape(x)) to decide it at run time.")
    return {"shape": dims.as_tuple()}, []


def _scalar_or_tensor(value, dtype):
    """A Python number stays a number; anything else becomes a tensor of ``dtype``."""
    if _is_tensor(value):
        return convert_to_tensor(value, dtype=dtype)
    if isinstance(value, (int, float, np.number)):
        return value
    return convert_to_tensor(value, dtype=dtype)


def _draw(op_type, shape, dtype, seed, name, extra_attrs=None, extra_inputs=()):
    attrs, shape_inputs = _shape_attr_or_input(shape)
    seed1, seed2 = _seeds(seed)
    attrs.update({"dtype": dtypes.as_dtype(dtype), "seed": seed1, "seed2": seed2,
                  **(extra_attrs or {})})
    return make_op(op_type, list(extra_inputs) + shape_inputs, attrs, name)


def _scaled_normal(op_type, default_name, shape, mean, stddev, dtype, seed, name):
    dtype = dtypes.as_dtype(dtype)
    mean, stddev = _scalar_or_tensor(mean, dtype), _scalar_or_tensor(stddev, dtype)
    if not (_is_tensor(mean) or _is_tensor(stddev)):
        return _draw(op_type, shape, dtype, seed, name,
                     {"mean": float(mean), "stddev": float(stddev)})
    with name_scope(name or default_name):           # draw * stddev + mean, as TF1 builds it
        draw = _draw(op_type, shape, dtype, seed, op_type,
                     {"mean": 0.0, "stddev": 1.0})
        return make_op("Add", [make_op("Mul", [draw, convert_to_tensor(stddev, dtype=dtype)]),
                               convert_to_tensor(mean, dtype=dtype)], name="value")


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                  name=None) -> Tensor:
    """Normal values; ``shape``, ``mean`` and ``stddev`` may be tensors.  A seeded op
    repeats its sequence per session."""
    return _scaled_normal("RandomStandardNormal", "random_normal", shape, mean, stddev,
                          dtype, seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                     name=None) -> Tensor:
    """Normal values redrawn until within two standard deviations of the mean."""
    return _scaled_normal("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype,
                          seed, name)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None,
                   name=None) -> Tensor:
    """Uniform values in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats and is
    required for integers); ``shape`` and the bounds may be tensors."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name}.")
        bounds = [convert_to_tensor(v, dtype=dtype) for v in (minval, maxval)]
        return _draw("RandomUniformInt", shape, dtype, seed, name or "random_uniform",
                     extra_inputs=bounds)
    maxval = 1.0 if maxval is None else maxval
    low, high = _scalar_or_tensor(minval, dtype), _scalar_or_tensor(maxval, dtype)
    if not (_is_tensor(low) or _is_tensor(high)):
        return _draw("RandomUniform", shape, dtype, seed, name,
                     {"minval": float(low), "maxval": float(high)})
    with name_scope(name or "random_uniform"):       # draw * (max - min) + min, as TF1
        draw = _draw("RandomUniform", shape, dtype, seed, "RandomUniform",
                     {"minval": 0.0, "maxval": 1.0})
        low, high = (convert_to_tensor(v, dtype=dtype) for v in (low, high))
        return make_op("Add", [make_op("Mul", [draw, make_op("Sub", [high, low])]), low],
                       name="value")


def random_shuffle(value, seed=None, name=None) -> Tensor:
    """``value`` with its first dimension shuffled (a new order each run)."""
    seed1, seed2 = _seeds(seed)
    return make_op("RandomShuffle", [convert_to_tensor(value)], {"seed": seed1, "seed2": seed2},
                   name)


def _sample_classes(logits, num_samples, output_dtype, seed, scope: str, name):
    """TF's ``multinomial_categorical_impl``: a Multinomial under ``name`` or ``scope``."""
    with name_scope(name or scope):
        x = convert_to_tensor(logits, name="logits")
        count = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        seed1, seed2 = _seeds(seed)
        out = dtypes.int64 if output_dtype is None else dtypes.as_dtype(output_dtype)
        return make_op("Multinomial", [x, count],
                       {"seed": seed1, "seed2": seed2, "output_dtype": out}, "Multinomial")


def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Tensor:
    """``tf.random.categorical``: ``num_samples`` class indices per row of ``[batch,
    classes]`` unnormalized log-probabilities, shape ``[batch, num_samples]`` (int64
    unless ``dtype`` is int32).  A seeded op repeats its draws per session.  ValueError
    at build for logits not of rank 2 or a negative ``num_samples``."""
    return _sample_classes(logits, num_samples, dtype, seed, "categorical", name)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None) -> Tensor:
    """TF1's ``tf.multinomial`` (``tf.random.multinomial``): ``categorical`` under its
    older name, with the dtype as ``output_dtype``."""
    return _sample_classes(logits, num_samples, output_dtype, seed, "multinomial", name)
