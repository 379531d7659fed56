"""Integer division by zero, which TF's CPU kernels refuse, naming the node; and an
integer Pow with a negative exponent, which they refuse the same way.

TF 2.21's FloorDiv and FloorMod (and so ``//``, ``%``, ``tf.div`` and ``tf.math.mod`` of
integers) raise ``InvalidArgumentError`` "Integer division by zero"; TruncateDiv and
TruncateMod raise ``InternalError`` "Unexpected error in binary operator (only integer
div and mod should have errors)".  A float divides by zero to inf or NaN, never an
error, and an empty output divides nothing.

Where each device checks: the reference kernels look at the divisor before dividing (one
``np.any(y == 0)`` pass); the generated CPU loops count zero divisors as they divide
and return the count (``codegen/cpu.py``), so a float program pays nothing.  When a
fused region's loop reports one, ``cpu/fused_division.py`` finds the member that divided
by zero by evaluating the region's lines with numpy (only on that error path), so the
error names the node TF's would.  The GPU kernels do not check (nor do TF's GPU kernels,
which would need a reduction and a wait for the host): a zero divisor gives 0 there.

TF's CPU Pow of integers (``functor::safe_pow``) raises ``InvalidArgumentError``
"Integers to negative integer powers are not allowed" for any negative exponent (base 1
and -1 too); it is checked where the divisions are, the exponent taking the divisor's
place (``< 0`` instead of ``== 0``).  The GPU kernels give the truncated real result
(1 for base 1, +-1 for base -1, else 0), as TF's GPU kernel does not check.

RealDiv of integers (``tf.realdiv``; ``truediv`` casts them first) builds in TF, with
the integer dtype, but TF registers no kernel for it: its run is InvalidArgumentError
"No OpKernel was registered to support Op 'RealDiv' ..." on every device, here too
(``real_div_of_integers``).  A RealDiv kernel node with an integer input and a float64
output (the kernels' own tests) still divides as numpy does.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InternalError, InvalidArgumentError

__all__ = ["DIVISION_OPS", "divides_integers", "refused", "division_by_zero", "check_divisor"]

# op -> (error class, TF's message)
_TRUNCATING = (InternalError,
               "Unexpected error in binary operator (only integer div and mod should have "
               "errors)")
DIVISION_OPS = {"FloorDiv": (InvalidArgumentError, "Integer division by zero"),
                "FloorMod": (InvalidArgumentError, "Integer division by zero"),
                "TruncateDiv": _TRUNCATING, "TruncateMod": _TRUNCATING,
                "Pow": (InvalidArgumentError,
                        "Integers to negative integer powers are not allowed")}


def divides_integers(op: str, dtypes) -> bool:
    """Whether an ``op`` node over inputs of ``dtypes`` divides integers (and so checks)."""
    return op in DIVISION_OPS and np.dtype(dtypes[0]).kind in "iu"


def refused(op: str, divisor: np.ndarray) -> np.ndarray:
    """Where ``op``'s integer ``divisor`` (Pow's exponent) makes TF's CPU kernel refuse."""
    return divisor < 0 if op == "Pow" else divisor == 0


def division_by_zero(node_name: str, op: str):
    """The error TF raises for ``op`` (an InvalidArgumentError for an op it does not
    know: an expression's own ``//`` or ``%``), to be raised by the caller."""
    cls, message = DIVISION_OPS.get(op, DIVISION_OPS["FloorDiv"])
    return cls(f"{op} node '{node_name}': {message}", node_name=node_name)


def check_divisor(node_name: str, op: str, divisor: np.ndarray, out_size: int) -> None:
    """Raise ``division_by_zero`` if an integer divisor holds a 0 that an output element
    divides by, or Pow's exponent a negative value (every element of a broadcast input is
    used when the output has any)."""
    if out_size and np.any(refused(op, divisor)):
        raise division_by_zero(node_name, op)


def real_div_of_integers(node) -> bool:
    """Whether ``node`` is TF's RealDiv of integers (an integer output), which no kernel
    runs."""
    return node.op == "RealDiv" and np.dtype(node.output_dtype).kind in "iu"


def no_real_div_kernel(node):
    """The kernel of a ``real_div_of_integers`` node: each run raises TF's error."""
    attr = f"DT_{np.dtype(node.output_dtype).name.upper()}"

    def kernel(*arrays):
        raise InvalidArgumentError(
            f"RealDiv node '{node.name}': No OpKernel was registered to support Op "
            f"'RealDiv' used by {{{{node {node.name}}}}} with these attrs: [T={attr}]",
            node_name=node.name)
    return kernel
