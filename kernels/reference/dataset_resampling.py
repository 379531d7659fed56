"""The ``rejection_resample`` stage of a dataset pipeline (``kernels/reference/
dataset.py`` runs it; ``devsession/data/resampling.py`` builds it): TF's
``Dataset.rejection_resample`` as one stage, its three passes over the input kept:

* the class of each element is the traced ``fn`` (``class_func``);
* the input's class distribution is ``initial`` or, unknown, estimated as TF's: counts
  from 10 per class, each batch of 32 elements' classes added before any of them is
  used, the estimate the counts' proportions;
* from the estimate and ``target``, TF's ``_calculate_acceptance_probs_with_mixing``:
  ``ratio = target / (initial + tiny)``, ``m = min(ratio)`` the probability of taking
  the next element of one pass over the input as it is, ``(ratio - m) / (max(ratio) -
  m)`` per class the probability another pass's next element is accepted;
* each element is drawn from the first pass with probability ``m`` (the estimate of a
  third pass), else the next accepted element of the second, ending when the chosen
  pass ends (TF's ``sample_from_datasets(..., stop_on_empty_dataset=True)``), or one
  pass alone where ``initial`` makes ``m`` 1 or 0.

Elements are ``[class, components...]``.  The draws are numpy's, seeded by the stage's
seeds: the proportions are TF's, the sequence is not.
"""

from __future__ import annotations

import itertools

import numpy as np

from devsession.errors import InvalidArgumentError

__all__ = ["rejection_resample_stage"]

_BATCH, _SMOOTHING = 32, 10


def _mixing(initial: np.ndarray, target: np.ndarray):
    """(acceptance per class, probability of the original): TF's formula, float32."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = target / (initial + np.finfo(np.float32).tiny)
        low, high = ratio.min(), ratio.max()
        return ((ratio - low) / (high - low)).astype(np.float32), float(low)


def rejection_resample_stage(node, stage, upstream, captured, functions):
    class_of = functions[stage["fn"]]
    target = np.asarray(stage["target"], np.float32)
    initial = None if stage["initial"] is None else np.asarray(stage["initial"], np.float32)
    seeds = stage["seeds"]
    base = seeds if seeds != [0, 0] else [np.random.SeedSequence().entropy]
    count = len(target)

    def classify(element) -> int:
        value = np.asarray(class_of(element + captured)[0])
        if value.size != 1 or value.dtype.kind not in "iu":
            raise InvalidArgumentError(f"'{node.name}': class_func must return an integer "
                                       f"scalar, got {value.dtype} {list(value.shape)}.",
                                       node.name)
        return int(value.reshape(()))

    def classified():
        """(class, element, acceptance, m) for each element of a fresh pass."""
        elements = upstream()
        if initial is not None:
            accept, m = _mixing(initial, target)
            for element in elements:
                yield classify(element), element, accept, m
            return
        seen = np.full(count, _SMOOTHING, np.int64)
        while True:
            batch = list(itertools.islice(elements, _BATCH))
            if not batch:
                return
            classes = [classify(e) for e in batch]
            seen += np.bincount([c for c in classes if 0 <= c < count], minlength=count)
            accept, m = _mixing((seen / seen.sum()).astype(np.float32), target)
            for c, element in zip(classes, batch):
                yield c, element, accept, m

    def output(c: int, element) -> list:
        return [np.int32(c), *element]

    def resampled():
        rng = np.random.default_rng(base)
        draws = iter(lambda: float(rng.random()), None)

        def accepted():
            for c, element, accept, _ in classified():
                if not 0 <= c < count:
                    raise InvalidArgumentError(f"indices[0] = {c} is not in [0, {count})",
                                               node.name)
                if next(draws) < accept[c]:
                    yield output(c, element)
        original = (output(c, e) for c, e, _, _ in classified())
        with np.errstate(divide="ignore", invalid="ignore"):
            static = None if initial is None else float(np.min(target / initial))
        if static == 1:
            yield from original
            return
        if static == 0:
            yield from accepted()
            return
        filtered = accepted()
        for _, _, _, m in classified():
            item = next(original if next(draws) < m else filtered, None)
            if item is None:
                return
            yield item
    return resampled
