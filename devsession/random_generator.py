"""``tf.random.Generator``: a random-number generator whose state is a variable, as TF
2.21 builds it in a graph (``tf.random.Algorithm``, ``get_global_generator``,
``set_global_generator`` beside it).

The state is an int64 variable ``random_generator/StateVar`` (``[3]`` for Philox and
auto select: the 128-bit counter, then the key; ``[2]`` for ThreeFry).  A draw of ``n``
values builds TF's graph: ``RngReadAndSkip`` (``ops/stateful_random.py``) reads the
state and moves the counter on (``skip(n)``), the counter and key are bitcast to uint64,
and a V2 stateless op (``ops/stateless_random.py``) draws at them; so each run of a draw
gives new values, the same sequence as TF's for the same seed, bit for bit.  ``binomial``
is TF's ``StatefulRandomBinomial`` on the variable.  ``make_seeds(count)`` is ``[2,
count]`` int64 seeds (a row of ``uniform_full_int`` draws over a row of zeros);
``split(count)`` makes ``count`` generators whose states are ``[0, 0, key]`` of such
draws.  TF's CPU and GPU kernels (and so devsession's) run Philox only: a ThreeFry
generator's draws raise TF's ``UnimplementedError`` when run.

As TF's, the ``reset*`` methods assign the variable; TF's return nothing (in a graph the
assignment then never runs), devsession's return the assignment to run.  A child of
``split`` is initialized by a draw of its parent, so initialize the parent first (in
one ``global_variables_initializer`` step nothing orders the two; TF's ``split`` fails
in a graph altogether, a ``NotImplementedError`` from its variable).
The global generator is made, on first use, from the OS's entropy
(``NonDeterministicInts``).

    gen = ds.random.Generator.from_seed(1234)
    x = gen.normal([2, 3])              # TF's values: a new draw each run
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .graph import Tensor, convert_to_tensor, name_scope
from .ops import stateful_random
from .ops.array import concat, reshape, stack, unstack
from .ops.array_fill import zeros_like
from .ops.bitcast import bitcast
from .ops.elementwise import cast
from .ops.reduce import reduce_prod
from .ops.stateless_random import Algorithm, _alg_number, _v2_op
from .ops.stateless_seeds import _state_size, create_rng_state

__all__ = ["Algorithm", "Generator", "get_global_generator", "set_global_generator"]

_INT64_SPAN = 1 << 64


def _algorithm(alg) -> int:
    """TF's ``convert_alg_to_int``: an ``Algorithm``, its number or its name."""
    return _alg_number(alg)


def _as_state_word(word):
    """A Python integer above int64's range as the int64 of its bits (TF's
    ``_uint_to_int``)."""
    if isinstance(word, (int, np.integer)) and not isinstance(word, bool) and \
            int(word) >= 1 << 63:
        return int(word) - _INT64_SPAN
    return word


def _state_tensor(value) -> Tensor:
    """TF's ``_convert_to_state_tensor``: ``value`` (a tensor, or integers, or a list
    holding tensors) as int64."""
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        return cast(convert_to_tensor(value), dtypes.int64)
    if isinstance(value, (list, tuple)) and any(
            isinstance(v, Tensor) or hasattr(v, "_as_tensor") for v in value):
        return stack([_state_tensor(v) for v in value])
    if isinstance(value, (list, tuple)):
        value = [_as_state_word(v) for v in value]
    else:
        value = _as_state_word(value)
    return convert_to_tensor(np.asarray(value).astype(np.int64), dtype=dtypes.int64)


def _check_state_shape(shape, alg: int) -> None:
    size = _state_size(alg)
    if not shape.is_compatible_with([size]):
        raise ValueError(f"Shapes {shape} and [{size}] are incompatible")


def _key_counter_state(key, counter, alg: int) -> Tensor:
    counter, key = _state_tensor(counter), _state_tensor(key)
    size = _state_size(alg) - 1
    if not counter.shape.is_compatible_with([size]):
        raise ValueError(f"Shapes {counter.shape} and [{size}] are incompatible")
    if not key.shape.is_compatible_with([]):
        raise ValueError(f"Shapes {key.shape} and [] are incompatible")
    return concat([counter, reshape(key, [1])], 0)


def _shape_tensor(shape) -> Tensor:
    """TF's ``_shape_tensor``: int64 when empty, else as converted."""
    if isinstance(shape, (tuple, list)) and not shape:
        return convert_to_tensor(shape, dtype=dtypes.int64, name="shape")
    return convert_to_tensor(shape, name="shape")


def _is_variable(state) -> bool:
    from .variables import Variable

    return isinstance(state, Variable)


class Generator:
    """TF's ``tf.random.Generator`` (see the module docstring)."""

    @classmethod
    def from_state(cls, state, alg):
        """A generator starting at ``state`` (a vector; a Variable is used as it is)."""
        return cls(alg=alg, state=state)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator of ``seed`` (an integer or a vector of them) for ``alg`` (default
        Philox), its state ``create_rng_state(seed, alg)``."""
        alg = _algorithm(Algorithm.PHILOX if alg is None else alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator whose state comes from the OS's entropy when initialized."""
        alg = _algorithm(Algorithm.PHILOX if alg is None else alg)
        state = stateful_random.non_deterministic_ints([_state_size(alg)], dtypes.int64)
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator of ``key`` (a scalar) and ``counter`` (the state's other words)."""
        alg = _algorithm(alg)
        return cls(state=_key_counter_state(key, counter, alg), alg=alg)

    def __init__(self, copy_from=None, state=None, alg=None):
        """A generator copying ``copy_from``'s state (a new variable), or of ``state``
        and ``alg`` (given together; a Variable ``state`` is used as it is)."""
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("Generator takes either copy_from or state and alg.")
            self._state_var = self._create_variable(copy_from.state)
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise ValueError("Generator needs state and alg together (or copy_from).")
        alg = _algorithm(alg)
        if _is_variable(state):
            _check_state_shape(state.shape, alg)
            self._state_var = state
        else:
            state = _state_tensor(state)
            _check_state_shape(state.shape, alg)
            self._state_var = self._create_variable(state)
        self._alg = alg

    @staticmethod
    def _create_variable(initial_value):
        from .variables import Variable

        with name_scope("random_generator"):
            return Variable(initial_value, dtype=dtypes.int64, trainable=False,
                            name="StateVar")

    @property
    def state(self):
        """The variable holding the RNG state."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        """The algorithm's number."""
        return self._alg

    @property
    def key(self) -> Tensor:
        """The key part of the state (its last word)."""
        self._check_algorithm()
        return self._state_var[-1]

    def _check_algorithm(self) -> None:
        _state_size(self._alg)      # TF's ValueError for an unknown algorithm

    # --- changing the state ----------------------------------------------------------

    def reset(self, state):
        """Assigns ``state``; returns the assignment (TF's returns nothing)."""
        state = _state_tensor(state)
        _check_state_shape(state.shape, self._alg)
        return self._state_var.assign(state)

    def reset_from_seed(self, seed):
        """Assigns the state of ``seed``; returns the assignment."""
        return self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        """Assigns the state of ``key`` and ``counter``; returns the assignment."""
        return self._state_var.assign(_key_counter_state(key, counter, self._alg))

    def skip(self, delta) -> Tensor:
        """Moves the counter as ``delta`` draws would; the state before (int64 [3])."""
        return stateful_random.rng_read_and_skip(
            self._state_var, alg=cast(self._alg, dtypes.int32),
            delta=cast(delta, dtypes.uint64))

    def _prepare_key_counter(self, shape):
        counter_key = self.skip(reduce_prod(shape))
        size = _state_size(self._alg) - 1
        counter = bitcast(counter_key[:size], dtypes.uint64)
        key = bitcast(counter_key[size:size + 1], dtypes.uint64)
        return key, counter

    def _stateless(self, op_type: str, shape, dtype, bounds=(), name=None) -> Tensor:
        key, counter = self._prepare_key_counter(shape)
        return _v2_op(op_type, shape, key, counter, self._alg, {"dtype": dtype}, bounds,
                      name=name)

    # --- draws -----------------------------------------------------------------------

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values of ``mean`` and ``stddev``."""
        dtype = dtypes.as_dtype(dtype)
        with name_scope(name or "stateful_normal") as scope:
            shape = _shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            draw = self._stateless("StatelessRandomNormalV2", shape, dtype)
            return _add(draw * stddev, mean, scope)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                         name=None):
        """Normal values within two standard deviations of ``mean``."""
        dtype = dtypes.as_dtype(dtype)
        with name_scope(name or "truncated_normal") as scope:
            shape = _shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            draw = self._stateless("StatelessTruncatedNormalV2", shape, dtype)
            return _add(draw * stddev, mean, scope)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Values in ``[minval, maxval)`` (floats: [0, 1) by default; integers need both
        bounds, or neither for the whole range)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype!r}, minval and maxval must be "
                                 f"both `None` or both non-`None`; got minval={minval} and "
                                 f"maxval={maxval}")
        elif maxval is None:
            maxval = 1
        with name_scope(name or "stateful_uniform") as scope:
            shape = _shape_tensor(shape)
            if dtype.is_integer and minval is None:
                return self._stateless("StatelessRandomUniformFullIntV2", shape, dtype,
                                       name=scope)
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
            if dtype.is_integer:
                return self._stateless("StatelessRandomUniformIntV2", shape, dtype,
                                       (minval, maxval), name=scope)
            draw = self._stateless("StatelessRandomUniformV2", shape, dtype)
            return _add(draw * (maxval - minval), minval, scope)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers over ``dtype``'s whole range."""
        dtype = dtypes.as_dtype(dtype)
        with name_scope(name or "stateful_uniform_full_int") as scope:
            shape = _shape_tensor(shape)
            return self._stateless("StatelessRandomUniformFullIntV2", shape, dtype,
                                   name=scope)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        """Binomial(counts, probs) samples, their broadcast shape last in ``shape``
        (TF's ``StatefulRandomBinomial``: Philox only)."""
        with name_scope(name or "binomial") as scope:
            counts = convert_to_tensor(counts, name="counts")
            probs = convert_to_tensor(probs, name="probs")
            shape = _shape_tensor(shape)
            return stateful_random.stateful_random_binomial(
                self._state_var, self._alg, shape, counts, probs, dtype, name=scope)

    def make_seeds(self, count=1) -> Tensor:
        """``[2, count]`` int64 seeds for the stateless ops."""
        self._check_algorithm()
        keys = self.uniform_full_int([count], dtypes.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count=1) -> list:
        """``count`` new generators, each of state ``[0, ..., 0, key]`` for a drawn
        key (their initializers draw from this generator: initialize it first)."""
        self._check_algorithm()
        keys = self.uniform_full_int([count], dtypes.int64)
        zeros = [0] * (_state_size(self._alg) - 1)
        return [Generator(state=zeros + [key], alg=self._alg)
                for key in unstack(keys, num=count)]


def _add(x, y, name: str) -> Tensor:
    from .ops.common import make_op

    return make_op("AddV2", [x, y], name=name)


_global_generator = None


def get_global_generator() -> Generator:
    """The global generator, made from the OS's entropy on first use."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Replaces the global generator with ``generator``."""
    global _global_generator
    _global_generator = generator
