"""Channels-first (NCHW) convolution and pooling, built around devsession's NHWC ops: the
input transposed to NHWC, the NHWC op, the result transposed back.

GPU-tuned TF1 code passes ``data_format="NCHW"`` to ``tf.nn.conv2d``, ``conv2d_transpose``,
``depthwise_conv2d(_native)``, ``separable_conv2d``, ``max_pool``, ``avg_pool`` (and
"NCW" to ``conv1d``, which TF builds as an NCHW Conv2D); devsession's kernels take NHWC
only, so those builders (``nn_conv.py``, ``nn_depthwise.py``) build their NHWC op inside
``around_nhwc``.  This module imports none of them: it sits below them.

The values are TF's (a transpose moves no number); the graph differs from TF's, which
has one node with ``data_format: "NCHW"``: here a ``Transpose`` to NHWC
(``<name>/to_nhwc``), the NHWC op (``<name>/<its type>``) and a ``Transpose`` back named
``name`` itself (else the op type, "Conv2D"...), so ``get_tensor_by_name("conv:0")``
still finds the result.  Gradients flow through the transposes.

What the caller gives in NCHW order is put in NHWC order: 4-long ``strides``, ``ksize``
and ``dilations`` (an int or a pair means the same spatial windows in both layouts), a
transposed convolution's ``output_shape`` (a list or a tensor, gathered).  Filters do
not change: ``[h, w, in, out]`` in both layouts, as TF's.  BiasAdd, FusedBatchNorm and
the 3-D ops (NCDHW) take channels first themselves and need none of this;
``tf_graph.py`` imports TF's NCHW nodes through the same builders.
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from .array import transpose

__all__ = ["format_name", "is_channels_first", "nhwc_order", "to_nhwc", "around_nhwc", "nhwc_sizes",
           "NHWC_FROM_NCHW", "NCHW_FROM_NHWC"]

NHWC_FROM_NCHW = (0, 2, 3, 1)
NCHW_FROM_NHWC = (0, 3, 1, 2)


def format_name(data_format, default: str = "NHWC") -> str:
    """A builder's ``data_format`` as devsession's attrs hold it: bytes decoded (TF's
    ``get_attr`` gives string attrs as bytes, and TF's builders take both), None the
    default."""
    if isinstance(data_format, bytes):
        return data_format.decode()
    return default if data_format is None else data_format


def is_channels_first(data_format) -> bool:
    """Whether a 2-D tf.nn op's ``data_format`` is "NCHW" (str or bytes)."""
    return format_name(data_format) == "NCHW"


def nhwc_order(value):
    """A window attr (or an explicit padding's four pairs) given in NCHW order, in NHWC
    order: a 4-list permuted; an int, a string (a padding's name), a 1- or 2-list
    (spatial only) or None as it is."""
    if value is None or isinstance(value, (int, str, bytes)) or len(value) != 4:
        return value
    n, c, h, w = value
    return [n, h, w, c]


def to_nhwc(x) -> Tensor:
    """``x`` (NCHW) transposed to NHWC, named ``to_nhwc`` in the current scope."""
    return transpose(convert_to_tensor(x), NHWC_FROM_NCHW, name="to_nhwc")


def _back(y: Tensor, scope: str) -> Tensor:
    """``y`` (NHWC) transposed to NCHW, the Transpose named after ``scope``."""
    return y.graph.create_op("Transpose", [y], {"perm": NCHW_FROM_NHWC},
                             name=scope.rstrip("/"), exact_name=True).outputs[0]


def around_nhwc(x, name, default: str, build) -> Tensor:
    """``build(x as NHWC)`` (an NHWC op) transposed back to NCHW, under ``name`` (else
    ``default``): the Transpose back named after that scope."""
    with name_scope(name or default) as scope:
        return _back(build(to_nhwc(x)), scope)


def nhwc_sizes(output_shape, graph) -> Tensor:
    """A transposed convolution's ``output_shape`` (NCHW order; a list or a tensor) in
    NHWC order."""
    from .array_index import gather
    from .array_operands import int_operand

    sizes = int_operand(output_shape, graph, name="output_shape")
    return gather(sizes, list(NHWC_FROM_NCHW))
