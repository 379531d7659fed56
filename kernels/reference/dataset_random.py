"""The random sources of a dataset pipeline (``kernels/reference/dataset.py`` runs them),
TF's values for a seed:

``random``       TF's ``RandomDataset`` (``ds.data.experimental.RandomDataset``): int64
                 scalars, the uint32 words of ``PhiloxRandom(seed, seed2)`` in order
                 (TF's ``SingleSampleAdapter``), so each in ``[0, 2**32)``
``categorical``  ``sample_from_datasets``' selector as TF builds it:
                 ``RandomDataset(seed).batch(2)`` mapped through
                 ``StatelessMultinomial(log(weights), 1)``: each pair of words seeds a
                 stateless stream whose first double (two words) picks an index by the
                 weights' running sums (``random.draw_classes``)

The stage's seeds are ``get_seed``'s (``devsession/ops/random.py``: ``_seeds``).  Seeded,
every start of an iterator (each epoch of a ``repeat``) gives the same values, as TF's
``FixedSeedGenerator``.  Unseeded, ``(0, 0)``: random seeds each time the pipeline is
built (TF's ``RandomSeeds`` at ``MakeDataset``), fixed for that iterator's epochs.

Both draw a stream in chunks, so an element costs a few numpy operations' share::

    RandomDataset(7)             -> 1992159687, 3200305987, 237021325, ...
"""

from __future__ import annotations

import itertools

import numpy as np

from devsession.errors import InvalidArgumentError

from .philox import blocks_at, first_blocks_of_seeds, seed_pair_stream, unit_float64
from .random import draw_classes

__all__ = ["random_source", "categorical_source", "selector_uniform_chunks", "stream_seeds"]

_CHUNK_BLOCKS = 256             # blocks drawn at once (4 random elements, 2 categorical)


def random_source(node, stage, _):
    key, counter = seed_pair_stream(*stream_seeds(stage["seeds"]))

    def draws():
        for first in itertools.count(0, _CHUNK_BLOCKS):
            offsets = np.arange(first, first + _CHUNK_BLOCKS, dtype=np.uint64)
            for word in blocks_at(key, counter, offsets).reshape(-1).astype(np.int64):
                yield [word]                    # the stream's words in order
    return draws


def categorical_source(node, stage, inputs):
    """Indices drawn with the weights ``inputs[0]`` (non-negative, a positive sum: else
    InvalidArgumentError), TF's selector's (see the module docstring)."""
    logits = _logits(node, np.asarray(inputs[0]))
    seeds = stage["seeds"]

    def indices():
        for uniforms in selector_uniform_chunks(seeds):
            for index in draw_classes(logits, uniforms[None])[0]:   # int64s
                yield [index]
    return indices


def selector_uniform_chunks(seeds):
    """The uniforms in [0, 1) TF's selector draws, element after element, in arrays of
    ``2 * _CHUNK_BLOCKS`` (endless): each the first double of the stateless stream that
    a pair of ``RandomDataset(seeds)``'s words seeds."""
    key, counter = seed_pair_stream(*stream_seeds(seeds))
    for first in itertools.count(0, _CHUNK_BLOCKS):
        offsets = np.arange(first, first + _CHUNK_BLOCKS, dtype=np.uint64)
        pairs = blocks_at(key, counter, offsets).reshape(-1, 2)      # batch(2)'s pairs
        bits = first_blocks_of_seeds(pairs[:, 0], pairs[:, 1])
        yield unit_float64(bits[:, 0], bits[:, 1])


def _logits(node, weights: np.ndarray) -> np.ndarray:
    """TF's logits ``[1, n]``: the weights' log, in their dtype (float32 or float64)."""
    flat = weights.reshape(-1)
    if flat.size == 0 or (flat < 0).any() or not flat.astype(np.float64).sum() > 0:
        raise InvalidArgumentError(f"'{node.name}': sample_from_datasets needs non-negative "
                                   f"weights with a positive sum, got {flat.tolist()}.",
                                   node.name)
    with np.errstate(divide="ignore"):
        return np.log(flat)[None]


def stream_seeds(seeds) -> tuple[int, int]:
    """The stage's seeds, or random ones where it is unseeded (``(0, 0)``)."""
    if list(seeds) != [0, 0]:
        return int(seeds[0]), int(seeds[1])
    return tuple(int(w) for w in np.random.default_rng().integers(0, 2**63, 2))
