"""Gradients of the elementwise ops (TF's ``math_grad.py`` formulas).

Binary ops broadcast, so each input's gradient is the output gradient summed down to
that input's shape (``shape_of.reduce_to_shape_of``: static ``Sum`` nodes when the
shapes decide, TF's ``BroadcastGradientArgs`` at run time otherwise).  Every formula
is elementwise, so the optimizer fuses a gradient chain into one kernel.  Comparisons
are not differentiable; Cast passes gradients between floating types only.
"""

from __future__ import annotations

import numpy as np

from ..graph import constant_from_array
from .common import make_op
from .elementwise import (add, cast, cos, cosh, div_no_nan, divide, exp, greater,
                          greater_equal, less, less_equal, log, multiply, negative,
                          not_equal, pow, rsqrt, sinh, square, subtract, where, xlogy)
from .registry import not_differentiable, register_gradient
from .shape_of import reduce_to_shape_of, zeros_like_of

not_differentiable("Equal", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd")


def _binary(op):
    return op.inputs[0], op.inputs[1]


def _c(t):
    """``t``, conjugated when complex: TF's gradient of a complex op is the conjugate
    derivative times the gradient (so each formula takes conj of its inputs/outputs)."""
    if not t.dtype.is_complex:
        return t
    from .complex_math import conj

    return conj(t)


def _to_x(grad, op):
    x, y = _binary(op)
    return reduce_to_shape_of(grad, x, peers=(y,))


def _to_y(grad, op):
    x, y = _binary(op)
    return reduce_to_shape_of(grad, y, peers=(x,))


# --- unary --------------------------------------------------------------------------------

@register_gradient("Neg")
def _neg_grad(op, dy):
    return [negative(dy)]


@register_gradient("Abs")
def _abs_grad(op, dy):
    x = op.inputs[0]
    sign = subtract(cast(greater(x, 0), x.dtype), cast(less(x, 0), x.dtype))
    return [multiply(dy, sign)]


@register_gradient("Square")
def _square_grad(op, dy):
    return [multiply(dy, multiply(_c(op.inputs[0]), 2))]


@register_gradient("Relu")
def _relu_grad(op, dy):
    y = op.outputs[0]
    return [multiply(dy, cast(greater(y, 0), dy.dtype))]     # TF's ReluGrad


@register_gradient("Exp")
def _exp_grad(op, dy):
    return [multiply(dy, _c(op.outputs[0]))]


@register_gradient("Log")
def _log_grad(op, dy):
    return [multiply(dy, divide(1, _c(op.inputs[0])))]


@register_gradient("Sqrt")
def _sqrt_grad(op, dy):
    # TF's SqrtGrad op: 0.5 * dy / conj(y), and 0 where dy is 0 (at y = 0 too, so a
    # distance masked after its sqrt has gradient 0 there, not NaN)
    return [make_op("SqrtGrad", [op.outputs[0], dy])]


@register_gradient("Tanh")
def _tanh_grad(op, dy):
    y = _c(op.outputs[0])
    return [multiply(dy, subtract(1, multiply(y, y)))]     # TF's TanhGrad


@register_gradient("Sigmoid")
def _sigmoid_grad(op, dy):
    y = _c(op.outputs[0])
    return [multiply(multiply(dy, y), subtract(1, y))]     # TF's SigmoidGrad


@register_gradient("Cast")
def _cast_grad(op, dy):
    source, target = op.inputs[0].dtype, op.outputs[0].dtype
    if (source.is_floating or source.is_complex) and (target.is_floating or target.is_complex):
        return [cast(dy, source)]       # complex to real: the real part, as TF's
    return [None]


# --- binary -------------------------------------------------------------------------------

@register_gradient("Add")
@register_gradient("AddV2")
def _add_grad(op, dy):
    return [_to_x(dy, op), _to_y(dy, op)]


@register_gradient("Sub")
def _sub_grad(op, dy):
    return [_to_x(dy, op), negative(_to_y(dy, op))]


@register_gradient("Mul")
def _mul_grad(op, dy):
    x, y = map(_c, _binary(op))
    return [_to_x(multiply(dy, y), op), _to_y(multiply(x, dy), op)]


@register_gradient("RealDiv")
def _real_div_grad(op, dy):
    x, y = map(_c, _binary(op))
    return [_to_x(divide(dy, y), op), _to_y(multiply(dy, divide(divide(negative(x), y), y)), op)]


@register_gradient("Pow")
def _pow_grad(op, dy):
    x, y = map(_c, _binary(op))
    z = _c(op.outputs[0])
    dx = multiply(multiply(dy, y), pow(x, subtract(y, 1)))
    # d/dy x**y = x**y * log(x), taken as 0 where x <= 0 (TF avoids the false
    # singularity at 0 the same way; a complex x: where x is 0)
    positive = not_equal(x, 0) if x.dtype.is_complex else greater(x, 0)
    log_x = where(positive, log(where(positive, x, 1)), 0)
    return [_to_x(dx, op), _to_y(multiply(multiply(dy, z), log_x), op)]


def _select_by(mask, dy, op):
    return [_to_x(where(mask, dy, 0), op), _to_y(where(mask, 0, dy), op)]


@register_gradient("Maximum")
def _maximum_grad(op, dy):
    return _select_by(greater_equal(*_binary(op)), dy, op)   # ties go to x, as in TF


@register_gradient("Minimum")
def _minimum_grad(op, dy):
    return _select_by(less_equal(*_binary(op)), dy, op)


@register_gradient("SelectV2")
def _select_grad(op, dy):
    c, x, y = op.inputs
    return [None, reduce_to_shape_of(where(c, dy, 0), x, peers=(c, y)),
            reduce_to_shape_of(where(c, 0, dy), y, peers=(c, x))]


# --- the TF1 surface's math spellings: Rsqrt and Reciprocal in terms of the output, as TF
# computes them (its RsqrtGrad and ReciprocalGrad ops: 0 where the gradient is 0); Floor,
# Ceil, Round and Sign are piecewise constant (no gradient flows; Sign's is TF's zeros).

@register_gradient("Rsqrt")
def _rsqrt_grad(op, grad):
    return [make_op("RsqrtGrad", [op.outputs[0], grad])]


@register_gradient("Reciprocal")
def _reciprocal_grad(op, grad):
    return [make_op("ReciprocalGrad", [op.outputs[0], grad])]


@register_gradient("Sin")
def _sin_grad(op, grad):
    return [make_op("Mul", [grad, make_op("Cos", [_c(op.inputs[0])])])]


@register_gradient("Cos")
def _cos_grad(op, grad):
    return [make_op("Mul", [grad, make_op("Neg", [make_op("Sin", [_c(op.inputs[0])])])])]


@register_gradient("Floor")
@register_gradient("Ceil")
@register_gradient("Round")
def _piecewise_constant_grad(op, grad):
    return [None]


@register_gradient("Sign")
def _sign_grad(op, grad):
    return [zeros_like_of(op.inputs[0])]        # TF's zeros, where Floor's is None


@register_gradient("FloorMod")
def _floor_mod_grad(op, dy):
    # x mod y = x - floor(x / y) * y: dx = dy, dy_y = -dy * floor(x / y) (TF's rule)
    x, y = op.inputs
    quotient = make_op("FloorDiv", [x, y])
    return [_to_x(dy, op), _to_y(negative(multiply(dy, quotient)), op)]


not_differentiable("NotEqual", "LogicalOr", "LogicalNot", "FloorDiv", "TruncateDiv",
                   "TruncateMod")


@register_gradient("SquaredDifference")
def _squared_difference_grad(op, dy):
    x, y = op.inputs
    twice = multiply(multiply(dy, subtract(x, y)), constant_from_array(np.array(2.0, dy.dtype.np),
                                                                       graph=dy.graph))
    return [_to_x(twice, op), _to_y(negative(twice), op)]


# --- TF1 math (branch tf1-math): TF's math_grad.py formulas --------------------------------

def _unary_chain(derivative):
    """The gradient ``dy * derivative(x)`` of a unary op (``conj(x)`` for complex x, TF's
    convention)."""
    return lambda op, dy: [multiply(dy, derivative(_c(op.inputs[0])))]


_TWO_OVER_ROOT_PI = 2 / np.sqrt(np.pi)
register_gradient("Log1p")(_unary_chain(lambda x: divide(1, add(1, x))))
register_gradient("Expm1")(_unary_chain(exp))
register_gradient("Erf")(_unary_chain(
    lambda x: multiply(_TWO_OVER_ROOT_PI, exp(negative(multiply(x, x))))))
register_gradient("Erfc")(_unary_chain(
    lambda x: multiply(-_TWO_OVER_ROOT_PI, exp(negative(multiply(x, x))))))
register_gradient("Tan")(_unary_chain(lambda x: square(divide(1, cos(x)))))  # sec(x)**2
register_gradient("Asin")(_unary_chain(lambda x: rsqrt(subtract(1, multiply(x, x)))))
register_gradient("Acos")(_unary_chain(
    lambda x: negative(rsqrt(subtract(1, multiply(x, x))))))
register_gradient("Atan")(_unary_chain(lambda x: divide(1, add(1, multiply(x, x)))))
register_gradient("Sinh")(_unary_chain(cosh))
register_gradient("Cosh")(_unary_chain(sinh))
not_differentiable("IsNan", "IsInf", "IsFinite")


@register_gradient("Atan2")
def _atan2_grad(op, dy):
    # atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
    y, x = op.inputs
    scaled = divide(dy, add(multiply(x, x), multiply(y, y)))
    return [reduce_to_shape_of(multiply(x, scaled), y, peers=(x,)),
            reduce_to_shape_of(negative(multiply(y, scaled)), x, peers=(y,))]


@register_gradient("Xlogy")
def _xlogy_grad(op, dy):
    # d/dx = xlogy(x != 0, y) (0 where x is 0), d/dy = x / y (0 where x is 0: TF's xdivy)
    x, y = op.inputs
    nonzero = not_equal(x, 0)
    partial_x = xlogy(cast(nonzero, x.dtype), y)
    partial_y = where(nonzero, divide(x, where(nonzero, y, 1)), 0)
    return [_to_x(multiply(dy, partial_x), op), _to_y(multiply(dy, partial_y), op)]


@register_gradient("DivNoNan")
def _div_no_nan_grad(op, dy):
    x, y = map(_c, op.inputs)
    return [_to_x(div_no_nan(dy, y), op),
            _to_y(multiply(dy, div_no_nan(div_no_nan(negative(x), y), y)), op)]


# --- TF1 math names (branch tf1-math-names): TF's math_grad.py formulas; Rint and the
# bitwise ops are not differentiable ------------------------------------------------------

def _output_chain(derivative):
    """The gradient ``dy / derivative(y)`` of a unary op, from its output ``y`` (``conj(y)``
    for complex y)."""
    return lambda op, dy: [divide(dy, derivative(_c(op.outputs[0])))]


register_gradient("Acosh")(_output_chain(sinh))          # 1 / sinh(acosh(x))
register_gradient("Asinh")(_output_chain(cosh))          # 1 / cosh(asinh(x))
register_gradient("Atanh")(_unary_chain(lambda x: divide(1, subtract(1, multiply(x, x)))))
not_differentiable("Rint", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift",
                   "RightShift")


def _x_nonzero(x):
    return cast(not_equal(x, 0), x.dtype)


@register_gradient("Xdivy")
def _xdivy_grad(op, dy):
    # d/dx = xdivy(x != 0, y), d/dy = xdivy(-x, y^2): 0 where x is 0, as TF's
    x, y = op.inputs
    partial_x = make_op("Xdivy", [_x_nonzero(x), y])
    partial_y = make_op("Xdivy", [negative(x), multiply(y, y)])
    return [_to_x(multiply(dy, partial_x), op), _to_y(multiply(dy, partial_y), op)]


@register_gradient("Xlog1py")
def _xlog1py_grad(op, dy):
    # d/dx = xlog1py(x != 0, y), d/dy = xdivy(x, y + 1)
    x, y = op.inputs
    partial_x = make_op("Xlog1py", [_x_nonzero(x), y])
    partial_y = make_op("Xdivy", [x, add(y, 1)])
    return [_to_x(multiply(dy, partial_x), op), _to_y(multiply(dy, partial_y), op)]


@register_gradient("MulNoNan")
def _mul_no_nan_grad(op, dy):
    x, y = op.inputs
    return [_to_x(make_op("MulNoNan", [dy, y]), op), _to_y(make_op("MulNoNan", [x, dy]), op)]
