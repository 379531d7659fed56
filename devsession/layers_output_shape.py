"""``compute_output_shape`` of TF1's layer classes (``layers_classes.py``): the static
shape a call of the layer would give an input of ``input_shape`` (a list, a tuple or a
TensorShape, None for an unknown size), from the layer's options alone, without building
it, by Keras's ``conv_utils`` formulas, as TF1's layers compute it::

    tf.layers.Conv3D(4, (1, 3, 3), strides=(1, 2, 2), padding="same")
        .compute_output_shape([2, 4, 8, 8, 3])          # TensorShape([2, 4, 4, 4, 4])

Convolutions (and their transposes) and poolings of any rank, ``Dense`` and ``Flatten``
give a TensorShape; ``BatchNormalization`` and ``Dropout`` their ``input_shape`` as given.
"""

from __future__ import annotations

import numpy as np

from .tensor_shape import TensorShape


def _sizes(value, n: int) -> tuple:
    """Keras's ``normalize_tuple``: an int for every spatial axis, or one each."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    return tuple(int(v) for v in value)


def conv_length(size, window: int, padding: str, stride: int, dilation: int = 1):
    """Keras's ``conv_output_length``: "same" (and "causal") keep the size, "valid" loses
    the dilated window less one; then divided by the stride, rounding up."""
    if size is None:
        return None
    window = window + (window - 1) * (dilation - 1)
    length = size if padding in ("same", "causal") else size - window + 1
    return (length + stride - 1) // stride


def deconv_length(size, window: int, padding: str, stride: int):
    """Keras's ``deconv_output_length``: ``size * stride``, plus what the window reaches
    past the last stride under "valid"."""
    if size is None:
        return None
    return size * stride if padding == "same" else size * stride + max(window - stride, 0)


def _spatial_axes(rank: int, dims: list, channels_first: bool) -> list:
    """The axes of the ``rank`` spatial sizes: after the channels (channels_first), or
    before them at the end."""
    start = len(dims) - rank - (0 if channels_first else 1)
    return list(range(start, start + rank))


def windowed(options: dict, rank: int, input_shape, transpose: bool = False,
             filters=None) -> TensorShape:
    """A convolution's (``filters`` channels out) or a pooling's (the channels kept)
    output shape over ``rank`` spatial axes."""
    dims = TensorShape(input_shape).as_list()
    first = options.get("data_format") == "channels_first"
    padding = str(options["padding"]).lower()
    window = _sizes(options.get("kernel_size", options.get("pool_size")), rank)
    strides = _sizes(options["strides"], rank)
    dilations = _sizes(options.get("dilation_rate") or 1, rank)
    out = list(dims)
    for i, axis in enumerate(_spatial_axes(rank, dims, first)):
        if transpose:
            out[axis] = deconv_length(dims[axis], window[i], padding, strides[i])
        else:
            out[axis] = conv_length(dims[axis], window[i], padding, strides[i], dilations[i])
    if filters is not None:
        out[len(dims) - rank - 1 if first else -1] = int(filters)
    return TensorShape(out)


def dense(units: int, input_shape) -> TensorShape:
    """The input's shape with its last size ``units``; ValueError, as TF's, when the last
    size is unknown."""
    shape = TensorShape(input_shape).with_rank_at_least(2)
    if shape.as_list()[-1] is None:
        raise ValueError(f"The last dimension of the input shape of a Dense layer should be "
                         f"defined. Found None. Full input shape received: {shape}")
    return TensorShape(shape.as_list()[:-1] + [int(units)])


def flatten(input_shape) -> TensorShape:
    """``[batch, the product of the other sizes]`` (None when one is unknown)."""
    dims = TensorShape(input_shape).as_list()
    if not dims:
        return TensorShape([1])
    rest = dims[1:]
    return TensorShape([dims[0], None if None in rest else int(np.prod(rest, dtype=int))])
