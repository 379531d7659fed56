"""The stages of a dataset pipeline that stack or split elements (``kernels/reference/
dataset.py`` runs it): ``batch``, ``padded_batch``, ``window`` and ``unbatch``.  A
batch that meets an error is that error (``dataset_failures.batch_groups``: a map's
batch, TF's fused MapAndBatch, takes its ``batch_size`` elements still; any other ends
at it); a window is the error of any element in it; elements of differing shapes are
an error in the batch's place.  ``gathered_batches``: the fast path's batches of row
numbers, one ``np.take`` per component.
"""

from __future__ import annotations

import itertools

import numpy as np

from devsession.errors import InvalidArgumentError

from .dataset_failures import Failed, attempt, batch_groups, first_failure
from .dataset_sparse import batched_sparse, unbatched_sparse

__all__ = ["batch_stage", "padded_batch_stage", "window_stage", "unbatch_stage",
           "gathered_batches", "component_parts"]


def gathered_batches(stage, numbers, table: list):
    def batches():
        for group in _groups(numbers(), stage):
            picked = np.asarray(group, np.int64)
            yield [np.take(c, picked, axis=0) for c in table]
    return batches


def _groups(items, stage):
    """Lists of ``batch_size`` consecutive items (the last one shorter unless
    ``drop_remainder``): row numbers, which no error is among."""
    size, drop = stage["batch_size"], stage["drop_remainder"]
    while True:
        group = list(itertools.islice(items, size))
        if not group or (drop and len(group) < size):
            return
        yield group


def batch_stage(node, stage, upstream, _, __):
    sparse = set(stage.get("sparse", ()))      # where a SparseTensor's three arrays start

    def batched(group: list) -> list:
        batch, k = [], 0
        while k < len(group[0]):
            if k in sparse:
                batch += batched_sparse(node, [e[k:k + 3] for e in group])
                k += 3
            else:
                batch.append(_stacked(node, [e[k] for e in group], k))
                k += 1
        return batch

    def batches():
        for group in batch_groups(upstream(), stage, stage.get("after_map", False)):
            yield group if group.__class__ is Failed else attempt(batched, group)
    return batches


def window_stage(node, stage, upstream, _, __):
    """``Dataset.window``'s windows, each component stacked (``data/window.py``), in the
    order of TF's WindowDataset: a buffer of ``(size - 1) * stride + 1`` elements gives
    every ``stride``-th, then drops ``shift`` of them (reading past its end when
    ``shift`` is larger); once the input ends, the shorter windows of what remains.
    A window is the error of an element in it, if any (``_window_of``)."""
    size, shift, stride = stage["size"], stage["shift"], stage["stride"]
    target = (size - 1) * stride + 1

    def windows():
        elements, buffer = upstream(), []
        for element in elements:
            buffer.append(element)
            if len(buffer) < target:
                continue
            yield _window_of(node, buffer[::stride])
            if shift >= len(buffer):
                for _ in itertools.islice(elements, shift - len(buffer)):
                    pass
                buffer = []
            else:
                del buffer[:shift]
        while buffer and not stage["drop_remainder"]:
            yield _window_of(node, buffer[::stride])
            del buffer[:shift]
    return windows


def _window_of(node, elements: list):
    """The window of ``elements``: TF keeps an error in the buffer in its element's
    place, and a window that holds one is that error."""
    failure = first_failure(elements)
    if failure is not None:
        return failure
    return attempt(lambda: [_stacked(node, [e[k] for e in elements], k)
                            for k in range(len(elements[0]))])


def _stacked(node, values: list, component: int) -> np.ndarray:
    first = values[0].shape
    for index, v in enumerate(values):
        if v.shape != first:
            raise InvalidArgumentError(
                f"'{node.name}': cannot batch tensors with different shapes in component "
                f"{component}. First element had shape {list(first)} and element {index} "
                f"had shape {list(v.shape)}.", node.name)
    return np.stack(values)


def padded_batch_stage(node, stage, upstream, padding, __):
    shapes = stage["padded_shapes"]

    def padded(group: list) -> list:
        return [_padded(node, [e[k] for e in group], shapes[k], padding[k], k)
                for k in range(len(group[0]))]

    def batches():
        for group in batch_groups(upstream(), stage):
            yield group if group.__class__ is Failed else attempt(padded, group)
    return batches


def _padded(node, values: list, declared: list, pad, component: int) -> np.ndarray:
    """``values`` stacked, each padded with ``pad`` to ``declared`` (-1: the largest)."""
    if any(v.ndim != len(declared) for v in values):
        raise InvalidArgumentError(f"'{node.name}': component {component} has rank "
                                   f"{values[0].ndim}, its padded shape {declared} another.",
                                   node.name)
    target = [d if d >= 0 else max(v.shape[axis] for v in values)
              for axis, d in enumerate(declared)]
    out = np.full((len(values), *target), pad, dtype=values[0].dtype)
    for index, v in enumerate(values):
        if any(n > t for n, t in zip(v.shape, target)):
            raise InvalidArgumentError(
                f"'{node.name}': attempted to pad component {component} of shape "
                f"{list(v.shape)} to the smaller shape {target}.", node.name)
        out[(index, *(slice(0, n) for n in v.shape))] = v
    return out


def unbatch_stage(node, stage, upstream, _, __):
    sparse = set(stage.get("sparse", ()))      # where a SparseTensor's three arrays start

    def rows():
        for element in upstream():
            if element.__class__ is Failed:
                yield element
                continue
            parts = component_parts(element, sparse)
            counts = {int(p[2][0]) if len(p) == 3 else p[0].shape[0] for p in parts}
            if len(counts) != 1:
                yield Failed(InvalidArgumentError(
                    f"'{node.name}': cannot unbatch an element whose components have "
                    f"different first dimensions {sorted(counts)}.", node.name))
                continue
            for i in range(counts.pop()):
                row = []
                for p in parts:
                    row += unbatched_sparse(p, i) if len(p) == 3 else [p[0][i, ...].copy()]
                yield row
    return rows


def component_parts(element: list, sparse: set) -> list:
    """``element``'s arrays grouped per component: three for a SparseTensor (those
    starting at an index in ``sparse``), one for a dense one."""
    parts, k = [], 0
    while k < len(element):
        width = 3 if k in sparse else 1
        parts.append(element[k:k + width])
        k += width
    return parts
