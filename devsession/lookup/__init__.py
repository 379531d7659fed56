"""TF1's ``tf.lookup``: tables mapping keys to values inside a graph, as NLP input
pipelines use them (words to ids, ids back to words).

* ``tables.py``: ``StaticHashTable``, ``StaticVocabularyTable`` (ids, and hash buckets
  for unknown words), ``tables_initializer``;
* ``initializers.py``: ``KeyValueTensorInitializer``, ``TextFileInitializer``,
  ``TextFileIndex``;
* ``mutable.py``: ``experimental.MutableHashTable``;
* ``dense.py``: ``experimental.DenseHashTable`` (buckets, as TF's);
* ``saveable.py``: what a ``ds.train.Saver`` saves of the last two.

The ops are TF's (``ops/lookup.py``); the tables live in the session
(``runtime/lookup_tables.py``), on the host (``kernels/reference/lookup.py``).  Anything
else under ``ds.lookup`` raises ``UnsupportedTF1Error`` naming the TF1 symbol.
"""

from . import experimental
from .initializers import KeyValueTensorInitializer, TextFileIndex, TextFileInitializer
from .tables import StaticHashTable, StaticVocabularyTable

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer", "experimental"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("lookup", name)
