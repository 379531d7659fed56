"""The ops behind ``ds.data`` iterators: ``MakeDatasetIterator`` (an iterator's
``initializer``), ``DatasetIteratorGetNext`` (``get_next()``), and for TF1's feedable
iterators ``DatasetIteratorHandle`` (``string_handle()``) and
``DatasetIteratorGetNextFromHandle`` (``Iterator.from_string_handle(...).get_next()``).

A dataset is a host-side pipeline: a source (the slices of tensors, one element of
tensors, a range) and a chain of stages (map, filter, shuffle, batch, repeat...).  It is
described by the attr ``pipeline``, a JSON list of stages (``devsession/data/`` writes
it, ``kernels/reference/dataset.py`` runs it), and by the op's inputs: the source's
tensors, then the tensors each traced function captured.  The functions of ``map`` and
``filter`` travel as function attrs ``f0``, ``f1``... (``function_graph.py``), so the
runtime plans them as it plans a ``cond``'s branches.  No Python object, pickle or
code crosses into the graph: a GraphDef holding these ops is data.

* ``MakeDatasetIterator(inputs...)`` (no output): (re)starts the iterator named by the
  attr ``shared_name`` in the session's resources at the pipeline's first element.
* ``DatasetIteratorGetNext`` gives the next element, one output per component
  (attrs ``output_types``, ``output_shapes``); at the end of the data it raises
  ``OutOfRangeError``, before initialization ``FailedPreconditionError``.  A one-shot
  iterator's GetNext carries the pipeline and its inputs itself (attr ``one_shot``) and
  starts the iterator on its first run.
* ``DatasetIteratorHandle`` gives the iterator's name (its ``shared_name``) as a string
  scalar, starting a one-shot iterator as its GetNext would.
* ``DatasetIteratorGetNextFromHandle(handle)`` is GetNext for the iterator that handle
  names in the session's resources (a name, never code: a handle from elsewhere can only
  name an iterator of this session, and an unknown one is a NotFoundError).
* With the attr ``as_optional`` either GetNext is ``get_next_as_optional()``: its first
  output a bool scalar, whether there was an element (the rest zeros, their unknown
  dimensions 0, at the end of the data, where GetNext raises).
* ``DatasetWriteTFRecord(filename, compression_type, inputs...)`` (no output) runs its
  pipeline of scalar strings to the end, writing each as a record of the TFRecord file
  (``data.experimental.TFRecordWriter(filename).write(dataset)``; TF's
  ``DatasetToTFRecord`` takes a variant devsession has not).
* ``DatasetReduce(inputs...)`` runs its pipeline, whose last stage is a scan, to the end
  and gives the scan's last state (its initial state, an input, for no elements):
  ``dataset.reduce(initial_state, reduce_func)``, attrs ``output_types`` and
  ``output_shapes`` (TF's ``ReduceDataset`` takes a variant devsession has not).
* ``DatasetOptionalGetValue(has_value, components...)`` gives the components, or
  TF's ``InvalidArgumentError`` where ``has_value`` is False: ``Optional.get_value()``
  (``data/optional.py``; TF's optionals are variants devsession has not).

All are stateful and run on the host (TF's iterator ops are CPU ops too).
"""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["MAKE_ITERATOR", "GET_NEXT", "HANDLE", "GET_NEXT_FROM_HANDLE", "FUNCTION_SLOTS",
           "OPTIONAL_GET_VALUE", "WRITE_TFRECORD", "REDUCE"]

MAKE_ITERATOR = "MakeDatasetIterator"
GET_NEXT = "DatasetIteratorGetNext"
HANDLE = "DatasetIteratorHandle"
GET_NEXT_FROM_HANDLE = "DatasetIteratorGetNextFromHandle"
OPTIONAL_GET_VALUE = "DatasetOptionalGetValue"
WRITE_TFRECORD = "DatasetWriteTFRecord"
REDUCE = "DatasetReduce"
# The attrs that may hold a pipeline's traced functions (map and filter stages).
FUNCTION_SLOTS = tuple(f"f{i}" for i in range(8))


def _make_iterator(inputs, attrs, node):
    if not attrs.get("shared_name"):
        raise InferError(f"Op '{node}': a dataset iterator needs a shared_name.")
    return None


def _get_next(inputs, attrs, node):
    types, shapes = attrs["output_types"], attrs["output_shapes"]
    if not types or len(types) != len(shapes):
        raise InferError(f"Op '{node}': output_types and output_shapes must name the same, "
                         f"non-zero number of components.")
    components = [(dtype, TensorShape(shape)) for dtype, shape in zip(types, shapes)]
    if attrs.get("as_optional"):
        return [(dtypes.bool_, TensorShape([])), *components]
    return components


def _handle(inputs, attrs, node):
    _make_iterator(inputs, attrs, node)
    return [(dtypes.string, TensorShape([]))]


def _get_next_from_handle(inputs, attrs, node):
    (handle,) = inputs
    if handle.dtype != dtypes.string or not handle.shape.is_compatible_with([]):
        raise InferError(f"Op '{node}': the iterator handle must be a string scalar, got "
                         f"{handle.dtype.name} {handle.shape}.")
    return _get_next(inputs, attrs, node)


def _optional_get_value(inputs, attrs, node):
    if not inputs:
        raise InferError(f"Op '{node}': an optional's value needs its has_value input.")
    has_value, *components = inputs
    if has_value.dtype != dtypes.bool_ or not has_value.shape.is_compatible_with([]):
        raise InferError(f"Op '{node}': has_value must be a bool scalar, got "
                         f"{has_value.dtype.name} {has_value.shape}.")
    return [(t.dtype, t.shape) for t in components]


def _write_tfrecord(inputs, attrs, node):
    for what, tensor in zip(("filename", "compression_type"), inputs[:2]):
        if tensor.dtype != dtypes.string or not tensor.shape.is_compatible_with([]):
            raise InferError(f"Op '{node}': {what} must be a string scalar, got "
                             f"{tensor.dtype.name} {tensor.shape}.")
    return None


register_op(OpDef(MAKE_ITERATOR, _make_iterator, None, stateful=True, has_output=False,
                  function_attrs=FUNCTION_SLOTS))
register_op(OpDef(GET_NEXT, _get_next, None, stateful=True, function_attrs=FUNCTION_SLOTS,
                  attr_defaults={"one_shot": False, "pipeline": "", "as_optional": False}))
register_op(OpDef(HANDLE, _handle, None, stateful=True, function_attrs=FUNCTION_SLOTS,
                  attr_defaults={"one_shot": False, "pipeline": ""}))
register_op(OpDef(GET_NEXT_FROM_HANDLE, _get_next_from_handle, 1, stateful=True,
                  attr_defaults={"as_optional": False}))
register_op(OpDef(OPTIONAL_GET_VALUE, _optional_get_value, None))
register_op(OpDef(REDUCE, _get_next, None, stateful=True, function_attrs=FUNCTION_SLOTS,
                  attr_defaults={"pipeline": ""}))
register_op(OpDef(WRITE_TFRECORD, _write_tfrecord, None, stateful=True, has_output=False,
                  function_attrs=FUNCTION_SLOTS, attr_defaults={"pipeline": ""}))
not_differentiable(MAKE_ITERATOR, GET_NEXT, HANDLE, GET_NEXT_FROM_HANDLE, OPTIONAL_GET_VALUE,
                   WRITE_TFRECORD, REDUCE)
