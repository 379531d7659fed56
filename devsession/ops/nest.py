"""Nested structures of tensors, as TF1's ``nest``: what ``cond`` branches return and
what ``while_loop`` carries.

A structure is a leaf (anything but a list, tuple, mapping or dict view), or a list,
tuple, namedtuple, dict (any ``Mapping``) or dict view of structures.  ``flatten`` lists
the leaves depth first (a mapping's values in sorted key order, as TF does: keys that do
not sort are TF's TypeError); ``pack_sequence_as`` puts a flat list back into a
structure's shape, keeping its container types (a dict view comes back as a list, as in
TF); ``assert_same_structure`` raises what TF raises: ValueError when the nesting or the
lengths differ, TypeError when a container's type does (a list against a tuple), unless
``check_types`` is off.  ``devsession/nest.py`` is the public ``tf.nest`` over these.

    flatten((a, [b, {"y": c, "x": d}]))          # [a, b, d, c]
    pack_sequence_as((0, [0, 0]), [1, 2, 3])      # (1, [2, 3])
"""

from __future__ import annotations

import collections
from collections.abc import Mapping, MappingView

__all__ = ["is_nested", "flatten", "flatten_up_to", "pack_sequence_as", "assert_same_structure",
           "map_structure"]


def is_nested(value) -> bool:
    return isinstance(value, (list, tuple, Mapping, MappingView))


def _children(value) -> list:
    if isinstance(value, Mapping):
        return [value[k] for k in _sorted_keys(value)]
    return list(value)


def _sorted_keys(d: Mapping) -> list:
    return sorted(d)           # TypeError for keys that do not sort, as TF's


def flatten(structure) -> list:
    if not is_nested(structure):
        return [structure]
    out: list = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def flatten_up_to(shallow, value) -> list:
    """``value``'s parts at ``shallow``'s leaves, in ``shallow``'s order: a part may itself
    be nested (a shape ``[None]`` where ``shallow`` has one component), as TF's
    ``nest.flatten_up_to``; ValueError where ``value`` lacks a level ``shallow`` has."""
    if not is_nested(shallow):
        return [value]
    if not is_nested(value) or isinstance(shallow, Mapping) != isinstance(value, Mapping) or \
            len(shallow) != len(value) or isinstance(shallow, Mapping) and set(shallow) != set(value):
        raise ValueError(f"The structure {value!r} does not have the nesting of "
                         f"{shallow!r}.")
    out: list = []
    for part_shallow, part in zip(_children(shallow), _children(value)):
        out.extend(flatten_up_to(part_shallow, part))
    return out


def _rebuild(template, items: list):
    if isinstance(template, Mapping):
        values = dict(zip(_sorted_keys(template), items))
        if isinstance(template, collections.defaultdict):
            return collections.defaultdict(template.default_factory,
                                           ((k, values[k]) for k in template))
        return type(template)((k, values[k]) for k in template)
    if isinstance(template, MappingView):
        return list(items)
    if isinstance(template, tuple) and hasattr(template, "_fields"):   # a namedtuple
        return type(template)(*items)
    return type(template)(items)


def pack_sequence_as(structure, flat: list):
    """``flat`` (a list of leaves) in the nesting of ``structure``; ValueError if the
    counts differ."""
    flat = list(flat)
    if len(flat) != len(flatten(structure)):
        raise ValueError(f"Structure {structure!r} has {len(flatten(structure))} leaves, "
                         f"but {len(flat)} values were given.")
    position = iter(flat)

    def build(template):
        if not is_nested(template):
            return next(position)
        return _rebuild(template, [build(child) for child in _children(template)])
    return build(structure)


def assert_same_structure(a, b, check_types: bool = True) -> None:
    """See the module docstring."""
    def fail(cls, why):
        raise cls(f"The two structures don't have the same nested structure.\n\n"
                  f"First structure: type={type(a).__name__} str={a!r}\n\n"
                  f"Second structure: type={type(b).__name__} str={b!r}\n\n"
                  f"More specifically: {why}.")

    def walk(x, y):
        if is_nested(x) != is_nested(y):
            fail(ValueError, f"{_describe(x)} against {_describe(y)}")
        if not is_nested(x):
            return
        if check_types and _container_type(x) is not _container_type(y):
            fail(TypeError, f"{type(x).__name__} against {type(y).__name__}")
        if isinstance(x, Mapping) != isinstance(y, Mapping) or (
                isinstance(x, Mapping) and set(x) != set(y)):
            fail(ValueError, "dicts with different keys")
        if len(x) != len(y):
            fail(ValueError, f"a {type(x).__name__} of {len(x)} against one of {len(y)}")
        for cx, cy in zip(_children(x), _children(y)):
            walk(cx, cy)
    walk(a, b)


def _container_type(value):
    return dict if isinstance(value, Mapping) else type(value)


def _describe(value) -> str:
    return f"a {type(value).__name__}" if is_nested(value) else "a single value"


def map_structure(fn, structure):
    return pack_sequence_as(structure, [fn(leaf) for leaf in flatten(structure)])
