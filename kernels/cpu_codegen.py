"""Generate numba loop kernels from elementwise expressions.

An elementwise *program* is Python expression syntax over named inputs: one
expression (``"max(a * 1.5 + 0.25, 0) * b"``), or several ``name = expr`` lines
followed by a final expression, which is how a DAG with shared subexpressions is
written (``"t = exp(x - m)\\nt / (1 + t)"``).  Structurally equal subexpressions are
computed once anyway (common-subexpression elimination), so a fuser may also just
substitute one op's expression into the next.

Pipeline (pure functions; numba is only imported by ``load_module``):

1. ``compile_expression(expr, inputs, out_dtype)`` parses with ``ast``, folds
   constant subexpressions, infers a numpy dtype for every value and lowers the tree
   to straight-line SSA statements (``t3 = np.float32(t1 * t2)``).  Typing follows
   numpy 2 (NEP 50): python constants are *weak* and take the dtype of what they
   meet, so ``a * 1.5`` with float32 ``a`` becomes ``a * np.float32(1.5)`` and never
   promotes to float64.  Every op's result is wrapped in its dtype's constructor so
   that numba computes exactly in the inferred dtype (numba would otherwise widen
   int32 + int32 to int64); integer results therefore wrap like numpy's.
2. ``render_module(program, modes)`` wraps the statements in two loop functions,
   ``serial`` and ``parallel`` (``prange``), specialised to how each input is read:

   * ``FULL``   -- a contiguous array of the output's size:        ``x[i]``
   * ``SCALAR`` -- one element, read once before the loop:         ``x[0]``
   * ``SUFFIX`` -- the output's trailing dims (a bias row): rows x inner loop,
     read as ``x[j]`` (no ``i % n``; rows are slices, see ``_render_loop``)

   Any other broadcast is materialised by the driver, which also flattens every
   array to 1-D.  Signature: ``serial(out, x0, ..., x{k-1}, inner)``.
3. ``load_module(source)`` (from ``_module_cache``) writes the source to a file in
   ``$DEVSESSION_CACHE_DIR`` (default ``~/.cache/devsession/kernels``) named by a
   hash of the source and the numba version, and imports it.  Because the functions
   live in a real, stable file, ``@njit(cache=True)`` caches their machine code on
   disk like any module's, and a second process loads it in milliseconds.

The language: inputs; int/float/bool constants, ``inf``, ``nan``; ``+ - * / **``;
unary ``-``; comparisons; ``and``/``or``/``not`` and ``& | ^ ~`` on bools;
``x if c else y``; and the functions in ``FUNCTIONS`` (``max``/``min`` propagate NaN
like ``np.maximum``; ``sigmoid`` never overflows; ``cast(x, "int32")`` converts like
``astype``: floats truncate toward zero, ``!= 0`` gives bool; a NaN or out-of-range
float gives an unspecified integer, where numpy gives INT_MIN and warns).  float16 cannot be held
in numba registers: it is read and computed as float32 (the driver converts), so a
fused float16 chain rounds once at its output, not after every op.

Example::

    p = compile_expression("max(a * 1.5 + 0.25, 0) * b",
                           [("a", np.float32), ("b", np.float32)])
    module = load_module(render_module(p, (FULL, SUFFIX)))
    module.serial(out, a.ravel(), b.ravel(), b.size)
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from ._module_cache import cache_dir, load_module  # noqa: F401  (part of this API)

__all__ = ["FULL", "SCALAR", "SUFFIX", "CodegenError", "Program", "compile_expression",
           "render_module", "load_module", "cache_dir", "FUNCTIONS"]

CODEGEN_VERSION = 3
FULL, SCALAR, SUFFIX = "full", "scalar", "suffix"


class CodegenError(ValueError):
    """An expression that cannot be compiled (syntax, unknown name, bad types)."""


@dataclass(frozen=True)
class Program:
    """A typed elementwise program, ready to be put into loops by ``render_module``."""

    expr: str
    inputs: tuple            # input names, in argument order
    input_dtypes: tuple      # np.dtype per input, as read by the kernel (no float16)
    out_dtype: np.dtype      # dtype stored into ``out``
    body: tuple              # SSA statements over v0..v{k-1}
    result: str              # expression stored into out[i]
    helpers: frozenset       # names of helper functions the body calls


@dataclass(frozen=True)
class _Value:
    code: str                  # a temp name, input value name or typed literal
    dtype: np.dtype | None     # None: a weak python constant (``const`` holds it)
    const: object = None

    @property
    def weak(self) -> bool:
        return self.dtype is None


# --------------------------------------------------------------------------- typing

def _no_float16(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _literal(value, dtype: np.dtype) -> str:
    if dtype.kind == "b":
        return "True" if value else "False"
    if dtype.kind in "iu":
        if isinstance(value, float) and not value.is_integer():
            raise CodegenError(f"constant {value!r} is not an integer ({dtype})")
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise CodegenError(f"constant {value!r} does not fit in {dtype}")
        return f"np.{dtype.name}({int(value)})"
    v = float(value)
    text = "np.nan" if math.isnan(v) else ("np.inf" if v > 0 else "-np.inf") if math.isinf(v) \
        else repr(v)
    return f"np.{dtype.name}({text})"


def _weak_dtype(value, partner: np.dtype) -> np.dtype:
    """The dtype a python constant takes next to a value of dtype ``partner`` (NEP 50)."""
    if isinstance(value, bool):
        return partner
    if isinstance(value, int):
        return partner if partner.kind in "iuf" else np.dtype(np.int64)
    return partner if partner.kind == "f" else np.dtype(np.float64)


def _default_dtype(value) -> np.dtype:
    return np.dtype(bool if isinstance(value, bool) else np.int64 if isinstance(value, int)
                    else np.float64)


# ------------------------------------------------------------------------ lowering

class _Lowering:
    """Emits typed SSA statements; ``_memo`` makes equal subexpressions share a temp."""

    def __init__(self, inputs: dict[str, _Value]):
        self.env = dict(inputs)
        self.lines: list[str] = []
        self.helpers: set[str] = set()
        self._memo: dict[str, _Value] = {}

    def emit(self, code: str, dtype: np.dtype) -> _Value:
        dtype = np.dtype(dtype)
        hit = self._memo.get(code)
        if hit is None:
            hit = self._memo[code] = _Value(f"t{len(self._memo)}", dtype)
            self.lines.append(f"{hit.code} = {code}")
        return hit

    def typed(self, v: _Value, partner: _Value | np.dtype | None = None) -> _Value:
        """Give a weak constant a dtype (its partner's, NEP 50 style)."""
        if not v.weak:
            return v
        if isinstance(v.const, str):
            raise CodegenError(f"the string {v.const!r} is not a value")
        if isinstance(partner, _Value):
            partner = partner.dtype
        dtype = _default_dtype(v.const) if partner is None else _weak_dtype(v.const, partner)
        return _Value(_literal(v.const, dtype), dtype)

    def convert(self, v: _Value, dtype: np.dtype) -> _Value:
        dtype = _no_float16(dtype)
        if v.weak:
            return _Value(_literal(v.const, dtype), dtype)
        if v.dtype == dtype:
            return v
        if dtype.kind == "b":
            return self.emit(f"{v.code} != 0", dtype)
        return self.emit(f"np.{dtype.name}({v.code})", dtype)

    def promote(self, *vs: _Value) -> tuple[list[_Value], np.dtype]:
        strong = [v.dtype for v in vs if not v.weak]
        partner = np.result_type(*strong) if strong else None
        typed = [self.typed(v, partner) for v in vs]
        dtype = np.result_type(*[v.dtype for v in typed])
        return [self.convert(v, dtype) for v in typed], dtype


def _wrap(dtype: np.dtype, code: str) -> str:
    return code if dtype.kind == "b" else f"np.{dtype.name}({code})"


def _numeric(name: str, dtype: np.dtype) -> None:
    if dtype.kind == "b":
        raise CodegenError(f"'{name}' is not defined on bool")


def _arith(symbol: str, name: str):
    def lower(lw: _Lowering, a: _Value, b: _Value) -> _Value:
        (a, b), dtype = lw.promote(a, b)
        _numeric(name, dtype)
        return lw.emit(_wrap(dtype, f"{a.code} {symbol} {b.code}"), dtype)
    return lower


def _truediv(lw, a, b):
    (a, b), dtype = lw.promote(a, b)
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
        a, b = lw.convert(a, dtype), lw.convert(b, dtype)
    return lw.emit(_wrap(dtype, f"{a.code} / {b.code}"), dtype)


def _pow(lw, a, b):
    (a, b), dtype = lw.promote(a, b)
    _numeric("**", dtype)
    if dtype.kind == "f":
        return lw.emit(_wrap(dtype, f"{a.code} ** {b.code}"), dtype)
    lw.helpers.add("_ipow")
    return lw.emit(_wrap(dtype, f"_ipow(np.int64({a.code}), np.int64({b.code}))"), dtype)


def _extreme(compare: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        keep_a = f"{a.code} {compare} {b.code}"
        if dtype.kind == "f":       # a NaN on either side wins, like np.maximum
            keep_a = f"({keep_a}) | ({a.code} != {a.code})"
        return lw.emit(f"{a.code} if {keep_a} else {b.code}", dtype)
    return lower


def _compare(symbol: str):
    def lower(lw, a, b):
        (a, b), _ = lw.promote(a, b)
        return lw.emit(f"{a.code} {symbol} {b.code}", np.bool_)
    return lower


def _logical(symbol: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        if dtype.kind != "b":
            raise CodegenError(f"'{symbol}' needs bool operands, got {dtype}")
        return lw.emit(f"{a.code} {symbol} {b.code}", dtype)
    return lower


def _not(lw, a):
    a = lw.typed(a)
    if a.dtype.kind != "b":
        raise CodegenError(f"'not' needs a bool operand, got {a.dtype}")
    return lw.emit(f"not {a.code}", a.dtype)


def _neg(lw, a):
    a = lw.typed(a)
    _numeric("-", a.dtype)
    return lw.emit(_wrap(a.dtype, f"-{a.code}"), a.dtype)


def _abs(lw, a):
    a = lw.typed(a)
    _numeric("abs", a.dtype)
    return lw.emit(_wrap(a.dtype, f"abs({a.code})"), a.dtype)


def _float_arg(lw, a, name) -> _Value:
    a = lw.typed(a)
    _numeric(name, a.dtype)
    return a if a.dtype.kind == "f" else lw.convert(a, np.float64)   # like np.exp(int)


def _math(np_name: str):
    def lower(lw, a):
        a = _float_arg(lw, a, np_name)
        if np_name == "exp" and a.dtype == np.float32:
            lw.helpers.add("_fexp32")  # vectorisable; libm's expf is scalar (no SVML)
            return lw.emit(f"_fexp32({a.code})", a.dtype)
        return lw.emit(_wrap(a.dtype, f"np.{np_name}({a.code})"), a.dtype)
    return lower


def _sigmoid(lw, a):
    # exp(-|x|) <= 1 never overflows; select the algebraically equal form by sign:
    # 1/(1+e) for x >= 0, e/(1+e) = e * (1/(1+e)) below.  One division, not two: with
    # two, LLVM stops vectorising the loop (7x slower on 10M float32).
    x = _float_arg(lw, a, "sigmoid")
    one = _literal(1, x.dtype)
    e = _math("exp")(lw, _neg(lw, _abs(lw, x)))
    denominator = lw.emit(_wrap(x.dtype, f"{one} + {e.code}"), x.dtype)
    positive = lw.emit(_wrap(x.dtype, f"{one} / {denominator.code}"), x.dtype)
    negative = lw.emit(_wrap(x.dtype, f"{e.code} * {positive.code}"), x.dtype)
    zero = _literal(0, x.dtype)
    return lw.emit(f"{positive.code} if {x.code} >= {zero} else {negative.code}", x.dtype)


def _where(lw, c, x, y):
    c = lw.convert(lw.typed(c), np.bool_)
    (x, y), dtype = lw.promote(x, y)
    return lw.emit(f"{x.code} if {c.code} else {y.code}", dtype)


def _cast(lw, x, dtype_name):
    if not (dtype_name.weak and isinstance(dtype_name.const, str)):
        raise CodegenError("cast(x, 'dtype') needs a dtype name as a string")
    try:
        dtype = np.dtype(dtype_name.const)
    except TypeError:
        raise CodegenError(f"unknown dtype {dtype_name.const!r}") from None
    return lw.convert(lw.typed(x), dtype)


FUNCTIONS: dict[str, Callable] = {
    "exp": _math("exp"), "log": _math("log"), "sqrt": _math("sqrt"), "tanh": _math("tanh"),
    "sigmoid": _sigmoid, "abs": _abs, "max": _extreme(">="), "min": _extreme("<="),
    "where": _where, "cast": _cast, "pow": _pow,
    "square": lambda lw, a: _arith("*", "square")(lw, a, a),
    "relu": lambda lw, a: _extreme(">=")(lw, a, _Value("", None, 0)),
}
_BINOPS = {ast.Add: _arith("+", "+"), ast.Sub: _arith("-", "-"), ast.Mult: _arith("*", "*"),
           ast.Div: _truediv, ast.Pow: _pow, ast.BitAnd: _logical("&"),
           ast.BitOr: _logical("|"), ast.BitXor: _logical("^")}
_COMPARES = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
             ast.GtE: ">="}
_PY_COMPARES = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
                ">": operator.gt, ">=": operator.ge}
_UNARY = {ast.USub: _neg, ast.UAdd: lambda lw, a: a, ast.Not: _not, ast.Invert: _not}

def _py_max(x, y):
    return x if (x >= y or x != x) else y      # NaN wins, like np.maximum


def _py_min(x, y):
    return x if (x <= y or x != x) else y


# How to fold all-constant subexpressions: python/numpy on python scalars, so the
# results stay weak.  Domain errors become nan/inf as in the generated code.
_FOLD = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
    "sigmoid": lambda x: np.where(x >= 0, 1 / (1 + np.exp(-abs(x))),
                                  np.exp(-abs(x)) / (1 + np.exp(-abs(x)))),
    "abs": abs, "max": _py_max, "min": _py_min, "pow": pow, "square": lambda x: x * x,
    "relu": lambda x: _py_max(x, 0), "where": lambda c, x, y: x if c else y,
}


def _fold(fn_name: str, python_fn, args: Sequence[_Value]) -> _Value | None:
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
    return _Value("", None, result)


class _Lowerer(ast.NodeVisitor):
    def __init__(self, lw: _Lowering):
        self.lw = lw

    def generic_visit(self, node):
        raise CodegenError(f"unsupported syntax: {ast.unparse(node)!r}")

    def visit_Constant(self, node):
        if not isinstance(node.value, (bool, int, float, str)):
            raise CodegenError(f"unsupported constant {node.value!r}")
        return _Value("", None, node.value)

    def visit_Name(self, node):
        if node.id in self.lw.env:
            return self.lw.env[node.id]
        if node.id in ("inf", "nan"):
            return _Value("", None, float(node.id))
        raise CodegenError(f"unknown name '{node.id}'; inputs and temps are "
                           f"{sorted(self.lw.env)}")

    def visit_UnaryOp(self, node):
        a = self.visit(node.operand)
        op = type(node.op)
        folded = _fold(op.__name__, {ast.USub: lambda x: -x, ast.UAdd: lambda x: x,
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
        return _fold(type(node.op).__name__, python, [a, b]) or lower(self.lw, a, b)

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            raise CodegenError(f"chained comparison {ast.unparse(node)!r}; use 'and'")
        symbol = _COMPARES[type(node.ops[0])]
        a, b = self.visit(node.left), self.visit(node.comparators[0])
        folded = _fold(symbol, _PY_COMPARES[symbol], [a, b])
        return folded or _compare(symbol)(self.lw, a, b)

    def visit_BoolOp(self, node):
        symbol = "&" if isinstance(node.op, ast.And) else "|"
        values = [self.visit(v) for v in node.values]
        result = values[0]
        for v in values[1:]:
            result = _logical(symbol)(self.lw, result, v)
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
        return _fold(name, _FOLD.get(name), args) or lower(self.lw, *args)


def compile_expression(expr: str, inputs: Iterable[tuple[str, object]],
                       out_dtype=None) -> Program:
    """Parse, type and lower ``expr`` over ``inputs`` (``(name, dtype)`` pairs, in the
    order the kernel takes them).  ``out_dtype`` defaults to the result's dtype; the
    result is converted to it like ``astype``.  float16 inputs/outputs are handled as
    float32 (see the module docstring).  Raises ``CodegenError``.
    """
    inputs = [(name, np.dtype(dtype)) for name, dtype in inputs]
    names = [name for name, _ in inputs]
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise CodegenError(f"input names must be distinct identifiers, got {names}")
    try:
        # No blocks in this language, so indentation is never meaningful.
        tree = ast.parse("\n".join(line.strip() for line in expr.splitlines()), mode="exec")
    except SyntaxError as exc:
        raise CodegenError(f"syntax error in {expr!r}: {exc.msg}") from None
    lw = _Lowering({name: _Value(f"v{k}", _no_float16(dtype))
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
    out_dtype = _no_float16(out_dtype)
    stored = lw.convert(lw.typed(result, out_dtype), out_dtype)
    return Program(expr=expr, inputs=tuple(names),
                   input_dtypes=tuple(_no_float16(d) for _, d in inputs),
                   out_dtype=out_dtype, body=tuple(lw.lines), result=stored.code,
                   helpers=frozenset(lw.helpers))


# ----------------------------------------------------------------------- rendering

def _source_digest(module_name: str) -> str:
    """A digest of a helper module's source: numba's cache does not notice when code a
    cached kernel inlines changes, so generated modules name the version they inline."""
    import hashlib
    import importlib.util

    spec = importlib.util.find_spec(module_name)
    with open(spec.origin, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:12]


_HELPERS = {
    "_fexp32": "from devsession.kernels.cpu_fastmath import fexp32 as _fexp32  # "
               + _source_digest("devsession.kernels.cpu_fastmath"),
    # Integer power by squaring, wrapping like numpy; a negative exponent gives the
    # truncated real result (see reference.py).
    "_ipow": '''
@njit(cache=True, error_model="numpy")
def _ipow(base, exponent):
    if exponent < 0:
        if base == 1:
            return np.int64(1)
        if base == -1:
            return np.int64(1) if exponent % 2 == 0 else np.int64(-1)
        return np.int64(0)
    result = np.int64(1)
    while exponent > 0:
        if exponent & 1:
            result *= base
        base *= base
        exponent >>= 1
    return result
''',
}


def _render_loop(program: Program, modes: Sequence[str], name: str, parallel: bool) -> str:
    loop = "prange" if parallel else "range"
    params = ", ".join(["out"] + [f"x{k}" for k in range(len(modes))] + ["inner"])
    # nogil: sessions run steps from many Python threads, and independent kernels of
    # one step may run on two threads at once.
    lines = [f'@njit(cache=True, nogil=True, error_model="numpy"'
             f'{", parallel=True" if parallel else ""})',
             f"def {name}({params}):"]
    lines += [f"    v{k} = x{k}[0]" for k, m in enumerate(modes) if m == SCALAR]
    if SUFFIX in modes:
        # Rows are sliced rather than indexed as base + j: numba cannot prove base + j
        # >= 0, and its negative-index wraparound check stops LLVM vectorizing.
        lines += [f"    for r in {loop}(out.shape[0] // inner):",
                  "        lo = r * inner",
                  "        out_r = out[lo:lo + inner]"]
        lines += [f"        x{k}_r = x{k}[lo:lo + inner]"
                  for k, m in enumerate(modes) if m == FULL]
        lines += ["        for j in range(inner):"]
        indent, out_ref = " " * 12, "out_r[j]"
        loads = {FULL: "x{k}_r[j]", SUFFIX: "x{k}[j]"}
    else:
        lines += [f"    for i in {loop}(out.shape[0]):"]
        indent, out_ref = " " * 8, "out[i]"
        loads = {FULL: "x{k}[i]"}
    lines += [f"{indent}v{k} = {loads[m].format(k=k)}"
              for k, m in enumerate(modes) if m != SCALAR]
    lines += [indent + stmt for stmt in program.body]
    lines.append(f"{indent}{out_ref} = {program.result}")
    return "\n".join(lines) + "\n"


def render_module(program: Program, modes: Sequence[str]) -> str:
    """Python source of a module defining ``serial`` and ``parallel`` loop kernels for
    ``program`` with input ``modes`` (one of FULL/SCALAR/SUFFIX per input)."""
    if len(modes) != len(program.inputs) or not set(modes) <= {FULL, SCALAR, SUFFIX}:
        raise CodegenError(f"need one mode of {FULL}/{SCALAR}/{SUFFIX} per input, got {modes}")
    signature = ", ".join(f"{n}:{d.name}[{m}]" for n, d, m in
                          zip(program.inputs, program.input_dtypes, modes))
    parts = [
        f"# Generated by devsession.kernels.cpu_codegen v{CODEGEN_VERSION}; do not edit.",
        f"# expression: {program.expr!r}",
        f"# inputs: {signature} -> out:{program.out_dtype.name}",
        "import numpy as np",
        "from numba import njit, prange",
    ]
    parts += [_HELPERS[h] for h in sorted(program.helpers)]
    parts += ["", _render_loop(program, modes, "serial", False),
              _render_loop(program, modes, "parallel", True)]
    return "\n".join(parts)
