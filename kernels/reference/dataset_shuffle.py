"""The ``shuffle`` stage of a dataset pipeline (``kernels/reference/dataset.py`` runs
it), TF's ShuffleDataset, and ``shuffle_and_repeat``: a ``shuffle`` right before a
``repeat``, which TF's default ``shuffle_and_repeat_fusion`` makes one
ShuffleAndRepeatDataset.  That one refills its buffer from the next epoch while it
draws the last elements of one, each epoch's elements drawn only among themselves with
that epoch's samples: the orders are the unfused ones, but the next epoch's input is
read sooner, which an error in it shows (raised when read, as ``shuffle`` raises it).
"""

from __future__ import annotations

import collections

import numpy as np

from .dataset_failures import Failed
from .philox import seed_pair_stream, words

__all__ = ["shuffle_stage", "shuffle_and_repeat_stage"]

_END = object()


def _epoch_samples(stage):
    """``samples()``: a new epoch's Philox stream of samples (see ``shuffle_stage``)."""
    (seed, seed2), reshuffle = stage["seeds"], stage["reshuffle"]
    if (seed, seed2) == (0, 0):
        seed, seed2 = (int(w) for w in np.random.default_rng().integers(0, 2**63, 2))
    epoch_seeds = _philox_words(seed, seed2) if reshuffle else None

    def samples():
        first, second = (next(epoch_seeds), next(epoch_seeds)) if reshuffle else (seed, seed2)
        return _philox_words(first, second)
    return samples


def shuffle_stage(node, stage, upstream, _, __):
    """TF's ``ShuffleDataset``: ``buffer_size`` elements buffered, each output the one at
    ``start + sample % count`` of the buffered run, swapped to its front, the run refilled
    from upstream; the samples are a Philox stream's 32-bit words.  Seeded ``(seed,
    seed2)``: that stream when ``reshuffle`` is off; else each epoch's seeds are the next
    two words of it (TF's ``RandomSeedGenerator``), so every start of the iterator draws
    the same orders, a new one each epoch.  Unseeded: random seeds each start.  An
    error read to fill the buffer is raised then, the buffer kept, as TF's."""
    size, epoch_samples = stage["buffer_size"], _epoch_samples(stage)

    def shuffled():
        samples = epoch_samples()
        elements, capacity = upstream(), size
        if capacity <= 0:                                   # every element (list_files)
            everything = list(elements)
            elements, capacity = iter(everything), max(len(everything), 1)
        buffer, start, end = [None] * capacity, 0, 0
        for element in elements:
            if element.__class__ is Failed:             # raised as read, not buffered
                yield element
                continue
            buffer[end % capacity] = element
            end += 1
            if end - start == capacity:
                yield _take_one(buffer, capacity, start, end, next(samples))
                start += 1
        while start < end:
            yield _take_one(buffer, capacity, start, end, next(samples))
            start += 1
    return shuffled


def _take_one(buffer: list, capacity: int, start: int, end: int, sample: int):
    """The element at ``start + sample % (end - start)`` of the buffered run, its place
    taken by the run's first (TF's swap)."""
    index = (start + sample % (end - start)) % capacity
    front = start % capacity
    picked = buffer[index]
    buffer[index], buffer[front] = buffer[front], None
    return picked


def _philox_words(seed: int, seed2: int):
    """TF's ``SingleSampleAdapter<PhiloxRandom(seed, seed2)>``: the stream's uint32s."""
    return words(*seed_pair_stream(seed, seed2))


def shuffle_and_repeat_stage(node, stage, count: int, upstream):
    """The ``shuffle`` stage's elements ``count`` times (-1: forever) as TF's fused
    ShuffleAndRepeatDataset (the module docstring): the buffer holds a run of each epoch,
    drawn from the front one (``start`` on, up to the next run's start or ``end``; the
    later runs' starts and samples in ``later``).  As ``repeat``, an epoch with nothing
    ends the data, and so does a first epoch of errors only, repeating forever."""
    size, epoch_samples = stage["buffer_size"], _epoch_samples(stage)

    def shuffled():
        buffer, later, samples = [None] * size, collections.deque(), None
        elements, start, end, epoch, more = None, 0, 0, 0, True
        while True:
            while more and end - start < size:
                if elements is None:
                    if 0 <= count <= epoch:
                        more = False
                        break
                    elements, epoch, produced, good = upstream(), epoch + 1, False, False
                    later.append((end, epoch_samples()))
                element = next(elements, _END)
                if element is _END:
                    elements = None
                    more = produced and (good or count >= 0 or epoch > 1)
                    continue
                produced = True
                if element.__class__ is Failed:         # raised as read, not buffered
                    yield element
                    continue
                good = True
                buffer[end % size] = element
                end += 1
            while later and later[0][0] == start:       # the front run is drawn
                samples = later.popleft()[1]
            stop = later[0][0] if later else end
            if start == stop:
                return
            yield _take_one(buffer, size, start, stop, next(samples))
            start += 1
    return shuffled
