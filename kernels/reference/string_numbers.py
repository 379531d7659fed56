"""Numbers to and from text as TensorFlow's string kernels read and write them: the
parsing behind ``StringToNumber`` and ``DecodeCSV`` and the printf formats of
``AsString``.  Pure functions of one value, shared by ``strings.py`` and
``decode_csv.py``.

Parsing (TF's ``safe_strto32/64``, ``safe_strtof/d``) skips ASCII whitespace (space,
``\\t\\n\\v\\f\\r``) around the number and must use up the rest:

* integers: an optional sign and ASCII digits, in range of the type (no ``1e3``, no
  ``0x10``, no ``1.0``);
* floats: decimal (``1``, ``-.5``, ``5.``, ``1e-3``), C99 hex (``0x1.8p1``), ``inf`` /
  ``infinity`` and ``nan`` / ``nan(chars)`` in any case, each with an optional sign.  A
  magnitude past the type's range is ``inf`` (not an error), one below it 0; a NaN
  has no sign (``-nan`` reads as NaN).

float32 values are rounded from the text once, as TF's parser does: the double Python
reads is rounded again to float32 only when that cannot land differently, and a double
that falls exactly between two float32 values is settled against the exact decimal.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np

__all__ = ["parse_int", "parse_float", "printf_format", "format_value"]

_INT = re.compile(rb"[ \t\n\v\f\r]*([+-]?[0-9]+)[ \t\n\v\f\r]*")
_FLOAT = re.compile(rb"""[ \t\n\v\f\r]*(?P<sign>[+-]?)(?:
    (?P<dec>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | 0[xX](?P<hex>(?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)
  | (?P<inf>[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)
  | (?P<nan>[nN][aA][nN](?:\([0-9A-Za-z_]*\))?)
)[ \t\n\v\f\r]*""", re.VERBOSE)
_INT_RANGES = {32: (-2 ** 31, 2 ** 31 - 1), 64: (-2 ** 63, 2 ** 63 - 1)}


def parse_int(text: bytes, bits: int):
    """The int TF reads from ``text`` for an int``bits`` field, or None if it reads none."""
    match = _INT.fullmatch(text)
    if match is None:
        return None
    value = int(match.group(1))
    low, high = _INT_RANGES[bits]
    return value if low <= value <= high else None


def parse_float(text: bytes, dtype):
    """The ``dtype`` (np.float32 or np.float64) value TF reads from ``text``, or None."""
    match = _FLOAT.fullmatch(text)
    if match is None:
        return None
    negative = match.group("sign") == b"-"
    if match.group("inf") is not None:
        value = dtype(-math.inf if negative else math.inf)
    elif match.group("nan") is not None:
        value = dtype(math.nan)                    # TF's parser drops a NaN's sign
    else:
        exact = _hex_fraction(match.group("hex")) if match.group("hex") is not None else \
            Fraction(match.group("dec").decode())
        value = _rounded(exact, dtype)
        if negative:
            value = -value
    return value


def _hex_fraction(digits: bytes) -> Fraction:
    """The exact value of C99 hex digits ``1.8p1`` (the part after ``0x``)."""
    text = digits.decode().lower()
    mantissa, _, exponent = text.partition("p")
    whole, _, fraction = mantissa.partition(".")
    value = int((whole + fraction) or "0", 16)
    return Fraction(value) * Fraction(2) ** (int(exponent or "0") - 4 * len(fraction))


def _rounded(exact: Fraction, dtype):
    """``exact`` (not negative) rounded to ``dtype`` once, to nearest, ties to even."""
    with np.errstate(over="ignore"):
        try:
            double = float(exact)              # correctly rounded by Python
        except OverflowError:
            double = math.inf
        if dtype is np.float64:
            return np.float64(double)
        single = np.float32(double)
        if not math.isfinite(double) or float(single) == double:
            return single
        # Rounding twice errs only when the double lies exactly halfway between two
        # float32 values: the exact value then decides.
        toward = np.float32(math.inf if double > float(single) else -math.inf)
        other = np.nextafter(single, toward)
        if math.isfinite(float(other)) and (float(single) + float(other)) / 2 == double:
            exact_vs_double = exact - Fraction(double)
            if exact_vs_double != 0:
                above = exact_vs_double > 0
                return max(single, other) if above else min(single, other)
        return single


# --- AsString: printf formats ---------------------------------------------------------------

_FILLS = ("", " ", "+", "-", "0", "#")


def printf_format(kind: str, precision: int, scientific: bool, shortest: bool, width: int,
                  fill: str) -> str:
    """The printf format TF's AsString builds (``%`` fill width .precision conversion);
    ``kind`` is "i" (integers), "u" (unsigned integers: C's ``%u`` takes no sign flag),
    "f" (floats) or "b" (bool, which prints true/false)."""
    if kind == "u":
        kind, fill = "i", "" if fill in ("+", " ") else fill
    spec = "%"
    if width > -1:
        spec += f"{fill}{width}"
    if precision > -1:
        spec += f".{precision}"
    if kind == "i":
        return spec + "d"
    return spec + ("g" if shortest else "e" if scientific else "f")


def format_value(spec: str, value) -> str:
    """``spec % value`` as C's printf writes it: an infinity or NaN is padded with spaces
    even under the ``0`` flag, and a NaN whose sign bit is set prints as ``-nan``."""
    if isinstance(value, float) and not math.isfinite(value):
        rest = spec[1:].lstrip("+- #0")
        flags = spec[1:len(spec) - len(rest)]
        digits = len(rest) - len(rest.lstrip("0123456789"))
        width = int(rest[:digits] or 0)
        sign = "-" if math.copysign(1.0, value) < 0 else "+" if "+" in flags else \
            " " if " " in flags else ""
        text = sign + ("nan" if math.isnan(value) else "inf")
        return text.ljust(width) if "-" in flags else text.rjust(width)
    return spec % value
