"""``tf.nest``: nested structures, as TF's functions see them, for programs.

The structures are the ones ``cond``, ``while_loop`` and ``tf.data`` carry
(``ops/nest.py``): lists, tuples, namedtuples, dicts and other mappings (values in sorted
key order) and dict views, anything else a leaf.  This module adds TF's signatures:
``map_structure`` over several structures, and ``expand_composites=True``, which treats a
composite tensor as the structure of the tensors it is made of, in TF's order:

=================  ============================================
``SparseTensor``   indices, values, dense_shape
``IndexedSlices``  values, indices (and dense_shape if it has one)
``RaggedTensor``   flat_values, then the row splits, outermost first
=================  ============================================

    tf.nest.flatten({"b": 1, "a": [2, (3, 4)]})              # [2, 3, 4, 1]
    tf.nest.map_structure(lambda x, y: x + y, [1, (2,)], [10, (20,)])   # [11, (22,)]
"""

from __future__ import annotations

from collections.abc import Mapping

from .indexed_slices import IndexedSlices
from .ops import nest as _nest
from .ragged.ragged_tensor import RaggedTensor
from .sparse_tensor import SparseTensor

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def is_nested(seq) -> bool:
    """True for a list, tuple, mapping or dict view (a string is a leaf)."""
    return _nest.is_nested(seq)


def flatten(structure, expand_composites: bool = False) -> list:
    """The leaves of ``structure``, depth first (a mapping's in sorted key order)."""
    if expand_composites:
        structure = _nest.map_structure(_expanded_leaf, structure)
    return _nest.flatten(structure)


def pack_sequence_as(structure, flat_sequence, expand_composites: bool = False):
    """``flat_sequence`` (a list or tuple of leaves) in the nesting of ``structure``."""
    if not _nest.is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence!r}\ninto a structure, but "
                        f"found incompatible type `{type(flat_sequence)}` instead.")
    flat_sequence = list(flat_sequence)
    leaves = _nest.flatten(structure)
    sizes = [_component_count(leaf) if expand_composites else 1 for leaf in leaves]
    if sum(sizes) != len(flat_sequence):
        if not _nest.is_nested(structure):
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  "
                             f"{structure!r}\nHowever the input is a sequence "
                             f"({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                             f"{flat_sequence!r}\nnest cannot guarantee that it is safe to "
                             "map one to the other.")
        raise ValueError(f"Could not pack sequence. Structure had {sum(sizes)} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.  Structure: "
                         f"{structure}, flat_sequence: {flat_sequence}.")
    packed, start = [], 0
    for leaf, size in zip(leaves, sizes):
        parts = flat_sequence[start:start + size]
        packed.append(_composite_like(leaf, parts) if _components(leaf) is not None and
                      expand_composites else parts[0])
        start += size
    return _nest.pack_sequence_as(structure, packed)


def assert_same_structure(nest1, nest2, check_types: bool = True,
                          expand_composites: bool = False) -> None:
    """ValueError where the nesting or the lengths differ (or, expanding composites, a
    composite meets anything but one of its type), TypeError where a container's type
    does (a list against a tuple) and ``check_types`` is on."""
    if expand_composites:
        _same_composites(nest1, nest2)
        nest1 = _nest.map_structure(_expanded_leaf, nest1)
        nest2 = _nest.map_structure(_expanded_leaf, nest2)
    _nest.assert_same_structure(nest1, nest2, check_types=check_types)


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the leaves at the same place in every structure, in the nesting
    of the first; the structures must match (``check_types`` as in
    ``assert_same_structure``)."""
    unexpected = sorted(set(kwargs) - {"check_types", "expand_composites"})
    if unexpected:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{'`, `'.join(unexpected)}`")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.get("check_types", True)
    expand_composites = kwargs.get("expand_composites", False)
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types,
                              expand_composites=expand_composites)
    flats = [flatten(s, expand_composites=expand_composites) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)],
                            expand_composites=expand_composites)


def _components(value) -> list | None:
    """The tensors a composite tensor is made of, in TF's order; None for anything else."""
    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    if isinstance(value, IndexedSlices):
        return [value.values, value.indices] + (
            [] if value.dense_shape is None else [value.dense_shape])
    if isinstance(value, RaggedTensor):
        return [value.flat_values, *value.nested_row_splits]
    return None


def _expanded_leaf(leaf):
    parts = _components(leaf)
    return leaf if parts is None else parts


def _component_count(leaf) -> int:
    parts = _components(leaf)
    return 1 if parts is None else len(parts)


def _composite_like(template, parts: list):
    """A composite of ``template``'s type made of ``parts``."""
    if isinstance(template, SparseTensor):
        return SparseTensor(*parts)
    if isinstance(template, IndexedSlices):
        return IndexedSlices(*parts)
    return RaggedTensor.from_nested_row_splits(parts[0], parts[1:], validate=False)


def _same_composites(nest1, nest2) -> None:
    """ValueError where a composite meets anything but a composite of its type (TF
    compares their type specs); the containers around them are compared afterwards."""
    if _nest.is_nested(nest1) and _nest.is_nested(nest2):
        if isinstance(nest1, Mapping) and isinstance(nest2, Mapping):
            pairs = [(nest1[k], nest2[k]) for k in nest1 if k in nest2]
        else:
            pairs = zip(nest1, nest2)
        for a, b in pairs:
            _same_composites(a, b)
    elif (_components(nest1) is not None or _components(nest2) is not None) and \
            type(nest1) is not type(nest2):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         f"First structure: type={type(nest1).__name__} str={nest1!r}\n\n"
                         f"Second structure: type={type(nest2).__name__} str={nest2!r}")
