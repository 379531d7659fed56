"""``tf.nn.with_space_to_batch`` and ``tf.required_space_to_batch_paddings``: TF's Python
compositions that run an op with dilation by ``SpaceToBatchND`` and ``BatchToSpaceND``
(how TF dilates a pooling or a convolution that has no dilation of its own).

``required_space_to_batch_paddings(input_shape, block_shape, base_paddings)`` gives
``(paddings, crops)``: each spatial dimension padded by ``base_paddings`` and then at its
end until it divides by the block, the crops taking that extra padding off again::

    pad_start = base[:, 0];  full = input_shape + base[:, 0] + base[:, 1]
    extra = (block - full % block) % block
    paddings = [[pad_start, base[:, 1] + extra]];  crops = [[0, extra]]

``with_space_to_batch(input, dilation_rate, padding, op, filter_shape, spatial_dims)``
is ``batch_to_space_nd(op(space_to_batch_nd(input, rate, paddings), n, "VALID"), rate,
crops)``: each of the ``rate`` phases of the input becomes one batch entry, so ``op``
run VALID on them is ``op`` dilated.  "SAME" pads first by what a filter of
``filter_shape`` dilated by ``rate`` needs (the odd one at the end, as conv2d); a list
of [before, after] pairs pads explicitly.  A rate of all 1s calls ``op(input, n,
padding)`` alone.  ``spatial_dims`` (increasing, >= 1) picks the dimensions; the others
get a block of 1.  The values are numpy where the graph knows them (then the paddings
are constants, as TF's), tensors otherwise.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array import concat, stack
from .array_fill import shape as shape_op, zeros
from .nn_conv import explicit_padding
from .space_depth import batch_to_space_nd, space_to_batch_nd
from .state import constant

__all__ = ["required_space_to_batch_paddings", "with_space_to_batch"]


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None):
    """``(paddings, crops)``, int32 ``[n, 2]`` each (see the module docstring).  Raises
    ValueError for a ``block_shape`` whose length is not known when building, or shapes
    that do not fit ``[n]`` and ``[n, 2]``."""
    with name_scope(name or "required_space_to_batch_paddings"):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        if not block_shape.shape.is_fully_defined():
            raise ValueError(f"Shape {block_shape.shape} is not fully defined")
        if block_shape.shape.ndims != 1:
            raise ValueError(f"Shape {block_shape.shape} must have rank 1")
        n = block_shape.shape.dims[0]
        if n == 0:
            return zeros([0, 2], dtypes.int32), zeros([0, 2], dtypes.int32)
        _assert_compatible(input_shape.shape, TensorShape([n]))
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32,
                                              name="base_paddings")
            _assert_compatible(base_paddings.shape, TensorShape([n, 2]))
        else:
            base_paddings = np.zeros([n, 2], np.int32)
        known = [_known(t) for t in (block_shape, input_shape, base_paddings)]
        if all(k is not None for k in known):
            block, size, base = (k.astype(np.int32) for k in known)
            extra = (block - (size + base[:, 0] + base[:, 1]) % block) % block
            return (constant(np.stack([base[:, 0], base[:, 1] + extra], 1), name="paddings"),
                    constant(np.stack([np.zeros_like(extra), extra], 1), name="crops"))
        base = convert_to_tensor(base_paddings)
        pad_start, pad_end = base[:, 0], base[:, 1]
        extra = (block_shape - (input_shape + pad_start + pad_end) % block_shape) % block_shape
        return (stack([pad_start, pad_end + extra], axis=1, name="paddings"),
                stack([extra * 0, extra], axis=1, name="crops"))


def _assert_compatible(shape: TensorShape, other: TensorShape) -> None:
    if not shape.is_compatible_with(other):
        raise ValueError(f"Shapes {shape} and {other} are incompatible")


def _known(value):
    """``value`` as numpy when the graph knows it, else None."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        return None if known is None else np.asarray(known)
    return np.asarray(value)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):
    """``op`` dilated by ``dilation_rate`` (see the module docstring); ``op(input,
    num_spatial_dims, padding)`` builds the undilated op.  Raises ValueError, TF's
    messages, for a rate that is not a known-length vector or has a value below 1,
    ``spatial_dims`` that do not increase, an input of too low a rank, "SAME" without
    ``filter_shape``, and a padding that is neither "SAME", "VALID" nor pairs."""
    x = convert_to_tensor(input, name="input")
    rate = convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")
    if rate.shape.ndims not in (None, 1):
        raise ValueError(f"`dilation_rate.shape.rank` must be 1. Received: "
                         f"dilation_rate={rate} of rank {rate.shape.ndims}")
    if not rate.shape.is_fully_defined():
        raise ValueError(f"`dilation_rate.shape` must be fully defined. Received: "
                         f"dilation_rate={rate} with shape {rate.shape}")
    n = rate.shape.dims[0]
    channels_first = data_format is not None and data_format.startswith("NC")
    spatial_dims = _spatial_dims(spatial_dims, n, 2 if channels_first else 1)
    rank = spatial_dims[-1] if channels_first else spatial_dims[-1] + 1
    if x.shape.ndims is not None and x.shape.ndims < rank:
        raise ValueError(f"`input.shape.rank` must be at least {rank}. Received: "
                         f"input.shape={x.shape} with rank {x.shape.ndims}")
    const_rate = _known(rate)
    if const_rate is not None:
        if np.any(const_rate < 1):
            raise ValueError(f"`dilation_rate` must be positive. Received: "
                             f"dilation_rate={const_rate}")
        if np.all(const_rate == 1):
            return op(x, n, padding)
    base_paddings = _base_paddings(padding, filter_shape, n, rate if const_rate is None
                                   else const_rate, channels_first)
    spatial_shape = [x.shape.dims[i] for i in spatial_dims] if x.shape.ndims is not None \
        else None
    if spatial_shape is None or None in spatial_shape:
        dynamic = shape_op(x)
        spatial_shape = stack([dynamic[i] for i in spatial_dims])
    paddings, crops = required_space_to_batch_paddings(spatial_shape, rate, base_paddings)
    block = _adjust(rate, 1, spatial_dims)
    converted = space_to_batch_nd(x, block, _adjust(paddings, 0, spatial_dims))
    return batch_to_space_nd(op(converted, n, "VALID"), block,
                             _adjust(crops, 0, spatial_dims))


def _spatial_dims(spatial_dims, n: int, start: int) -> list:
    if spatial_dims is None:
        spatial_dims = range(start, n + start)
    given = list(spatial_dims)
    dims = sorted({int(d) for d in given})
    if dims != given or any(d < 1 for d in dims):
        raise ValueError(f"`spatial_dims` must be a monotonically increasing sequence of "
                         f"positive integers. Received: spatial_dims={given}")
    return dims


def _base_paddings(padding, filter_shape, n: int, rate, channels_first: bool):
    """The ``[n, 2]`` padding before the blocks: what "SAME" needs for the dilated
    filter, none for "VALID", or the explicit pairs' spatial ones."""
    explicit = ()
    if isinstance(padding, (list, tuple)) or padding == "EXPLICIT":
        padding, explicit = explicit_padding(padding, "with_space_to_batch")
    if padding == "VALID":
        return np.zeros([n, 2], np.int32)
    if padding == "EXPLICIT":
        pairs = np.array(explicit, np.int32).reshape([n + 2, 2])
        return pairs[2:] if channels_first else pairs[1:-1]
    if padding != "SAME":
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: "
                         f"padding={padding}")
    if filter_shape is None:
        raise ValueError(f"`filter_shape` must be specified for `padding='SAME'`. "
                         f"Received: filter_shape={filter_shape} and padding={padding}")
    filter_shape = convert_to_tensor(filter_shape, name="filter_shape")
    known = _known(filter_shape)
    if known is not None and isinstance(rate, np.ndarray):
        extra = (known[:n].astype(np.int32) - 1) * rate
        return np.stack([extra // 2, extra - extra // 2], 1).astype(np.int32)
    spatial = convert_to_tensor(filter_shape if known is None else known, dtypes.int32)[:n]
    extra = (spatial - 1) * rate
    return stack([extra // 2, extra - extra // 2], axis=1)


def _adjust(orig, fill_value: int, spatial_dims: list):
    """``orig`` (one row per spatial dimension) with rows of ``fill_value`` for the
    dimensions between ``spatial_dims`` (counting from dimension 1): TF's
    ``_with_space_to_batch_adjust``."""
    known = _known(orig)
    value = known if known is not None else orig
    fill_dims = list(orig.shape.dims[1:]) if isinstance(orig, Tensor) else \
        list(np.shape(orig)[1:])
    parts, previous, i = [], 0, 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            gap = np.full([start_dim - 1 - previous] + fill_dims, fill_value, np.int32)
            if gap.shape[0]:
                parts.append(gap)
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(value[start_i:i + 1])
        previous = spatial_dims[i]
        i += 1
    if known is not None:
        return np.concatenate(parts).astype(np.int32)
    return concat([constant(p) if isinstance(p, np.ndarray) else p for p in parts], 0)
