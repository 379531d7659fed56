"""TF1's ``tf.lookup.experimental``: ``MutableHashTable`` (``mutable.py``) and
``DenseHashTable`` (``dense.py``).  Anything else raises ``UnsupportedTF1Error`` naming
it."""

from .dense import DenseHashTable
from .mutable import MutableHashTable

__all__ = ["DenseHashTable", "MutableHashTable"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("lookup.experimental", name)
