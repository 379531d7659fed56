"""Which member of a fused elementwise region divided an integer by zero (or raised an
integer to a negative power).

The generated loop only counts zero divisors (``codegen/cpu.py``); on that error path
alone, the region's lines are evaluated with numpy to find the member, so the error
names the node TF's would (``division_checks.py``)."""

from __future__ import annotations

import ast

import numpy as np

from ..codegen import frontend
from ..division_checks import DIVISION_OPS, division_by_zero, refused

__all__ = ["fused_division_error"]


def fused_division_error(node, arrays):
    """The error of the first member of the ``_FusedElementwise`` ``node`` that divides
    an integer by zero (or raises one to a negative power) on ``arrays`` (its inputs), as
    that member alone would raise it.

    The region's program is ``tK = <member K>`` lines; member K's divisor (Pow's
    exponent, the right side of ``x ** y``) is evaluated after the lines before it, with
    the numpy oracle of ``codegen/frontend.py``."""
    attrs = node.attrs
    lines = attrs["expression"].splitlines()
    inputs = list(zip(attrs["input_names"], node.input_dtypes))
    for k, (member, op) in enumerate(zip(attrs["members"], attrs["member_ops"])):
        if op not in DIVISION_OPS:
            continue
        call = frontend.parse(lines[k].split("=", 1)[1].strip(), mode="eval").body
        divisor = ast.unparse(call.right if isinstance(call, ast.BinOp) else call.args[1])
        program = frontend.compile_expression("\n".join(lines[:k] + [divisor]), inputs)
        if program.out_dtype.kind in "iu" and np.any(
                refused(op, frontend.evaluate(program, *arrays))):
            return division_by_zero(member, op)
    members = ", ".join(attrs["members"])
    return division_by_zero(node.name, f"_FusedElementwise({members})")
