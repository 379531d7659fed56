"""Elementwise GPU kernels: one ``cupy.ElementwiseKernel`` per (expression, dtypes).

``ElementwiseKernel(expr, inputs, output_dtype)`` mirrors ``cpu/elementwise.py``'s class
of the same name: the same expression language (``codegen/cuda.py`` compiles it to CUDA
C), the same ``(name, dtype)`` inputs, numpy broadcasting, and an optional ``out=``.
So a fuser can hand either device one expression over k inputs and get one kernel
launch instead of a chain of cupy calls (each of which would read and write the whole
tensor).  Per call the kernel checks the shapes broadcast (once per shape tuple, with
the CPU kernels' error message), allocates the output from cupy's pool and launches;
cupy compiles the CUDA source on the first launch for each input rank and caches the
binary on disk (``~/.cupy/kernel_cache``).  Zero-size outputs launch nothing.

``ELEMENTWISE_OPS`` (``codegen/expressions.py``) is the table every device shares (TF op
type -> input names, expression), and ``_FusedElementwise`` (a region the graph
optimizer fused into one program, ``devsession/optimizer/fusion.py``) compiles to one
kernel here too, so a fused chain on the GPU is one launch.

Example::

    k = ElementwiseKernel("max(a * 1.5 + 0.25, 0) * b",
                          [("a", np.float32), ("b", np.float32)], np.float32)
    k(cupy.ones((5, 4), cupy.float32), cupy.arange(4, dtype=cupy.float32))
"""

from __future__ import annotations

import functools
import zlib

import cupy
import numpy as np

from ..checks import call_shape, fmt_shape, invalid_argument
from ..codegen import cuda as codegen
from ..codegen.expressions import KERNEL_OPS, elementwise_program
from ..division_checks import no_real_div_kernel, real_div_of_integers
from ..plan_cache import remember
from ..registry import register_kernel
from .device import on_device

__all__ = ["ElementwiseKernel", "build_elementwise"]


@functools.lru_cache(maxsize=1024)
def _compiled(expr: str, inputs: tuple, out_dtype: np.dtype):
    """(program, cupy.ElementwiseKernel), shared by every node with the same signature."""
    program = codegen.compile_expression(expr, inputs, out_dtype)
    in_params, out_params, operation, preamble = codegen.render_cuda(program)
    tag = zlib.crc32(repr((expr, inputs, out_dtype.str)).encode())
    kernel = cupy.ElementwiseKernel(in_params, out_params, operation,
                                    name=f"devsession_ew_{tag:08x}", preamble=preamble)
    return program, kernel


class ElementwiseKernel:
    """``kernel(*arrays, out=None) -> cupy.ndarray``: ``expr`` evaluated elementwise on
    the current device with numpy broadcasting.

    ``inputs`` is a sequence of ``(name, dtype)``; the arrays passed must be cupy arrays
    of those dtypes (the session guarantees it).  Raises ``codegen.CodegenError``
    for a bad expression, and (per call) ``InvalidArgumentError`` naming ``name`` when
    the shapes do not broadcast or ``out`` does not fit.
    """

    def __init__(self, expr: str, inputs, output_dtype, *, name: str = "elementwise",
                 op: str = "Elementwise"):
        inputs = tuple((n, np.dtype(d)) for n, d in inputs)
        self.name, self.op = name, op
        self.output_dtype = np.dtype(output_dtype)
        self.program, self._kernel = _compiled(expr, inputs, self.output_dtype)
        self._arity = len(inputs)
        self._shapes: dict[tuple, tuple] = {}

    @property
    def source(self) -> str:
        """The CUDA C body (for debugging and tests)."""
        return codegen.render_cuda(self.program)[2]

    def __call__(self, *arrays, out=None):
        shapes = tuple([a.shape for a in arrays])
        out_shape = self._shapes.get(shapes)
        if out_shape is None:
            out_shape = remember(self._shapes, shapes,
                                 call_shape(self.name, self.op, self._arity, shapes))
        if out is None:
            out = cupy.empty(out_shape, self.output_dtype)
        elif out.shape != out_shape or out.dtype != self.output_dtype:
            raise invalid_argument(
                self.name, self.op, f"out= must be {self.output_dtype} of shape "
                f"{fmt_shape(out_shape)}, got {out.dtype} {fmt_shape(out.shape)}")
        if out.size:
            self._kernel(*arrays, out)
        return out

    def __repr__(self):
        return (f"ElementwiseKernel({self.program.expr!r}, inputs="
                f"{tuple(zip(self.program.inputs, self.program.input_dtypes))}, "
                f"output_dtype={self.output_dtype})")


# ------------------------------------------------------------------- registration

@register_kernel(KERNEL_OPS, "GPU")
def build_elementwise(node):
    if any(np.dtype(d).kind == "c" for d in (*node.input_dtypes, node.output_dtype)):
        from ..cpu.elementwise import build_elementwise as build_on_cpu   # numpy's kernel
        from .host_ops import through_host

        return through_host(node, build_on_cpu(node))     # complex values: on the host
    if real_div_of_integers(node):
        return no_real_div_kernel(node)
    program = elementwise_program(node)
    if program is None:        # a Cast to the same dtype
        return lambda x: x.view()
    expr, names, output_dtype, label = program
    kernel = ElementwiseKernel(expr, zip(names, node.input_dtypes), output_dtype,
                               name=node.name, op=label)
    return on_device(node, kernel)
