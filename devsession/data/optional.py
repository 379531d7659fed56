"""TF's ``Optional`` (``tf.data.experimental.Optional``): a value that may be absent,
what ``iterator.get_next_as_optional()`` gives so that a loop can test for the end of
the data instead of catching ``OutOfRangeError``:

    optional = iterator.get_next_as_optional()
    step = ds.cond(optional.has_value(), lambda: train(optional.get_value()), ...)

TF's optional is one variant tensor; devsession's is its parts: ``has_value()``, a bool
scalar tensor, and the value's tensors, which ``get_value()`` passes through a
``DatasetOptionalGetValue`` op raising TF's ``InvalidArgumentError`` ("The given
optional does not have a value.") when run without one (``ops/dataset.py``).
"""

from __future__ import annotations

import numpy as np

from ..graph import convert_to_tensor, name_scope
from ..ops import nest
from ..ops.dataset import OPTIONAL_GET_VALUE
from .structure import ElementSpec

__all__ = ["Optional", "get_next_as_optional"]


class Optional:
    """An optional value of the structure ``element_spec`` (a nest of ElementSpec):
    ``has_value()`` and ``get_value()``.  Made by ``Iterator.get_next_as_optional()``,
    ``Optional.from_value`` or ``Optional.empty``."""

    def __init__(self, has_value, components: list, element_spec):
        self._has_value = has_value
        self._components = list(components)
        self._element_spec = element_spec

    @staticmethod
    def from_value(value) -> "Optional":
        """An optional holding ``value`` (a nest of tensors)."""
        with name_scope("optional"):
            flat = [convert_to_tensor(v, name="value") for v in nest.flatten(value)]
            has_value = convert_to_tensor(True, name="has_value")
        spec = nest.pack_sequence_as(value, [ElementSpec(t.dtype, t.shape) for t in flat])
        return Optional(has_value, flat, spec)

    @staticmethod
    def empty(element_spec) -> "Optional":
        """An optional of the structure ``element_spec`` (specs with ``dtype`` and
        ``shape``) holding nothing."""
        specs = [ElementSpec(s.dtype, s.shape) for s in nest.flatten(element_spec)]
        zeros = [convert_to_tensor(np.zeros([d or 0 for d in (s.shape.dims or ())],
                                            s.dtype.as_numpy_dtype), dtype=s.dtype)
                 for s in specs]
        return Optional(convert_to_tensor(False), zeros,
                        nest.pack_sequence_as(element_spec, specs))

    @property
    def element_spec(self):
        return self._element_spec

    def has_value(self, name=None):
        """A bool scalar: whether this optional holds a value."""
        if name is None:
            return self._has_value
        from ..ops import identity
        return identity(self._has_value, name=name)

    def get_value(self, name=None):
        """The value (the structure of ``element_spec``); running it on an empty
        optional is TF's ``InvalidArgumentError``."""
        op = self._has_value.graph.create_op(
            OPTIONAL_GET_VALUE, [self._has_value, *self._components], {},
            name=name or "OptionalGetValue")
        return nest.pack_sequence_as(self._element_spec, list(op.outputs))


def get_next_as_optional(iterator) -> Optional:
    """TF1's ``tf.data.experimental.get_next_as_optional(iterator)``."""
    return iterator.get_next_as_optional()

