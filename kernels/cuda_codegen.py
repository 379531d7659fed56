"""Compile elementwise expressions to CUDA C for ``cupy.ElementwiseKernel``.

The expression language is ``cpu_codegen``'s, so that a fuser can hand the same
program to either device: inputs; int/float/bool constants, ``inf``, ``nan``;
``+ - * / **``; unary ``-``; comparisons; ``and``/``or``/``not`` and ``& | ^ ~`` on
bools; ``x if c else y``; ``exp log sqrt tanh sigmoid abs max min where cast pow square
relu``; several ``name = expr`` lines followed by a final expression for a DAG.

Pipeline (pure Python + numpy; this module never imports cupy, so CI tests it):

1. ``compile_expression(expr, inputs, out_dtype)`` parses with ``ast``, folds constant
   subexpressions, types every value and lowers the tree to a tuple of ``Instr``
   (three-address code, one dtype per value).  Typing follows ``cpu_codegen`` exactly:
   numpy 2 / NEP 50 weak python constants (``a * 1.5`` stays float32), integer ``/``
   gives float64, ``exp`` of an int is float64, ``max``/``min`` propagate NaN,
   ``sigmoid`` is ``exp(-|x|)``-based and never overflows.  float16 is loaded and
   computed as float32 and rounded once, when stored (as the CPU kernels do).
   Equal instructions are emitted once (common-subexpression elimination).
2. ``render_cuda(program)`` turns the instructions into the ``in_params``,
   ``out_params``, ``operation`` and ``preamble`` of a ``cupy.ElementwiseKernel``.
   Signed integer ``+ - *`` and negation go through unsigned arithmetic, so they wrap
   like numpy's instead of being C's undefined overflow; integer ``**`` is a
   square-and-multiply helper with the reference kernels' negative-exponent rule.
3. ``evaluate(program, *arrays)`` runs the same instructions with numpy.  It is the
   executable specification of step 1 (tests compare it with the REF kernels), so a
   typing bug shows up in CI although CI has no GPU to run step 2 on.

Example::

    p = compile_expression("max(a * 1.5 + 0.25, 0) * b",
                           [("a", np.float32), ("b", np.float32)])
    in_params, out_params, operation, preamble = render_cuda(p)
    # in_params == "float32 x0, float32 x1"; operation holds "1.5f" and "0.25f"
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

__all__ = ["CodegenError", "Const", "Instr", "Program", "compile_expression", "render_cuda",
           "evaluate", "C_TYPES", "FUNCTIONS", "CODEGEN_VERSION"]

CODEGEN_VERSION = 1

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_I32, _I64, _BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)

# C types of the values a kernel computes with (float16 never: it is computed as float).
C_TYPES = {_BOOL: "bool", _I32: "int", _I64: "long long", _F32: "float", _F64: "double",
           _F16: "float16"}
_UNSIGNED = {_I32: "unsigned int", _I64: "unsigned long long"}
SUPPORTED_DTYPES = frozenset(C_TYPES)


class CodegenError(ValueError):
    """An expression that cannot be compiled (syntax, unknown name, bad types)."""


@dataclass(frozen=True)
class Const:
    """A typed constant operand."""

    value: object            # python bool / int / float
    dtype: np.dtype


@dataclass(frozen=True)
class Instr:
    """``dst = op(*args)`` computed in ``dtype``; args name values or are ``Const``."""

    dst: str
    dtype: np.dtype
    op: str
    args: tuple


@dataclass(frozen=True)
class Program:
    """A typed elementwise program, ready for ``render_cuda`` or ``evaluate``."""

    expr: str
    inputs: tuple            # input names, in argument order
    input_dtypes: tuple      # as the kernel receives them (float16 allowed)
    out_dtype: np.dtype      # as stored (float16 allowed)
    instrs: tuple            # Instr, in order; inputs are the values v0..v{k-1}
    result: object           # the value stored: a value name or a Const

    @property
    def compute_dtype(self) -> np.dtype:
        return _compute(self.out_dtype)


def _compute(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    return _F32 if dtype == _F16 else dtype


def _check_dtype(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in SUPPORTED_DTYPES:
        raise CodegenError(f"dtype {dtype} is not supported on the GPU "
                           f"(supported: {sorted(d.name for d in SUPPORTED_DTYPES)})")
    return dtype


# --------------------------------------------------------------------------- typing

@dataclass(frozen=True)
class _Val:
    ref: object                  # value name (str) or Const; None for a weak constant
    dtype: np.dtype | None       # None: a weak python constant (``const`` holds it)
    const: object = None

    @property
    def weak(self) -> bool:
        return self.dtype is None


def _weak_dtype(value, partner: np.dtype) -> np.dtype:
    """The dtype a python constant takes next to a value of dtype ``partner`` (NEP 50)."""
    if isinstance(value, bool):
        return partner
    if isinstance(value, int):
        return partner if partner.kind in "iuf" else _I64
    return partner if partner.kind == "f" else _F64


def _default_dtype(value) -> np.dtype:
    return _BOOL if isinstance(value, bool) else _I64 if isinstance(value, int) else _F64


def _const(value, dtype: np.dtype) -> Const:
    dtype = _compute(dtype)
    if dtype.kind == "b":
        return Const(bool(value), dtype)
    if dtype.kind in "iu":
        if isinstance(value, float) and not value.is_integer():
            raise CodegenError(f"constant {value!r} is not an integer ({dtype})")
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise CodegenError(f"constant {value!r} does not fit in {dtype}")
        return Const(int(value), dtype)
    return Const(float(value), dtype)


class _Lowering:
    """Emits typed instructions; equal instructions share one destination."""

    def __init__(self, inputs: dict[str, _Val]):
        self.env = dict(inputs)
        self.instrs: list[Instr] = []
        self._memo: dict[tuple, _Val] = {}

    def emit(self, op: str, dtype, *args: _Val) -> _Val:
        dtype = np.dtype(dtype)
        refs = tuple(a.ref for a in args)
        key = (op, dtype, refs)
        hit = self._memo.get(key)
        if hit is None:
            dst = f"t{len(self.instrs)}"
            self.instrs.append(Instr(dst, dtype, op, refs))
            hit = self._memo[key] = _Val(dst, dtype)
        return hit

    def typed(self, v: _Val, partner=None) -> _Val:
        """Give a weak constant a dtype (its partner's, NEP 50 style)."""
        if not v.weak:
            return v
        if isinstance(v.const, str):
            raise CodegenError(f"the string {v.const!r} is not a value")
        if isinstance(partner, _Val):
            partner = partner.dtype
        dtype = _default_dtype(v.const) if partner is None else _weak_dtype(v.const, partner)
        c = _const(v.const, dtype)
        return _Val(c, c.dtype)

    def convert(self, v: _Val, dtype) -> _Val:
        dtype = _compute(dtype)
        if v.weak:
            c = _const(v.const, dtype)
            return _Val(c, dtype)
        if v.dtype == dtype:
            return v
        if isinstance(v.ref, Const):
            return _Val(_const(_convert_python(v.ref.value, dtype), dtype), dtype)
        return self.emit("convert", dtype, v)

    def promote(self, *vs: _Val) -> tuple[list[_Val], np.dtype]:
        strong = [v.dtype for v in vs if not v.weak]
        partner = np.result_type(*strong) if strong else None
        typed = [self.typed(v, partner) for v in vs]
        dtype = np.result_type(*[v.dtype for v in typed])
        return [self.convert(v, dtype) for v in typed], dtype


def _convert_python(value, dtype: np.dtype):
    """A python constant converted like ``astype`` (used for typed constants only)."""
    with np.errstate(all="ignore"):
        return np.array(value).astype(dtype).item()


def _numeric(name: str, dtype: np.dtype) -> None:
    if dtype.kind == "b":
        raise CodegenError(f"'{name}' is not defined on bool")


def _arith(op: str, symbol: str):
    def lower(lw: _Lowering, a: _Val, b: _Val) -> _Val:
        (a, b), dtype = lw.promote(a, b)
        _numeric(symbol, dtype)
        return lw.emit(op, dtype, a, b)
    return lower


def _truediv(lw, a, b):
    (a, b), dtype = lw.promote(a, b)
    if dtype.kind != "f":
        dtype = _F64
        a, b = lw.convert(a, dtype), lw.convert(b, dtype)
    return lw.emit("div", dtype, a, b)


def _pow(lw, a, b):
    (a, b), dtype = lw.promote(a, b)
    _numeric("**", dtype)
    return lw.emit("pow", dtype, a, b)


def _extreme(op: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        return lw.emit(op, dtype, a, b)
    return lower


def _compare(op: str):
    def lower(lw, a, b):
        (a, b), _ = lw.promote(a, b)
        return lw.emit(op, _BOOL, a, b)
    return lower


def _logical(op: str, symbol: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        if dtype.kind != "b":
            raise CodegenError(f"'{symbol}' needs bool operands, got {dtype}")
        return lw.emit(op, dtype, a, b)
    return lower


def _not(lw, a):
    a = lw.typed(a)
    if a.dtype.kind != "b":
        raise CodegenError(f"'not' needs a bool operand, got {a.dtype}")
    return lw.emit("not", a.dtype, a)


def _neg(lw, a):
    a = lw.typed(a)
    _numeric("-", a.dtype)
    return lw.emit("neg", a.dtype, a)


def _abs(lw, a):
    a = lw.typed(a)
    _numeric("abs", a.dtype)
    return lw.emit("abs", a.dtype, a)


def _float_arg(lw, a, name) -> _Val:
    a = lw.typed(a)
    _numeric(name, a.dtype)
    return a if a.dtype.kind == "f" else lw.convert(a, _F64)   # like np.exp(int)


def _math(name: str):
    def lower(lw, a):
        a = _float_arg(lw, a, name)
        return lw.emit(name, a.dtype, a)
    return lower


def _sigmoid(lw, a):
    # exp(-|x|) <= 1 never overflows; select the algebraically equal form by sign.
    x = _float_arg(lw, a, "sigmoid")
    one, zero = _Val(_const(1, x.dtype), x.dtype), _Val(_const(0, x.dtype), x.dtype)
    e = lw.emit("exp", x.dtype, _neg(lw, _abs(lw, x)))
    denominator = lw.emit("add", x.dtype, one, e)
    positive = lw.emit("div", x.dtype, one, denominator)
    negative = lw.emit("div", x.dtype, e, denominator)
    return lw.emit("select", x.dtype, lw.emit("ge", _BOOL, x, zero), positive, negative)


def _where(lw, c, x, y):
    c = lw.convert(lw.typed(c), _BOOL)
    (x, y), dtype = lw.promote(x, y)
    return lw.emit("select", dtype, c, x, y)


def _cast(lw, x, dtype_name):
    if not (dtype_name.weak and isinstance(dtype_name.const, str)):
        raise CodegenError("cast(x, 'dtype') needs a dtype name as a string")
    try:
        dtype = np.dtype(dtype_name.const)
    except TypeError:
        raise CodegenError(f"unknown dtype {dtype_name.const!r}") from None
    return lw.convert(lw.typed(x), _check_dtype(dtype))


FUNCTIONS: dict[str, Callable] = {
    "exp": _math("exp"), "log": _math("log"), "sqrt": _math("sqrt"), "tanh": _math("tanh"),
    "sigmoid": _sigmoid, "abs": _abs, "max": _extreme("max"), "min": _extreme("min"),
    "where": _where, "cast": _cast, "pow": _pow,
    "square": lambda lw, a: _arith("mul", "square")(lw, a, a),
    "relu": lambda lw, a: _extreme("max")(lw, a, _Val(None, None, 0)),
}
_BINOPS = {ast.Add: _arith("add", "+"), ast.Sub: _arith("sub", "-"),
           ast.Mult: _arith("mul", "*"), ast.Div: _truediv, ast.Pow: _pow,
           ast.BitAnd: _logical("and", "&"), ast.BitOr: _logical("or", "|"),
           ast.BitXor: _logical("xor", "^")}
_COMPARES = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
             ast.GtE: "ge"}
_PY_COMPARES = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
                "gt": operator.gt, "ge": operator.ge}
_UNARY = {ast.USub: _neg, ast.UAdd: lambda lw, a: a, ast.Not: _not, ast.Invert: _not}


def _py_max(x, y):
    return x if (x >= y or x != x) else y      # NaN wins, like np.maximum


def _py_min(x, y):
    return x if (x <= y or x != x) else y


# Folding all-constant subexpressions: python/numpy on python scalars, so results stay
# weak (as cpu_codegen folds them).
_FOLD = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
    "sigmoid": lambda x: np.where(x >= 0, 1 / (1 + np.exp(-abs(x))),
                                  np.exp(-abs(x)) / (1 + np.exp(-abs(x)))),
    "abs": abs, "max": _py_max, "min": _py_min, "pow": pow, "square": lambda x: x * x,
    "relu": lambda x: _py_max(x, 0), "where": lambda c, x, y: x if c else y,
}


def _fold(python_fn, args: Sequence[_Val]) -> _Val | None:
    if python_fn is None or not all(a.weak and not isinstance(a.const, str) for a in args):
        return None
    values = [a.const for a in args]
    with np.errstate(all="ignore"):
        try:
            result = python_fn(*values)
        except (ArithmeticError, ValueError):      # e.g. 1 / 0: redo in float64, as numpy
            result = python_fn(*[np.float64(v) for v in values])
    if isinstance(result, (np.generic, np.ndarray)):
        result = result.item()
    return _Val(None, None, result)


class _Lowerer(ast.NodeVisitor):
    def __init__(self, lw: _Lowering):
        self.lw = lw

    def generic_visit(self, node):
        raise CodegenError(f"unsupported syntax: {ast.unparse(node)!r}")

    def visit_Constant(self, node):
        if not isinstance(node.value, (bool, int, float, str)):
            raise CodegenError(f"unsupported constant {node.value!r}")
        return _Val(None, None, node.value)

    def visit_Name(self, node):
        if node.id in self.lw.env:
            return self.lw.env[node.id]
        if node.id in ("inf", "nan"):
            return _Val(None, None, float(node.id))
        raise CodegenError(f"unknown name '{node.id}'; inputs and temps are "
                           f"{sorted(self.lw.env)}")

    def visit_UnaryOp(self, node):
        a = self.visit(node.operand)
        op = type(node.op)
        folded = _fold({ast.USub: lambda x: -x, ast.UAdd: lambda x: x,
                        ast.Not: lambda x: not x}.get(op), [a])
        return folded or _UNARY[op](self.lw, a)

    def visit_BinOp(self, node):
        lower = _BINOPS.get(type(node.op))
        if lower is None:
            raise CodegenError(f"unsupported operator in {ast.unparse(node)!r}")
        a, b = self.visit(node.left), self.visit(node.right)
        python = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y,
                  ast.Mult: lambda x, y: x * y, ast.Div: lambda x, y: x / y,
                  ast.Pow: lambda x, y: x ** y}.get(type(node.op))
        return _fold(python, [a, b]) or lower(self.lw, a, b)

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            raise CodegenError(f"chained comparison {ast.unparse(node)!r}; use 'and'")
        op = _COMPARES[type(node.ops[0])]
        a, b = self.visit(node.left), self.visit(node.comparators[0])
        return _fold(_PY_COMPARES[op], [a, b]) or _compare(op)(self.lw, a, b)

    def visit_BoolOp(self, node):
        op, symbol = ("and", "and") if isinstance(node.op, ast.And) else ("or", "or")
        values = [self.visit(v) for v in node.values]
        result = values[0]
        for v in values[1:]:
            result = _logical(op, symbol)(self.lw, result, v)
        return result

    def visit_IfExp(self, node):
        return self._call("where", [node.test, node.body, node.orelse])

    def visit_Call(self, node):
        if not isinstance(node.func, ast.Name) or node.keywords:
            raise CodegenError(f"unsupported call {ast.unparse(node)!r}")
        return self._call(node.func.id, node.args)

    def _call(self, name, arg_nodes):
        lower = FUNCTIONS.get(name)
        if lower is None:
            raise CodegenError(f"unknown function '{name}'; known: {sorted(FUNCTIONS)}")
        args = [self.visit(a) for a in arg_nodes]
        return _fold(_FOLD.get(name), args) or lower(self.lw, *args)


def compile_expression(expr: str, inputs: Iterable[tuple[str, object]],
                       out_dtype=None) -> Program:
    """Parse, type and lower ``expr`` over ``inputs`` (``(name, dtype)`` pairs, in the
    order the kernel takes them).  ``out_dtype`` defaults to the result's dtype; the
    result is converted to it like ``astype``.  Raises ``CodegenError``.
    """
    inputs = [(name, _check_dtype(dtype)) for name, dtype in inputs]
    names = [name for name, _ in inputs]
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise CodegenError(f"input names must be distinct identifiers, got {names}")
    try:
        # No blocks in this language, so indentation is never meaningful.
        tree = ast.parse("\n".join(line.strip() for line in expr.splitlines()), mode="exec")
    except SyntaxError as exc:
        raise CodegenError(f"syntax error in {expr!r}: {exc.msg}") from None
    lw = _Lowering({name: _Val(f"v{k}", _compute(dtype))
                    for k, (name, dtype) in enumerate(inputs)})
    lowerer = _Lowerer(lw)
    result = None
    for k, stmt in enumerate(tree.body):
        last = k == len(tree.body) - 1
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            if target in names:
                raise CodegenError(f"cannot assign to input '{target}'")
            result = lw.env[target] = lowerer.visit(stmt.value)
        elif isinstance(stmt, ast.Expr) and last:
            result = lowerer.visit(stmt.value)
        else:
            raise CodegenError(f"expected 'name = expr' lines and a final expression, "
                               f"got {ast.unparse(stmt)!r}")
    if result is None:
        raise CodegenError("empty expression")
    if isinstance(result.const, str):
        raise CodegenError("a string is not a value")
    if out_dtype is None:
        out_dtype = lw.typed(result).dtype
    out_dtype = _check_dtype(out_dtype)
    stored = lw.convert(lw.typed(result, _compute(out_dtype)), out_dtype)
    return Program(expr=expr, inputs=tuple(names),
                   input_dtypes=tuple(d for _, d in inputs), out_dtype=out_dtype,
                   instrs=tuple(lw.instrs), result=stored.ref)


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

_FLOAT_FUNCTIONS = {"exp": ("expf", "exp"), "log": ("logf", "log"), "sqrt": ("sqrtf", "sqrt"),
                    "tanh": ("tanhf", "tanh"), "abs": ("fabsf", "fabs"),
                    "pow": ("powf", "pow")}
_C_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


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


def _render_instr(ins: Instr, helpers: set) -> str:
    a = [x if isinstance(x, str) else c_literal(x) for x in ins.args]
    d, op = ins.dtype, ins.op
    c_type = C_TYPES[d]
    if op in ("add", "sub", "mul"):
        symbol = {"add": "+", "sub": "-", "mul": "*"}[op]
        if d.kind == "f":
            return f"{a[0]} {symbol} {a[1]}"
        u = _UNSIGNED[d]
        return f"({c_type})(({u}){a[0]} {symbol} ({u}){a[1]})"
    if op == "div":
        return f"{a[0]} / {a[1]}"
    if op == "pow":
        if d.kind == "f":
            return f"{_FLOAT_FUNCTIONS['pow'][d == _F64]}({a[0]}, {a[1]})"
        helpers.add("ipow")
        return f"({c_type})_ds_ipow((long long){a[0]}, (long long){a[1]})"
    if op in ("max", "min"):
        compare = ">=" if op == "max" else "<="
        keep = f"{a[0]} {compare} {a[1]}"
        if d.kind == "f":                 # a NaN on either side wins, like np.maximum
            keep = f"({keep}) || ({a[0]} != {a[0]})"
        return f"({keep}) ? {a[0]} : {a[1]}"
    if op in _C_COMPARE:
        return f"{a[0]} {_C_COMPARE[op]} {a[1]}"
    if op in ("and", "or", "xor"):
        return f"{a[0]} {({'and': '&&', 'or': '||', 'xor': '!='})[op]} {a[1]}"
    if op == "not":
        return f"!{a[0]}"
    if op == "neg":
        if d.kind == "f":
            return f"-{a[0]}"
        u = _UNSIGNED[d]
        return f"({c_type})(({u})0 - ({u}){a[0]})"
    if op == "abs":
        if d.kind == "f":
            return f"{_FLOAT_FUNCTIONS['abs'][d == _F64]}({a[0]})"
        u = _UNSIGNED[d]
        return f"({a[0]} < 0) ? ({c_type})(({u})0 - ({u}){a[0]}) : {a[0]}"
    if op in ("exp", "log", "sqrt", "tanh"):
        return f"{_FLOAT_FUNCTIONS[op][d == _F64]}({a[0]})"
    if op == "select":
        return f"{a[0]} ? {a[1]} : {a[2]}"
    if op == "convert":
        if d.kind == "b":
            return f"{a[0]} != 0"
        return f"({c_type})({a[0]})"
    raise CodegenError(f"internal: no CUDA rendering for op {op!r}")


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


# ------------------------------------------------------------------ numpy oracle

def _np_ipow(dtype):
    def ipow(x, y):
        r = np.power(x, np.maximum(y, 0)).astype(dtype)   # wraps like the CUDA helper
        inverse = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 != 0, -1, 1), 0))
        return np.where(y < 0, inverse, r).astype(dtype)
    return ipow


def _np_op(ins: Instr) -> Callable:
    d = ins.dtype
    table = {
        "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
        "pow": np.power if d.kind == "f" else _np_ipow(d),
        "max": np.maximum, "min": np.minimum,
        "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal,
        "and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor,
        "not": np.logical_not, "neg": np.negative, "abs": np.abs,
        "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
        "select": np.where, "convert": lambda x: np.asarray(x).astype(d),
    }
    return table[ins.op]


def evaluate(program: Program, *arrays) -> np.ndarray:
    """Run ``program`` with numpy on host arrays: the oracle for ``render_cuda``'s code."""
    if len(arrays) != len(program.inputs):
        raise TypeError(f"the program takes {len(program.inputs)} inputs, got {len(arrays)}")
    arrays = [np.asarray(a) for a in arrays]
    shape = np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()
    env = {f"v{k}": a.astype(_compute(a.dtype)) for k, a in enumerate(arrays)}

    def value(ref):
        return np.asarray(ref.value, ref.dtype) if isinstance(ref, Const) else env[ref]

    with np.errstate(all="ignore"):
        for ins in program.instrs:
            env[ins.dst] = np.asarray(_np_op(ins)(*[value(r) for r in ins.args])) \
                .astype(ins.dtype, copy=False)
        result = np.broadcast_to(value(program.result), shape)
        return result.astype(program.out_dtype)
