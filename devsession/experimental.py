"""TF1's ``tf.experimental``: ``Optional`` (a value that may be absent, what
``iterator.get_next_as_optional()`` gives: ``data/optional.py``), the name of it TF1
graph-mode input loops use.  Anything else under ``ds.experimental`` raises an error
naming the TF1 symbol as unsupported."""

from .data.optional import Optional

__all__ = ["Optional"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("experimental", name)
