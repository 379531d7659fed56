"""The two ops behind ``ds.data`` iterators: ``MakeDatasetIterator`` (an iterator's
``initializer``) and ``DatasetIteratorGetNext`` (``get_next()``).

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

Both are stateful and run on the host (TF's iterator ops are CPU ops too).
"""

from __future__ import annotations

from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["MAKE_ITERATOR", "GET_NEXT", "FUNCTION_SLOTS"]

MAKE_ITERATOR = "MakeDatasetIterator"
GET_NEXT = "DatasetIteratorGetNext"
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
    return [(dtype, TensorShape(shape)) for dtype, shape in zip(types, shapes)]


register_op(OpDef(MAKE_ITERATOR, _make_iterator, None, stateful=True, has_output=False,
                  function_attrs=FUNCTION_SLOTS))
register_op(OpDef(GET_NEXT, _get_next, None, stateful=True, function_attrs=FUNCTION_SLOTS,
                  attr_defaults={"one_shot": False, "pipeline": ""}))
not_differentiable(MAKE_ITERATOR, GET_NEXT)
