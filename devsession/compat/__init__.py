"""TF1's ``tf.compat``: the string and number helpers TF1 programs use, the forward
compatibility date, and ``tf.compat.v1``, which is devsession itself, so each way a TF1
script written for TF2 imports its API works with ``tensorflow`` replaced::

    import devsession.compat.v1 as tf        # import tensorflow.compat.v1 as tf
    from devsession.compat import v1 as tf   # from tensorflow.compat import v1 as tf
    tf.compat.v1.placeholder(...)            # tf.compat.v1.placeholder(...)

``tf.compat.v2`` (TF2's API) is ``UnsupportedTF1Error``, as is any other name devsession
lacks (``unsupported.py``).

``forward_compatible(year, month, day)`` is True for dates before devsession's horizon,
2019-10-16 (TF 1.15's release), so a program choosing graph forms by date picks TF 1.15's;
``forward_compatibility_horizon`` moves it inside a ``with`` block, as TF's.
"""

from __future__ import annotations

import codecs
import contextlib
import datetime
import numbers
import sys
import threading

import numpy as np

__all__ = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "path_to_bytes",
           "integral_types", "real_types", "complex_types", "bytes_or_text_types",
           "dimension_value", "dimension_at_index", "forward_compatible",
           "forward_compatibility_horizon"]

integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding: str = "utf-8") -> bytes:
    """``bytes`` from bytes, a bytearray or text (encoded with ``encoding``); TypeError
    for anything else, as TF's."""
    encoding = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding: str = "utf-8") -> str:
    """``str`` from text or bytes (decoded with ``encoding``); TypeError for anything
    else, as TF's."""
    encoding = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding: str = "utf-8") -> str:
    """``as_str`` for bytes, ``str(value)`` for anything else."""
    return as_str(value, encoding) if isinstance(value, bytes) else str(value)


def path_to_str(path):
    """An ``os.PathLike`` as ``str``; anything else unchanged, as TF's."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


def path_to_bytes(path):
    """An ``os.PathLike`` as ``bytes``; anything else unchanged, as TF's."""
    if hasattr(path, "__fspath__"):
        path = as_bytes(path.__fspath__())
    return path


def dimension_value(dimension):
    """A static dimension as an int or None: TF1's ``Dimension`` (``.value``) or the int
    or None devsession's shapes hold."""
    return getattr(dimension, "value", dimension)


def dimension_at_index(shape, index: int):
    """Dimension ``index`` of a static shape (a ``TensorShape``, list or tuple) as TF1's
    ``Dimension``: ``Dimension(None)`` when that size or the rank is unknown."""
    from ..tensor_shape import as_shape

    return as_shape(shape)[index]


# --- forward compatibility ------------------------------------------------------------------

_HORIZON = datetime.date(2019, 10, 16)


class _Horizon(threading.local):
    def __init__(self):
        self.date = _HORIZON


_horizon = _Horizon()


def forward_compatible(year: int, month: int, day: int) -> bool:
    """True when the date is before the forward-compatibility horizon (graph forms newer
    than it may be produced), as TF's."""
    return datetime.date(year, month, day) < _horizon.date


@contextlib.contextmanager
def forward_compatibility_horizon(year: int, month: int, day: int):
    """Move the horizon to the given date inside the ``with`` block (this thread)."""
    saved = _horizon.date
    _horizon.date = datetime.date(year, month, day)
    try:
        yield
    finally:
        _horizon.date = saved


def __getattr__(name: str):
    """``v1``: devsession itself; ``v2`` and other names: ``UnsupportedTF1Error``."""
    if name == "v1":
        return sys.modules[__name__.rpartition(".")[0]]   # the devsession package
    from ..unsupported import missing

    raise missing("compat", name)
