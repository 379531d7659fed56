"""The ``rejection_resample`` stage of a dataset pipeline (``kernels/reference/
dataset.py`` runs it; ``devsession/data/resampling.py`` builds it): TF's
``Dataset.rejection_resample`` as one stage, TF's elements for a seed.

TF builds it from datasets, each reading the input in a pass of its own:

* the class of each element is the traced ``fn`` (``class_func``);
* the input's class distribution is ``initial`` or, unknown, estimated as TF's: counts
  from 10 per class, each batch of 32 elements' classes added before any of them is
  used, the estimate the counts' proportions;
* from the estimate and ``target``, TF's ``_calculate_acceptance_probs_with_mixing``:
  ``ratio = target / (initial + tiny)``, ``m = min(ratio)`` the probability of taking
  the next element of the input as it is, ``(ratio - m) / (max(ratio) - m)`` per class
  the probability the filter accepts an element;
* the filter draws a float32 uniform per element from its ``RandomUniform``'s Philox
  stream (``filter_seeds``; 256 blocks an element, as TF reserves), kept across the
  epochs of one iterator as TF's function kernel keeps it;
* ``sample_from_datasets([input, filtered], [m, 1 - m], stop_on_empty_dataset=True)``
  picks with TF's selector (``dataset_random.py``, ``selector_seeds``), ending when the
  chosen pass or the selector ends; where ``initial`` makes ``m`` 1 or 0, one pass alone.

An error in the input ends the iterator, not mirrored (``_unfailing``).
Each pass is its input built anew (``build_upstream``), as TF's iterators of one input
in different places each have their own state: a shuffle in the input gives each pass
the same order, as TF's (its seed generator is the iterator's).  The passes are TF's:
the selector's estimate, the input, the filter's estimate of acceptance, the filtered
input (TF's fifth, an estimate that only feeds a warning, changes nothing).  Elements
are ``[class, components...]``.
"""

from __future__ import annotations

import itertools

import numpy as np

from devsession.errors import InvalidArgumentError

from .dataset_failures import Failed

from .dataset_random import selector_uniform_chunks, stream_seeds
from .philox import blocks_at, seed_pair_stream
from .random import draw_classes

__all__ = ["rejection_resample_stage"]

_BATCH, _SMOOTHING = 32, 10
_RESERVED = 256                 # blocks a RandomUniform of one element moves its stream
_CHUNK = 1024                   # filter uniforms computed at once


def _mixing(initial: np.ndarray, target: np.ndarray):
    """(acceptance per class, probability of the original): TF's formula, float32."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = target / (initial + np.finfo(np.float32).tiny)
        low, high = ratio.min(), ratio.max()
        return ((ratio - low) / (high - low)).astype(np.float32), np.float32(low)


def rejection_resample_stage(node, stage, build_upstream, captured, functions):
    """The stage's source; ``build_upstream()`` builds its input afresh (a pass)."""
    classify = _classifier(node, functions[stage["fn"]], captured)
    target = np.asarray(stage["target"], np.float32)
    initial = None if stage["initial"] is None else np.asarray(stage["initial"], np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        static = None if initial is None else float(np.min(target / initial))
    uniforms = _filter_uniforms(stage["filter_seeds"])      # one stream per iterator
    count = len(target)
    passes = 1 if static in (0, 1) else 4 if initial is None else 2
    upstreams = [build_upstream() for _ in range(passes)]
    selector_seeds = stream_seeds(stage["selector_seeds"])  # unseeded: drawn once, as TF's

    def accepted(accepts, elements):
        """TF's filter: each element kept when its uniform is below its acceptance."""
        for accept, element in zip(accepts, elements):
            c = classify(element)
            if not 0 <= c < count:
                raise InvalidArgumentError(f"indices[0] = {c} is not in [0, {count})",
                                           node.name)
            if next(uniforms) < accept[c]:
                yield _with_class(c, element)

    def resampled():
        if static == 1:
            return (_with_class(classify(e), e) for e in _unfailing(upstreams[0]()))
        if static == 0:
            return accepted(itertools.repeat(_mixing(initial, target)[0]),
                            _unfailing(upstreams[0]()))
        if initial is None:
            chances, original, accepts, elements = _passes(upstreams)
            chances = (m for _, m in _estimates(classify, chances, target))
            accepts = (a for a, _ in _estimates(classify, accepts, target))
        else:
            original, elements = _passes(upstreams)
            accept, m = _mixing(initial, target)
            chances, accepts = itertools.repeat(m), itertools.repeat(accept)
        originals = (_with_class(classify(e), e) for e in original)
        return _chosen(_selector(chances, selector_seeds),
                       originals, accepted(accepts, elements))
    return resampled


def _classifier(node, class_of, captured):
    def classify(element) -> int:
        value = np.asarray(class_of(element + captured)[0])
        if value.size != 1 or value.dtype.kind not in "iu":
            raise InvalidArgumentError(f"'{node.name}': class_func must return an integer "
                                       f"scalar, got {value.dtype} {list(value.shape)}.",
                                       node.name)
        return int(value.reshape(()))
    return classify


def _with_class(c: int, element) -> list:
    return [np.int32(c), *element]


def _passes(upstreams: list):
    """A fresh iterator of each pass (a repeat's next epoch: each pass's next)."""
    return [_unfailing(source()) for source in upstreams]


def _unfailing(elements):
    """A pass's elements; an error among them is raised, which ends the iterator (its
    passes would each meet it at a different point: TF's sequence is not mirrored)."""
    for element in elements:
        if element.__class__ is Failed:
            raise element.error
        yield element


def _estimates(classify, elements, target: np.ndarray):
    """(acceptance, m) for each element of a pass, from TF's running estimate."""
    seen = np.full(len(target), _SMOOTHING, np.int64)
    while True:
        batch = list(itertools.islice(elements, _BATCH))
        if not batch:
            return
        classes = [classify(e) for e in batch]
        seen += np.bincount([c for c in classes if 0 <= c < len(target)],
                            minlength=len(target))
        mixing = _mixing((seen / seen.sum()).astype(np.float32), target)
        yield from itertools.repeat(mixing, len(batch))


def _selector(chances, seeds):
    """TF's ``sample_from_datasets`` selector of weights ``[m, 1 - m]`` (0: the input,
    1: the filtered), one for each ``m`` of ``chances``."""
    uniforms = itertools.chain.from_iterable(c.tolist() for c in
                                             selector_uniform_chunks(seeds))
    with np.errstate(divide="ignore"):
        for m, u in zip(chances, uniforms):
            logits = np.log(np.array([[m, np.float32(1.0) - m]], np.float32))
            yield int(draw_classes(logits, np.array([[u]]))[0, 0])


def _chosen(selector, original, filtered):
    """The chosen pass's next element for each choice; the end at a chosen pass's end."""
    sources = (original, filtered)
    for choice in selector:
        element = next(sources[choice], None)
        if element is None:
            return
        yield element


def _filter_uniforms(seeds):
    """TF's filter ``RandomUniform`` of one float32 a call (an endless generator)."""
    key, counter = seed_pair_stream(*stream_seeds(seeds))
    for first in itertools.count(0, _CHUNK):
        offsets = np.arange(first, first + _CHUNK, dtype=np.uint64) * np.uint64(_RESERVED)
        words = blocks_at(key, counter, offsets)[:, 0]
        yield from ((words & 0x7FFFFF).astype(np.float32) * np.float32(2.0 ** -23)).tolist()
