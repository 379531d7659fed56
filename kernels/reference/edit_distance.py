"""The kernel of ``EditDistance`` (``devsession/ops/edit_distance.py``), on the host:
each SparseTensor's values grouped by their leading indices into sequences (in the
order of the last index), the Levenshtein distance of each hypothesis sequence from the
truth sequence at the same position, normalized by the truth's length when asked
(an empty truth: inf, or 0 against an empty hypothesis)."""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["levenshtein"]


def levenshtein(a: list, b: list) -> int:
    """The fewest insertions, deletions and substitutions turning ``a`` into ``b``."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _sequences(indices, values, shape, node, what: str) -> dict:
    """{leading index tuple: the values at it, by last index}."""
    indices = np.asarray(indices)
    if indices.ndim != 2 or indices.shape[1] != len(shape) or len(values) != len(indices):
        raise invalid_argument(node.name, node.op, f"{what}: indices of shape "
                               f"{list(indices.shape)}, {len(values)} values and a shape of "
                               f"rank {len(shape)} do not make a SparseTensor")
    groups: dict = {}
    for index, value in zip(indices.tolist(), values):
        groups.setdefault(tuple(index[:-1]), []).append((index[-1], value))
    return {key: [v for _, v in sorted(items, key=lambda item: item[0])]
            for key, items in groups.items()}


@register_kernel("EditDistance", HOST)
def build_edit_distance(node):
    normalize = bool(node.attrs.get("normalize", True))

    def edit_distance(hyp_indices, hyp_values, hyp_shape, truth_indices, truth_values,
                      truth_shape):
        if len(hyp_shape) != len(truth_shape):
            raise invalid_argument(node.name, node.op, f"hypothesis_shape and truth_shape "
                                   f"must be of one rank, got {list(hyp_shape)} and "
                                   f"{list(truth_shape)}")
        out_shape = tuple(int(max(h, t)) for h, t in zip(hyp_shape[:-1], truth_shape[:-1]))
        hyp = _sequences(hyp_indices, hyp_values, hyp_shape, node, "hypothesis")
        truth = _sequences(truth_indices, truth_values, truth_shape, node, "truth")
        out = np.zeros(out_shape, np.float32)
        for key in set(hyp) | set(truth):
            if any(k >= n for k, n in zip(key, out_shape)):
                raise invalid_argument(node.name, node.op, f"index {list(key)} is outside "
                                       f"the output shape {list(out_shape)}")
            h, t = hyp.get(key, []), truth.get(key, [])
            distance = levenshtein(h, t)
            if normalize:
                distance = distance / len(t) if t else (np.inf if h else 0.0)
            out[key] = distance
        return out
    return edit_distance
