"""The kernel of ``Bitcast`` (``devsession/ops/bitcast.py``) over numpy or cupy
(``make_builders(xp)``): a copy's view as the other dtype, the last dimension
split or joined as the sizes say; a shape that does not fit the ratio is TF's
InvalidArgumentError."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["make_builders"]


def _as_is(node, fn):
    return fn


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    def bitcast_builder(node):
        out = np.dtype(node.output_dtype)

        def bitcast(x):
            x = xp.array(x, order="C", copy=True)    # its own bytes: never an input's
            size_in, size_out = x.dtype.itemsize, out.itemsize
            if size_in >= size_out:
                return x.reshape(x.shape + (1,)).view(out).reshape(
                    x.shape + ((size_in // size_out,) if size_in > size_out else ()))
            if not x.ndim or x.shape[-1] != size_out // size_in:
                raise invalid_argument(node.name, node.op, f"Cannot bitcast from "
                                       f"{x.dtype.name} to {out.name}: shape "
                                       f"{fmt_shape(x.shape)}")
            return x.view(out).reshape(x.shape[:-1])
        return wrap(node, bitcast)
    return {"Bitcast": bitcast_builder}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
