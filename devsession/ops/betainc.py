"""TF's ``Betainc``: the regularized incomplete beta function I_x(a, b), elementwise over
``a``, ``b`` and ``x`` of one float type, of one shape or scalars (TF's rule: other shapes
are a ValueError at build time).  NaN where a or b is not positive or x is outside
[0, 1]; 0 at x = 0 and 1 at x = 1.  The kernel (``kernels/reference/betainc.py``: a
continued fraction in float64) runs on the host.  The gradient is TF's: in x only,
x^(a-1) (1-x)^(b-1) / B(a, b); none in a or b.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape
from .elementwise import exp, log, log1p, negative
from .reduce import reduce_sum
from .registry import InferError, OpDef, register_gradient, register_op
from .special import lgamma

__all__ = ["betainc"]


def _infer(inputs, attrs, node):
    dtype = inputs[0].dtype
    if dtype not in (dtypes.float32, dtypes.float64) or \
            any(spec.dtype != dtype for spec in inputs):
        raise TypeError(f"Op '{node}': a, b and x must all be float32 or all float64, got "
                        f"{', '.join(spec.dtype.name for spec in inputs)}.")
    shapes = [spec.shape for spec in inputs if spec.shape.rank != 0]
    shape = TensorShape([]) if not shapes else shapes[0]
    for other in shapes[1:]:
        if not shape.is_compatible_with(other):
            raise InferError(f"Shapes of a, b and x are inconsistent for '{node}': "
                             f"{', '.join(str(spec.shape) for spec in inputs)}.")
        shape = shape.merge_with(other)
    return dtype, shape


register_op(OpDef("Betainc", _infer, 3))


@register_gradient("Betainc")
def _betainc_grad(op, dy):
    a, b, x = op.inputs
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = exp((b - 1) * log1p(negative(x)) + (a - 1) * log(x) - log_beta)
    grad = partial_x * dy
    if x.shape.rank == 0 and grad.shape.rank != 0:        # x was a scalar beside arrays
        grad = reduce_sum(grad)
    return [None, None, grad]


def betainc(a, b, x, name=None):
    """I_x(a, b), the regularized incomplete beta function (TF's ``tf.math.betainc``)."""
    graph = get_default_graph()
    first = next((v for v in (a, b, x) if hasattr(v, "dtype")), None)
    hint = getattr(first, "dtype", None)
    inputs = [convert_to_tensor(v, dtype_hint=hint, graph=graph) for v in (a, b, x)]
    return graph.create_op("Betainc", inputs, name=name or "Betainc").outputs[0]
