"""The elementwise expression language, compiled to a typed SSA program any backend renders.

An elementwise *program* is Python expression syntax over named inputs: one
expression (``"max(a * 1.5 + 0.25, 0) * b"``), or several ``name = expr`` lines
followed by a final expression, which is how a DAG with shared subexpressions is
written (``"t = exp(x - m)\\nt / (1 + t)"``).  ``codegen/cpu.py`` renders the result as
numba loops, ``codegen/cuda.py`` as the body of a ``cupy.ElementwiseKernel``, and
``evaluate`` runs it with numpy; so a fuser can hand the same program to any device.

``compile_expression(expr, inputs, out_dtype)`` (pure Python + numpy):

1. parses with ``ast`` (no blocks, so indentation is ignored);
2. folds all-constant subexpressions with python/numpy scalars, so folded results stay
   *weak* constants;
3. types every value following numpy 2 (NEP 50): python constants are weak and take
   the dtype of what they meet, so ``a * 1.5`` with float32 ``a`` stays float32;
   integer ``/`` gives float64, ``exp`` of an int is float64; typed constants that
   need converting are converted now, like ``astype``;
4. lowers the tree to a tuple of ``Instr`` (three-address code, one dtype per value,
   inputs are the values ``v0..v{k-1}``, temps ``t0, t1, ...``), emitting equal
   instructions once (common-subexpression elimination).

The language: inputs; int/float/bool constants, ``inf``, ``nan``; ``+ - * / **``;
unary ``-``; comparisons; ``and``/``or``/``not`` and ``& | ^ ~`` on bools;
``x if c else y``; and the functions in ``FUNCTIONS`` (``max``/``min`` propagate NaN
like ``np.maximum``; ``sigmoid`` is ``exp(-|x|)``-based and never overflows;
``cast(x, "int32")`` converts like ``astype``: floats truncate toward zero, ``!= 0``
gives bool; a NaN or out-of-range float gives an unspecified integer).  float16 is
loaded and computed as float32 and rounded once, when stored.

Instruction ops: ``add sub mul div pow max min eq ne lt le gt ge and or xor not neg
abs exp log sqrt tanh select convert``.  ``Program.input_dtypes`` and ``out_dtype``
are as given (float16 allowed); every ``Instr`` dtype is a compute dtype (no float16).

Backends differ in two choices, made by keyword: ``check_dtype`` (the GPU refuses
dtypes it has no C type for) and ``one_division_sigmoid`` (the CPU computes sigmoid's
negative branch as ``e * (1 / (1 + e))``: with two divisions LLVM stops vectorising
the loop; the GPU divides twice).

Example::

    p = compile_expression("max(a * 1.5 + 0.25, 0) * b",
                           [("a", np.float32), ("b", np.float32)])
    # p.instrs[0] == Instr("t0", float32, "mul", ("v0", Const(1.5, float32)))
    evaluate(p, a, b)      # numpy, the oracle for every rendering
"""

from __future__ import annotations

import ast
import operator
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from ..reference.elementwise import MATH_UNARY as _REFERENCE_MATH   # erf, erfc: numpy has none
from ..reference.special import SPECIAL_FUNCTIONS as _REFERENCE_SPECIAL

__all__ = ["CodegenError", "Const", "Instr", "Program", "compile_expression", "evaluate",
           "parse", "compute_dtype", "FUNCTIONS"]

_F16, _F64 = np.dtype(np.float16), np.dtype(np.float64)
_I64, _BOOL = np.dtype(np.int64), np.dtype(np.bool_)


class CodegenError(ValueError):
    """An expression that cannot be compiled (syntax, unknown name, bad types)."""


@dataclass(frozen=True)
class Const:
    """A typed constant operand (``value`` is a python bool/int/float, canonical for
    ``dtype``: bool for bool, int for integers, float otherwise)."""

    value: object
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
    """A typed elementwise program, ready to be rendered or ``evaluate``d."""

    expr: str
    inputs: tuple            # input names, in argument order
    input_dtypes: tuple      # as the kernel receives them (float16 allowed)
    out_dtype: np.dtype      # as stored (float16 allowed)
    instrs: tuple            # Instr, in order; inputs are the values v0..v{k-1}
    result: object           # the value stored: a value name or a Const

    @property
    def compute_dtype(self) -> np.dtype:
        return compute_dtype(self.out_dtype)


def compute_dtype(dtype) -> np.dtype:
    """The dtype a value of ``dtype`` is computed in: float16 as float32."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == _F16 else dtype


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
    dtype = compute_dtype(dtype)
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


def _convert_python(value, dtype: np.dtype):
    """A python constant converted like ``astype`` (used for typed constants only)."""
    with np.errstate(all="ignore"):
        return np.array(value).astype(dtype).item()


def _cse_key(ref):
    # Const(0.0) == Const(-0.0) and Const(nan) != Const(nan): compare constants by text.
    return (ref.dtype, repr(ref.value)) if isinstance(ref, Const) else ref


class _Lowering:
    """Emits typed instructions; equal instructions share one destination."""

    def __init__(self, inputs: dict[str, _Val], check_dtype: Callable,
                 one_division_sigmoid: bool):
        self.env = dict(inputs)
        self.instrs: list[Instr] = []
        self.check_dtype = check_dtype
        self.one_division_sigmoid = one_division_sigmoid
        self._memo: dict[tuple, _Val] = {}

    def emit(self, op: str, dtype, *args: _Val) -> _Val:
        dtype = np.dtype(dtype)
        refs = tuple(a.ref for a in args)
        key = (op, dtype, tuple(_cse_key(r) for r in refs))
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

    def constant(self, value, dtype) -> _Val:
        c = _const(value, dtype)
        return _Val(c, c.dtype)

    def convert(self, v: _Val, dtype) -> _Val:
        dtype = compute_dtype(dtype)
        if v.weak:
            return self.constant(v.const, dtype)
        if v.dtype == dtype:
            return v
        if isinstance(v.ref, Const):
            return self.constant(_convert_python(v.ref.value, dtype), dtype)
        return self.emit("convert", dtype, v)

    def promote(self, *vs: _Val) -> tuple[list[_Val], np.dtype]:
        strong = [v.dtype for v in vs if not v.weak]
        partner = np.result_type(*strong) if strong else None
        typed = [self.typed(v, partner) for v in vs]
        dtype = np.result_type(*[v.dtype for v in typed])
        return [self.convert(v, dtype) for v in typed], dtype


# ------------------------------------------------------------- operators, functions

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
    # exp(-|x|) <= 1 never overflows; select the algebraically equal form by sign:
    # 1/(1+e) for x >= 0, e/(1+e) below (or e * (1/(1+e)): see the module docstring).
    x = _float_arg(lw, a, "sigmoid")
    one, zero = lw.constant(1, x.dtype), lw.constant(0, x.dtype)
    e = lw.emit("exp", x.dtype, _neg(lw, _abs(lw, x)))
    denominator = lw.emit("add", x.dtype, one, e)
    positive = lw.emit("div", x.dtype, one, denominator)
    if lw.one_division_sigmoid:
        negative = lw.emit("mul", x.dtype, e, positive)
    else:
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
    return lw.convert(lw.typed(x), lw.check_dtype(dtype))


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
_UNARY = {ast.USub: _neg, ast.UAdd: lambda lw, a: a, ast.Not: _not, ast.Invert: _not}


# ----------------------------------------------------------------- constant folding

def _py_max(x, y):
    return x if (x >= y or x != x) else y      # NaN wins, like np.maximum


def _py_min(x, y):
    return x if (x <= y or x != x) else y


# Python/numpy on python scalars, so folded results stay weak.  Domain errors become
# nan/inf as in the generated code.
_FOLD = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
    "sigmoid": lambda x: np.where(x >= 0, 1 / (1 + np.exp(-abs(x))),
                                  np.exp(-abs(x)) / (1 + np.exp(-abs(x)))),
    "abs": abs, "max": _py_max, "min": _py_min, "pow": pow, "square": lambda x: x * x,
    "relu": lambda x: _py_max(x, 0), "where": lambda c, x, y: x if c else y,
}
_FOLD_UNARY = {ast.USub: operator.neg, ast.UAdd: lambda x: x, ast.Not: operator.not_}
_FOLD_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                ast.Div: operator.truediv, ast.Pow: operator.pow}
_FOLD_COMPARE = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
                 "gt": operator.gt, "ge": operator.ge}


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


# ------------------------------------------------------------------------- parsing

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
        return _fold(_FOLD_UNARY.get(op), [a]) or _UNARY[op](self.lw, a)

    def visit_BinOp(self, node):
        lower = _BINOPS.get(type(node.op))
        if lower is None:
            raise CodegenError(f"unsupported operator in {ast.unparse(node)!r}")
        a, b = self.visit(node.left), self.visit(node.right)
        return _fold(_FOLD_BINARY.get(type(node.op)), [a, b]) or lower(self.lw, a, b)

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            raise CodegenError(f"chained comparison {ast.unparse(node)!r}; use 'and'")
        op = _COMPARES[type(node.ops[0])]
        a, b = self.visit(node.left), self.visit(node.comparators[0])
        return _fold(_FOLD_COMPARE[op], [a, b]) or _compare(op)(self.lw, a, b)

    def visit_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        values = [self.visit(v) for v in node.values]
        result = values[0]
        for v in values[1:]:
            result = _logical(op, op)(self.lw, result, v)
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


_PARSE_LOCK = threading.Lock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse``, one thread at a time: CPython 3.11's conversion of the parse tree to
    ``ast`` objects keeps its recursion count in shared state, and two threads parsing at
    once (cluster tasks registering graphs in one process) fail with "SystemError: AST
    constructor recursion depth mismatch" (python/cpython#106905)."""
    with _PARSE_LOCK:
        return ast.parse(source, mode=mode)


def compile_expression(expr: str, inputs: Iterable[tuple[str, object]], out_dtype=None, *,
                       check_dtype: Callable[[np.dtype], np.dtype] = np.dtype,
                       one_division_sigmoid: bool = False) -> Program:
    """Parse, type and lower ``expr`` over ``inputs`` (``(name, dtype)`` pairs, in the
    order the kernel takes them).  ``out_dtype`` defaults to the result's dtype; the
    result is converted to it like ``astype``.  ``check_dtype`` vets every input, output
    and ``cast`` dtype (raising ``CodegenError`` for one a backend cannot handle).
    Raises ``CodegenError``.
    """
    inputs = [(name, check_dtype(np.dtype(dtype))) for name, dtype in inputs]
    names = [name for name, _ in inputs]
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise CodegenError(f"input names must be distinct identifiers, got {names}")
    try:
        # No blocks in this language, so indentation is never meaningful.
        tree = parse("\n".join(line.strip() for line in expr.splitlines()), mode="exec")
    except SyntaxError as exc:
        raise CodegenError(f"syntax error in {expr!r}: {exc.msg}") from None
    lw = _Lowering({name: _Val(f"v{k}", compute_dtype(dtype))
                    for k, (name, dtype) in enumerate(inputs)},
                   check_dtype, one_division_sigmoid)
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
    out_dtype = check_dtype(np.dtype(out_dtype))
    stored = lw.convert(lw.typed(result, compute_dtype(out_dtype)), out_dtype)
    return Program(expr=expr, inputs=tuple(names),
                   input_dtypes=tuple(d for _, d in inputs), out_dtype=out_dtype,
                   instrs=tuple(lw.instrs), result=stored.ref)


# ------------------------------------------------------------------ numpy oracle

def _np_ipow(dtype):
    def ipow(x, y):
        r = np.power(x, np.maximum(y, 0)).astype(dtype)   # wraps like the loop helpers
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
    return table[ins.op] if ins.op in table else _np_tf1_op(ins)


def evaluate(program: Program, *arrays) -> np.ndarray:
    """Run ``program`` with numpy on host arrays: the oracle for every rendering of it.
    Raises ``TypeError`` for the wrong number of arrays."""
    if len(arrays) != len(program.inputs):
        raise TypeError(f"the program takes {len(program.inputs)} inputs, got {len(arrays)}")
    arrays = [np.asarray(a) for a in arrays]
    shape = np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()
    env = {f"v{k}": a.astype(compute_dtype(a.dtype)) for k, a in enumerate(arrays)}

    def value(ref):
        return np.asarray(ref.value, ref.dtype) if isinstance(ref, Const) else env[ref]

    with np.errstate(all="ignore"):
        for ins in program.instrs:
            env[ins.dst] = np.asarray(_np_op(ins)(*[value(r) for r in ins.args])) \
                .astype(ins.dtype, copy=False)
        result = np.broadcast_to(value(program.result), shape)
        return result.astype(program.out_dtype)


# ------------------------------------------------- TF1 surface (branch tf1): sines,
# rounding and integer division.  ``sin cos`` take floats (as ``exp``).  Instruction ops
# ``floor ceil rint trunc`` (floats only: an
# integer is already whole, so the front end returns it unchanged) and ``floordiv
# floormod truncdiv truncmod`` on every numeric dtype.  As TF: float floor division is
# ``floor(x / y)``; ``floormod`` has the divisor's sign (Python's ``%``); ``truncmod`` the
# dividend's (C's ``fmod``).  An integer division or modulo by zero gives 0 (numpy's
# result), so a fused loop never traps; the CPU's loops count those zero divisors, for
# the kernel to raise TF's error (``division_checks.py``).

def _rounding(name: str):
    def lower(lw, a):
        a = lw.typed(a)
        _numeric(name, a.dtype)
        return a if a.dtype.kind in "iu" else lw.emit(name, a.dtype, a)
    return lower


def _division(op: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        _numeric(op, dtype)
        return lw.emit(op, dtype, a, b)
    return lower


FUNCTIONS.update({
    "sin": _math("sin"), "cos": _math("cos"),
    "floor": _rounding("floor"), "ceil": _rounding("ceil"), "rint": _rounding("rint"),
    "trunc": _rounding("trunc"), "floordiv": _division("floordiv"),
    "floormod": _division("floormod"), "truncdiv": _division("truncdiv"),
    "truncmod": _division("truncmod"),
})
_BINOPS.update({ast.FloorDiv: _division("floordiv"), ast.Mod: _division("floormod")})


def _np_int_truncdiv(x, y):
    q = np.floor_divide(x, y)
    return q + ((np.mod(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)


def _np_tf1_op(ins: Instr) -> Callable:
    floats = ins.dtype.kind == "f"
    table = {
        "floor": np.floor, "ceil": np.ceil, "rint": np.rint, "trunc": np.trunc,
        "sin": np.sin, "cos": np.cos,
        "floordiv": (lambda x, y: np.floor(x / y)) if floats else np.floor_divide,
        "floormod": np.mod, "truncmod": np.fmod,
        "truncdiv": (lambda x, y: np.trunc(x / y)) if floats else _np_int_truncdiv,
        **_NP_MATH,                                       # the TF1 math block below
    }
    return table[ins.op]


# ------------------------------------------------- TF1 math (branch tf1-math): the libm
# functions ``log1p expm1 erf erfc tan asin acos atan sinh cosh`` (floats, as ``exp``:
# an integer argument is computed in float64), ``atan2(y, x)`` (floats, promoted), and
# the predicates ``isnan isinf isfinite`` (a bool of a float; an integer is always
# finite, so the front end folds those to constants).

_LIBM = ("log1p", "expm1", "erf", "erfc", "tan", "asin", "acos", "atan", "sinh", "cosh")
_PREDICATES = ("isnan", "isinf", "isfinite")


def _atan2(lw, y, x):
    (y, x), dtype = lw.promote(y, x)
    _numeric("atan2", dtype)
    if dtype.kind != "f":
        dtype = _F64
        y, x = lw.convert(y, dtype), lw.convert(x, dtype)
    return lw.emit("atan2", dtype, y, x)


def _predicate(name: str):
    def lower(lw, a):
        a = lw.typed(a)
        _numeric(name, a.dtype)
        if a.dtype.kind != "f":
            return lw.constant(name == "isfinite", _BOOL)
        return lw.emit(name, _BOOL, a)
    return lower


FUNCTIONS.update({name: _math(name) for name in _LIBM})
FUNCTIONS.update({name: _predicate(name) for name in _PREDICATES})
FUNCTIONS["atan2"] = _atan2


_NP_MATH = {
    "log1p": np.log1p, "expm1": np.expm1, "erf": _REFERENCE_MATH["Erf"],
    "erfc": _REFERENCE_MATH["Erfc"], "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "atan2": np.arctan2, "isnan": np.isnan, "isinf": np.isinf,
    "isfinite": np.isfinite,
}


# ------------------------------------------------- special functions: ``lgamma digamma
# bessel_i0e bessel_i1e erfinv ndtri`` (floats, as ``exp``) and ``zeta igamma igammac
# igamma_grad_a`` (two floats, promoted, as ``atan2``), each a call of the function of
# ``kernels/special_math.py`` in float64 (every backend computes them in double and
# rounds once); Polygamma is built from them in ``expressions.py``.

_SPECIAL_UNARY = ("lgamma", "digamma", "bessel_i0e", "bessel_i1e", "erfinv", "ndtri")
_SPECIAL_BINARY = ("zeta", "igamma", "igammac", "igamma_grad_a")
SPECIAL_FUNCTIONS = _SPECIAL_UNARY + _SPECIAL_BINARY


def _float_binary(name: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        _numeric(name, dtype)
        if dtype.kind != "f":
            dtype = _F64
            a, b = lw.convert(a, dtype), lw.convert(b, dtype)
        return lw.emit(name, dtype, a, b)
    return lower


FUNCTIONS.update({name: _math(name) for name in _SPECIAL_UNARY})
FUNCTIONS.update({name: _float_binary(name) for name in _SPECIAL_BINARY})
_NP_MATH.update(_REFERENCE_SPECIAL)


# ------------------------------------------------- TF1 math names (branch tf1-math-names):
# ``acosh asinh atanh`` (floats, as ``exp``), and the integer bit operations
# ``bitand bitor bitxor invert lshift rshift`` (every integer dtype; bool or float is a
# CodegenError).  As TF's kernels, a shift count is clamped into [0, bits - 1] first, so
# the ``lshift``/``rshift`` instructions always get one in range: ``lshift`` shifts the
# bits (wrapping, as unsigned), ``rshift`` of a signed value is arithmetic.

_HYPERBOLIC = ("acosh", "asinh", "atanh")
_BITWISE = ("bitand", "bitor", "bitxor")


def _integer(name: str, dtype: np.dtype) -> None:
    if dtype.kind not in "iu":
        raise CodegenError(f"'{name}' needs integer operands, got {dtype}")


def _bitwise(name: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        _integer(name, dtype)
        return lw.emit(name, dtype, a, b)
    return lower


def _invert(lw, a):
    a = lw.typed(a)
    _integer("invert", a.dtype)
    return lw.emit("invert", a.dtype, a)


def _shift(name: str):
    def lower(lw, a, b):
        (a, b), dtype = lw.promote(a, b)
        _integer(name, dtype)
        top = lw.constant(dtype.itemsize * 8 - 1, dtype)
        count = lw.emit("min", dtype, lw.emit("max", dtype, b, lw.constant(0, dtype)), top)
        return lw.emit(name, dtype, a, count)
    return lower


def _np_lshift(x, count):
    wide = np.dtype(f"u{x.dtype.itemsize}")
    return np.left_shift(x.astype(wide), count.astype(wide)).astype(x.dtype)


FUNCTIONS.update({name: _math(name) for name in _HYPERBOLIC})
FUNCTIONS.update({name: _bitwise(name) for name in _BITWISE})
FUNCTIONS.update({"invert": _invert, "lshift": _shift("lshift"), "rshift": _shift("rshift")})
_NP_MATH.update({"acosh": np.arccosh, "asinh": np.arcsinh, "atanh": np.arctanh,
                 "bitand": np.bitwise_and, "bitor": np.bitwise_or, "bitxor": np.bitwise_xor,
                 "invert": np.invert, "lshift": _np_lshift, "rshift": np.right_shift})
