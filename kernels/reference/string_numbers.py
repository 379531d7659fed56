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

The text is a fed value, so no step costs more than its length: the double comes from
``float``/``float.fromhex`` (an exponent of a billion digits is just ``inf``), the exact
value is built only for such a midpoint, and an integer of more digits than int64 holds
is out of range before Python is asked to read it.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
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
_INT_DIGITS = 19          # the most digits an int64 has (without leading zeros)


def parse_int(text: bytes, bits: int):
    """The int TF reads from ``text`` for an int``bits`` field, or None if it reads none."""
    match = _INT.fullmatch(text)
    if match is None:
        return None
    number = match.group(1)
    digits = number.lstrip(b"+-").lstrip(b"0")
    if len(digits) > _INT_DIGITS:
        return None
    value = -int(digits or b"0") if number.startswith(b"-") else int(digits or b"0")
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
        digits = match.group("hex")
        if digits is not None:
            value = _rounded(_hex_double(digits), lambda: _hex_fraction(digits), dtype)
        else:
            decimal = match.group("dec").decode()
            value = _rounded(float(decimal), lambda: Decimal(decimal), dtype)
        if negative:
            value = -value
    return value


def _hex_double(digits: bytes) -> float:
    """C99 hex digits ``1.8p1`` (the part after ``0x``) correctly rounded to a double."""
    try:
        return float.fromhex("0x" + digits.decode())
    except OverflowError:
        return math.inf


def _hex_fraction(digits: bytes) -> Fraction:
    """The exact value of C99 hex digits ``1.8p1`` (the part after ``0x``)."""
    text = digits.decode().lower()
    mantissa, _, exponent = text.partition("p")
    whole, _, fraction = mantissa.partition(".")
    value = int((whole + fraction) or "0", 16)
    sign = -1 if exponent.startswith("-") else 1
    power = sign * int(exponent.lstrip("+-").lstrip("0") or "0")
    return Fraction(value) * Fraction(2) ** (power - 4 * len(fraction))


def _rounded(double: float, exact, dtype):
    """The text's value (not negative), read as ``double`` (correctly rounded), rounded
    to ``dtype`` once, to nearest, ties to even; ``exact()`` gives the exact value (a
    Decimal or Fraction), asked for only when the double is a float32 midpoint."""
    if dtype is np.float64:
        return np.float64(double)
    with np.errstate(over="ignore"):
        single = np.float32(double)
        if not math.isfinite(double) or float(single) == double:
            return single
        # Rounding twice errs only when the double lies exactly halfway between two
        # float32 values: the exact value then decides.
        toward = np.float32(math.inf if double > float(single) else -math.inf)
        other = np.nextafter(single, toward)
    if math.isfinite(float(other)) and (float(single) + float(other)) / 2 == double:
        value = exact()
        if value != double:
            return max(single, other) if value > double else min(single, other)
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
