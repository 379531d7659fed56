"""Kernels of TF's stateful random ops (``devsession/ops/stateful_random.py``) for the
host: TF's values bit for bit, from the stateless kernels' draws
(``stateless_random.py``, ``stateless_random_rates.py``; the CPU's compiled ones,
``cpu/random.py``) at the key and counter the variable holds.

Each kernel works under the variable's lock: it reads the state (Philox: counter words 0
and 1, key word 2), draws at it, and writes the counter moved on, as TF's
``UpdateVariableAndFill`` (``n`` values: ``256 n`` blocks, room for the truncated
normal's rejections) and ``RngReadAndSkip`` do; the Binomial op moves it on by
``256 * batches * 200 * (samples + 3) / 4`` (integer division), as TF's.  Checks that
fail leave the state as it was.  The algorithm: Philox (1), or auto select (3), which TF
runs as Philox, except in the Binomial (Philox only); ThreeFry (2) is TF's
``UnimplementedError`` off XLA.  The GPU runs these kernels too
(``cuda/stateful_random.py``): the state is three words, so it is read and written on the
host, and only the draws are uploaded.
"""

from __future__ import annotations

import os

import numpy as np

from devsession.errors import UnimplementedError

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .philox import key_counter_words
from .random import drawn_shape
from . import stateless_random
from .stateless_random import int_bounds
from . import stateless_random_rates
from .stateless_random_rates import binomial_dims

__all__ = ["advance", "philox_words", "DRAW_OPS"]

_PHILOX, _THREEFRY, _AUTO_SELECT = 1, 2, 3
_MASK64 = (1 << 64) - 1
_DRAWS = {"StatefulStandardNormalV2": "normal", "StatefulUniform": "uniform",     # op -> draw
          "StatefulTruncatedNormal": "truncated_normal", "StatefulUniformFullInt": "full_int",
          "StatefulUniformInt": "uniform_int"}
DRAW_OPS = tuple(_DRAWS)


def philox_words(state: np.ndarray):
    """The (key, counter) words of a Philox state (int64 [3...])."""
    words = state.view(np.uint64)
    return key_counter_words(words[2:3], words[0:2])


def advance(state: np.ndarray, blocks: int) -> None:
    """Move the 128-bit counter in ``state`` (words 0 and 1, low first) ``blocks`` on,
    in place."""
    words = state.view(np.uint64)
    counter = (int(words[0]) | int(words[1]) << 64) + blocks
    words[0], words[1] = counter & _MASK64, (counter >> 64) & _MASK64


def _algorithm(node, alg: np.ndarray, philox_only: bool = False) -> int:
    """The algorithm's number: Philox, or auto select (Philox here) unless the op is
    ``philox_only`` (the Binomial, which calls ThreeFry unsupported too); ThreeFry is
    TF's UnimplementedError off XLA, any other number InvalidArgumentError."""
    if alg.ndim != 0:
        raise invalid_argument(node.name, node.op, f"algorithm must be of shape [], not "
                               f"{fmt_shape(alg.shape)}")
    number = int(alg)
    if number == _THREEFRY and not philox_only:
        raise UnimplementedError(f"{node.op} node '{node.name}': Non-XLA devices don't "
                                 f"support the ThreeFry algorithm.", node.name)
    if number not in ((_PHILOX,) if philox_only else (_PHILOX, _AUTO_SELECT)):
        raise invalid_argument(node.name, node.op, f"Unsupported algorithm id: {number}")
    return number


def _philox_state(node, resource) -> np.ndarray:
    """The variable's state to update in place (call with its lock held), checked; a
    state a GPU holds comes to the host (and goes back when a GPU reads it)."""
    state = resource.updatable(node.name)
    if not isinstance(state, np.ndarray):
        state = resource.value = np.asarray(state.get())      # cupy's copy to the host
    if state.dtype != np.int64 or state.ndim != 1:
        raise invalid_argument(node.name, node.op, f"Trying to use a state of dtype "
                               f"{state.dtype.name} and shape {fmt_shape(state.shape)}; "
                               f"the RNG state must be an int64 vector.")
    if state.shape[0] < 3:
        raise invalid_argument(node.name, node.op, f"The size of the state must be at least "
                               f"3; got {state.shape[0]}")
    return state


@register_kernel(DRAW_OPS, "REF")
def build_stateful_draw(node, draws=stateless_random):
    """``draws``: the module whose draw functions it calls (``stateless_random``, or the
    CPU's compiled ``cpu/philox.py``)."""
    ctx, draw, dtype = node.context, getattr(draws, _DRAWS[node.op]), node.output_dtype

    def kernel(alg, shape, *bounds):
        dims = drawn_shape(node, shape)
        count = int(np.prod(dims, dtype=np.int64))
        if bounds:
            bounds = int_bounds(node, *(np.asarray(b) for b in bounds), count)
        _algorithm(node, np.asarray(alg))
        resource = ctx.variable_resource()
        with resource.lock:
            state = _philox_state(node, resource)
            words = philox_words(state)
            advance(state, 256 * count)
        if count == 0:
            return np.zeros(dims, dtype)
        return draw(*words, count, dtype, *bounds).reshape(dims)
    return kernel


@register_kernel("RngReadAndSkip", HOST)
def build_rng_read_and_skip(node):
    ctx = node.context

    def rng_read_and_skip(alg, delta):
        _algorithm(node, np.asarray(alg))
        delta = np.asarray(delta)
        if delta.ndim != 0:
            raise invalid_argument(node.name, node.op, f"delta must be a scalar, not "
                                   f"{fmt_shape(delta.shape)}")
        resource = ctx.variable_resource()
        with resource.lock:
            state = _philox_state(node, resource)
            before = state[:3].copy()
            advance(state, 256 * int(delta))
        return before
    return rng_read_and_skip


@register_kernel("RngSkip", HOST)
def build_rng_skip(node):
    ctx = node.context

    def rng_skip(alg, delta):
        _algorithm(node, np.asarray(alg))
        resource = ctx.variable_resource()
        with resource.lock:
            advance(_philox_state(node, resource), 256 * (int(delta) & _MASK64))
    return rng_skip


@register_kernel("StatefulRandomBinomial", "REF")
def build_stateful_binomial(node, samplers=stateless_random_rates):
    """``samplers``: the module whose ``binomial_samples`` draws (the stateless kernels',
    or the CPU's compiled ``cpu/philox_rates.py``)."""
    ctx, dtype = node.context, node.output_dtype

    def stateful_binomial(alg, shape, counts, probs):
        counts, probs = np.asarray(counts), np.asarray(probs)
        dims, batch = binomial_dims(node, shape, counts, probs)
        alg = np.asarray(alg)
        if alg.ndim != 0:
            raise invalid_argument(node.name, node.op, f"algorithm must be of shape [], not "
                                   f"{fmt_shape(alg.shape)}")
        count = int(np.prod(dims, dtype=np.int64))
        if count == 0:
            return np.zeros(dims, dtype)
        batches = int(np.prod(dims[len(dims) - len(batch):], dtype=np.int64))
        samples = count // batches
        _algorithm(node, alg, philox_only=True)
        resource = ctx.variable_resource()
        with resource.lock:
            state = _philox_state(node, resource)
            words = philox_words(state)
            advance(state, 256 * (batches * 2 * 100 * (samples + 3) // 4))
        return samplers.binomial_samples(*words, counts, probs, samples, dtype).reshape(dims)
    return stateful_binomial


@register_kernel("NonDeterministicInts", HOST)
def build_non_deterministic_ints(node):
    dtype = np.dtype(node.output_dtype)

    def non_deterministic_ints(shape):
        dims = drawn_shape(node, shape)
        count = int(np.prod(dims, dtype=np.int64))
        return np.frombuffer(os.urandom(count * dtype.itemsize), dtype).reshape(dims).copy()
    return non_deterministic_ints
