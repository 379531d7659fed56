"""The kernels of TF's ragged ops (``devsession/ops/ragged.py``), on the host: numpy over
the row splits, TF's InvalidArgumentErrors for inputs that make no ragged tensor."""

from __future__ import annotations

import numpy as np

from devsession.dtypes import as_dtype

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["range_sizes", "splits_from_rowids"]


def range_sizes(starts, limits, deltas) -> np.ndarray:
    """How many values each ``range(start, limit, delta)`` has (delta nonzero)."""
    if starts.dtype.kind in "iu":
        span, step = limits.astype(np.int64) - starts, deltas.astype(np.int64)
        sizes = np.where(step > 0, (span + step - 1) // np.where(step == 0, 1, step),
                         (span + step + 1) // np.where(step == 0, 1, step))
    else:
        sizes = np.ceil((limits.astype(np.float64) - starts) / deltas)
    return np.maximum(sizes, 0).astype(np.int64)


@register_kernel("RaggedRange", HOST)
def build_ragged_range(node):
    splits_type = as_dtype(node.attrs.get("Tsplits", "int64")).np

    def ragged_range(starts, limits, deltas):
        parts = [np.asarray(a) for a in (starts, limits, deltas)]
        for part, what in zip(parts, ("starts", "limits", "deltas")):
            if part.ndim > 1:
                raise invalid_argument(node.name, node.op, f"{what} must be a scalar or "
                                       f"vector")
        sizes = {len(p) for p in parts if p.ndim == 1}
        if len(sizes) > 1:
            raise invalid_argument(node.name, node.op, "starts, limits, and deltas must "
                                   "have the same shape")
        rows = sizes.pop() if sizes else 1
        starts, limits, deltas = (np.broadcast_to(p, (rows,)) for p in parts)
        if np.any(deltas == 0):
            raise invalid_argument(node.name, node.op, "Requires delta != 0")
        counts = range_sizes(starts, limits, deltas)
        splits = np.zeros(rows + 1, splits_type)
        np.cumsum(counts, out=splits[1:])
        row = np.repeat(np.arange(rows), counts)
        offset = np.arange(splits[-1]) - splits[:-1][row]
        values = (starts[row] + offset * deltas[row]).astype(parts[0].dtype)
        return splits, values
    return ragged_range


def check_splits(node, splits, size: int, level: int):
    """TF's errors for row splits that do not partition ``size`` values."""
    splits = np.asarray(splits)
    if splits.ndim != 1 or len(splits) == 0 or splits[0] != 0 or \
            np.any(np.diff(splits) < 0) or splits[-1] != size:
        raise invalid_argument(node.name, node.op, f"Invalid row_splits at level {level}: "
                               f"they must be a vector that starts at 0, does not decrease "
                               f"and ends at the number of values, {size}; got "
                               f"{splits.tolist()}")
    return splits.astype(np.int64)


def splits_from_rowids(rowids, nrows: int) -> np.ndarray:
    """Row splits from the (sorted) row of each value."""
    counts = np.bincount(np.asarray(rowids, np.int64), minlength=nrows)[:nrows]
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _nested_splits(node, partitions, types, values) -> list:
    """Row splits of every ragged level, checked, outermost first."""
    partitions = list(partitions)
    if types and types[0] == "FIRST_DIM_SIZE":
        nrows = int(partitions.pop(0))
        types = types[1:]
    else:
        nrows = None
    splits = []
    for level, (kind, part) in enumerate(zip(types, partitions)):
        if kind == "ROW_SPLITS":
            splits.append(np.asarray(part, np.int64))
        elif kind == "VALUE_ROWIDS":
            rows = nrows if level == 0 else int(splits[-1][-1])
            ids = np.asarray(part, np.int64)
            if ids.size and (ids.min() < 0 or ids.max() >= rows or np.any(np.diff(ids) < 0)):
                raise invalid_argument(node.name, node.op, "value_rowids must be sorted and "
                                       "within [0, nrows)")
            splits.append(splits_from_rowids(ids, rows))
        else:
            raise invalid_argument(node.name, node.op, f"Unsupported row partition type "
                                   f"{kind!r}")
    for level, part in enumerate(splits):
        size = len(splits[level + 1]) - 1 if level + 1 < len(splits) else len(values)
        check_splits(node, part, size, level)
    return splits


@register_kernel("RaggedTensorToTensor", HOST)
def build_ragged_tensor_to_tensor(node):
    types = [t.decode() if isinstance(t, bytes) else str(t)
             for t in node.attrs.get("row_partition_types", ())]

    def ragged_tensor_to_tensor(shape, values, default_value, *partitions):
        values = np.asarray(values)
        splits = _nested_splits(node, partitions, types, values)
        inner = values.shape[1:]
        bounding = [len(splits[0]) - 1] + [int(np.max(np.diff(s), initial=0)) for s in splits]
        shape = np.asarray(shape)
        if shape.ndim == 1:
            if len(shape) != len(bounding) + len(inner):
                raise invalid_argument(node.name, node.op, f"shape {shape.tolist()} is of "
                                       f"the wrong rank for a ragged tensor of rank "
                                       f"{len(bounding) + len(inner)}")
            want = [int(d) if d >= 0 else b for d, b in zip(shape.tolist(), bounding + list(inner))]
            if list(inner) != want[len(splits) + 1:]:
                raise invalid_argument(node.name, node.op, f"The inner {len(inner)} "
                                       f"dimensions of the output.shape={want} must match "
                                       f"the inner dimensions of values.shape="
                                       f"{list(values.shape)}")
            dims = want
        else:
            dims = bounding + list(inner)
        default = np.asarray(default_value, values.dtype)
        try:
            out = np.array(np.broadcast_to(default, dims), dtype=values.dtype)
        except ValueError:
            raise invalid_argument(node.name, node.op, f"default_value.shape="
                                   f"{list(default.shape)} and rt_input.flat_values.shape="
                                   f"{list(values.shape)} are incompatible") from None
        # The index of every flat value in the dense output, level by level.
        index = [np.arange(len(splits[0]) - 1)]
        for part in splits:
            counts = np.diff(part)
            parent = np.repeat(np.arange(len(counts)), counts)
            position = np.arange(part[-1]) - part[:-1][parent]
            index = [i[parent] for i in index] + [position]
        keep = np.ones(len(values), bool)
        for axis, i in enumerate(index):
            keep &= i < dims[axis]
        target = tuple(i[keep] for i in index)
        out[target] = values[keep][(slice(None),) + tuple(slice(0, d) for d in dims[len(index):])]
        return out
    return ragged_tensor_to_tensor


@register_kernel("RaggedTensorToSparse", HOST)
def build_ragged_tensor_to_sparse(node):
    def ragged_tensor_to_sparse(*inputs):
        *partitions, values = inputs
        values = np.asarray(values)
        splits = _nested_splits(node, partitions, ["ROW_SPLITS"] * len(partitions), values)
        index = [np.arange(len(splits[0]) - 1)]
        for part in splits:
            counts = np.diff(part)
            parent = np.repeat(np.arange(len(counts)), counts)
            index = [i[parent] for i in index] + [np.arange(part[-1]) - part[:-1][parent]]
        inner = values.shape[1:]
        dense_shape = [len(splits[0]) - 1] + [int(np.max(np.diff(s), initial=0))
                                              for s in splits] + list(inner)
        if inner:
            cells = np.indices(inner).reshape(len(inner), -1).T
            repeat = len(cells)
            lead = np.stack(index, 1).repeat(repeat, 0)
            indices = np.concatenate([lead, np.tile(cells, (len(values), 1))], 1)
            flat = values.reshape(-1)
        else:
            indices = np.stack(index, 1) if index[0].size or len(values) else \
                np.zeros((0, len(index)), np.int64)
            flat = values
        return (indices.astype(np.int64).reshape(-1, len(dense_shape)), flat,
                np.asarray(dense_shape, np.int64))
    return ragged_tensor_to_sparse
