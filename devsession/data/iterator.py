"""``ds.data.Iterator``: TF1's iterators over a ``Dataset``, as graph ops.

* one-shot (``dataset.make_one_shot_iterator()``): ``get_next()`` starts the iterator on
  its first run; it cannot be restarted.
* initializable (``dataset.make_initializable_iterator()``): run ``iterator.initializer``
  first (and again to start over), feeding the placeholders the dataset was built from.
* reinitializable (``Iterator.from_structure(types, shapes)``):
  ``iterator.make_initializer(dataset)`` gives one initializer per dataset of that
  structure (TF1's training/validation switch).
* feedable (``Iterator.from_string_handle(handle, types, shapes)``): ``get_next()``
  reads from whichever iterator the string fed as ``handle`` names, a value that
  iterator's ``string_handle()`` gave (TF1's other training/validation switch, where
  each source keeps its position).

Each ``get_next()`` call builds a ``DatasetIteratorGetNext`` op; running it gives the
next element, and ``OutOfRangeError`` after the last (what TF1's input loops catch).
The iterator is named by a ``shared_name`` unique to the iterator (so two programs on
one cluster never share one by accident), under which the session keeps it.  Its ops
(initializers, ``get_next``, ``string_handle``) are built under the device scopes in
force where the iterator was made, wherever they are asked for: TF colocates them with
the iterator's resource, so a ``get_next()`` called under a worker's scope for an
iterator made on a parameter server reads that iterator, on that server.
"""

from __future__ import annotations

import uuid

from .. import dtypes
from ..graph import (Operation, convert_to_tensor, device_scopes, get_default_graph,
                     under_device_scopes)
from ..ops import nest
from ..ops.dataset import GET_NEXT, GET_NEXT_FROM_HANDLE, HANDLE, MAKE_ITERATOR
from ..tensor_shape import TensorShape, as_shape
from .optional import Optional
from .structure import ElementSpec, SparseSpec, Structured, flat_outputs, packed_outputs

__all__ = ["Iterator", "make_one_shot_iterator", "make_initializable_iterator"]


class Iterator(Structured):
    """A TF1 ``tf.data.Iterator`` (see the module docstring); made by a Dataset's
    ``make_*_iterator`` or by ``Iterator.from_structure``."""

    def __init__(self, graph, shared_name: str | None, structure, initializer=None,
                 one_shot=None, handle=None):
        self._graph = graph
        self._shared_name = shared_name
        self._structure = structure
        self._initializer = initializer
        self._one_shot = one_shot
        self._handle = handle           # from_string_handle's string tensor
        self._device_scopes = device_scopes()   # where TF would make its resource

    @classmethod
    def one_shot(cls, dataset) -> "Iterator":
        from ..ops.random import skip_seed

        with dataset._graph.as_default():
            skip_seed()     # TF's takes an op seed for the graph seed of its dataset function
        return cls(dataset._graph, _unique("OneShotIterator"), dataset._structure,
                   one_shot=dataset)

    @classmethod
    def initializable(cls, dataset, shared_name=None) -> "Iterator":
        iterator = cls(dataset._graph, shared_name or _unique("Iterator"), dataset._structure)
        iterator._initializer = iterator.make_initializer(dataset, name="MakeIterator")
        return iterator

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None) -> "Iterator":
        """An iterator of that structure, started by ``make_initializer(dataset)``."""
        return Iterator(get_default_graph(), shared_name or _unique("Iterator"),
                        _structure(output_types, output_shapes))

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None) -> "Iterator":
        """An iterator whose ``get_next()`` reads from the iterator that the string
        ``string_handle`` (usually a placeholder fed per run) names: one of this
        session's iterators, by the value its ``string_handle()`` gave."""
        graph = get_default_graph()
        handle = convert_to_tensor(string_handle, dtype=dtypes.string, graph=graph)
        if not handle.shape.is_compatible_with([]):
            raise ValueError(f"from_string_handle: the handle must be a string scalar, "
                             f"got shape {handle.shape}.")
        return Iterator(graph, None, _structure(output_types, output_shapes), handle=handle)

    # --- TF1's surface --------------------------------------------------------------------------

    @property
    def initializer(self) -> Operation:
        if self._handle is not None:
            raise ValueError("An iterator made by from_string_handle has no initializer: "
                             "initialize the iterators whose handles are fed to it.")
        if self._initializer is None:
            raise ValueError("This iterator has no initializer: a one-shot iterator starts "
                             "on its first get_next(); a from_structure iterator is started "
                             "by the op make_initializer(dataset) returns.")
        return self._initializer

    def make_initializer(self, dataset, name=None) -> Operation:
        """The op starting this iterator over ``dataset`` (same structure and dtypes,
        compatible shapes, else TypeError/ValueError)."""
        nest.assert_same_structure(self._structure, dataset._structure)
        for mine, theirs in zip(nest.flatten(self._structure), dataset.flat_specs):
            if mine.dtype != theirs.dtype:
                raise TypeError(f"make_initializer: the dataset yields {theirs.dtype.name} "
                                f"where the iterator expects {mine.dtype.name}.")
            if not mine.shape.is_compatible_with(theirs.shape):
                raise ValueError(f"make_initializer: the dataset yields shape "
                                 f"{theirs.shape} where the iterator expects {mine.shape}.")
        attrs = {**dataset.op_attrs(), "shared_name": self._shared_name}
        with under_device_scopes(self._device_scopes):
            return dataset._graph.create_op(MAKE_ITERATOR, list(dataset._inputs), attrs,
                                            name=name or "make_initializer",
                                            control_inputs=dataset._control)

    def get_next(self, name=None):
        """The next element: a structure of tensors (SparseTensors for sparse
        components) as the dataset's elements."""
        specs = nest.flatten(self._structure)
        outputs = flat_outputs(specs)
        attrs = {"output_types": tuple(t for t, _ in outputs),
                 "output_shapes": tuple(s for _, s in outputs)}
        op = self._iterator_op(GET_NEXT, attrs, name or "IteratorGetNext")
        return nest.pack_sequence_as(self._structure,
                                     packed_outputs(specs, list(op.outputs)))

    def get_next_as_optional(self):
        """The next element as an ``Optional`` (``optional.py``): ``has_value()`` False
        at the end of the data, where ``get_next()`` raises ``OutOfRangeError``."""
        specs = nest.flatten(self._structure)
        if any(isinstance(s, SparseSpec) for s in specs):
            raise TypeError("get_next_as_optional: devsession's optionals hold dense "
                            "tensors; this dataset gives SparseTensors (use get_next).")
        attrs = {"output_types": tuple(s.dtype for s in specs),
                 "output_shapes": tuple(s.shape for s in specs), "as_optional": True}
        op = self._iterator_op(GET_NEXT, attrs, "IteratorGetNextAsOptional")
        has_value, *components = op.outputs
        return Optional(has_value, components, self._structure)

    def string_handle(self, name=None):
        """A string scalar naming this iterator, to feed to the handle of an iterator
        made by ``from_string_handle`` (running it starts a one-shot iterator)."""
        if self._handle is not None:
            return self._handle
        return self._iterator_op(HANDLE, {}, name or "IteratorToStringHandle").outputs[0]

    def _iterator_op(self, op_type: str, attrs: dict, name: str) -> Operation:
        """An op on this iterator, where the iterator was made: a one-shot iterator's
        ops carry its pipeline and inputs, so whichever runs first starts it; a
        ``get_next`` of one made by ``from_string_handle`` reads its handle."""
        inputs, control = [], ()
        if self._handle is not None:
            op_type, inputs = GET_NEXT_FROM_HANDLE, [self._handle]
        else:
            attrs = {**attrs, "shared_name": self._shared_name}
        if self._one_shot is not None:
            attrs.update(self._one_shot.op_attrs(), one_shot=True)
            inputs, control = list(self._one_shot._inputs), self._one_shot._control
        with under_device_scopes(self._device_scopes):
            return self._graph.create_op(op_type, inputs, attrs, name=name,
                                         control_inputs=control)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        from ..unsupported import missing

        raise missing("data.Iterator", name)


def _structure(output_types, output_shapes):
    """The element specs of ``output_types`` and ``output_shapes`` (unknown shapes when
    None), nested as the types are."""
    types = nest.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is None:
        output_shapes = nest.map_structure(lambda _: TensorShape(None), types)
    shapes = nest.flatten_up_to(types, output_shapes)   # a shape may be a list: [] is a scalar
    return nest.pack_sequence_as(types, [
        ElementSpec(t, as_shape(s)) for t, s in zip(nest.flatten(types), shapes)])


def _unique(kind: str) -> str:
    return f"{kind}_{uuid.uuid4().hex[:16]}"


def make_one_shot_iterator(dataset) -> Iterator:
    """TF1's ``tf.compat.v1.data.make_one_shot_iterator(dataset)``."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None) -> Iterator:
    """TF1's ``tf.compat.v1.data.make_initializable_iterator(dataset)``."""
    return dataset.make_initializable_iterator(shared_name)
