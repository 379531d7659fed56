"""Writes what TensorFlow computes with its sparse feature crosses, for
tests/test_sparse_cross.py.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_sparse_cross.py

It writes, next to this script, tf_sparse_cross.pb / .npz (tests/tf_recorded.py's
layout; string values as bytes arrays): a GraphDef of SparseCrossV2
(``tf.sparse.cross``, default and own separator), SparseCross (``tf.sparse.cross_hashed``
with and without buckets and hash keys, and the string cross of TF's internal builder
for string and int64 internal types) and SparseCrossHashed (weak and strong hashes,
``tf.raw_ops``) over sparse_placeholders "words" (strings, one row empty, one string
longer than 64 bytes), "ids" (int64, negative and large values), "late" (entries
grouped by row but the first row's after the second's, which TF reads in its own way)
and dense placeholders "tags" (strings), "codes" (int64) and "small" (int32).

(TF 2.21's SparseCrossHashed crashes the process on a dense int64 feature with
``strong_hash``, so that case is not recorded.)
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import sparse_ops

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))

LONG = "a long word " * 7
WORDS = {"indices": np.array([[0, 0], [0, 1], [2, 0], [3, 0], [3, 2]], np.int64),
         "values": np.array([b"cat", b"dog", LONG.encode(), b"", b"emu"], np.bytes_),
         "shape": np.array([4, 3], np.int64)}
IDS = {"indices": np.array([[0, 0], [1, 0], [1, 1], [2, 0], [3, 0]], np.int64),
       "values": np.array([7, -3, 2 ** 40 + 5, 0, 123456789], np.int64),
       "shape": np.array([4, 2], np.int64)}
LATE = {"indices": np.array([[1, 0], [1, 1], [0, 0], [2, 0], [3, 0]], np.int64),
        "values": np.array([10, 11, 12, 13, 14], np.int64), "shape": np.array([4, 2], np.int64)}
TAGS = np.array([[b"x", b"y"], [b"z", b"w"], [b"u", b"v"], [b"s", b"t"]], np.bytes_)
CODES = np.array([[5], [-6], [2 ** 50], [0]], np.int64)
SMALL = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int32)


def main():
    feeds = {"tags": TAGS, "codes": CODES, "small": SMALL}
    for name, value in (("words", WORDS), ("ids", IDS), ("late", LATE)):
        feeds.update({f"{name}/{k}": v for k, v in value.items()})
    graph = tf.Graph()
    with graph.as_default():
        words = tf.sparse_placeholder(tf.string, name="words")
        ids = tf.sparse_placeholder(tf.int64, name="ids")
        late = tf.sparse_placeholder(tf.int64, name="late")
        tags = tf.placeholder(tf.string, (None, 2), name="tags")
        codes = tf.placeholder(tf.int64, (None, 1), name="codes")
        small = tf.placeholder(tf.int32, (None, 2), name="small")

        def hashed(inputs, strong, num_buckets=0, salt=(17, 23)):
            sparse = [i for i in inputs if isinstance(i, tf.SparseTensor)]
            dense = [i for i in inputs if not isinstance(i, tf.SparseTensor)]
            out = tf.raw_ops.SparseCrossHashed(
                indices=[s.indices for s in sparse], values=[s.values for s in sparse],
                shapes=[s.dense_shape for s in sparse], dense_inputs=dense,
                num_buckets=tf.constant(num_buckets, tf.int64),
                strong_hash=tf.constant(strong), salt=tf.constant(salt, tf.int64))
            return tf.SparseTensor(*out)

        sparse_outs = {
            "cross_words_tags": tf.sparse.cross([words, tags]),
            "cross_sep": tf.sparse.cross([tags, words, ids], separator="|"),
            "cross_ints": tf.sparse.cross([ids, codes, small]),
            "cross_dense_only": tf.sparse.cross([tags, small]),
            "cross_late": tf.sparse.cross([late, words]),
            "hashed_words_tags": tf.sparse.cross_hashed([words, tags]),
            "hashed_buckets": tf.sparse.cross_hashed([words, ids, tags], num_buckets=1000),
            "hashed_key": tf.sparse.cross_hashed([ids, small], num_buckets=50, hash_key=7),
            "hashed_ints": tf.sparse.cross_hashed([codes, ids]),
            "v1_strings": sparse_ops._sparse_cross_internal([words, tags]),
            "v1_mixed": sparse_ops._sparse_cross_internal([ids, tags]),
            "keyed_weak": hashed([words, ids, tags], False),
            "keyed_weak_ints": hashed([ids, codes], False, 97),
            "keyed_strong": hashed([words, ids, tags], True, 0, (-5, 2 ** 40)),
            "keyed_strong_buckets": hashed([tags, words], True, 31),
        }
        outs = {}
        for key, value in sparse_outs.items():
            for part in ("indices", "values", "dense_shape"):
                outs[f"{key}_{part}"] = getattr(value, part)
        graph_def = graph.as_graph_def()
        with tf.Session() as sess:
            feed = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
            values = sess.run(outs, feed)
    names = {k: t.name for k, t in outs.items()}
    with open(os.path.join(HERE, "tf_sparse_cross.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                           [-1 if d is None else d for d in t.shape.as_list()],
                                           np.int64) for t in outs.values()}
    fetched = {f"fetch:{names[k]}": (v.astype(np.bytes_) if v.dtype == object else v)
               for k, v in values.items()}
    np.savez(os.path.join(HERE, "tf_sparse_cross.npz"),
             **{f"feed:{k}": v for k, v in feeds.items()}, **fetched, **static)
    print(f"{len(outs)} fetches written")


if __name__ == "__main__":
    main()
