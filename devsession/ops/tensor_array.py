"""The ops behind ``ds.TensorArray`` (``devsession/tensor_array.py``): a TensorArray as
values, not as a resource.

TF1's TensorArray is a resource that ``TensorArrayWriteV3`` mutates, ordered by a dummy
float "flow" tensor.  Here the flow *is* the array: two tensors that every op reads and
every write op outputs anew, so a TensorArray is plain dataflow.  A ``While`` carries it
as two loop variables, its gradient is the gradient of ordinary ops (no gradient
TensorArray, no stacks), the optimizer may fold or merge these ops as any stateless op,
and a GraphDef holding them is self-contained.

The two tensors:

* ``values`` (the array's dtype), shape ``[size, *element]``: element ``i`` at row
  ``i``.  Elements written with ``infer_shape=False`` may differ in their first
  dimension (``split`` with unequal lengths): a row is then padded with zeros to the
  longest, and ``lengths`` says how much of it is the element.  Until the first write
  the trailing dimensions are a placeholder (the declared element shape, 0 where
  unknown; none for an unknown rank): the first write sets them.
* ``lengths`` (int32, ``[size]``): -1 for an element not written yet, else the
  element's first dimension (0 for a scalar element).

======================================================  ==================================
``_TensorArray(size)``                                  (values, lengths), none written
``_TensorArrayWrite(values, lengths, index, value)``    (values, lengths) with one more
``_TensorArrayScatter(values, lengths, indices, value)``  ... with ``value``'s rows
``_TensorArraySplit(values, lengths, value, lengths)``  ... with ``value`` cut in pieces
``_TensorArrayRead(values, lengths, index)``            one element
``_TensorArrayGather(values, lengths, indices)``        elements stacked (``stack()``)
``_TensorArrayConcat(values, lengths)``                 every element, concatenated
======================================================  ==================================

The errors are TF1's, at run time and naming the node (``InvalidArgumentError``):
reading an element not written whose shape is not fully known (where it is, declared
or set by a write to an array of identical shapes, it reads as zeros, as in TF1; the
read ops carry the ``element_shape`` the graph knows), writing one twice (but with
attr ``overwrite``: TF 2's TensorLists, ``tf_tensor_list_import.py``, replace elements), an index past the size of an array
that is not ``dynamic_size`` (a dynamic one grows), elements of different shapes where
``infer_shape`` (attr ``identical_element_shapes``) wants them equal.  One more is
devsession's: elements of an ``infer_shape=False`` array may differ only in their
first dimension (TF's may differ in any, though only ``concat`` can then read them
together).  TF1 clears an element once read (``clear_after_read``): a second read of
it, or a write after the read, in one run; a value cannot forget, so the ops of such an
array carry the attr and their kernels note what was read
(``kernels/reference/tensor_array_clearing.py``).

Gradients (``tensor_array_grad.py``) use four more ops, each the adjoint of a read or
a write: ``_TensorArrayGatherGrad`` (elements placed back at their rows of a zero
array), ``_TensorArrayConcatGrad`` (a concatenation cut back into rows),
``_TensorArraySplitGrad`` (the first rows concatenated) and ``_TensorArrayUnwrite`` (a
gradient cut to the shape of the array before a write, the written rows zero).

TF's own TensorArray ops (``TensorArrayV3``...) are resource ops; a GraphDef's are
mapped onto these, their flows becoming the values (``tf_tensor_array_import.py``).  Kernels: ``kernels/reference/tensor_array.py``
(numpy or cupy: the GPU's too).  A write copies the array (kernels never mutate their
inputs): a loop writing ``n`` elements copies ``O(n^2)`` elements in all.
"""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape, as_shape
from .registry import InferError, OpDef, register_op

__all__ = ["TENSOR_ARRAY_OPS", "TENSOR_ARRAY_GRAD_OPS", "TF_TENSOR_ARRAY_OPS",
           "element_shape_of_values"]

TENSOR_ARRAY_OPS = ("_TensorArray", "_TensorArrayWrite", "_TensorArrayScatter",
                    "_TensorArraySplit", "_TensorArrayRead", "_TensorArrayGather",
                    "_TensorArrayConcat")
TENSOR_ARRAY_GRAD_OPS = ("_TensorArrayGatherGrad", "_TensorArrayConcatGrad",
                         "_TensorArraySplitGrad", "_TensorArrayUnwrite")
# TF's TensorArray ops (resources) and the TensorList ops TF2's graphs make TensorArrays
# of: a GraphDef import maps TF1's V3 ones (tf_tensor_array_import.py), refuses the rest
TF_TENSOR_ARRAY_OPS = frozenset(
    [f"TensorArray{kind}{version}" for version in ("", "V2", "V3")
     for kind in ("", "Write", "Read", "Gather", "Scatter", "Concat", "Split", "Size",
                  "Close", "Grad", "Pack", "Unpack", "GradWithShape")]
    + ["EmptyTensorList", "TensorListReserve", "TensorListSetItem", "TensorListGetItem",
       "TensorListStack", "TensorListFromTensor", "TensorListGather", "TensorListScatter",
       "TensorListScatterV2", "TensorListScatterIntoExistingList", "TensorListConcat",
       "TensorListConcatV2", "TensorListSplit", "TensorListLength", "TensorListElementShape",
       "TensorListPushBack", "TensorListPopBack", "TensorListResize"])

_WRITE_ATTRS = {"element_shape": TensorShape(None), "dynamic_size": False,
                "identical_element_shapes": True, "overwrite": False}


def element_shape_of_values(values: TensorShape, identical: bool) -> TensorShape:
    """The static shape of one element of an array whose ``values`` have this shape."""
    if values.ndims is None:
        return TensorShape(None)
    element = values.dims[1:]
    if element and not identical:
        element = (None,) + element[1:]
    return TensorShape(element)


def _values_shape(size, element: TensorShape, identical: bool) -> TensorShape:
    if element.ndims is None:
        return TensorShape(None)
    dims = list(element.dims)
    if dims and not identical:
        dims[0] = None
    return TensorShape([size] + dims)


def _check_array(inputs, node, first=0):
    values, lengths = inputs[first], inputs[first + 1]
    if lengths.dtype != dtypes.int32 or lengths.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': '{lengths.name}' is not a TensorArray's lengths "
                         f"(an int32 vector), but {lengths.dtype.name} {lengths.shape}.")
    if values.shape.ndims == 0:
        raise InferError(f"Op '{node}': '{values.name}' is not a TensorArray's values "
                         f"(at least a vector).")
    return values, lengths


def _check_index(spec, node, rank, what="index"):
    if not spec.dtype.is_integer or spec.shape.ndims not in (None, rank):
        raise InferError(f"Op '{node}': the {what} '{spec.name}' must be an integer "
                         f"{'scalar' if rank == 0 else 'vector'}, not {spec.dtype.name} "
                         f"{spec.shape}.")


def _size_of(values: TensorShape, dynamic: bool):
    return None if dynamic or values.ndims is None else values.dims[0]


def _written(values, element: TensorShape, attrs) -> list:
    """The (dtype, shape) of (values, lengths) after a write to the array ``values`` of
    elements of static shape ``element``."""
    identical = attrs.get("identical_element_shapes", True)
    before = element_shape_of_values(values.shape, identical)
    after = before.merge_with(element) if before.is_compatible_with(element) \
        else TensorShape(None)
    shape = _values_shape(_size_of(values.shape, attrs.get("dynamic_size", False)), after,
                          identical)
    return [(values.dtype, shape),
            (dtypes.int32, TensorShape([shape.dims[0] if shape.dims else None]))]


def _new_array(inputs, attrs, node):
    (size,) = inputs
    _check_index(size, node, 0, "size")
    value = size.value
    n = int(value) if value is not None else None
    if n is not None and n < 0:
        raise InferError(f"Op '{node}': a TensorArray's size must be >= 0, not {n}.")
    dtype = dtypes.as_dtype(attrs["dtype"])
    shape = _values_shape(n, as_shape(attrs.get("element_shape")),
                          attrs.get("identical_element_shapes", True))
    return [(dtype, shape), (dtypes.int32, TensorShape([n]))]


def _write(inputs, attrs, node):
    values, _ = _check_array(inputs, node)
    index, value = inputs[2], inputs[3]
    _check_index(index, node, 0)
    _same_dtype(values, value, node)
    return _written(values, value.shape, attrs)


def _scatter(inputs, attrs, node):
    values, _ = _check_array(inputs, node)
    indices, value = inputs[2], inputs[3]
    _check_index(indices, node, 1, "indices")
    _same_dtype(values, value, node)
    if value.shape.ndims == 0:
        raise InferError(f"Op '{node}': the value '{value.name}' must be at least a vector.")
    element = TensorShape(None if value.shape.ndims is None else value.shape.dims[1:])
    return _written(values, element, attrs)


def _split(inputs, attrs, node):
    values, _ = _check_array(inputs, node)
    value, lengths = inputs[2], inputs[3]
    _check_index(lengths, node, 1, "lengths")
    _same_dtype(values, value, node)
    if value.shape.ndims == 0:
        raise InferError(f"Op '{node}': the value '{value.name}' must be at least a vector.")
    element = TensorShape(None if value.shape.ndims is None
                          else (None,) + value.shape.dims[1:])
    return _written(values, element, attrs)


def _same_dtype(values, value, node):
    if value.dtype != values.dtype:
        raise InferError(f"Op '{node}': a TensorArray of {values.dtype.name} cannot hold "
                         f"'{value.name}' of {value.dtype.name}.")


def _read(inputs, attrs, node):
    values, _ = _check_array(inputs, node)
    _check_index(inputs[2], node, 0)
    return values.dtype, element_shape_of_values(
        values.shape, attrs.get("identical_element_shapes", True))


def _gather(inputs, attrs, node):
    values, _ = _check_array(inputs, node)
    indices = inputs[2]
    _check_index(indices, node, 1, "indices")
    element = element_shape_of_values(values.shape, attrs.get("identical_element_shapes",
                                                              True))
    k = indices.shape.dims[0] if indices.shape.ndims == 1 else None
    return values.dtype, TensorShape([k]).concatenate(element)


def _concat(inputs, attrs, node):
    values, _ = _check_array(inputs, node)
    if values.shape.ndims == 1:
        raise InferError(f"Op '{node}': cannot concatenate the scalar elements of a "
                         f"TensorArray (stack them).")
    rest = TensorShape(None if values.shape.ndims is None else values.shape.dims[2:])
    return values.dtype, TensorShape([None]).concatenate(rest)


def _like_first(inputs, attrs, node):
    """An op whose output has its second input's dtype and shape (an array's)."""
    return inputs[0].dtype, inputs[1].shape


def _split_grad(inputs, attrs, node):
    grad = inputs[0]
    rest = TensorShape(None if grad.shape.ndims is None else grad.shape.dims[2:])
    return grad.dtype, TensorShape([None]).concatenate(rest)


def _register() -> None:
    register_op(OpDef("_TensorArray", _new_array, 1, host_inputs=(0,), attr_defaults={
        "element_shape": TensorShape(None), "dynamic_size": False,
        "clear_after_read": True, "identical_element_shapes": True,
        "tensor_array_name": ""}))
    register_op(OpDef("_TensorArrayWrite", _write, 4, attr_defaults=_WRITE_ATTRS,
                      host_inputs=(1, 2)))
    register_op(OpDef("_TensorArrayScatter", _scatter, 4, attr_defaults=_WRITE_ATTRS,
                      host_inputs=(1, 2)))
    register_op(OpDef("_TensorArraySplit", _split, 4, attr_defaults=_WRITE_ATTRS,
                      host_inputs=(1, 3)))
    register_op(OpDef("_TensorArrayRead", _read, 3, host_inputs=(1, 2), attr_defaults={
        "element_shape": TensorShape(None), "identical_element_shapes": True}))
    register_op(OpDef("_TensorArrayGather", _gather, 3, host_inputs=(1, 2), attr_defaults={
        "element_shape": TensorShape(None), "identical_element_shapes": True}))
    register_op(OpDef("_TensorArrayConcat", _concat, 2, host_inputs=(1,), attr_defaults={
        "element_shape_except0": TensorShape(None), "element_shape": TensorShape(None),
        "identical_element_shapes": True}))
    # the gradients' ops: (like, indices, grad), (like, lengths, grad), (grad, lengths,
    # split lengths), (grad, like, indices)
    register_op(OpDef("_TensorArrayGatherGrad", lambda i, a, n: (i[2].dtype, i[0].shape), 3,
                      host_inputs=(1,)))
    register_op(OpDef("_TensorArrayConcatGrad", lambda i, a, n: (i[2].dtype, i[0].shape), 3,
                      host_inputs=(1,)))
    register_op(OpDef("_TensorArraySplitGrad", _split_grad, 3, host_inputs=(1, 2)))
    register_op(OpDef("_TensorArrayUnwrite", _like_first, 3, host_inputs=(2,)))


_register()
