"""Generate numba loop kernels from elementwise expressions.

An elementwise *program* is Python expression syntax over named inputs: one
expression (``"max(a * 1.5 + 0.25, 0) * b"``), or several ``name = expr`` lines
followed by a final expression, which is how a DAG with shared subexpressions is
written (``"t = exp(x - m)\\nt / (1 + t)"``).  Structurally equal subexpressions are
computed once anyway (common-subexpression elimination), so a fuser may also just
substitute one op's expression into the next.

Pipeline (pure functions; numba is only imported by ``load_module``):

1. ``compile_expression(expr, inputs, out_dtype)`` has ``frontend`` parse, fold,
   type (numpy 2 / NEP 50: ``a * 1.5`` with float32 ``a`` stays float32) and lower
   the program to typed instructions, then prints each as a straight-line Python
   statement (``t3 = np.float32(t1 * t2)``, ``a * np.float32(1.5)``).  Every op's
   result is wrapped in its dtype's constructor so that numba computes exactly in the
   inferred dtype (numba would otherwise widen int32 + int32 to int64); integer
   results therefore wrap like numpy's.  float32 ``exp`` and ``tanh`` call
   ``cpu/fastmath.py``'s vectorisable ``fexp32`` and ``ftanh32`` (TF's tanh); sigmoid
   takes the front end's one-division form.
2. ``render_module(program, modes)`` wraps the statements in two loop functions,
   ``serial`` and ``parallel`` (``prange``), specialised to how each input is read:

   * ``FULL``   -- a contiguous array of the output's size:        ``x[i]``
   * ``SCALAR`` -- one element, read once before the loop:         ``x[0]``
   * ``SUFFIX`` -- the output's trailing dims (a bias row): rows x inner loop,
     read as ``x[j]`` (no ``i % n``; rows are slices, see ``_render_loop``)
   * ``BLOCK``  -- the output's leading and trailing dims, broadcast over the ones
     between (a global mean's gradient, (N, 1, 1, C) over (N, H, W, C)): row ``r``
     reads row ``r // repeat`` of it, ``repeat`` output rows per input row

   Any other broadcast is materialised by the driver, which also flattens every
   array to 1-D.  Signature: ``serial(out, x0, ..., x{k-1}, inner)``, with a last
   ``repeat`` argument when an input is a BLOCK.  A program that divides integers
   returns how many of its divisors were 0 (``counts_zero_divisors``), and one that
   raises integers to a power how many exponents were negative (TF's CPU error, see
   ``division_checks.py``); others return None.
3. ``load_module(source)`` (from ``module_cache``) writes the source to a file in
   ``$DEVSESSION_CACHE_DIR`` (default ``~/.cache/devsession/kernels``) named by a
   hash of the source and the numba version, and imports it.  Because the functions
   live in a real, stable file, ``@njit(cache=True)`` caches their machine code on
   disk like any module's, and a second process loads it in milliseconds.

The language is described in ``frontend`` (a NaN or out-of-range float cast to
an integer gives an unspecified integer, where numpy gives INT_MIN and warns).
float16 cannot be held in numba registers: it is read and computed as float32 (the driver converts), so a
fused float16 chain rounds once at its output, not after every op.

Example::

    p = compile_expression("max(a * 1.5 + 0.25, 0) * b",
                           [("a", np.float32), ("b", np.float32)])
    module = load_module(render_module(p, (FULL, SUFFIX)))
    module.serial(out, a.ravel(), b.ravel(), b.size)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from . import frontend
from .frontend import FUNCTIONS, CodegenError, Const, Instr  # noqa: F401  (this API)
from .module_cache import cache_dir, load_module  # noqa: F401  (part of this API)

__all__ = ["FULL", "SCALAR", "SUFFIX", "BLOCK", "CodegenError", "Program", "compile_expression",
           "render_module", "load_module", "cache_dir", "FUNCTIONS"]

CODEGEN_VERSION = 6
FULL, SCALAR, SUFFIX, BLOCK = "full", "scalar", "suffix", "block"


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
    counts_zero_divisors: bool = False   # the loops return how many integer divisors were 0


def compile_expression(expr: str, inputs: Iterable[tuple[str, object]],
                       out_dtype=None) -> Program:
    """Parse, type and lower ``expr`` over ``inputs`` (``(name, dtype)`` pairs, in the
    order the kernel takes them).  ``out_dtype`` defaults to the result's dtype; the
    result is converted to it like ``astype``.  float16 inputs/outputs are handled as
    float32 (see the module docstring).  Raises ``CodegenError``.
    """
    ir = frontend.compile_expression(expr, inputs, out_dtype, one_division_sigmoid=True)
    helpers: set[str] = set()
    body = []
    for ins in ir.instrs:
        body.append(f"{ins.dst} = {_statement(ins, helpers)}")
        if ins.op in _DIVISIONS and ins.dtype.kind in "iu":
            body.append(f"zeros += np.int64({_operand(ins.args[1])} == 0)")
        elif ins.op == "pow" and ins.dtype.kind in "iu":     # TF's negative-power error
            body.append(f"zeros += np.int64({_operand(ins.args[1])} < 0)")
    compute = frontend.compute_dtype
    return Program(expr=expr, inputs=ir.inputs,
                   input_dtypes=tuple(compute(d) for d in ir.input_dtypes),
                   out_dtype=compute(ir.out_dtype), body=tuple(body),
                   result=_operand(ir.result), helpers=frozenset(helpers),
                   counts_zero_divisors=len(body) > len(ir.instrs))


# ------------------------------------------------------------------ statements

def _literal(c: Const) -> str:
    """Python source of exactly ``c.value`` in ``c.dtype`` (``np.float32(1.5)``)."""
    dtype, value = c.dtype, c.value
    if dtype.kind == "b":
        return "True" if value else "False"
    if dtype.kind in "iu":
        return f"np.{dtype.name}({int(value)})"
    v = float(value)
    text = "np.nan" if math.isnan(v) else ("np.inf" if v > 0 else "-np.inf") if math.isinf(v) \
        else repr(v)
    return f"np.{dtype.name}({text})"


def _operand(ref) -> str:
    return _literal(ref) if isinstance(ref, Const) else ref


def _wrap(dtype: np.dtype, code: str) -> str:
    return code if dtype.kind == "b" else f"np.{dtype.name}({code})"


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "eq": "==", "ne": "!=",
            "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and": "&", "or": "|", "xor": "^"}


def _statement(ins: Instr, helpers: set) -> str:
    """The right-hand side computing ``ins`` in numba-typed Python."""
    a = [_operand(r) for r in ins.args]
    d, op = ins.dtype, ins.op
    if op in ("add", "sub", "mul", "div"):
        return _wrap(d, f"{a[0]} {_SYMBOLS[op]} {a[1]}")
    if op in _SYMBOLS:                       # comparisons and logical operators: bool
        return f"{a[0]} {_SYMBOLS[op]} {a[1]}"
    if op == "pow":
        if d.kind == "f":
            return _wrap(d, f"{a[0]} ** {a[1]}")
        helpers.add("_ipow")
        return _wrap(d, f"_ipow(np.int64({a[0]}), np.int64({a[1]}))")
    if op in ("max", "min"):
        keep = f"{a[0]} {'>=' if op == 'max' else '<='} {a[1]}"
        if d.kind == "f":       # a NaN on either side wins, like np.maximum
            keep = f"({keep}) | ({a[0]} != {a[0]})"
        return f"{a[0]} if {keep} else {a[1]}"
    if op == "not":
        return f"not {a[0]}"
    if op == "neg":
        return _wrap(d, f"-{a[0]}")
    if op == "abs":
        return _wrap(d, f"abs({a[0]})")
    if op == "exp" and d == np.float32:
        helpers.add("_fexp32")  # vectorisable; libm's expf is scalar (no SVML)
        return f"_fexp32({a[0]})"
    if op == "tanh" and d == np.float32:
        helpers.add("_ftanh32")  # TF's values, vectorisable; libm's tanhf is scalar
        return f"_ftanh32({a[0]})"
    if op in ("exp", "log", "sqrt", "tanh"):
        return _wrap(d, f"np.{op}({a[0]})")
    if op == "select":
        return f"{a[1]} if {a[0]} else {a[2]}"
    if op == "convert":
        return f"{a[0]} != 0" if d.kind == "b" else f"np.{d.name}({a[0]})"
    if op in _MATH_STATEMENTS:
        return _math_statement(ins, a, helpers)
    if op in frontend.SPECIAL_FUNCTIONS:
        return _special_statement(ins, a, helpers)
    if op in _BIT_STATEMENTS:
        return _bit_statement(ins, a)
    return _tf1_statement(ins, a)


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
    "_fexp32": "from devsession.kernels.cpu.fastmath import fexp32 as _fexp32  # "
               + _source_digest("devsession.kernels.cpu.fastmath"),
    "_ftanh32": "from devsession.kernels.cpu.fastmath import ftanh32 as _ftanh32  # "
                + _source_digest("devsession.kernels.cpu.fastmath"),
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
    blocks = BLOCK in modes
    params = ", ".join(["out"] + [f"x{k}" for k in range(len(modes))] + ["inner"]
                       + (["repeat"] if blocks else []))
    # nogil: sessions run steps from many Python threads, and independent kernels of
    # one step may run on two threads at once.
    # no_cfunc_wrapper: the loops are only called from Python; a wrapper is one more
    # module for LLVM to build on a cold start.
    lines = [f'@njit(cache=True, nogil=True, error_model="numpy", no_cfunc_wrapper=True'
             f'{", parallel=True" if parallel else ""})',
             f"def {name}({params}):"]
    if program.counts_zero_divisors:
        lines.append("    zeros = 0")              # a prange reduction in ``parallel``
    lines += [f"    v{k} = x{k}[0]" for k, m in enumerate(modes) if m == SCALAR]
    if SUFFIX in modes or blocks:
        # Rows are sliced rather than indexed as base + j: numba cannot prove base + j
        # >= 0, and its negative-index wraparound check stops LLVM vectorizing.
        lines += [f"    for r in {loop}(out.shape[0] // inner):",
                  "        lo = r * inner",
                  "        out_r = out[lo:lo + inner]"]
        if blocks:
            lines += ["        block = r // repeat * inner"]
        lines += [f"        x{k}_r = x{k}[lo:lo + inner]"
                  for k, m in enumerate(modes) if m == FULL]
        lines += [f"        x{k}_r = x{k}[block:block + inner]"
                  for k, m in enumerate(modes) if m == BLOCK]
        lines += ["        for j in range(inner):"]
        indent, out_ref = " " * 12, "out_r[j]"
        loads = {FULL: "x{k}_r[j]", SUFFIX: "x{k}[j]", BLOCK: "x{k}_r[j]"}
    else:
        lines += [f"    for i in {loop}(out.shape[0]):"]
        indent, out_ref = " " * 8, "out[i]"
        loads = {FULL: "x{k}[i]"}
    lines += [f"{indent}v{k} = {loads[m].format(k=k)}"
              for k, m in enumerate(modes) if m != SCALAR]
    lines += [indent + stmt for stmt in program.body]
    lines.append(f"{indent}{out_ref} = {program.result}")
    if program.counts_zero_divisors:
        lines.append("    return zeros")
    return "\n".join(lines) + "\n"


def render_module(program: Program, modes: Sequence[str]) -> str:
    """Python source of a module defining ``serial`` and ``parallel`` loop kernels for
    ``program`` with input ``modes`` (one of FULL/SCALAR/SUFFIX/BLOCK per input)."""
    if len(modes) != len(program.inputs) or not set(modes) <= {FULL, SCALAR, SUFFIX, BLOCK}:
        raise CodegenError(f"need one mode of {FULL}/{SCALAR}/{SUFFIX}/{BLOCK} per input, "
                           f"got {modes}")
    signature = ", ".join(f"{n}:{d.name}[{m}]" for n, d, m in
                          zip(program.inputs, program.input_dtypes, modes))
    parts = [
        f"# Generated by devsession.kernels.codegen.cpu v{CODEGEN_VERSION}; do not edit.",
        f"# expression: {program.expr!r}",
        f"# inputs: {signature} -> out:{program.out_dtype.name}",
        "import numpy as np",
        "from numba import njit, prange",
    ]
    parts += [_HELPERS[h] for h in sorted(program.helpers)]
    parts += ["", _render_loop(program, modes, "serial", False),
              _render_loop(program, modes, "parallel", True)]
    return "\n".join(parts)


# ------------------------------------------------- TF1 surface (branch tf1): rounding
# and integer division (see frontend's block of the same name for the semantics).
# numba's ``//`` and ``%`` follow Python (floor, divisor's sign) and give 0 for an
# integer division by zero under ``error_model="numpy"``; the loops count those zero
# divisors and return the count, for the driver to raise TF's error
# (``division_checks.py``).

_DIVISIONS = frozenset({"floordiv", "floormod", "truncdiv", "truncmod"})

def _tf1_statement(ins: Instr, a: list) -> str:
    d, op = ins.dtype, ins.op
    if op in ("floor", "ceil", "rint", "trunc", "sin", "cos"):
        return _wrap(d, f"np.{op}({a[0]})")
    if d.kind == "i" and op in ("floordiv", "floormod", "truncdiv", "truncmod"):
        # A division by -1 is a negation (MIN wraps to itself, as numpy's and the GPU's;
        # numba gives 0 for int64 MIN // -1).
        by_minus_one = _wrap(d, f"-{a[0]}") if op.endswith("div") else _wrap(d, "0")
        return f"({by_minus_one} if {a[1]} == -1 else {_tf1_division(ins, a)})"
    return _tf1_division(ins, a)


def _tf1_division(ins: Instr, a: list) -> str:
    d, op = ins.dtype, ins.op
    floats = d.kind == "f"
    if op == "floordiv":
        return _wrap(d, f"np.floor({a[0]} / {a[1]})" if floats else f"{a[0]} // {a[1]}")
    if op == "floormod":
        return _wrap(d, f"{a[0]} % {a[1]}")
    if op == "truncdiv":
        if floats:
            return _wrap(d, f"np.trunc({a[0]} / {a[1]})")
        return _wrap(d, f"{a[0]} // {a[1]} + (({a[0]} % {a[1]} != 0) & "
                        f"(({a[0]} < 0) != ({a[1]} < 0)))")
    if op == "truncmod":
        if floats:
            return _wrap(d, f"np.fmod({a[0]}, {a[1]})")
        return _wrap(d, f"{a[0]} % {a[1]} - ({a[1]} if (({a[0]} % {a[1]} != 0) & "
                        f"(({a[0]} < 0) != ({a[1]} < 0))) else 0)")
    raise CodegenError(f"internal: no numba rendering for op {op!r}")


# ------------------------------------------------- TF1 math (branch tf1-math): libm
# functions through numpy's scalar ufuncs (numba lowers them to libm calls); erf and
# erfc through ``math`` (numba has no np.erf).  The predicates are bool.

_MATH_STATEMENTS = {"log1p": "np.log1p", "expm1": "np.expm1", "erf": "math.erf",
                    "erfc": "math.erfc", "tan": "np.tan", "asin": "np.arcsin",
                    "acos": "np.arccos", "atan": "np.arctan", "sinh": "np.sinh",
                    "cosh": "np.cosh", "atan2": "np.arctan2", "isnan": "np.isnan",
                    "isinf": "np.isinf", "isfinite": "np.isfinite"}
_HELPERS["_math"] = "import math"


def _math_statement(ins: Instr, a: list, helpers: set) -> str:
    function = _MATH_STATEMENTS[ins.op]
    if function.startswith("math."):
        helpers.add("_math")
    call = f"{function}({', '.join(a)})"
    return call if ins.op.startswith("is") else _wrap(ins.dtype, call)


# ------------------------------------------------- special functions: calls of
# ``cpu/special.py``'s compiled functions, in float64 and rounded once.  The import
# names the digest of their source, which the generated loop inlines.

_HELPERS["_special"] = (
    "from devsession.kernels.cpu.special import ("
    + ", ".join(f"{name} as _ds_{name}" for name in frontend.SPECIAL_FUNCTIONS) + ")  # "
    + _source_digest("devsession.kernels.special_math") + " "
    + _source_digest("devsession.kernels.cpu.special"))


def _special_statement(ins: Instr, a: list, helpers: set) -> str:
    helpers.add("_special")
    args = ", ".join(f"np.float64({x})" for x in a)
    return _wrap(ins.dtype, f"_ds_{ins.op}({args})")


# ------------------------------------------------- TF1 math names (branch
# tf1-math-names): acosh, asinh, atanh through numpy's scalar ufuncs; the integer bit
# operations (the front end clamped every shift count into [0, bits - 1]).  A left shift
# goes through uint64, where numba's shifts wrap without undefined behaviour.

_MATH_STATEMENTS.update({"acosh": "np.arccosh", "asinh": "np.arcsinh", "atanh": "np.arctanh"})
_BIT_STATEMENTS = {"bitand": "{0} & {1}", "bitor": "{0} | {1}", "bitxor": "{0} ^ {1}",
                   "invert": "~{0}", "rshift": "{0} >> {1}",
                   "lshift": "np.uint64({0}) << np.uint64({1})"}


def _bit_statement(ins: Instr, a: list) -> str:
    return _wrap(ins.dtype, _BIT_STATEMENTS[ins.op].format(*a))
