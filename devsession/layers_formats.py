"""The ``data_format`` of TF1's layers: "channels_last" (NWC, NHWC, NDHWC) or
"channels_first" (NCW, NCHW, NCDHW), as the tf.nn names and windows the layers pass on.

A channels_first layer builds the tf.nn ops with the channels-first ``data_format``:
devsession's 2-D convolutions and poolings take it by transposing to NHWC around their
NHWC op (``ops/nn_channels_first.py``), its 3-D ops and BiasAdd take it themselves.  So
the values are TF's and gradients flow through the transposes, while the graph holds
Transposes where TF's has one NCHW node.  Variables keep TF's names and shapes (a kernel
is ``[h, w, in, out]`` in both formats); the channels that size it are axis 1.
"""

from __future__ import annotations

__all__ = ["channels_first", "nn_format", "full_window", "channel_dimension"]

_NN_FORMATS = {(1, False): "NWC", (1, True): "NCW", (2, False): "NHWC", (2, True): "NCHW",
               (3, False): "NDHWC", (3, True): "NCDHW"}


def channels_first(layer: str, data_format) -> bool:
    """Whether ``data_format`` is "channels_first"; ValueError unless it is one of TF1's
    two (None means "channels_last")."""
    if data_format in (None, "channels_last"):
        return False
    if data_format == "channels_first":
        return True
    raise ValueError(f"tf.layers.{layer}: data_format must be 'channels_last' or "
                     f"'channels_first', got {data_format!r}.")


def nn_format(spatial_rank: int, first: bool) -> str:
    """The tf.nn ``data_format`` of a layer over ``spatial_rank`` dimensions."""
    return _NN_FORMATS[(spatial_rank, first)]


def full_window(values, first: bool) -> list:
    """Per-spatial-dimension ``values`` as the full attr list of the layout (1 for the
    batch and the channels)."""
    return [1, 1, *values] if first else [1, *values, 1]


def channel_dimension(x, layer: str, first: bool) -> int:
    """The size of ``x``'s channels (axis 1 or the last), which must be known: it sizes
    the kernel."""
    axis = 1 if first else -1
    if x.shape.ndims is None or x.shape.ndims < 2 or x.shape.dims[axis] is None:
        where = "channels (axis 1)" if first else "last dimension"
        raise ValueError(f"The channel dimension of the inputs should be defined. Found "
                         f"`None`. (tf.layers.{layer}: the {where} of inputs '{x.name}' "
                         f"(shape {x.shape}) must be known: it sizes the kernel.)")
    return int(x.shape.dims[axis])
