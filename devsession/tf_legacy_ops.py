"""TF op types devsession imports by building other ops: those older TF 1.x releases
wrote into frozen models (``Div``, ``Mod``, ``Inv``, ``Concat``, ``Reverse``,
``BiasAddV1``, ``InTopK``, ``MaxPoolV2``, ``NonMaxSuppression``/``V2``, ``UniqueV2``)
and those TF's image and math functions build that devsession computes from others
(``RGBToHSV``, ``HSVToRGB``, ``AdjustHue``, ``AdjustSaturation``, ``AdjustContrastv2``,
``NthElement``, ``ApproximateEqual``, ``LinSpace``, ``ClipByValue``, ``AccumulateNV2``).

``COMPOSITES`` maps each to a builder ``(node, inputs, attrs) -> tensor`` that
``tf_graph.translate`` runs under the node's name (the node becomes an Identity of the
result); ``REWRITES`` maps a node to one devsession op, ``(node, inputs, attrs) ->
(op type, inputs, attrs)``.  Both join ``tf_graph``'s tables when this module is
imported (by devsession's ``__init__``).  Semantics are TF's kernels': ``Div`` and
``Mod`` truncate (C's ``/`` and ``%``, ``fmod`` for floats), whatever the newer Python
wrappers do; an integer ``Div`` or ``Mod`` by zero is their InvalidArgumentError "Integer
division by zero" (raised by a FloorMod guard, ``_zero_divisor_guard``), not the
InternalError of TruncateDiv's kernel.  An input devsession needs while building (a
pool's window, ``Reverse``'s dims) must be a constant: UnimplementedError naming the node
otherwise.
"""

from __future__ import annotations

import numpy as np

from . import image
from .errors import UnimplementedError
from .graph import control_dependencies
from .ops.array import concat
from .ops.array_fill import add_n
from .ops.array_order import sort
from .ops.clipping import clip_by_value
from .ops.elementwise import (abs as abs_op, floormod, less, reciprocal, truncatediv,
                              truncatemod)
from .ops.gather_options import gather
from .ops.image_nms import non_max_suppression
from .ops.masking import linspace, reverse
from .ops.nn_conv import max_pool
from .ops.top_k import in_top_k
from .tf_graph import add_mapped_ops, constant_input

__all__ = ["COMPOSITES", "REWRITES"]


def _zero_divisor_guard(x, y):
    """A FloorMod of ``x`` by ``y``, run before an integer Div or Mod: TF's legacy Div
    and Mod kernels raise FloorMod's error for a zero divisor (InvalidArgumentError
    "Integer division by zero"), where TruncateDiv's and TruncateMod's raise an
    InternalError; and it raises exactly when the division would (an empty output
    divides nothing)."""
    return control_dependencies([floormod(x, y).op])


def _div(node, inputs, attrs):
    x, y = inputs
    if not x.dtype.is_integer:
        return x / y
    with _zero_divisor_guard(x, y):
        return truncatediv(x, y)


def _mod(node, inputs, attrs):
    x, y = inputs
    if not x.dtype.is_integer:
        return truncatemod(x, y)
    with _zero_divisor_guard(x, y):
        return truncatemod(x, y)


def _inv(node, inputs, attrs):
    return reciprocal(inputs[0])


def _concat_v1(node, inputs, attrs):
    axis, *values = inputs
    return concat(values, int(constant_input(node, axis, "the concat_dim")))


def _reverse_v1(node, inputs, attrs):
    x, dims = inputs
    flags = constant_input(node, dims, "the dims").reshape(-1)
    return reverse(x, [axis for axis, flag in enumerate(flags) if flag])


def _in_top_k_v1(node, inputs, attrs):
    predictions, targets = inputs
    return in_top_k(predictions, targets, int(attrs["k"]))


def _max_pool_v2(node, inputs, attrs):
    x, ksize, strides = inputs
    return max_pool(x, [int(k) for k in constant_input(node, ksize, "the ksize")],
                    [int(s) for s in constant_input(node, strides, "the strides")],
                    _text(attrs["padding"]), _text(attrs.get("data_format", "NHWC")))


def _non_max_suppression(node, inputs, attrs):
    boxes, scores, max_output_size, *threshold = inputs
    iou_threshold = threshold[0] if threshold else attrs.get("iou_threshold", 0.5)
    return non_max_suppression(boxes, scores, max_output_size, iou_threshold)


def _image_op(function_name: str):
    """A builder calling ``devsession.image``'s ``function_name`` with the node's
    inputs."""
    def build(node, inputs, attrs):
        return getattr(image, function_name)(*inputs)
    return build


def _nth_element(node, inputs, attrs):
    x, n = inputs
    ordered = sort(x, direction="DESCENDING" if attrs.get("reverse") else "ASCENDING")
    return gather(ordered, n, axis=-1)


def _approximate_equal(node, inputs, attrs):
    x, y = inputs
    return less(abs_op(x - y), np.asarray(attrs.get("tolerance", 1e-5), x.dtype.np))


def _lin_space(node, inputs, attrs):
    return linspace(*inputs)


def _clip_by_value(node, inputs, attrs):
    return clip_by_value(*inputs)


def _accumulate_n(node, inputs, attrs):
    return add_n(list(inputs))


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


COMPOSITES = {
    "Div": _div, "Mod": _mod, "Inv": _inv, "Concat": _concat_v1, "Reverse": _reverse_v1,
    "InTopK": _in_top_k_v1, "MaxPoolV2": _max_pool_v2,
    "NonMaxSuppression": _non_max_suppression, "NonMaxSuppressionV2": _non_max_suppression,
    "RGBToHSV": _image_op("rgb_to_hsv"), "HSVToRGB": _image_op("hsv_to_rgb"),
    "AdjustHue": _image_op("adjust_hue"), "AdjustSaturation": _image_op("adjust_saturation"),
    "AdjustContrastv2": _image_op("adjust_contrast"),
    "NthElement": _nth_element, "ApproximateEqual": _approximate_equal,
    "LinSpace": _lin_space, "ClipByValue": _clip_by_value, "AccumulateNV2": _accumulate_n,
}


def _bias_add_v1(node, inputs, attrs):
    return "BiasAdd", inputs, attrs


def _unique_v2(node, inputs, attrs):
    """UniqueV2 over axis 0 of a vector (what ``tf.unique`` means) is Unique."""
    x, axis = inputs
    axes = constant_input(node, axis, "the axis").reshape(-1)
    if x.shape.ndims != 1 or axes.size > 1 or (axes.size and int(axes[0]) not in (0, -1)):
        raise UnimplementedError(
            f"Node '{node.name}' (UniqueV2): only the unique elements of a vector are "
            f"supported, not axis {axes.tolist()} of shape {x.shape}.", node.name)
    return "Unique", [x], attrs


REWRITES = {"BiasAddV1": _bias_add_v1, "UniqueV2": _unique_v2}
add_mapped_ops(COMPOSITES, REWRITES)
