"""The kernel of ``ExtractVolumePatches`` (``devsession/ops/volume_patches.py``), on the
host: the input zero-padded as SAME needs, then one strided copy per window offset
(plane, row, col), the offsets' copies stacked in that order before the channels."""

from __future__ import annotations

import numpy as np

from ...errors import UnimplementedError
from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from ..windows import output_size

__all__: list = []


@register_kernel("ExtractVolumePatches", HOST)
def build_extract_volume_patches(node):
    from ...ops.volume_patches import volume_geometry

    ksizes, strides, padding = volume_geometry(node.attrs, node.name)
    for what, values in (("ksizes", ksizes), ("strides", strides)):
        if values[0] != 1 or values[4] != 1:
            raise UnimplementedError(f"Only support {what} across space.",
                                     node_name=node.name)

    def extract_volume_patches(x):
        if x.ndim != 5:
            raise invalid_argument(node.name, node.op, f"input must be 5-dimensional, got "
                                   f"shape {list(x.shape)}")
        geometry = [output_size(x.shape[i], ksizes[i], strides[i], 1, padding)
                    for i in (1, 2, 3)]
        outs = [max(out, 0) for out, _, _ in geometry]
        padded = np.pad(x, [(0, 0)] + [(before, after) for _, before, after in geometry]
                        + [(0, 0)])
        sp, sr, sc = strides[1:4]
        parts = []
        for i in range(ksizes[1]):
            for j in range(ksizes[2]):
                for k in range(ksizes[3]):
                    parts.append(padded[:, i:i + sp * outs[0]:sp, j:j + sr * outs[1]:sr,
                                        k:k + sc * outs[2]:sc][:, :outs[0], :outs[1], :outs[2]])
        return np.concatenate(parts, axis=4) if parts else \
            np.zeros(x.shape[:1] + tuple(outs) + (0,), x.dtype)
    return extract_volume_patches
