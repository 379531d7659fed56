"""The stages of a dataset pipeline that count elements (``kernels/reference/
dataset.py`` runs it): ``repeat``, ``take``, ``skip`` and ``shard``, each in two
versions: over row numbers (``build_pipeline``'s fast path, where no error can be) and
over elements among which errors may travel (``dataset_failures.py``), which count
elements only, as TF's do.
"""

from __future__ import annotations

import itertools

from .dataset_failures import Failed

__all__ = ["repeat_stage", "take_stage", "take_rows_stage", "skip_stage", "skip_rows_stage",
           "shard_stage", "shard_rows_stage"]

_END = object()                 # next()'s default: the end of a source


def repeat_stage(node, stage, upstream, _, __):
    """An epoch with nothing ends it; repeating forever, so does a first epoch of
    errors only (TF's ``first_call_``)."""
    count = stage["count"]

    def repeated():
        epochs = itertools.count() if count < 0 else range(count)
        for epoch in epochs:
            produced = good = False
            for element in upstream():
                produced = True
                good = good or element.__class__ is not Failed
                yield element
            if not produced or (count < 0 and epoch == 0 and not good):
                return
    return repeated


def take_rows_stage(node, stage, upstream, _, __):
    count = stage["count"]
    return lambda: itertools.islice(upstream(), None if count < 0 else count)


def take_stage(node, stage, upstream, _, __):
    """The first ``count`` elements, and the errors among them (not counted, as TF's)."""
    count = stage["count"]

    def taken():
        left = count
        if not left:
            return
        for element in upstream():
            yield element
            if element.__class__ is not Failed:
                left -= 1
                if not left:
                    return                      # reading no element past them
    return upstream if count < 0 else taken


def skip_rows_stage(node, stage, upstream, _, __):
    count = stage["count"]

    def skipped():
        return itertools.islice(upstream(), count, None) if count >= 0 else iter(())
    return skipped


def skip_stage(node, stage, upstream, _, __):
    """TF's SkipDataset: an error met while skipping is raised and the skip starts
    again (its ``Skip`` of ``count`` elements failed as a whole)."""
    count = stage["count"]

    def skipped():
        if count < 0:
            return
        elements, done = upstream(), 0
        while done < count:
            element = next(elements, _END)
            if element is _END:
                return
            if element.__class__ is Failed:
                yield element
                done = 0
            else:
                done += 1
        yield from elements
    return skipped


def shard_rows_stage(node, stage, upstream, _, __):
    shards, index = stage["num_shards"], stage["index"]
    return lambda: itertools.islice(upstream(), index, None, shards)


def shard_stage(node, stage, upstream, _, __):
    """TF's ShardDataset: the position counts elements only; an error met while
    skipping to the next shard's element is raised, that skip not counted."""
    shards, index = stage["num_shards"], stage["index"]

    def sharded():
        elements, position = upstream(), 0
        while True:
            ahead, failure = 0, None
            while ahead < (index - position) % shards:
                element = next(elements, _END)
                if element is _END:
                    return
                if element.__class__ is Failed:
                    failure = element
                    break
                ahead += 1
            if failure is not None:
                yield failure
                continue
            position += ahead
            element = next(elements, _END)
            if element is _END:
                return
            position += element.__class__ is not Failed
            yield element
    return sharded
