"""Kernels of TF's complex-number ops (``devsession/ops/complex_math.py``) over numpy:
``Complex`` broadcasts its parts, ``Real``/``Imag``/``ComplexAbs``/``Angle`` give float32
or float64 (``Tout``), ``Conj`` the conjugates.  HOST: the CPU runs these, and a GPU
session places them there, as devsession keeps complex values on the host."""

from __future__ import annotations

import numpy as np

from ..checks import broadcast_shape
from ..registry import HOST, register_kernel

__all__ = ["COMPLEX_OPS"]


def build_complex(node):
    out = np.dtype(node.output_dtype)

    def complex_kernel(re, im):
        broadcast_shape(node.name, node.op, [re.shape, im.shape])
        z = np.empty(np.broadcast_shapes(re.shape, im.shape), out)
        z.real, z.imag = re, im
        return z
    return complex_kernel


def _part(fn):
    def build(node):
        out = np.dtype(node.output_dtype)
        return lambda z: np.asarray(fn(z), dtype=out).copy()
    return build


COMPLEX_OPS = {"Complex": build_complex, "Real": _part(np.real), "Imag": _part(np.imag),
               "ComplexAbs": _part(np.abs), "Angle": _part(np.angle),
               "Conj": _part(np.conj)}

for _op, _builder in COMPLEX_OPS.items():
    register_kernel(_op, HOST)(_builder)
