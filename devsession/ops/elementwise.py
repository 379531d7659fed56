"""Elementwise ops: unary and binary math, comparisons, SelectV2 and Cast.

Each maps inputs to an output element by element with numpy broadcasting
(``OpDef.elementwise``), so the optimizer may fuse a region of them into one kernel
(``_FusedElementwise``, made only by ``devsession/optimizer/fusion.py``).  Kernels:
``kernels/{reference,cpu,cuda}/elementwise.py``; the expression each compiles from is
in ``kernels/codegen/expressions.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor
from .common import broadcast, graph_of, make_op, numeric, operands, same_dtype, unary_any
from .registry import OpDef, register_op
from .shape_arithmetic import INT_ARITHMETIC, int_arithmetic_value, int_cast_value

__all__ = ["negative", "abs", "exp", "log", "sqrt", "square", "tanh", "sigmoid", "relu", "add",
           "subtract", "multiply", "divide", "truediv", "pow", "maximum", "minimum", "equal",
           "less", "less_equal", "greater", "greater_equal", "where", "cast"]

UNARY_NUMERIC = ("Neg", "Abs", "Square", "Relu")


UNARY_FLOAT = ("Exp", "Log", "Sqrt", "Tanh", "Sigmoid")


BINARY_SAME = ("Add", "Sub", "Mul", "Pow", "Maximum", "Minimum", "RealDiv")


COMPARISONS = ("Equal", "Less", "LessEqual", "Greater", "GreaterEqual")


# The elementwise ops TF defines on complex64/complex128 that devsession runs on them
# (numpy's kernels on the host); every other elementwise op refuses complex inputs.
# (Round, FloorDiv and TruncateDiv name complex types too, but TF has no kernel for them.)
COMPLEX_UNARY = ("Neg", "Square", "Exp", "Log", "Sqrt", "Tanh", "Rsqrt", "Reciprocal", "Sin",
                 "Cos", "Sigmoid", "Sign", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
                 "Log1p", "Expm1", "Asinh", "Acosh", "Atanh")
COMPLEX_BINARY = ("Add", "AddV2", "Sub", "Mul", "RealDiv", "Pow", "SquaredDifference",
                  "DivNoNan", "Xlogy", "Xdivy", "Xlog1py", "MulNoNan")


# --- shape and dtype inference ------------------------------------------------------

def _unary_numeric(inputs, attrs, node):
    numeric(inputs[0], node)
    return unary_any(inputs, attrs, node)


# TF's Neg and Abs take no unsigned integers (their T lists; Square and Relu do): -x or
# abs(x) of a uint8 image is TypeError when built, as tf.image.total_variation of one.
SIGNED_ONLY = ("Neg", "Abs")


def _signed_numeric(inputs, attrs, node):
    dtype = inputs[0].dtype
    if dtype.is_unsigned:
        allowed = "bfloat16, float16, float32, float64, int8, int16, int32, int64"
        raise TypeError(f"Value passed to parameter 'x' of Op '{node}' has DataType "
                        f"{dtype.name} not in list of allowed values: {allowed}")
    return _unary_numeric(inputs, attrs, node)


def _not_complex(dtype, node, what: str = "x") -> None:
    if dtype.is_complex:
        raise TypeError(f"Value passed to parameter '{what}' of Op '{node}' has DataType "
                        f"{dtype.name}, which the op does not take (TF defines it on real "
                        f"types only).")


def _unary_or_complex(real_infer):
    """``real_infer``'s checks, except that complex64/complex128 inputs are taken too."""
    def infer(inputs, attrs, node):
        if inputs[0].dtype.is_complex:
            return unary_any(inputs, attrs, node)
        return real_infer(inputs, attrs, node)
    return infer


def _unary_float(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_floating:
        raise TypeError(
            f"Op '{node}' needs a floating-point input, but '{x.name}' is {x.dtype.name}; "
            f"use ds.cast(x, ds.float32) first.")
    return x.dtype, x.shape


def _binary_complex(inputs, attrs, node):
    dtype = same_dtype(inputs, node)
    if dtype.is_bool or dtype.is_string or dtype.is_quantized:     # TF's T lists
        raise TypeError(f"Op '{node}' does not take {dtype.name} inputs ('{inputs[0].name}').")
    return dtype, broadcast(inputs, node)


def _binary_same(inputs, attrs, node):
    dtype, shape = _binary_complex(inputs, attrs, node)
    _not_complex(dtype, node)
    return dtype, shape


def _real_div(inputs, attrs, node):
    """TF's shape function: the inputs' dtype, integers too (RealDiv of integers builds,
    and its run is TF's missing-kernel error: ``kernels/division_checks.py``)."""
    return _binary_complex(inputs, attrs, node)


def _equal(inputs, attrs, node):
    same_dtype(inputs, node)
    return dtypes.bool_, broadcast(inputs, node)


def _order(inputs, attrs, node):
    dtype = same_dtype(inputs, node)
    if dtype.is_bool or dtype.is_string or dtype.is_complex or dtype.is_quantized:
        raise TypeError(f"Op '{node}' cannot order {dtype.name} inputs ('{inputs[0].name}').")
    return dtypes.bool_, broadcast(inputs, node)


def _select(inputs, attrs, node):
    cond, x, y = inputs
    if not cond.dtype.is_bool:
        raise TypeError(f"Op '{node}': condition '{cond.name}' must be bool, not {cond.dtype.name}.")
    return same_dtype([x, y], node), broadcast(inputs, node)


def _cast(inputs, attrs, node):
    dst = dtypes.as_dtype(attrs["DstT"])
    if inputs[0].dtype.is_string != dst.is_string:
        raise TypeError(f"Op '{node}': cannot cast {inputs[0].dtype.name} '{inputs[0].name}' "
                        f"to {dst.name}; strings and numbers do not convert into each other.")
    return dst, inputs[0].shape


def _internal(inputs, attrs, node):
    raise TypeError(f"Op '{node}': _FusedElementwise is made by the optimizer, not by graphs.")


def _unary_with_complex(name: str, infer):
    return _unary_or_complex(infer) if name in COMPLEX_UNARY else infer


def _static_value(name: str):
    return int_arithmetic_value if name in INT_ARITHMETIC else None


def _register() -> None:
    for name in UNARY_NUMERIC:
        infer = _signed_numeric if name in SIGNED_ONLY else _unary_numeric
        register_op(OpDef(name, _unary_with_complex(name, infer), 1, elementwise=True,
                          static_value=_static_value(name)))
    for name in UNARY_FLOAT:
        register_op(OpDef(name, _unary_with_complex(name, _unary_float), 1, elementwise=True))
    for name in BINARY_SAME:
        infer = _real_div if name == "RealDiv" else (
            _binary_complex if name in COMPLEX_BINARY else _binary_same)
        register_op(OpDef(name, infer, 2, elementwise=True, static_value=_static_value(name)))
    for name in COMPARISONS:
        register_op(OpDef(name, _equal if name == "Equal" else _order, 2, elementwise=True))
    register_op(OpDef("SelectV2", _select, 3, elementwise=True))
    register_op(OpDef("Cast", _cast, 1, elementwise=True, static_value=int_cast_value))
    register_op(OpDef("_FusedElementwise", _internal, None))  # optimizer/fusion.py


_register()


# --- builders ----------------------------------------------------------------------------

def _public(build, public_name: str, doc: str):
    """``build`` as users see it: named ``ds.<public_name>`` in tracebacks and help()."""
    build.__name__ = build.__qualname__ = public_name
    build.__doc__ = doc
    return build


def _unary(op_type: str, public_name: str):
    return _public(lambda x, name=None: make_op(op_type, operands(x), name=name),
                   public_name, f"Elementwise {op_type}.")


def _binary(op_type: str, public_name: str, default_name: str | None = None,
            names=("x", "y")):
    def build(x, y, name=None):
        # As TF1: the op's name scope holds the constants made from Python operands
        # ("add/y"), and the op takes the scope's name.
        with name_scope(name or default_name or op_type) as scope:
            return make_op(op_type, operands(x, y, names=names), name=scope)
    return _public(build, public_name, f"Elementwise {op_type} with numpy broadcasting.")


negative = _unary("Neg", "negative")
def abs(x, name=None) -> Tensor:  # noqa: A001  (TF1's name)
    """Elementwise absolute value; of a complex tensor, its magnitude (TF's ComplexAbs,
    a float32 or float64 tensor)."""
    (x,) = operands(x)
    if x.dtype.is_complex:
        return make_op("ComplexAbs", [x], {"Tout": x.dtype.real_dtype}, name=name or "Abs")
    return make_op("Abs", [x], name=name)
exp = _unary("Exp", "exp")
log = _unary("Log", "log")
sqrt = _unary("Sqrt", "sqrt")
square = _unary("Square", "square")
tanh = _unary("Tanh", "tanh")
sigmoid = _unary("Sigmoid", "sigmoid")
relu = _unary("Relu", "relu")
add = _binary("Add", "add")
subtract = _binary("Sub", "subtract")
multiply = _binary("Mul", "multiply")


# TF's truediv table: integers divide as floats, cast first (its RealDiv has no integer
# kernel)
_TRUEDIV_FLOATS = {1: dtypes.float32, 2: dtypes.float32, 4: dtypes.float64,
                   8: dtypes.float64}


def _as_truediv_floats(x, y) -> tuple[Tensor, Tensor]:
    """``x`` and ``y`` as operands; integers of one dtype cast to TF's truediv float
    (float32 for 8- and 16-bit ones, float64 for wider: the Casts ``Cast``, ``Cast_1``)."""
    x, y = operands(x, y)
    if x.dtype.is_integer and x.dtype == y.dtype:
        wide = _TRUEDIV_FLOATS[x.dtype.size]
        x, y = cast(x, wide), cast(y, wide)
    return x, y


def truediv(x, y, name=None) -> Tensor:
    """``x / y`` (RealDiv) with numpy broadcasting; integers divide as floats
    (``truediv/Cast``, ``truediv/Cast_1``), as TF's truediv casts them."""
    with name_scope(name or "truediv") as scope:
        return make_op("RealDiv", list(_as_truediv_floats(x, y)), name=scope)


def divide(x, y, name=None) -> Tensor:
    """``x / y`` (RealDiv, float results), as TF's ``tf.divide``, which divides through
    ``x``'s operator: so a SparseTensor ``x`` gives a SparseTensor (SparseDenseCwiseDiv)."""
    if isinstance(x, SparseTensor):
        return x / y
    return truediv(x, y, name=name)
pow = _binary("Pow", "pow")  # noqa: A001
maximum = _binary("Maximum", "maximum")
minimum = _binary("Minimum", "minimum")
equal = _binary("Equal", "equal")
less = _binary("Less", "less")
less_equal = _binary("LessEqual", "less_equal")
greater = _binary("Greater", "greater")
greater_equal = _binary("GreaterEqual", "greater_equal")


def where(condition, x=None, y=None, name=None) -> Tensor:
    """Elements of ``x`` where ``condition`` holds, else of ``y``, all three broadcasting
    (SelectV2: TF's ``tf.where_v2``, and what devsession's own code builds).  With
    ``condition`` alone, the int64 coordinates of its true elements (see
    ``ops/sequence.py``)."""
    if x is None and y is None:
        return make_op("Where", [convert_to_tensor(condition)], name=name or "Where")
    if x is None or y is None:
        raise ValueError("where takes both x and y, or neither (for the indices of the true "
                         "elements of condition).")
    graph = graph_of(condition, x, y)
    cond = convert_to_tensor(condition, dtype=dtypes.bool_, graph=graph)
    x, y = operands(x, y)
    return make_op("SelectV2", [cond, x, y], name=name)


def cast(x, dtype, name=None) -> Tensor:
    """``x`` as ``dtype``; a SparseTensor keeps its indices and dense shape and casts its
    values (TF's ``tf.cast``, so CTC's ``tf.cast(decoded[0], tf.int32)`` stays sparse)."""
    if isinstance(x, SparseTensor):
        return SparseTensor(x.indices, cast(x.values, dtype, name=name), x.dense_shape)
    dtype = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor) and x.dtype == dtype:
        return x                        # TF's: no op at all (so no name taken)
    with name_scope(name or "Cast") as scope:
        x = convert_to_tensor(x, name="x")
        return x if x.dtype == dtype else make_op("Cast", [x], {"DstT": dtype}, name=scope)



# --- TF1 surface (branch tf1): integer division, rounding, logic ----------------------
# Expressions and semantics: kernels/codegen/expressions.py's block of the same name.

def _logical(inputs, attrs, node):
    for x in inputs:
        if not x.dtype.is_bool:
            raise TypeError(f"Op '{node}' takes bool inputs, but '{x.name}' is {x.dtype.name}.")
    return dtypes.bool_, broadcast(inputs, node)


def _sign(inputs, attrs, node):
    if inputs[0].dtype.is_unsigned:
        raise TypeError(f"Op '{node}': sign of an unsigned tensor ('{inputs[0].name}') is not "
                        f"defined; cast it to a signed type first.")
    return _unary_numeric(inputs, attrs, node)


# TF's TruncateMod takes no small or unsigned integers (its T list), unlike FloorMod.
TRUNCATE_MOD_TYPES = ("int32", "int64", "bfloat16", "float16", "float32", "float64")


def _truncate_mod(inputs, attrs, node):
    dtype, shape = _binary_same(inputs, attrs, node)
    if dtype.name not in TRUNCATE_MOD_TYPES:
        raise TypeError(f"Value passed to parameter 'x' has DataType {dtype.name} not in list "
                        f"of allowed values: {', '.join(TRUNCATE_MOD_TYPES)}")
    return dtype, shape


def _register_tf1() -> None:
    # AddV2 is TF 2's Add (what `x + y` builds in tf.compat.v1): the same op.
    for name in ("AddV2", "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod"):
        shape_fn = _binary_complex if name in COMPLEX_BINARY else _binary_same
        register_op(OpDef(name, _truncate_mod if name == "TruncateMod" else shape_fn,
                          2, elementwise=True, static_value=_static_value(name)))
    register_op(OpDef("NotEqual", _equal, 2, elementwise=True))
    for name in ("LogicalAnd", "LogicalOr"):
        register_op(OpDef(name, _logical, 2, elementwise=True))
    register_op(OpDef("LogicalNot", _logical, 1, elementwise=True))
    register_op(OpDef("Sign", _unary_with_complex("Sign", _sign), 1, elementwise=True))
    register_op(OpDef("Round", _unary_numeric, 1, elementwise=True))
    for name in ("Floor", "Ceil", "Rsqrt", "Reciprocal", "Sin", "Cos"):
        register_op(OpDef(name, _unary_with_complex(name, _unary_float), 1, elementwise=True))


_register_tf1()


def _logical_unary(op_type: str, public_name: str):
    def build(x, name=None):
        return make_op(op_type, [convert_to_tensor(x, dtype=dtypes.bool_)], name=name)
    return _public(build, public_name, f"Elementwise {op_type} of a bool tensor.")


def _logical_binary(op_type: str, public_name: str):
    def build(x, y, name=None):
        graph = graph_of(x, y)
        return make_op(op_type, [convert_to_tensor(v, dtype=dtypes.bool_, graph=graph)
                                 for v in (x, y)], name=name)
    return _public(build, public_name, f"Elementwise {op_type} of bool tensors, with numpy "
                                       f"broadcasting.")


add_v2 = _binary("AddV2", "add_v2")
floordiv = floor_div = _binary("FloorDiv", "floordiv")
floormod = mod = _binary("FloorMod", "floormod")
truncatediv = _binary("TruncateDiv", "truncatediv")
truncatemod = _binary("TruncateMod", "truncatemod")
not_equal = _binary("NotEqual", "not_equal")
logical_and = _logical_binary("LogicalAnd", "logical_and")
logical_or = _logical_binary("LogicalOr", "logical_or")
logical_not = _logical_unary("LogicalNot", "logical_not")
sign = _unary("Sign", "sign")
floor = _unary("Floor", "floor")
ceil = _unary("Ceil", "ceil")
round = _unary("Round", "round")  # noqa: A001  (TF1's name; half to even)
rsqrt = _unary("Rsqrt", "rsqrt")
reciprocal = _unary("Reciprocal", "reciprocal")
sin = _unary("Sin", "sin")
cos = _unary("Cos", "cos")


def logical_xor(x, y, name="LogicalXor") -> Tensor:
    """``x != y`` for bools, built as TF1 builds it: ``(x or y) and not (x and y)``."""
    from ..graph import name_scope

    with name_scope(name):
        return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


def div(x, y, name=None) -> Tensor:
    """TF1's Python 2 division: floor division for integers, true division for floats."""
    x, y = operands(x, y)
    if x.dtype.is_integer:
        return make_op("FloorDiv", [x, y], name=name)
    return make_op("RealDiv", [x, y], name=name)


__all__ += ["add_v2", "floordiv", "floor_div", "floormod", "mod", "truncatediv", "truncatemod",
            "not_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "sign",
            "floor", "ceil", "round", "rsqrt", "reciprocal", "div", "sin", "cos"]


# --- nn family's math op (SquaredDifference, for moments) ----------------------------------

register_op(OpDef("SquaredDifference", _binary_complex, 2, elementwise=True))  # complex: |x-y|^2
squared_difference = _binary("SquaredDifference", "squared_difference")
__all__ += ["squared_difference"]


# --- TF1 math (branch tf1-math): libm functions, float predicates, Atan2, Xlogy,
# DivNoNan (expressions: kernels/codegen/expressions.py's block of the same name) -----

MATH_UNARY = ("Log1p", "Expm1", "Erf", "Erfc", "Tan", "Asin", "Acos", "Atan", "Sinh",
              "Cosh")
PREDICATES = ("IsNan", "IsInf", "IsFinite")
MATH_BINARY = ("Atan2", "Xlogy", "DivNoNan")


def _float_predicate(inputs, attrs, node):
    _unary_float(inputs, attrs, node)        # as TF: an integer input is a TypeError
    return dtypes.bool_, inputs[0].shape


def _binary_float(inputs, attrs, node):
    dtype, shape = _binary_same(inputs, attrs, node)
    if not dtype.is_floating:
        raise TypeError(f"Op '{node}' needs floating-point inputs, but '{inputs[0].name}' "
                        f"is {dtype.name}; use ds.cast(x, ds.float32) first.")
    return dtype, shape


def _binary_float_or_complex(inputs, attrs, node):
    if inputs[0].dtype.is_complex:
        return _binary_complex(inputs, attrs, node)
    return _binary_float(inputs, attrs, node)


def _register_float_ops(unary, binary, predicates=()) -> None:
    """Elementwise ops of floats (and complex values, those of ``COMPLEX_UNARY`` and
    ``COMPLEX_BINARY``), as TF's: an integer input is a TypeError."""
    for name in unary:
        register_op(OpDef(name, _unary_with_complex(name, _unary_float), 1, elementwise=True))
    for name in predicates:
        register_op(OpDef(name, _float_predicate, 1, elementwise=True))
    for name in binary:
        infer = _binary_float_or_complex if name in COMPLEX_BINARY else _binary_float
        register_op(OpDef(name, infer, 2, elementwise=True))


_register_float_ops(MATH_UNARY, MATH_BINARY, PREDICATES)

log1p = _unary("Log1p", "log1p")
expm1 = _unary("Expm1", "expm1")
erf = _unary("Erf", "erf")
erfc = _unary("Erfc", "erfc")
tan = _unary("Tan", "tan")
asin = _unary("Asin", "asin")
acos = _unary("Acos", "acos")
atan = _unary("Atan", "atan")
sinh = _unary("Sinh", "sinh")
cosh = _unary("Cosh", "cosh")
is_nan = _unary("IsNan", "is_nan")
is_inf = _unary("IsInf", "is_inf")
is_finite = _unary("IsFinite", "is_finite")
atan2 = _binary("Atan2", "atan2", names=("y", "x"))
xlogy = _binary("Xlogy", "xlogy")


def div_no_nan(x, y, name=None) -> Tensor:
    """Elementwise ``x / y``, 0 where ``y`` is 0 (DivNoNan).  Integers divide in floats, as
    TF's wrapper casts them (its truediv table: float32 for 8- and 16-bit ones, float64 for
    wider), so a zero divisor gives 0 there too, never an integer division."""
    with name_scope(name or "DivNoNan") as scope:
        return make_op("DivNoNan", list(_as_truediv_floats(x, y)), name=scope)


divide_no_nan = div_no_nan
__all__ += ["log1p", "expm1", "erf", "erfc", "tan", "asin", "acos", "atan", "sinh", "cosh",
            "is_nan", "is_inf", "is_finite", "atan2", "xlogy", "div_no_nan", "divide_no_nan"]


# --- TF1's casting shorthands (branch tf1-math): Cast nodes named as TF1 names them -------

def _cast_to(dtype, default_name: str, public_name: str):
    def build(x, name=default_name):
        return cast(x, dtype, name=name)
    return _public(build, public_name, f"``cast(x, {dtype.name})``, named '{default_name}' "
                                       f"as TF1's ``tf.{public_name}``.")


to_float = _cast_to(dtypes.float32, "ToFloat", "to_float")
to_double = _cast_to(dtypes.float64, "ToDouble", "to_double")
to_int32 = _cast_to(dtypes.int32, "ToInt32", "to_int32")
to_int64 = _cast_to(dtypes.int64, "ToInt64", "to_int64")
__all__ += ["to_float", "to_double", "to_int32", "to_int64"]


# --- TF1 math names (branch tf1-math-names): Acosh, Asinh, Atanh, Rint, Xdivy, Xlog1py,
# MulNoNan (expressions: kernels/codegen/expressions.py's block of the same name) ------

NAMES_UNARY = ("Acosh", "Asinh", "Atanh", "Rint")
NAMES_BINARY = ("Xdivy", "Xlog1py", "MulNoNan")

_register_float_ops(NAMES_UNARY, NAMES_BINARY)      # as TF: floats only (Rint included)

acosh = _unary("Acosh", "acosh")
asinh = _unary("Asinh", "asinh")
atanh = _unary("Atanh", "atanh")
rint = _unary("Rint", "rint")
realdiv = _binary("RealDiv", "realdiv")
xdivy = _binary("Xdivy", "xdivy")
xlog1py = _binary("Xlog1py", "xlog1py")
multiply_no_nan = _binary("MulNoNan", "multiply_no_nan", default_name="multiply_no_nan")
__all__ += ["acosh", "asinh", "atanh", "rint", "realdiv", "xdivy", "xlog1py",
            "multiply_no_nan"]
