"""Making new seeds for the stateless random ops from old ones, as TF's
``tf.random.split``, ``tf.random.fold_in`` and ``tf.random.create_rng_state``.

``split(seed, num)`` is ``num`` new seeds, the ``[num, 2]`` full-range integers that
``stateless_uniform`` draws from ``seed`` in its dtype; ``fold_in(seed, data)`` is the
pair ``[one such integer of data's dtype, data]``.  Both are TF's own compositions of
``StatelessRandomUniformFullIntV2`` (``ops/stateless_random.py``), so their values are
TF's bit for bit.  ``create_rng_state(seed, alg)`` is the int64 state a
``tf.random.Generator`` of ``alg`` starts from: an integer cut into 64-bit words (lowest
first), a vector as given, left-padded with zeros or cut to the algorithm's size (3 for
Philox and auto-select, 2 for ThreeFry); a constant, since the seed is known at build.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor
from .array import stack
from .stateless_random import _alg_number, stateless_random_uniform

__all__ = ["split", "fold_in", "create_rng_state"]

_STATE_SIZES = {1: 3, 2: 2, 3: 3}      # Philox, ThreeFry, auto-select (managed as Philox)
_MASK64 = (1 << 64) - 1


def split(seed, num=2, alg="auto_select") -> Tensor:
    """``tf.random.split``: ``num`` new seeds of ``seed``'s dtype, shape ``[num, 2]``."""
    seed = convert_to_tensor(seed)
    return stateless_random_uniform(shape=[num, 2], seed=seed, dtype=seed.dtype,
                                    minval=None, maxval=None, alg=alg)


def fold_in(seed, data, alg="auto_select") -> Tensor:
    """``tf.random.fold_in``: a new seed from ``seed`` and the scalar ``data`` (int32 or
    int64, the dtype of the result)."""
    data = convert_to_tensor(data)
    drawn = stateless_random_uniform(shape=[], seed=seed, dtype=data.dtype, minval=None,
                                     maxval=None, alg=alg)
    return stack([drawn, data])


def _state_size(alg) -> int:
    number = _alg_number(alg)
    if number not in _STATE_SIZES:
        raise ValueError(f"Argument `alg` got unsupported value {number}. Supported values "
                         f"are 1 for the Philox algorithm, 2 for the ThreeFry algorithm, "
                         f"and 3 for auto-selection.")
    return _STATE_SIZES[number]


def _signed(word: int) -> int:
    word &= _MASK64
    return word - (1 << 64) if word >= 1 << 63 else word


def create_rng_state(seed, alg) -> Tensor:
    """``tf.random.create_rng_state``: the int64 [state size] RNG state of ``seed`` (an
    integer, or a 1-D vector of integers) for ``alg``."""
    size = _state_size(alg)
    if isinstance(seed, Tensor) or hasattr(seed, "_as_tensor"):
        known = constant_value(convert_to_tensor(seed))
        if known is None:
            raise ValueError("create_rng_state needs a seed known when the graph is built.")
        seed = known
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        value = int(seed)
        words = []
        for _ in range(size):
            words.append(_signed(value))
            value >>= 64
    else:
        words = [_signed(int(w)) for w in np.asarray(seed).reshape(-1)][:size]
        words = [0] * (size - len(words)) + words
    return convert_to_tensor(np.array(words, np.int64), dtype=dtypes.int64)
