"""The n-gram, segment-join and hashing computations tests/data/make_tf_string_joins.py
records from TensorFlow and tests/test_string_joins.py runs in devsession, written once
against the TF1 module each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``):
{name: tensor} of constants only (no feeds)."""

import numpy as np

WORDS = [["the", "quick", "brown", "fox"], ["jumps", "over", "the", "dog"]]


def ngram_cases(tf) -> dict:
    ngrams = tf.strings.ngrams
    return {
        "bigrams": ngrams(["a", "b", "c", "d"], 2),
        "rows": ngrams(WORDS, 3, separator="_"),
        "widths": ngrams(WORDS, [1, 2, 5], separator="|"),
        "padded": ngrams(WORDS, [2, 3], pad_values=("<s>", "</s>")),
        "pad_width": ngrams(WORDS, 4, pad_values="#", padding_width=1),
        "pad_width_over": ngrams(WORDS, 2, pad_values="#", padding_width=3),
        "short": ngrams(WORDS, 6),
        "short_kept": ngrams(WORDS, 6, preserve_short_sequences=True),
        "short_padded_kept": ngrams(WORDS, 9, pad_values="P", padding_width=1,
                                    preserve_short_sequences=True),
        "rank3": ngrams([WORDS, WORDS[::-1]], 2),
        "one": ngrams(["x"], 1),
        "empty_rows": ngrams(np.zeros([2, 0], np.bytes_), 2, preserve_short_sequences=True),
        "unicode": ngrams(["été", "ñandú", "日本"], 2, separator="·"),
    }


def join_cases(tf) -> dict:
    join = tf.strings.unsorted_segment_join
    return {
        "segments": join(["a", "b", "c", "d", "e"], [2, 0, 2, 2, 0], 4, separator=","),
        "matrix": join([["a", "b"], ["c", "d"], ["e", "f"]], [1, 0, 1], 2, separator="-"),
        "ids_matrix": join([["a", "b"], ["c", "d"]], [[0, 1], [1, 1]], 3),
        "int64_ids": join(["x", "y"], tf.constant([1, 1], tf.int64),
                          tf.constant(2, tf.int64), separator="+"),
        "no_inputs": join(tf.zeros([0], tf.string), tf.zeros([0], tf.int32), 2),
    }


def hash_cases(tf) -> dict:
    strings = ["", "a", "hello", "abcdefgh", "abcdefghi", "a longer string of 31 bytes...",
               "日本語のテキスト"]
    return {
        "hash_bucket": tf.string_to_hash_bucket(strings, 1000003),
        "hash_bucket_2d": tf.strings.to_hash_bucket([strings[:3], strings[3:6]], 7),
        "hash_bucket_one": tf.string_to_hash_bucket(["x"], 1),
        "fingerprint_strings": tf.fingerprint(strings),
        "fingerprint_rows": tf.fingerprint([["a", "b"], ["c", "d"], ["", ""]]),
        "fingerprint_ints": tf.fingerprint(np.arange(12, dtype=np.int32).reshape(3, 4)),
        "fingerprint_floats": tf.fingerprint(np.linspace(-1, 1, 6).reshape(2, 3, 1)),
        "fingerprint_bools": tf.fingerprint([[True, False, True]]),
        "fingerprint_empty": tf.fingerprint(np.zeros([0, 3], np.float32)),
        "fingerprint_empty_rows": tf.fingerprint(np.zeros([2, 0], np.int64)),
    }


def all_cases(tf) -> dict:
    return {**ngram_cases(tf), **join_cases(tf), **hash_cases(tf)}
