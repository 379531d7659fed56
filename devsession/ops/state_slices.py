"""A strided slice of a variable written in place: TF1's ``v[key].assign(value)`` and
``tf.assign(v[key], value)`` (op type StridedSliceAssign).

As TF's ``_SliceHelperVar``, ``v[key]`` of a ``ds.Variable`` is the StridedSlice of its
value that ``tensor[key]`` builds, with an ``assign(value, name=None)`` method that
writes ``value`` into those elements of the variable: a StridedSliceAssign of the
variable (a ref input, as Assign's), the slice's begin, end and strides tensors and its
masks, named ``<slice>/_assign`` unless named.  Fetching it gives the variable's new
value; its static shape is the variable's.

``value`` broadcasts to the slice's shape (TF 2.21's kernel); what does not is an
``InvalidArgumentError`` when the op runs ("Cannot broadcast input shape [2,4] into final
shape [2,3]"), since TF's shape function checks nothing of it.  A ``value`` of another
dtype is a TypeError when built.  No gradient is registered, so ``gradients`` through
it is TF's LookupError.  Kernels:
``kernels/reference/state.py`` (the host's) and ``kernels/cuda/state.py``.

    buffer = tf.Variable(tf.zeros([2, 4, 3]), trainable=False)
    write = buffer[:, 0, :].assign(x)     # or tf.assign(buffer[:, 0, :], x)
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor
from .array_index import getitem
from .registry import OpDef, register_op
from .state import variable_ref

__all__ = ["sliced_variable", "strided_slice_assign"]

MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _strided_slice_assign(inputs, attrs, node):
    ref, value = inputs[0], inputs[4]
    if value.dtype != ref.dtype:
        raise TypeError(f"Input 'value' of 'StridedSliceAssign' Op has type "
                        f"{value.dtype.name} that does not match type {ref.dtype.name} of "
                        f"argument 'ref' (node '{node}').")
    return ref.dtype, ref.shape


register_op(OpDef("StridedSliceAssign", _strided_slice_assign, 5, ref_inputs=(0,),
                  host_inputs=(1, 2, 3), stateful=True,
                  attr_defaults={m: 0 for m in MASKS}))


def strided_slice_assign(ref, begin, end, strides, value, begin_mask=0, end_mask=0,
                         ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
                         name=None) -> Tensor:
    """TF's ``strided_slice_assign``: ``ref[begin:end:strides] = value`` (with the masks
    of ``strided_slice``) in variable ``ref``; fetching it gives the new value."""
    target = variable_ref(ref, "strided_slice_assign")
    graph = target.graph
    vectors = [convert_to_tensor(v, graph=graph) for v in (begin, end, strides)]
    value = convert_to_tensor(value, dtype_hint=target.dtype, graph=graph, name="value")
    masks = dict(zip(MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                             shrink_axis_mask)))
    return graph.create_op("StridedSliceAssign", [target, *vectors, value],
                           {m: int(v) for m, v in masks.items()},
                           name=name or "StridedSliceAssign").outputs[0]


def sliced_variable(variable, key) -> Tensor:
    """``variable[key]``: the StridedSlice of its value, with TF's ``assign`` method
    writing into those elements of the variable (the module docstring)."""
    sliced = getitem(variable._as_tensor(), key)
    op = sliced.op
    masks = {m: int(op.attrs.get(m, 0)) for m in MASKS}

    def assign(value, name=None) -> Tensor:
        return strided_slice_assign(variable, *op.inputs[1:], value,
                                    name=name or f"{op.name}/_assign", **masks)
    sliced.assign = assign
    return sliced
