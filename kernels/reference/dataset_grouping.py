"""The grouping stages of a dataset pipeline (``kernels/reference/dataset.py`` runs
it), behind ``group_by_window``, ``bucket_by_sequence_length`` and ``group_by_reducer``
(``devsession/data/grouping.py``):

``group_by_window``  the upstream's elements are ``[key, window_size, components...]``
                     (a map of the traced key and window-size functions put the first
                     two there); elements of one key gather until the key's window is
                     ``window_size`` long (the size of its first element: TF asks the
                     function once per key), which is then emitted as
                     ``[key, padded..., shapes...]``: each component of the window's
                     elements stacked, padded with zeros to the largest, and the
                     elements' own shapes (an int64 ``[n, rank]`` per component).  Once
                     the input ends, the unfinished windows follow in increasing key
                     order, as TF's (a ``std::map``).
``group_by_reducer`` the upstream's elements are ``[key, initial state..., components...]``
                     (a map of the traced key and init functions put the first ones
                     there): the traced ``fn`` folds each element into its key's state
                     (``num_state`` tensors, the element's initial state for a new key);
                     once the input ends, each key's state is an element, by increasing
                     key as TF's.
``unpad``            each element ``[padded..., shapes...]`` as its padded components cut
                     back to their shapes: over the slices of a window, the window
                     dataset ``reduce_func`` receives.

An error (an input element's, a key or window size that is not a scalar int64 or not
positive, ``fn``'s) is raised for its ``get_next`` and leaves the windows and states as
they were, as TF's: a key whose window size failed is asked again.

A window travels padded because its elements may differ in shape (variable-length
sequences are what ``bucket_by_sequence_length`` groups), and a pipeline's values are
arrays.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InvalidArgumentError

from .dataset_failures import Failed, attempt

__all__ = ["group_by_window_stage", "group_by_reducer_stage", "unpad_stage"]


def group_by_window_stage(node, stage, upstream, _, __):
    def windows():
        groups: dict[int, list] = {}
        sizes: dict[int, int] = {}
        for element in upstream():
            key = element if element.__class__ is Failed else \
                attempt(_scalar, node, element[0], "key_func")
            if key.__class__ is not Failed and key not in sizes:
                size = attempt(_window_size, node, element[1])
                if size.__class__ is Failed:
                    key = size
                else:
                    sizes[key] = size
            if key.__class__ is Failed:
                yield key
                continue
            group = groups.setdefault(key, [])
            group.append(element[2:])
            if len(group) == sizes[key]:
                del groups[key]
                yield attempt(_window, node, key, group)
        for key in sorted(groups):
            yield attempt(_window, node, key, groups[key])
    return windows


def _window_size(node, value) -> int:
    size = _scalar(node, value, "window_size_func")
    if size <= 0:
        raise InvalidArgumentError(f"Window size must be greater than zero, but got "
                                   f"{size}.", node.name)
    return size


def group_by_reducer_stage(node, stage, upstream, captured, functions):
    reduce, count = functions[stage["fn"]], stage["num_state"]

    def folded(states: dict, element) -> tuple:
        key = _scalar(node, element[0], "key_func")
        state = states.get(key, element[1:1 + count])
        return key, [np.asarray(v) for v in reduce(state + element[1 + count:] + captured)]

    def reduced():
        states: dict[int, list] = {}
        for element in upstream():
            step = element if element.__class__ is Failed else \
                attempt(folded, states, element)
            if step.__class__ is Failed:        # raised while folding, as TF's
                yield step
            else:
                states[step[0]] = step[1]
        for key in sorted(states):
            yield states[key]
    return reduced


def _scalar(node, value, function: str) -> int:
    value = np.asarray(value)
    if value.dtype != np.int64 or value.size != 1:
        raise InvalidArgumentError(f"`{function}` must return a scalar int64.", node.name)
    return int(value.reshape(()))


def _window(node, key: int, elements: list) -> list:
    count = len(elements[0])
    columns = [[e[k] for e in elements] for k in range(count)]
    padded = [_padded(node, values, k) for k, values in enumerate(columns)]
    shapes = [np.array([v.shape for v in values], np.int64).reshape(len(values), -1)
              for values in columns]
    return [np.int64(key), *padded, *shapes]


def _padded(node, values: list, component: int) -> np.ndarray:
    """``values`` stacked, each padded with zeros (``b""``) to the largest shape."""
    first = values[0]
    if all(v.shape == first.shape for v in values):
        return np.stack(values)
    if any(v.ndim != first.ndim for v in values):
        ranks = sorted({v.ndim for v in values})
        raise InvalidArgumentError(f"'{node.name}': component {component} of a window's "
                                   f"elements has ranks {ranks}; they must agree.",
                                   node.name)
    target = np.max([v.shape for v in values], axis=0)
    out = np.zeros((len(values), *target), first.dtype)
    if first.dtype == object:
        out.fill(b"")
    for i, v in enumerate(values):
        out[(i, *(slice(0, n) for n in v.shape))] = v
    return out


def unpad_stage(node, stage, upstream, _, __):
    def elements():
        for element in upstream():
            if element.__class__ is Failed:
                yield element
                continue
            count = len(element) // 2
            yield [p[tuple(slice(0, int(n)) for n in shape)].copy()
                   for p, shape in zip(element[:count], element[count:])]
    return elements
