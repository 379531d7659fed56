"""TF1's ``tf.lookup.experimental``: ``MutableHashTable`` (``mutable.py``).  The rest
(``DenseHashTable``) raises ``UnsupportedTF1Error`` naming it."""

from .mutable import MutableHashTable

__all__ = ["MutableHashTable"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("lookup.experimental", name)
