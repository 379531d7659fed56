"""Render elementwise programs as CUDA C for ``cupy.ElementwiseKernel``.

The expression language and its typing are ``expr_frontend``'s, shared with
``cpu_codegen`` so that a fuser can hand the same program to either device:
``compile_expression`` here is the front end's with the GPU's two choices made (only
dtypes in ``C_TYPES``; sigmoid's two-division form).  This module adds the rendering;
it never imports cupy, so CI tests it.

1. ``compile_expression(expr, inputs, out_dtype)`` -> ``Program`` (typed ``Instr``s,
   common subexpressions shared; see ``expr_frontend``).  float16 is loaded and
   computed as float32 and rounded once, when stored (as the CPU kernels do).
2. ``render_cuda(program)`` turns the instructions into the ``in_params``,
   ``out_params``, ``operation`` and ``preamble`` of a ``cupy.ElementwiseKernel``.
   Signed integer ``+ - *`` and negation go through unsigned arithmetic, so they wrap
   like numpy's instead of being C's undefined overflow; integer ``**`` is a
   square-and-multiply helper with the reference kernels' negative-exponent rule.
3. ``evaluate(program, *arrays)`` (the front end's) runs the same instructions with
   numpy.  It is the executable specification of step 1 (tests compare it with the
   REF kernels), so a typing bug shows up in CI although CI has no GPU to run step 2 on.

Example::

    p = compile_expression("max(a * 1.5 + 0.25, 0) * b",
                           [("a", np.float32), ("b", np.float32)])
    in_params, out_params, operation, preamble = render_cuda(p)
    # in_params == "float32 x0, float32 x1"; operation holds "1.5f" and "0.25f"
"""

from __future__ import annotations

import math

import numpy as np

from . import frontend
from .frontend import FUNCTIONS, CodegenError, Const, Instr, Program, evaluate
from .cuda_special import C_NAMES as SPECIAL_C_NAMES, SPECIAL_C

__all__ = ["CodegenError", "Const", "Instr", "Program", "compile_expression", "render_cuda",
           "evaluate", "c_literal", "C_TYPES", "FUNCTIONS", "CODEGEN_VERSION"]

CODEGEN_VERSION = 4

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_F64, _I32, _I64 = np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)

# C types of the values a kernel computes with (float16 never: it is computed as float).
C_TYPES = {_BOOL: "bool", _I32: "int", _I64: "long long", _F32: "float", _F64: "double",
           _F16: "float16"}
_UNSIGNED = {_I32: "unsigned int", _I64: "unsigned long long"}
SUPPORTED_DTYPES = frozenset(C_TYPES)


def _check_dtype(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in SUPPORTED_DTYPES:
        raise CodegenError(f"dtype {dtype} is not supported on the GPU "
                           f"(supported: {sorted(d.name for d in SUPPORTED_DTYPES)})")
    return dtype


def compile_expression(expr: str, inputs, out_dtype=None) -> Program:
    """``frontend.compile_expression`` for the GPU: a dtype outside ``C_TYPES``
    raises ``CodegenError`` (as do the front end's errors)."""
    return frontend.compile_expression(expr, inputs, out_dtype, check_dtype=_check_dtype)


# ----------------------------------------------------------------------- CUDA C

_HELPERS = {
    # Integer power by squaring in unsigned 64-bit arithmetic (wraps like numpy, no C
    # undefined behaviour); a negative exponent gives the truncated real result.
    "ipow": """
__device__ __forceinline__ long long _ds_ipow(long long base, long long exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
    return 0;
  }
  unsigned long long result = 1ULL, b = (unsigned long long)base;
  while (exponent > 0) {
    if (exponent & 1) result *= b;
    b *= b;
    exponent >>= 1;
  }
  return (long long)result;
}
""",
}

# C functions per op: (float's, double's); the TF1 block adds the rounding ones.
_FLOAT_FUNCTIONS = {"exp": ("expf", "exp"), "log": ("logf", "log"), "sqrt": ("sqrtf", "sqrt"),
                    "tanh": ("tanhf", "tanh"), "abs": ("fabsf", "fabs"),
                    "pow": ("powf", "pow")}
_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/",
          "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
          "and": "&&", "or": "||", "xor": "!="}
# The C expression of each op whose form is the same for every dtype but integer
# ``+ - *``, negation, abs and ``**`` (``_integer_instr``).
_C_FORMS = {**{op: f"{{0}} {symbol} {{1}}" for op, symbol in _INFIX.items()},
            "not": "!{0}", "neg": "-{0}", "select": "{0} ? {1} : {2}"}


def c_literal(c: Const) -> str:
    """A C literal of exactly ``c.value`` in ``c.dtype``."""
    dtype, v = c.dtype, c.value
    if dtype.kind == "b":
        return "true" if v else "false"
    if dtype == _I32:
        return "(-2147483647 - 1)" if v == -2**31 else f"({v})" if v < 0 else str(v)
    if dtype == _I64:
        return "(-9223372036854775807LL - 1LL)" if v == -2**63 else \
            f"({v}LL)" if v < 0 else f"{v}LL"
    suffix, nan, inf = ("f", "CUDART_NAN_F", "CUDART_INF_F") if dtype == _F32 else \
        ("", "CUDART_NAN", "CUDART_INF")
    v = float(np.float32(v)) if dtype == _F32 else float(v)
    if math.isnan(v):
        return nan
    if math.isinf(v):
        return inf if v > 0 else f"(-{inf})"
    text = repr(v) + suffix
    return f"({text})" if v < 0 or text.startswith("-") else text


def _c_call(op: str, d: np.dtype, args) -> str:
    """A call of the C function computing ``op`` in ``d`` (``expf`` for float)."""
    return f"{_FLOAT_FUNCTIONS[op][d == _F64]}({', '.join(args)})"


def _integer_instr(ins: Instr, a: list, helpers: set) -> str:
    """Integer ``**`` by squaring; ``+ - *``, negation and abs in unsigned arithmetic,
    which wraps like numpy where C's signed overflow is undefined."""
    d, op = ins.dtype, ins.op
    c_type = C_TYPES[d]
    if op == "pow":
        helpers.add("ipow")
        return f"({c_type})_ds_ipow((long long){a[0]}, (long long){a[1]})"
    u = _UNSIGNED[d]
    if op in _INFIX:
        return f"({c_type})(({u}){a[0]} {_INFIX[op]} ({u}){a[1]})"
    negated = f"({c_type})(({u})0 - ({u}){a[0]})"
    return negated if op == "neg" else f"({a[0]} < 0) ? {negated} : {a[0]}"


def _render_instr(ins: Instr, helpers: set) -> str:
    """The C expression of one instruction; ``CodegenError`` naming an op this renderer
    has no form for (a front-end op added without its CUDA rendering)."""
    a = [x if isinstance(x, str) else c_literal(x) for x in ins.args]
    d, op = ins.dtype, ins.op
    if d.kind != "f" and op in ("add", "sub", "mul", "neg", "abs", "pow"):
        return _integer_instr(ins, a, helpers)
    if op in _C_FORMS:
        return _C_FORMS[op].format(*a)
    if op in _FLOAT_FUNCTIONS:
        return _c_call(op, d, a)
    if op in ("max", "min"):
        compare = ">=" if op == "max" else "<="
        keep = f"{a[0]} {compare} {a[1]}"
        if d.kind == "f":                 # a NaN on either side wins, like np.maximum
            keep = f"({keep}) || ({a[0]} != {a[0]})"
        return f"({keep}) ? {a[0]} : {a[1]}"
    if op == "convert":
        return f"{a[0]} != 0" if d.kind == "b" else f"({C_TYPES[d]})({a[0]})"
    if op in _DIVISIONS:
        return _tf1_instr(ins, a)
    if op in SPECIAL_C_NAMES:
        return _special_instr(ins, a, helpers)
    if op in _BIT_FORMS:
        return _bit_instr(ins, a)
    known = sorted({*_C_FORMS, *_FLOAT_FUNCTIONS, "max", "min", "convert", *_DIVISIONS,
                    *SPECIAL_C_NAMES, *_BIT_FORMS})
    raise CodegenError(f"op '{op}' ({d}) has no CUDA rendering; rendered ops: {known}")


def render_cuda(program: Program) -> tuple[str, str, str, str]:
    """``(in_params, out_params, operation, preamble)`` for ``cupy.ElementwiseKernel``.

    The kernel's parameters are ``x0..x{k-1}`` (dtypes as given) and ``out0``.
    """
    in_params = ", ".join(f"{d.name} x{k}" for k, d in enumerate(program.input_dtypes))
    out_params = f"{program.out_dtype.name} out0"
    lines = []
    for k, d in enumerate(program.input_dtypes):
        if d == _F16:
            lines.append(f"const float v{k} = (float)x{k};")
        else:
            lines.append(f"const {C_TYPES[d]} v{k} = x{k};")
    helpers: set = set()
    for ins in program.instrs:
        lines.append(f"const {C_TYPES[ins.dtype]} {ins.dst} = {_render_instr(ins, helpers)};")
    result = program.result if isinstance(program.result, str) else c_literal(program.result)
    if program.out_dtype == _F16:
        lines.append(f"out0 = float16((float)({result}));")
    else:
        lines.append(f"out0 = {result};")
    preamble = "".join(_HELPERS[h] for h in sorted(helpers))
    return in_params, out_params, "\n".join(lines), preamble


# ------------------------------------------------- TF1 surface (branch tf1): small
# integer types, rounding and integer division (semantics: frontend's block).  C's
# integer ``/`` and ``%`` truncate; the floor forms adjust when the signs differ; a
# zero divisor gives 0 (C leaves it undefined; TF's GPU kernels do not check it either,
# where the CPU's raise: ``division_checks.py``).  Small integers compute in their own C
# type and wrap like the wide ones (through unsigned arithmetic).

_I8, _I16 = np.dtype(np.int8), np.dtype(np.int16)
_U8, _U16 = np.dtype(np.uint8), np.dtype(np.uint16)
C_TYPES.update({_I8: "signed char", _I16: "short", _U8: "unsigned char",
                _U16: "unsigned short"})
# Small types compute through unsigned int: unsigned char/short would promote to int,
# whose overflow (65535 * 65535) is undefined; the cast back truncates modulo 2^n.
_UNSIGNED.update({_I8: "unsigned int", _I16: "unsigned int", _U8: "unsigned int",
                  _U16: "unsigned int"})
SUPPORTED_DTYPES = frozenset(C_TYPES)
_FLOAT_FUNCTIONS.update({"floor": ("floorf", "floor"), "ceil": ("ceilf", "ceil"),
                         "rint": ("rintf", "rint"), "trunc": ("truncf", "trunc"),
                         "fmod": ("fmodf", "fmod"), "sin": ("sinf", "sin"),
                         "cos": ("cosf", "cos")})


_wide_c_literal = c_literal


def c_literal(c: Const) -> str:  # noqa: F811  (extends the one above with small ints)
    """A C literal of exactly ``c.value`` in ``c.dtype``."""
    if c.dtype in (_I8, _I16, _U8, _U16):
        return f"(({C_TYPES[c.dtype]}){int(c.value)})"
    return _wide_c_literal(c)


_DIVISIONS = frozenset({"floordiv", "floormod", "truncdiv", "truncmod"})


def _tf1_instr(ins: Instr, a: list) -> str:
    """Integer and float division and modulo, the ``_DIVISIONS`` (rounding is
    ``_FLOAT_FUNCTIONS``')."""
    d, op = ins.dtype, ins.op
    c_type = C_TYPES[d]
    x, y = a
    if d.kind == "f":
        rem = _c_call("fmod", d, a)
        return {"floordiv": _c_call("floor", d, [f"{x} / {y}"]),
                "truncdiv": _c_call("trunc", d, [f"{x} / {y}"]), "truncmod": rem,
                "floormod": f"(({rem} != 0) && (({rem} < 0) != ({y} < 0))) ? {rem} + {y} "
                            f": {rem}"}[op]
    differ = f"(({x} % {y} != 0) && (({x} < 0) != ({y} < 0)))"
    body = {"truncdiv": f"{x} / {y}", "truncmod": f"{x} % {y}",
            "floordiv": f"{x} / {y} - ({differ} ? 1 : 0)",
            "floormod": f"{x} % {y} + ({differ} ? {y} : 0)"}[op]
    guarded = f"({y} == 0) ? ({c_type})0 : ({c_type})({body})"
    if d.kind != "i":
        return guarded
    # A signed division by -1 is a negation (MIN / -1 overflows: undefined in C, a trap
    # on x86), computed in unsigned arithmetic so that MIN wraps to itself, as numpy's.
    by_minus_one = (f"({c_type})(0u - ({_UNSIGNED[d]}){x})" if op.endswith("div")
                    else f"({c_type})0")
    return f"({y} == -1) ? {by_minus_one} : {guarded}"


# ------------------------------------------------- TF1 math (branch tf1-math): CUDA's
# libm (``log1pf``/``log1p``...); the predicates are CUDA's overloaded ``isnan``,
# ``isinf`` and ``isfinite``, bool for float and double alike.
_FLOAT_FUNCTIONS.update({name: (f"{name}f", name) for name in (
    "log1p", "expm1", "erf", "erfc", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "atan2")})
_C_FORMS.update({name: f"{name}({{0}})" for name in ("isnan", "isinf", "isfinite")})


# ------------------------------------------------- special functions: calls of
# ``cuda_special.py``'s device functions, in double and rounded once (as the CPU's).
_HELPERS["special"] = SPECIAL_C


def _special_instr(ins: Instr, a: list, helpers: set) -> str:
    helpers.add("special")
    call = f"{SPECIAL_C_NAMES[ins.op]}({', '.join(f'(double){x}' for x in a)})"
    return call if ins.dtype == _F64 else f"({C_TYPES[ins.dtype]}){call}"


# ------------------------------------------------- TF1 math names (branch
# tf1-math-names): CUDA's acosh/asinh/atanh; the integer bit operations, in the value's
# C type (the front end clamped every shift count into [0, bits - 1]).  A left shift goes
# through the unsigned type, where C's shifts wrap without undefined behaviour; a right
# shift of a signed value is arithmetic, as nvcc's.
_FLOAT_FUNCTIONS.update({name: (f"{name}f", name) for name in ("acosh", "asinh", "atanh")})
_BIT_FORMS = {"bitand": "{0} & {1}", "bitor": "{0} | {1}", "bitxor": "{0} ^ {1}",
              "invert": "~{0}", "rshift": "{0} >> {1}", "lshift": "({u}){0} << {1}"}


def _bit_instr(ins: Instr, a: list) -> str:
    form = _BIT_FORMS[ins.op].format(*a, u=_UNSIGNED.get(ins.dtype, C_TYPES[ins.dtype]))
    return f"({C_TYPES[ins.dtype]})({form})"
