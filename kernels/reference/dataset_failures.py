"""An error inside a dataset pipeline travels as an element (``kernels/reference/
dataset.py`` runs the pipeline): a ``Failed`` holding the OpError.

TF's iterator goes on after an element's error (a map function's, a batch of
mismatched shapes): that ``get_next`` raises it, the next one gives the next element.
The pipeline's stages are Python generators, and a generator that raised is finished;
so a stage that meets an error yields a ``Failed`` in the element's place instead, the
stages after it pass it on (or decide what it means, as TF's: a batch that meets one is
that error), and the iterator raises its error for that ``get_next`` alone.
"""

from __future__ import annotations

from devsession.errors import OpError

__all__ = ["Failed", "attempt", "first_failure", "batch_groups"]


class Failed:
    """The element an error took the place of (tested as ``e.__class__ is Failed``:
    elements are lists, so that is one cheap check per element)."""

    __slots__ = ("error",)

    def __init__(self, error: OpError):
        self.error = error


def attempt(make, *args):
    """``make(*args)``, or the ``Failed`` of the OpError it raised."""
    try:
        return make(*args)
    except OpError as e:
        return Failed(e)


def first_failure(elements):
    """The first ``Failed`` among ``elements``, else None."""
    return next((e for e in elements if e.__class__ is Failed), None)


def batch_groups(elements, stage, whole: bool = False):
    """Lists of ``batch_size`` consecutive elements (the last one shorter unless
    ``drop_remainder``) for the batching stages, where a group that meets an error is
    that ``Failed`` instead.  ``whole``: the group still takes its ``batch_size``
    elements (TF's fused MapAndBatch); else it ends at the error, its elements lost and
    the next group starting after it (TF's BatchDataset)."""
    size, drop = stage["batch_size"], stage["drop_remainder"]
    while True:
        group, failure, taken = [], None, 0
        for element in elements:
            taken += 1
            if element.__class__ is not Failed:
                group.append(element)
            elif failure is None:
                failure = element
                if not whole:
                    break
            if taken == size:
                break
        if failure is not None:
            yield failure
        elif not group or (drop and len(group) < size):
            return
        else:
            yield group
