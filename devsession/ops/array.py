"""Data movement that reshapes and joins: Identity, Reshape, Transpose, ConcatV2,
Squeeze, ExpandDims, Pack (``stack``), Unpack (``unstack``), Split and SplitV
(``split``: TF's inputs, the axis a host input), Tile, Pad, PadV2,
MirrorPad and MirrorPadGrad (its gradient, as TF), and StopGradient (an identity that
gradients do not cross).  The rest of the family:
``array_index.py`` (slicing and gathering), ``array_fill.py`` (shapes and filled
tensors), ``array_operands.py`` (shape, axis and index operands and their static
values), ``array_grad.py`` (gradients).

TF's signatures: where TF takes a shape, an axis or paddings as an input tensor
(Reshape's shape, ExpandDims' dim, Tile's multiples, Pad's paddings), so do we, so
that GraphDefs TensorFlow wrote import; those inputs are ``OpDef.host_inputs`` (a GPU
kernel reads them on the host).  Their static shape is still inferred whenever the
graph determines the value (``InputSpec.value``: constants, and ops with a
``static_value`` hook such as ``Shape`` of a fully defined shape, ``Pack`` and
``StridedSlice`` of such values), and builders refine it further from partially known
shape vectors (``partial_shape_value``: ``tf.stack([tf.shape(x)[0], -1])``), as TF's
shape inference does.  An inconsistent static shape is a ValueError at build.

Reshape comes in two forms: TF's ``Reshape(tensor, shape)`` (what ``ds.reshape`` builds
when the shape is a tensor, and what TF GraphDefs hold) and devsession's older
one-input form with a ``shape`` attr (what ``ds.reshape`` builds for a Python list, so
graphs and GraphDefs written before keep their meaning).  Both run the same kernel.

Kernels: ``kernels/reference/array.py`` (numpy, the reference and the CPU's) and
``kernels/cuda/array.py`` (the same code over cupy).
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor, constant_value, convert_to_tensor
from ..tensor_shape import TensorShape, bracketed, fully_defined_dims, merge_conflict
from .array_operands import (check_int, holds_tensor, int_operand, int_values,
                             partial_shape_value, shape_operand, small, vector_length)
from .common import (graph_of, input_shapes, make_op, normalised_axis, operands, same_dtype,
                     unary_any)
from .registry import InferError, OpDef, register_op
from .run_time_attr_name import RUN_TIME_ATTR

__all__ = ["identity", "reshape", "transpose", "concat", "squeeze", "expand_dims", "stack",
           "unstack", "split", "tile", "pad", "mirror_pad_grad", "stop_gradient"]

# --- Reshape ------------------------------------------------------------------------------

def reshaped_dims(x_shape: TensorShape, target, node: str, x_name: str) -> TensorShape:
    """The static shape of a reshape of ``x_shape`` into ``target`` (ints, -1 for the one
    inferred dimension, None for unknown ones); InferError if it cannot fit."""
    target = list(target)
    if sum(1 for d in target if d == -1) > 1:
        raise InferError(f"Op '{node}': reshape target {target} has more than one -1.")
    if any(d is not None and d < -1 for d in target):
        raise InferError(f"Op '{node}': reshape target {target} has a negative dimension.")
    size = x_shape.num_elements()
    if None in target:          # a partly known shape vector: -1 cannot be resolved
        return TensorShape(None if d == -1 else d for d in target)
    known = int(np.prod([d for d in target if d != -1], dtype=np.int64))
    if -1 in target:
        if size is None:
            return TensorShape(None if d == -1 else d for d in target)
        if known == 0 or size % known:
            raise InferError(f"{_reshape_words(size, known, target)} for '{node}' with input "
                             f"shapes: {bracketed(x_shape)}. Op '{node}': cannot reshape "
                             f"'{x_name}' with shape {x_shape} ({size} elements) into {target}.")
        return TensorShape(size // known if d == -1 else d for d in target)
    if size is not None and size != known:
        raise InferError(f"{_reshape_words(size, known, target)} for '{node}' with input "
                         f"shapes: {bracketed(x_shape)}. Op '{node}': cannot reshape "
                         f"'{x_name}' with shape {x_shape} ({size} elements) into {target} "
                         f"({known} elements).")
    return TensorShape(target)


def _reshape_words(size: int, known: int, target: list) -> str:
    """TF's Reshape shape-function error, which TF1 code matches: a -1 the other sizes do
    not divide, or element counts that differ."""
    if -1 in target and known:
        return f"Dimension size must be evenly divisible by {known} but is {size}"
    spelled = "[%s]" % ",".join("?" if d == -1 else str(d) for d in target)
    return (f"Cannot reshape a tensor with {size} elements to shape {spelled} "
            f"({known} elements)")


def _reshape(inputs, attrs, node):
    if len(inputs) == 2:
        x, shape = inputs
        target = int_values(shape, node, "the shape")
        if target is None and shape.tensor is not None:
            target = partial_shape_value(shape.tensor)     # [tf.shape(x)[0], -1]...
        if target is None:
            n = vector_length(shape)
            return x.dtype, TensorShape(None if n is None else [None] * n)
    elif len(inputs) == 1 and "shape" in attrs:
        x, target = inputs[0], list(attrs["shape"])
    else:
        raise InferError(f"Op '{node}': Reshape takes a tensor and a shape (as a second "
                         f"input, or a 'shape' attr), got {len(inputs)} inputs.")
    return x.dtype, reshaped_dims(x.shape, target, node, x.name)


def _reshape_value(op, value_of):
    x = value_of(op.inputs[0])
    shape = op.attrs.get("shape") if len(op.inputs) == 1 else value_of(op.inputs[1])
    if not small(x) or shape is None:
        return None
    return np.reshape(x, [int(d) for d in np.asarray(shape).reshape(-1)])


# --- Transpose, ConcatV2 --------------------------------------------------------------------

def _transpose(inputs, attrs, node):
    (x,) = inputs
    perm = tuple(attrs["perm"])
    if x.shape.ndims is not None:
        if sorted(perm) != list(range(x.shape.ndims)):
            raise InferError(f"Op '{node}': perm {list(perm)} is not a permutation of the "
                             f"{x.shape.ndims} axes of '{x.name}' with shape {x.shape}.")
        return x.dtype, TensorShape(x.shape.dims[p] for p in perm)
    return x.dtype, TensorShape([None] * len(perm))


def _concat(inputs, attrs, node):
    if not inputs:
        raise InferError(f"Op '{node}': concat needs at least one input.")
    dtype = same_dtype(inputs, node)
    axis = attrs["axis"]
    known = [x for x in inputs if x.shape.ndims is not None]
    if not known:
        return dtype, TensorShape(None)
    rank = known[0].shape.ndims
    out = list(known[0].shape.dims)
    out[axis] = 0
    for x in known:
        if x.shape.ndims != rank:
            raise InferError(f"Shape must be rank {rank} but is rank {x.shape.ndims} for "
                             f"'{node}' with input shapes: {input_shapes(inputs)}. "
                             f"Op '{node}': concat inputs differ in rank: '{known[0].name}' "
                             f"{known[0].shape} vs '{x.name}' {x.shape}.")
        for i, d in enumerate(x.shape.dims):
            if i == axis:
                out[i] = None if out[i] is None or d is None else out[i] + d
            elif out[i] is None:
                out[i] = d
            elif d is not None and d != out[i]:
                raise InferError(f"{_concat_conflict(out, x.shape.dims, i, axis)} for '{node}' "
                                 f"with input shapes: {input_shapes(inputs)}. "
                                 f"Op '{node}': concat inputs differ in dimension {i} "
                                 f"(other than axis {axis}): '{known[0].name}' "
                                 f"{known[0].shape} vs '{x.name}' {x.shape}.")
    if len(known) < len(inputs):
        out[axis] = None
    return dtype, TensorShape(out)


def _concat_conflict(merged: list, dims: tuple, i: int, axis: int) -> str:
    """TF's words for dimension ``i`` differing: its ConcatV2 merges the dimensions before
    ``axis`` and those after it as two shapes, and names the dimension within one."""
    part = slice(0, axis) if i < axis else slice(axis + 1, None)
    return merge_conflict(TensorShape(merged[part]), TensorShape(dims[part]))


def _concat_value(op, value_of):
    values = [value_of(t) for t in op.inputs]
    if not all(small(v) for v in values) or "axis" not in op.attrs:
        return None
    return np.concatenate(values, axis=op.attrs["axis"])


# --- Squeeze, ExpandDims ------------------------------------------------------------------

def _squeeze(inputs, attrs, node):
    (x,) = inputs
    rank = x.shape.ndims
    if rank is None:
        return x.dtype, TensorShape(None)
    axes = set()
    for a in attrs.get("squeeze_dims", ()):
        if not -rank <= a < rank:
            raise InferError(f"Op '{node}': tried to squeeze dim index {a} of '{x.name}' "
                             f"with {rank} dimensions.")
        axes.add(a % rank)
    dims = x.shape.dims
    if not axes:
        if None in dims:
            return x.dtype, TensorShape(None)    # which dims go is only known at run time
        return x.dtype, TensorShape(d for d in dims if d != 1)
    for a in sorted(axes):
        if dims[a] is not None and dims[a] != 1:
            raise InferError(f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                             f"{dims[a]} for '{node}' with input shapes: {bracketed(x.shape)}. "
                             f"Op '{node}': can not squeeze dim[{a}] of '{x.name}' with "
                             f"shape {x.shape}: expected a dimension of 1, got {dims[a]}.")
    return x.dtype, TensorShape(d for i, d in enumerate(dims) if i not in axes)


def _expand_dims(inputs, attrs, node):
    x, dim = inputs
    check_int(dim, node, "dim")
    if dim.shape.num_elements() not in (None, 1):
        raise InferError(f"Op '{node}': 'dim' '{dim.name}' must be a tensor with a single "
                         f"value, but has shape {dim.shape}.")
    rank = x.shape.ndims
    if rank is None:
        return x.dtype, TensorShape(None)
    if dim.value is None:
        return x.dtype, TensorShape([None] * (rank + 1))
    at = int(np.asarray(dim.value).reshape(()))
    if not -rank - 1 <= at <= rank:
        raise InferError(f"Op '{node}': tried to expand dim index {at} of '{x.name}' with "
                         f"{rank} dimensions (valid: [{-rank - 1}, {rank}]).")
    at = at % (rank + 1)
    dims = list(x.shape.dims)
    return x.dtype, TensorShape(dims[:at] + [1] + dims[at:])


def _same_values_reshaped(op, value_of):
    x = value_of(op.inputs[0])
    return np.reshape(x, op.outputs[0].shape.dims) if small(x) and \
        op.outputs[0].shape.is_fully_defined() else None


# --- Pack, Unpack ---------------------------------------------------------------------------

def alike_inputs(inputs, attrs, node) -> tuple:
    """(dtype, static shape) that all of a variadic op's ``inputs`` share (Pack's,
    AddN's): at least one, as many as attr N, same dtype and compatible shapes."""
    if not inputs:
        raise InferError(f"Op '{node}' needs at least one input.")
    if attrs.get("N", len(inputs)) != len(inputs):
        raise InferError(f"Op '{node}': attr N={attrs['N']} but {len(inputs)} inputs.")
    dtype = same_dtype(inputs, node)
    shape = inputs[-1].shape
    for i in range(len(inputs) - 2, -1, -1):        # TF's order, last to first
        x = inputs[i]
        conflict = merge_conflict(x.shape, shape)
        if conflict:
            raise InferError(f"{conflict}\n\tFrom merging shape {i} with other shapes. for "
                             f"'{node}' with input shapes: {input_shapes(inputs)}. "
                             f"Op '{node}': shapes of all inputs must match: '{x.name}' "
                             f"{x.shape} vs {shape}, the inputs' after it.")
        shape = x.shape.merge_with(shape)
    return dtype, shape


def _pack(inputs, attrs, node):
    dtype, shape = alike_inputs(inputs, attrs, node)
    if shape.ndims is None:
        return dtype, TensorShape(None)
    axis = attrs.get("axis", 0)
    rank = shape.ndims + 1
    if not -rank <= axis < rank:
        raise InferError(f"Op '{node}': axis {axis} is out of range [{-rank}, {rank}) for "
                         f"stacking values of shape {shape}.")
    dims = list(shape.dims)
    dims.insert(axis % rank, len(inputs))
    return dtype, TensorShape(dims)


def _pack_value(op, value_of):
    values = [value_of(t) for t in op.inputs]
    if not all(small(v) for v in values):
        return None
    return np.stack(values, axis=op.attrs.get("axis", 0))


def _unpack(inputs, attrs, node):
    (x,) = inputs
    rank = x.shape.ndims
    num = attrs.get("num")
    if rank is None:
        if num is None:
            raise InferError(f"Cannot infer num from shape {x.shape} of '{x.name}' (op "
                             f"'{node}'); pass num=.")        # TF1's words first
        return [(x.dtype, TensorShape(None))] * num
    axis = attrs.get("axis", 0)
    if rank == 0 or not -rank <= axis < rank:
        raise InferError(f"Op '{node}': axis {axis} is out of range for unstacking "
                         f"'{x.name}' with shape {x.shape}.")
    axis %= rank
    dims = list(x.shape.dims)
    count = dims.pop(axis)
    if num is None:
        if count is None:
            raise InferError(f"Op '{node}': cannot infer num from shape {x.shape} of "
                             f"'{x.name}'; pass num=.")
        num = count
    elif count is not None and count != num:
        raise InferError(f"Op '{node}': num={num} does not match dimension {axis} of "
                         f"'{x.name}' with shape {x.shape}.")
    return [(x.dtype, TensorShape(dims))] * num


# --- Split, SplitV -----------------------------------------------------------------------------

def _split_axis(dim, x, node) -> int | None:
    """The static axis of a split (None while unknown), checked against ``x``'s rank."""
    axis = int_values(dim, node, "split_dim", rank=0)
    rank = x.shape.ndims
    if axis is None or rank is None:
        return None
    if not -rank <= axis < rank:
        raise InferError(f"Op '{node}': split_dim {axis} is out of range for '{x.name}' "
                         f"of rank {rank} (shape {x.shape}).")
    return axis % rank


def _split_shapes(x, axis, sizes):
    """(dtype, shape) of each part: ``x``'s shape with ``sizes[k]`` along ``axis``."""
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape(None))] * len(sizes)
    if axis is None:
        return [(x.dtype, TensorShape([None] * x.shape.ndims))] * len(sizes)
    parts = []
    for size in sizes:
        dims = list(x.shape.dims)
        dims[axis] = size
        parts.append((x.dtype, TensorShape(dims)))
    return parts


def _split(inputs, attrs, node):
    dim, x = inputs
    num = int(attrs.get("num_split", 0))
    if num < 1:
        raise InferError(f"Op '{node}': num_split must be at least 1, got {num}.")
    axis = _split_axis(dim, x, node)
    size = None if axis is None else x.shape.dims[axis]
    if size is not None and size % num:
        raise InferError(f"Op '{node}': Number of ways to split should evenly divide the "
                         f"split dimension, but got split_dim {axis} (size = {size}) and "
                         f"num_split {num}.")
    return _split_shapes(x, axis, [None if size is None else size // num] * num)


def _split_v(inputs, attrs, node):
    x, size_splits, dim = inputs
    num = int(attrs.get("num_split", 0))
    sizes = int_values(size_splits, node, "size_splits")
    length = vector_length(size_splits)
    if num < 1 or (length is not None and length != num):
        raise InferError(f"Op '{node}': num_split {num} must be at least 1 and the length "
                         f"of size_splits '{size_splits.name}' ({length}).")
    axis = _split_axis(dim, x, node)
    if sizes is None:
        return _split_shapes(x, axis, [None] * num)
    if sum(1 for s in sizes if s == -1) > 1 or any(s < -1 for s in sizes):
        raise InferError(f"Op '{node}': size_splits {sizes} may hold one -1 and no other "
                         f"negative size.")
    size = None if axis is None else x.shape.dims[axis]
    known = sum(s for s in sizes if s != -1)
    if size is not None and (known > size or (-1 not in sizes and known != size)):
        raise InferError(f"Op '{node}': size_splits {sizes} must sum to dimension {axis} "
                         f"of '{x.name}' ({size}), shape {x.shape}.")
    rest = None if size is None else size - known
    return _split_shapes(x, axis, [rest if s == -1 else s for s in sizes])


# --- Tile, Pad ------------------------------------------------------------------------------

def _tile(inputs, attrs, node):
    x, multiples = inputs
    values = int_values(multiples, node, "multiples")
    rank = x.shape.ndims
    n = vector_length(multiples)
    if rank is not None and n is not None and n != rank:
        raise InferError(f"Shape must be rank {rank} but is rank {n} for '{node}' with input "
                         f"shapes: {input_shapes(inputs)}. "            # TF's words first
                         f"Op '{node}': multiples '{multiples.name}' has length {n}, but "
                         f"'{x.name}' has rank {rank} (shape {x.shape}).")
    if rank is None:
        return x.dtype, TensorShape(None if n is None else [None] * n)
    if values is None:          # what the graph knows of them: [tf.shape(x)[0], 1]
        partial = shape_operand(multiples).dims
        partial = partial if partial is not None and len(partial) == rank else [None] * rank
        return x.dtype, TensorShape(0 if m == 0 or d == 0 else None if d is None or m is None
                                    else d * m for d, m in zip(x.shape.dims, partial))
    if any(m < 0 for m in values):
        raise InferError(f"Op '{node}': multiples {values} must be non-negative.")
    return x.dtype, TensorShape(0 if m == 0 else None if d is None else d * m
                                for d, m in zip(x.shape.dims, values))


MIRROR_MODES = ("REFLECT", "SYMMETRIC")


def _mirror_pad(inputs, attrs, node):
    mode = attrs.get("mode")
    if mode not in MIRROR_MODES:
        raise InferError(f"Op '{node}': MirrorPad's mode must be one of "
                         f"{', '.join(MIRROR_MODES)}, got {mode!r}.")
    # TF's MirrorPad infers as Pad does: paddings too large for the mode are its kernel's
    # InvalidArgumentError at run, not an error at build
    return _pad(inputs, attrs, node)


def _pad(inputs, attrs, node):
    x, paddings = inputs[:2]
    if len(inputs) == 3:
        value = inputs[2]
        if value.dtype != x.dtype:
            raise TypeError(f"Op '{node}': constant_values '{value.name}' is "
                            f"{value.dtype.name}, but the tensor '{x.name}' is "
                            f"{x.dtype.name}.")
        if value.shape.ndims not in (None, 0):
            raise InferError(f"Op '{node}': constant_values must be a scalar, got shape "
                             f"{value.shape}.")
    values = int_values(paddings, node, "paddings", rank=2)
    rank = x.shape.ndims
    pshape = paddings.shape
    if pshape.ndims == 2 and pshape.dims[1] not in (None, 2) or (
            rank is not None and pshape.ndims == 2 and pshape.dims[0] not in (None, rank)):
        raise InferError(f"Op '{node}': paddings '{paddings.name}' must have shape "
                         f"[{'?' if rank is None else rank}, 2], got {pshape}.")
    if rank is None:
        rank = pshape.dims[0] if pshape.ndims == 2 else None
        if rank is None or values is None:
            return x.dtype, TensorShape(None if rank is None else [None] * rank)
        dims = [None] * rank
    else:
        dims = list(x.shape.dims)
    if values is None:
        return x.dtype, TensorShape([None] * rank)
    pairs = list(zip(values[0::2], values[1::2]))
    if any(p < 0 for pair in pairs for p in pair):
        raise InferError(f"Op '{node}': paddings {pairs} must be non-negative.")
    return x.dtype, TensorShape(None if d is None else d + a + b
                                for d, (a, b) in zip(dims, pairs))


def _mirror_pad_grad(inputs, attrs, node):
    dy, paddings = inputs
    mode = attrs.get("mode")
    if mode not in MIRROR_MODES:
        raise InferError(f"Op '{node}': MirrorPadGrad's mode must be one of "
                         f"{', '.join(MIRROR_MODES)}, got {mode!r}.")
    values = int_values(paddings, node, "paddings", rank=2)
    if dy.shape.ndims is None or values is None:
        return dy.dtype, TensorShape(None if dy.shape.ndims is None
                                     else [None] * dy.shape.ndims)
    pairs = list(zip(values[0::2], values[1::2]))
    if len(pairs) != dy.shape.ndims or any(p < 0 for pair in pairs for p in pair):
        raise InferError(f"Op '{node}': paddings {pairs} do not fit '{dy.name}' with shape "
                         f"{dy.shape}.")
    return dy.dtype, TensorShape(None if d is None else d - a - b
                                 for d, (a, b) in zip(dy.shape.dims, pairs))


def _register() -> None:
    register_op(OpDef("Identity", unary_any, 1,
                      static_value=lambda op, value_of: value_of(op.inputs[0])))
    register_op(OpDef("Reshape", _reshape, None, host_inputs=(1,),
                      static_value=_reshape_value))
    register_op(OpDef("Transpose", _transpose, 1))
    register_op(OpDef("ConcatV2", _concat, None, static_value=_concat_value))
    register_op(OpDef("Squeeze", _squeeze, 1, attr_defaults={"squeeze_dims": ()},
                      static_value=_same_values_reshaped))
    register_op(OpDef("ExpandDims", _expand_dims, 2, host_inputs=(1,),
                      static_value=_same_values_reshaped))
    register_op(OpDef("Pack", _pack, None, attr_defaults={"axis": 0},
                      static_value=_pack_value))
    register_op(OpDef("Unpack", _unpack, 1, attr_defaults={"axis": 0}))
    register_op(OpDef("Split", _split, 2, host_inputs=(0,)))
    register_op(OpDef("SplitV", _split_v, 3, host_inputs=(1, 2)))
    register_op(OpDef("Tile", _tile, 2, host_inputs=(1,)))
    register_op(OpDef("Pad", _pad, 2, host_inputs=(1,)))
    register_op(OpDef("PadV2", _pad, 3, host_inputs=(1,)))
    register_op(OpDef("MirrorPad", _mirror_pad, 2, host_inputs=(1,)))
    register_op(OpDef("MirrorPadGrad", _mirror_pad_grad, 2, host_inputs=(1,)))


_register()


# --- builders -----------------------------------------------------------------------------

def identity(x, name=None) -> Tensor:
    return make_op("Identity", operands(x), name=name)


def reshape(tensor, shape, name=None) -> Tensor:
    """``tensor`` with a new shape: a list of ints (one may be -1), a TensorShape, or an
    int tensor (TF's form, e.g. ``ds.stack([ds.shape(x)[0], -1])``); a list holding
    tensors is stacked."""
    x = convert_to_tensor(tensor)
    if isinstance(shape, TensorShape):
        shape = fully_defined_dims(shape)
    tensor_shape = hasattr(shape, "_as_tensor") or isinstance(shape, Tensor) or (
        isinstance(shape, (list, tuple)) and any(
            isinstance(d, Tensor) or hasattr(d, "_as_tensor") for d in shape))
    if not tensor_shape:
        if not isinstance(shape, (list, tuple)):
            shape = np.atleast_1d(np.asarray(shape)).tolist()
        return make_op("Reshape", [x], {"shape": tuple(int(d) for d in shape)}, name)
    shape = int_operand(shape, graph_of(x, shape))
    return make_op("Reshape", [x, shape], name=name)


def transpose(a, perm=None, name="transpose") -> Tensor:
    """``a`` with its axes in the order ``perm`` (reversed when None): ints, or a tensor.
    A perm the graph knows is the Transpose's attr; one only a run knows (a placeholder,
    a perm computed from ``tf.rank(x)``, no perm for an ``a`` of unknown rank) is read at
    run time as TF's Transpose reads its perm input (``run_time_attrs.py``), its errors
    the kernel's ``InvalidArgumentError``."""
    x = convert_to_tensor(a)
    if perm is None and x.shape.ndims is not None:
        perm = tuple(reversed(range(x.shape.ndims)))
    if perm is None:
        perm = _reversed_axes(x, name)
    elif holds_tensor(perm):
        perm = int_operand(perm, x.graph)
    if isinstance(perm, Tensor) and constant_value(perm) is None:
        return make_op(RUN_TIME_ATTR, [x, perm], {"op": "Transpose", "attr": "perm"}, name)
    return make_op("Transpose", [x], {"perm": static_ints(perm, "transpose", "perm")}, name)


def _reversed_axes(x: Tensor, name) -> Tensor:
    """TF's perm for ``transpose(x)`` of unknown rank: ``(rank - 1) - range(rank)``."""
    from ..graph import name_scope
    from .elementwise import subtract
    from .sequence import range as range_

    with name_scope(name or "transpose"):
        r = make_op("Rank", [x])                  # x's rank is unknown: no Const
        return subtract(subtract(r, 1), range_(0, r, 1))


def static_ints(value, fn: str, what: str) -> tuple:
    """``value`` (ints, or a tensor whose value the graph knows) as a tuple of ints; a
    ValueError for a tensor only a run knows (these ops take it as an attr)."""
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        known = constant_value(convert_to_tensor(value))
        if known is None:
            raise ValueError(f"{fn}: devsession needs the {what} known when the graph is "
                             f"built (ints, or a tensor computed from constants and "
                             f"static shapes), got '{convert_to_tensor(value).name}'.")
        value = known
    return tuple(int(v) for v in np.atleast_1d(value))


def concat(values, axis, name=None) -> Tensor:
    """``values`` joined along ``axis``; a negative axis of inputs whose ranks are all
    unknown stays negative, counted from the end of the values fed (the kernel and the
    gradient settle it per run, as TF's ConcatV2 reads its axis input)."""
    tensors = operands(*values)
    rank = next((t.shape.ndims for t in tensors if t.shape.ndims is not None), None)
    if holds_tensor(axis):           # TF's axis input: one the graph knows (tf.rank(x) - 1)
        known = constant_value(convert_to_tensor(axis))
        if known is None:
            raise NotImplementedError(
                f"concat: an axis only a run knows ('{convert_to_tensor(axis).name}') is "
                f"not supported by devsession; pass an int or a tensor the graph can compute.")
        axis = int(known)
    if rank is None and int(axis) < 0:
        return make_op("ConcatV2", tensors, {"axis": int(axis)}, name)
    axis = normalised_axis(axis, rank, name or "concat")
    return make_op("ConcatV2", tensors, {"axis": axis}, name)


def squeeze(input, axis=None, name=None, squeeze_dims=None) -> Tensor:  # noqa: A002
    """``input`` without the size-1 dimensions ``axis`` (all of them when None)."""
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'.")
        axis = squeeze_dims
    axes = () if axis is None else tuple(int(a) for a in np.atleast_1d(axis))
    return make_op("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": axes}, name)


def expand_dims(input, axis=None, name=None, dim=None) -> Tensor:  # noqa: A002
    """``input`` with a size-1 dimension inserted at ``axis`` (which may be a tensor)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'.")
        axis = dim
    if axis is None:
        raise ValueError("expand_dims needs an axis.")
    x = convert_to_tensor(input)
    return make_op("ExpandDims", [x, int_operand(axis, x.graph)], name=name)


def stack(values, axis=0, name="stack") -> Tensor:
    """The tensors ``values`` (same shape and dtype) joined along a new ``axis``."""
    tensors = operands(*values)
    return make_op("Pack", tensors, {"N": len(tensors), "axis": int(axis)}, name)


def unstack(value, num=None, axis=0, name="unstack") -> list:
    """The slices of ``value`` along ``axis``, as a list of ``num`` tensors (``num``
    from the static shape when None: ValueError if it is unknown)."""
    x = convert_to_tensor(value)
    attrs = {"axis": int(axis)}
    if num is not None:
        attrs["num"] = int(num)
    elif x.shape.ndims is not None and -x.shape.ndims <= axis < x.shape.ndims:
        count = x.shape.dims[axis]
        if count is None:
            raise ValueError(f"Cannot infer num from shape {x.shape} of '{x.name}'; pass "
                             f"num=.")
        attrs["num"] = count
    return list(x.graph.create_op("Unpack", [x], attrs, name=name).outputs)


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list:
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal parts (an int:
    Split) or into parts of the given sizes (a list or 1-D int tensor, one size may be
    -1: SplitV; ``num`` parts when the sizes' length is not static), as TF1's."""
    x = convert_to_tensor(value)
    graph = x.graph
    dim = int_operand(axis, graph, name="split_dim")
    if isinstance(num_or_size_splits, (int, np.integer)):
        return list(graph.create_op("Split", [dim, x], {"num_split": int(num_or_size_splits)},
                                    name=name).outputs)
    sizes = int_operand(num_or_size_splits, graph)
    if num is None:
        num = vector_length(sizes)
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape} of "
                             f"size_splits '{sizes.name}'; pass num=.")
    return list(graph.create_op("SplitV", [x, sizes, dim], {"num_split": int(num)},
                                name=name).outputs)


def tile(input, multiples, name=None) -> Tensor:  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along each axis ``i``."""
    x = convert_to_tensor(input)
    return make_op("Tile", [x, int_operand(multiples, x.graph)], name=name)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0) -> Tensor:
    """``tensor`` padded by ``paddings`` ([rank, 2]: before and after each axis) with
    ``constant_values`` (mode CONSTANT: Pad, or PadV2 for another value), or by
    mirroring (REFLECT, SYMMETRIC: MirrorPad)."""
    x = convert_to_tensor(tensor)
    pads = int_operand(paddings, x.graph)
    mode = str(mode).upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and not hasattr(
                constant_values, "_as_tensor") and np.all(np.asarray(constant_values) == 0):
            return make_op("Pad", [x, pads], name=name)
        value = convert_to_tensor(constant_values, dtype_hint=x.dtype, graph=x.graph)
        return make_op("PadV2", [x, pads, value], name=name)
    if mode not in MIRROR_MODES:
        raise ValueError(f"Unknown padding mode: {mode!r} (CONSTANT, REFLECT or SYMMETRIC).")
    return make_op("MirrorPad", [x, pads], {"mode": mode}, name)


def mirror_pad_grad(grad, paddings, mode, name=None) -> Tensor:
    """TF's MirrorPadGrad: ``grad`` of a MirrorPad's output folded back onto its input
    (each mirrored element's gradient added to the element it copied)."""
    dy = convert_to_tensor(grad)
    return make_op("MirrorPadGrad", [dy, int_operand(paddings, dy.graph)],
                   {"mode": str(mode).upper()}, name)


register_op(OpDef("StopGradient", unary_any, 1))


def stop_gradient(input, name=None) -> Tensor:  # noqa: A002  (TF1's argument name)
    """``input`` unchanged, but ``ds.gradients`` sends no gradient through it."""
    return make_op("StopGradient", operands(input), name=name)
