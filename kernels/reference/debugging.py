"""The ``CheckNumerics`` kernel, over any array module (numpy on the host; the CUDA
module registers it over cupy): the input itself, or ``InvalidArgumentError`` with TF's
"<message> : Tensor had NaN values" ("Inf values", "Inf and NaN values").  The check
is two reductions read back to the host.

The ``Print`` kernel: its first input itself, after writing the message and its data
(TF's summaries, read to the host) as one line to stderr, as TF's PrintOp does; a
``first_n`` of n counts the node's runs in its session."""

from __future__ import annotations

import sys
import threading

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .control_flow import host_array
from .summarize import bracketed

__all__ = ["make_check_numerics_builder", "build_print"]


def make_check_numerics_builder(xp):
    def build_check_numerics(node):
        message = node.attrs.get("message", "")

        def kernel(x):
            nan, inf = bool(xp.isnan(x).any()), bool(xp.isinf(x).any())
            if nan or inf:
                what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
                raise invalid_argument(node.name, node.op,
                                       f"{message} : Tensor had {what} values")
            return x
        return kernel
    return build_check_numerics


register_kernel("CheckNumerics", HOST)(make_check_numerics_builder(np))


class _PrintCount:
    """How many times one Print node has written (its ``first_n`` limit)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.printed = 0

    def take(self, first_n: int) -> bool:
        with self.lock:
            show = first_n < 0 or self.printed < first_n
            self.printed += show
            return show


@register_kernel("Print", HOST)
def build_print(node):
    message, first_n = node.attrs.get("message", ""), node.attrs.get("first_n", -1)
    summarize = node.attrs.get("summarize", 3)
    # one count per node and session (the session's resources), as TF's kernel keeps it,
    # whatever plans the node appears in; per kernel where there is no session
    resources = getattr(node.context, "resources", None)
    count = resources.get_or_put("_print_counts", node.name, _PrintCount) \
        if resources is not None else _PrintCount()

    def kernel(x, *data):
        if count.take(first_n):
            text = message + "".join(bracketed(host_array(d), summarize) for d in data)
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        return x
    return kernel
