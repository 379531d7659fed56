"""Elementwise CPU kernels: a driver around the generated loops of ``codegen/cpu.py``.

``ElementwiseKernel(expr, inputs, output_dtype)`` is the callable a builder returns,
and also the public entry point for fused kernels: any expression over k inputs, not
just one op.  Per call it

1. looks up a *plan* for the input shapes (cached per shape tuple): the broadcast
   output shape, how each input is read (FULL, SCALAR, SUFFIX, BLOCK, or materialised
   with ``np.broadcast_to`` and then FULL) and which compiled loop to run -- the
   ``parallel`` prange loop only when the output has at least ``PARALLEL_MIN_SIZE``
   elements (below that, thread start-up costs more than it saves) and, for a SUFFIX
   or BLOCK input, at least two rows per thread;
2. flattens the inputs to 1-D views (copying only inputs that are not C-contiguous,
   or that are float16, which numba cannot load: they are widened to float32);
3. runs the loop into ``out`` (a fresh ``np.empty`` unless the caller passes a
   C-contiguous ``out=``, so an executor can reuse buffers) and, for a float16 result,
   rounds the float32 result once;
4. raises TF's error for an integer division by zero when the loop counted a zero
   divisor (``division_checks.py``; a loop that divides no integers returns None).

Loops for each input-mode combination are generated and compiled lazily, on the first
call that needs them, and shared by every kernel with the same expression and dtypes.

Which op is which expression, and their registration, are shared with the GPU in
``codegen/expressions.py``; the optimizer fuses regions by substituting those expressions
into each other and builds one ``ElementwiseKernel`` per region.

Example::

    k = ElementwiseKernel("max(a * 1.5 + 0.25, 0) * b",
                          [("a", np.float32), ("b", np.float32)], np.float32)
    k(np.ones((5, 4), np.float32), np.arange(4, dtype=np.float32))   # bias-row broadcast
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..checks import call_shape, fmt_shape, invalid_argument, to_float16
from ..codegen import cpu as codegen
from ..codegen.expressions import KERNEL_OPS, elementwise_program
from ..division_checks import division_by_zero, no_real_div_kernel, real_div_of_integers
from ..plan_cache import remember
from ..registry import register_kernel
from ..buffer_pool import BufferPool
from .fused_division import fused_division_error
from .numba_setup import num_threads

__all__ = ["ElementwiseKernel", "PARALLEL_MIN_SIZE", "build_elementwise"]

PARALLEL_MIN_SIZE = 1 << 17
BLOCK_MIN_INNER = 16        # shorter rows are materialised: a loop per row would cost more
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)



@functools.lru_cache(maxsize=1024)
def _program(expr: str, inputs: tuple, out_dtype: np.dtype) -> codegen.Program:
    return codegen.compile_expression(expr, inputs, out_dtype)


@functools.lru_cache(maxsize=4096)
def _loops(program: codegen.Program, modes: tuple):
    module = codegen.load_module(codegen.render_module(program, modes))
    return module.serial, module.parallel


class ElementwiseKernel:
    """``kernel(*arrays, out=None) -> ndarray``: ``expr`` evaluated elementwise with
    numpy broadcasting.

    ``inputs`` is a sequence of ``(name, dtype)``; the arrays passed must have those
    dtypes (the session guarantees it).  Raises ``codegen.CodegenError`` for a bad
    expression, and (per call) ``InvalidArgumentError`` naming ``name`` when the shapes
    do not broadcast or ``out`` does not fit.  An integer division by zero raises
    ``zero_division(arrays)``, by default TF's error for ``op`` naming ``name``.
    """

    def __init__(self, expr: str, inputs, output_dtype, *, name: str = "elementwise",
                 op: str = "Elementwise", reuse_buffers: bool = False, zero_division=None):
        inputs = tuple((n, np.dtype(d)) for n, d in inputs)
        self.name, self.op = name, op
        self._zero_division = zero_division or (lambda arrays: division_by_zero(name, op))
        self.output_dtype = np.dtype(output_dtype)
        self._narrow = self.output_dtype == _F16      # computed as float32, rounded once
        self._store_dtype = _F32 if self._narrow else self.output_dtype
        self._widen = tuple(d == _F16 for _, d in inputs)
        self._arity = len(inputs)
        self.program = _program(expr, inputs, self._store_dtype)
        self._plans: dict[tuple, tuple] = {}
        self._pool = BufferPool() if reuse_buffers else None

    def __call__(self, *arrays, out=None):
        # The hot path for small arrays: keep it to a dict lookup, one np.empty, the
        # ravels and the numba dispatch (under 2 us in all for 1000 floats, see bench.py).
        plan = self._plans.get(tuple([a.shape for a in arrays]))
        if plan is None:
            plan = self._make_plan(arrays)
        out_shape, loop, fast, materialise, row_arguments, pooled = plan
        if fast and out is None:
            if not pooled:
                result = np.empty(out_shape, self._store_dtype)
                if loop(result.ravel(), *[a.ravel() for a in arrays], *row_arguments):
                    raise self._zero_division(arrays)
                return result
            result = self._pool.take(out_shape, self._store_dtype)
            zeros = loop(result.ravel(), *[a.ravel() for a in arrays], *row_arguments)
            self._pool.give(result)
            if zeros:
                raise self._zero_division(arrays)
            return result
        result = self._output(out_shape, out)
        if loop is not None and loop(result.ravel(),
                                     *self._prepare(arrays, out_shape, materialise),
                                     *row_arguments):
            raise self._zero_division(arrays)
        if not self._narrow:
            return result
        if out is None:
            return to_float16(result)
        out[...] = to_float16(result)
        return out

    def _output(self, out_shape, out):
        if out is None or self._narrow:
            return np.empty(out_shape, self._store_dtype)
        if out.shape != out_shape or out.dtype != self.output_dtype \
                or not out.flags.c_contiguous:
            raise invalid_argument(
                self.name, self.op, f"out= must be C-contiguous {self.output_dtype} of "
                f"shape {fmt_shape(out_shape)}, got {out.dtype} {fmt_shape(out.shape)}")
        return out

    def _prepare(self, arrays, out_shape, materialise):
        flat = []
        for a, widen, full in zip(arrays, self._widen, materialise):
            if full:
                a = np.broadcast_to(a, out_shape)
            if widen:
                a = a.astype(_F32)
            flat.append(a.ravel())
        return flat

    def _make_plan(self, arrays) -> tuple:
        shapes = tuple(a.shape for a in arrays)
        out_shape = call_shape(self.name, self.op, self._arity, shapes)
        size = math.prod(out_shape)
        modes, materialise, row_arguments = _input_modes(shapes, out_shape, size)
        inner = row_arguments[0]
        if size == 0:
            loop = None
        else:
            serial, parallel = _loops(self.program, modes)
            threads = num_threads()
            rows = size // inner if inner else size
            loop = parallel if (size >= PARALLEL_MIN_SIZE and threads > 1
                                and rows >= 2 * threads) else serial
        fast = loop is not None and not (any(materialise) or any(self._widen) or self._narrow)
        pooled = self._pool is not None and size * self._store_dtype.itemsize >= \
            self._pool.min_bytes
        return remember(self._plans, shapes,
                        (out_shape, loop, fast, tuple(materialise), row_arguments, pooled))

    def __repr__(self):
        return (f"ElementwiseKernel({self.program.expr!r}, inputs={self.program.inputs}, "
                f"output_dtype={self.output_dtype})")


def _input_modes(shapes, out_shape, size):
    """Per input: its loop mode and whether to materialise it; plus the loop's row
    arguments: ``(inner,)``, the SUFFIX length, or ``(inner, repeat)`` with a BLOCK.

    Only one row length (and one BLOCK repeat) can be looped over; other broadcasts are
    materialised (rare: two bias-like inputs of different lengths).
    """
    suffix_len, blocks = {}, {}
    for k, shape in enumerate(shapes):
        n = math.prod(shape)
        if n != size and n != 1:
            trimmed = tuple(shape[_leading_ones(shape):])
            if trimmed == tuple(out_shape[len(out_shape) - len(trimmed):]):
                suffix_len[k] = n
            elif (block := _block(shape, out_shape)) is not None:
                blocks[k] = block
    inner = max(suffix_len.values(), default=0) or \
        next((inner for _, inner in blocks.values()), 0)
    repeat = next((r for r, i in blocks.values() if i == inner), None)
    modes, materialise = [], []
    for k, shape in enumerate(shapes):
        n = math.prod(shape)
        if n == size:
            modes.append(codegen.FULL)
        elif n == 1:
            modes.append(codegen.SCALAR)
        elif suffix_len.get(k) == inner:
            modes.append(codegen.SUFFIX)
        elif blocks.get(k) == (repeat, inner):
            modes.append(codegen.BLOCK)
        else:
            modes.append(codegen.FULL)
            materialise.append(k)
    flags = [k in materialise for k in range(len(shapes))]
    return tuple(modes), flags, (inner,) if codegen.BLOCK not in modes else (inner, repeat)


def _block(shape, out_shape) -> tuple[int, int] | None:
    """(repeat, inner) when ``shape`` is ``out_shape`` with one run of its dims set to 1
    and some dims before it (a BLOCK: ``repeat`` output rows of ``inner`` per row of
    the input), else None."""
    shape = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    spread = [i for i, (s, o) in enumerate(zip(shape, out_shape)) if s != o]
    first, last = spread[0], spread[-1]
    if any(shape[i] != 1 for i in range(first, last + 1)) or math.prod(shape[:first]) == 1:
        return None
    inner = math.prod(out_shape[last + 1:])
    return (math.prod(out_shape[first:last + 1]), inner) if inner >= BLOCK_MIN_INNER else None


def _leading_ones(shape) -> int:
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return k


# ------------------------------------------------------------------- registration

@register_kernel(KERNEL_OPS, "CPU")
def build_elementwise(node):
    if any(np.dtype(d).kind in "Oc" for d in (*node.input_dtypes, node.output_dtype)):
        # strings (Equal, NotEqual, SelectV2) and complex values: numpy's kernels
        from ..registry import lookup_kernel

        return lookup_kernel(node.op, "REF")(node)        # the reference device's kernel
    if real_div_of_integers(node):
        return no_real_div_kernel(node)
    program = elementwise_program(node)
    if program is None:        # a Cast to the same dtype
        return lambda x: x.view()
    expr, names, output_dtype, label = program
    fused = node.op == "_FusedElementwise"
    return ElementwiseKernel(expr, zip(names, node.input_dtypes), output_dtype,
                             name=node.name, op=label, reuse_buffers=True,
                             zero_division=(lambda arrays: fused_division_error(node, arrays))
                             if fused else None)
