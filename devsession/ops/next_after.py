"""TF's ``NextAfter`` (``tf.math.nextafter``): the float after ``x1`` in the direction
of ``x2``, elementwise with broadcasting, float32 or float64 (as TF's).  Its kernel is
numpy's ``nextafter`` on the host.  The gradient is TF's: ``dy`` to x1 and zeros to x2,
each summed to its input's shape.
"""

from __future__ import annotations

from .common import make_op, operands
from .elementwise import _public
from .registry import OpDef, register_gradient, register_op
from .shape_of import reduce_to_shape_of, zeros_like_of
from .special import _binary_single_or_double

__all__ = ["nextafter"]

register_op(OpDef("NextAfter", _binary_single_or_double, 2))


@register_gradient("NextAfter")
def _next_after_grad(op, dy):
    x1, x2 = op.inputs
    return [reduce_to_shape_of(dy, x1, peers=(x2,)), zeros_like_of(x2)]


nextafter = _public(
    lambda x1, x2, name=None: make_op("NextAfter", operands(x1, x2, names=("x1", "x2")),
                                      name=name or "NextAfter"),
    "nextafter", "The next representable float after x1 towards x2, elementwise (TF's "
    "tf.math.nextafter).")
