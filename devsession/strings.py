"""TF1's ``tf.strings``: ``to_number``, ``as_string``, ``join``, ``length``, ``substr``,
``strip``, ``lower``, ``upper``, ``regex_replace``, ``regex_full_match``,
``to_hash_bucket_fast``, ``to_hash_bucket_strong``, ``to_hash_bucket``, ``reduce_join``,
``split`` (a SparseTensor), ``format``, ``ngrams``, ``unsorted_segment_join``, the
Unicode functions (``unicode_decode``, ``unicode_split``, ``unicode_encode``,
``unicode_transcode``... and ``bytes_split``: RaggedTensors, ``ops/unicode.py``)
(``ops/strings.py``, ``ops/string_regex.py``, ``ops/string_split.py``,
``ops/print_v2.py``, ``ops/string_hashing.py``, ``ops/string_joins.py``: TF's ops, run on
the host).  Any other
name raises ``UnsupportedTF1Error`` naming ``tf.strings.<name>``."""

from .ops.print_v2 import string_format as format  # noqa: A001  (tf.strings.format)
from .ops.string_regex import regex_full_match, regex_replace
from .ops.string_split import strings_split as split
from .ops.strings import as_string, reduce_join, string_join as join
from .ops.strings import string_length as length
from .ops.strings import string_lower as lower
from .ops.strings import string_strip as strip
from .ops.strings import string_to_hash_bucket_fast as to_hash_bucket_fast
from .ops.strings import string_to_hash_bucket_strong as to_hash_bucket_strong
from .ops.strings import string_to_number as to_number
from .ops.strings import string_upper as upper
from .ops.strings import substr
from .ops.string_hashing import string_to_hash_bucket as to_hash_bucket
from .ops.string_joins import ngrams, unsorted_segment_join
from .ops.unicode import (bytes_split, unicode_decode, unicode_decode_with_offsets,
                          unicode_encode, unicode_script, unicode_split,
                          unicode_split_with_offsets, unicode_transcode)

__all__ = ["to_number", "as_string", "join", "length", "substr", "strip", "lower", "upper",
           "regex_replace", "regex_full_match", "to_hash_bucket_fast", "to_hash_bucket_strong",
           "reduce_join", "split", "format", "to_hash_bucket", "ngrams", "unsorted_segment_join",
           "unicode_decode", "unicode_decode_with_offsets", "unicode_split",
           "unicode_split_with_offsets", "unicode_encode", "unicode_transcode", "bytes_split",
           "unicode_script"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("strings", name)
