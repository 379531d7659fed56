"""``tf.conv``, TF's generic ``Conv`` op, built as the ``Conv2D`` or ``Conv3D`` it
amounts to (between two reshapes with ``batch_dims`` > 1), so its gradient is theirs;
also what an imported ``Conv`` node builds (``tf_graph.py``).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from .array import concat, reshape
from .array_fill import shape as shape_of
from .elementwise import cast
from .nn_conv import conv2d
from .nn_conv3d import conv3d

__all__ = ["conv"]


def conv(input, filter, strides, padding, explicit_paddings=(),  # noqa: A002  (TF's names)
         data_format="CHANNELS_LAST", dilations=(), batch_dims=1, groups=1, name=None):
    """TF's ``tf.conv``: the 2-D or 3-D convolution of ``input`` (``batch_dims`` batch
    dimensions, then the spatial ones and the channels, or the channels first with
    ``data_format="CHANNELS_FIRST"``) with a ``[spatial..., in, out]`` filter; ``strides``
    and ``dilations`` one per input dimension after the batch dimensions, and the batch
    and channels' 1; ``padding`` "SAME", "VALID" or "EXPLICIT" (2-D only: the
    ``explicit_paddings`` pairs, one per dimension).  ``groups``: the input's channels
    are that many groups of the filter's in-channels (2-D only).

    ValueError, as TF's, for an input of another rank than 4 or 5 (less the extra batch
    dimensions) or EXPLICIT 3-D padding.  TF's CPU kernel refuses CHANNELS_FIRST and
    ``groups`` > 1 (UnimplementedError) and 3-D dilations; devsession computes them, as
    TF's GPU kernel does.  An int32 convolution is computed in float64 (exact while the
    sums stay below 2**53; TF's wraps around past 2**31)."""
    with name_scope(name or "Conv"):
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filter, dtype_hint=x.dtype, name="filter")
        if x.shape.rank is None:
            raise ValueError("tf.conv needs an input of known rank.")
        rank = x.shape.rank - (batch_dims - 1)
        if rank not in (4, 5):
            raise ValueError(f"Input tensor must be rank 4 or 5, excluding extra batch "
                             f"dimensions, but got: {rank}")
        first = data_format == "CHANNELS_FIRST"
        if data_format not in ("CHANNELS_FIRST", "CHANNELS_LAST"):
            raise ValueError(f"data_format must be CHANNELS_LAST or CHANNELS_FIRST, got: "
                             f"{data_format}")
        if padding == "EXPLICIT" and rank == 5:
            raise ValueError("Explicit padding not supported for 3D Convolution")
        if groups != 1 and rank == 5:
            raise ValueError("tf.conv: devsession groups 2-D convolutions only.")
        _check_groups(x, f, groups, first)
        outer = None
        if batch_dims > 1:
            outer = shape_of(x)[:batch_dims]
            x = reshape(x, concat([[-1], shape_of(x)[batch_dims:]], 0))
        dilations = list(dilations) or [1] * rank
        if padding == "EXPLICIT":
            flat = [int(p) for p in explicit_paddings]
            padding = [flat[i:i + 2] for i in range(0, len(flat), 2)]
        integral = x.dtype == dtypes.int32          # TF's kernel takes int32 too
        if integral:
            x, f = cast(x, dtypes.float64), cast(f, dtypes.float64)
        if rank == 4:
            out = conv2d(x, f, list(strides), padding, data_format="NCHW" if first else "NHWC",
                         dilations=dilations)
        else:
            out = conv3d(x, f, list(strides), padding,
                         data_format="NCDHW" if first else "NDHWC", dilations=dilations)
        if integral:
            out = cast(out, dtypes.int32)
        if outer is not None:
            out = reshape(out, concat([outer, shape_of(out)[1:]], 0))
        return out


def _check_groups(x, f, groups: int, channels_first: bool) -> None:
    """ValueError, as TF's, unless the input has ``groups`` times the filter's
    in-channels (either unknown passes)."""
    depth = x.shape.dims[1 if channels_first else -1]
    in_depth = f.shape.dims[-2] if f.shape.rank else None
    if depth is not None and in_depth is not None and depth != in_depth * groups:
        raise ValueError(f"Input depth divided by filter input depth does not match with "
                         f"groups parameter ({groups}): input depth {depth}, filter input "
                         f"depth {in_depth}.")
