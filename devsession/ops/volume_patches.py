"""``tf.extract_volume_patches``: TF's ``ExtractVolumePatches``, the 3-D form of
``ExtractImagePatches``: the ``[1, planes, rows, cols, 1]`` windows of an NDHWC input
``strides`` apart (no rates), each flattened into the depth in (plane, row, col,
channel) order, so the output is ``[batch, out_planes, out_rows, out_cols, kp * kr * kc
* depth]``.  Each output size is Conv3D's ("VALID": ``(size - k) // stride + 1``, 0
where the window does not fit, as TF infers; "SAME": ``ceil(size / stride)`` with the
odd padding cell at the end; padding reads 0).

``ksizes`` and ``strides`` must each hold 5 values; TF's shape function takes any,
and its kernel refuses windows or strides across the batch or depth when run
(UnimplementedError), as here.  The gradient (``volume_patches_grad.py``) scatters
each patch element back onto the cell it was read from.  Kernel:
``kernels/reference/volume_patches.py`` (on the host).
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor
from ..kernels.windows import output_size
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, register_op

__all__ = ["extract_volume_patches", "volume_geometry"]


def volume_geometry(attrs, node: str):
    """``(ksizes, strides, padding)`` of an ExtractVolumePatches node: two 5-lists and
    "SAME" or "VALID" (ValueError, TF's, for a list of fewer than 5)."""
    lists = []
    for key in ("ksizes", "strides"):
        values = [int(v) for v in attrs[key]]
        if len(values) < 5:
            raise ValueError(f"Attr '{key}' of 'ExtractVolumePatches' Op passed list of "
                             f"length {len(values)} less than minimum 5.")
        lists.append(values)
    padding = attrs["padding"]
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if padding not in ("SAME", "VALID"):
        raise InferError(f"Op '{node}': padding must be 'SAME' or 'VALID', got {padding!r}.")
    return lists[0], lists[1], padding


def _out(size, k: int, stride: int, padding: str):
    if size is None:
        return None
    return max(output_size(size, k, stride, 1, padding)[0], 0)


def _infer(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_numeric:
        raise TypeError(f"Op '{node}': input '{x.name}' must be a real number type, not "
                        f"{x.dtype.name}.")
    ksizes, strides, padding = volume_geometry(attrs, node)
    if x.shape.ndims is None:
        return x.dtype, TensorShape([None] * 5)
    if x.shape.ndims != 5:
        raise InferError(f"Shape must be rank 5 but is rank {x.shape.ndims} for '{node}': "
                         f"input {x.shape}.")
    b, p, r, c, d = x.shape.dims
    return x.dtype, TensorShape([b] + [_out(size, ksizes[i], strides[i], padding)
                                      for i, size in enumerate((p, r, c), 1)]
                               + [None if d is None else d * ksizes[1] * ksizes[2] * ksizes[3]])


register_op(OpDef("ExtractVolumePatches", _infer, 1))


def extract_volume_patches(input, ksizes, strides, padding, name=None) -> Tensor:  # noqa: A002
    """The windows of the NDHWC ``input`` flattened into the depth (see the module
    docstring)."""
    padding = padding.decode() if isinstance(padding, bytes) else str(padding)
    return make_op("ExtractVolumePatches", [convert_to_tensor(input, name="input")],
                   {"ksizes": tuple(int(v) for v in ksizes),
                    "strides": tuple(int(v) for v in strides), "padding": padding}, name)
