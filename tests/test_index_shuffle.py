"""``ds.random_index_shuffle`` and ``ds.random.experimental.index_shuffle`` (TF's
``RandomIndexShuffle``, ``ops/index_shuffle.py``, kernel ``reference/index_shuffle.py``):
TF 2.21's permutations bit for bit (block sizes 16 to 64 bits, batched seeds and maxima,
6 rounds), recorded by tests/data/make_tf_index_shuffle.py; each is a permutation."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from tf_recorded import DATA

TF = json.load(open(os.path.join(DATA, "tf_index_shuffle.json")))


def built():
    shuffle = ds.random_index_shuffle
    return {
        "range10": shuffle(ds.range(10), ds.constant([1, 2, 3]), 9),
        "scalar": shuffle(ds.constant(7, ds.int64), ds.constant([4, 5, 6], ds.int64),
                          ds.constant(100, ds.int64)),
        "batched": shuffle(ds.constant([0, 1, 2], ds.int64),
                           ds.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]], ds.int64),
                           ds.constant([5, 2**20, 2**40], ds.int64)),
        "wide": shuffle(ds.constant(np.array([0, 12345, 2**62], np.uint64)),
                        ds.constant(np.array([9, 8, 7], np.uint64)),
                        ds.constant(np.uint64(2**63 + 5))),
        "rounds6": shuffle(ds.range(8), ds.constant([3, 1, 4]), 7, rounds=6),
        "zero_max": shuffle(ds.constant([0, 0]), ds.constant([1, 2, 3]), 0),
        "experimental": ds.random.experimental.index_shuffle(ds.range(10), [5, 9], 9),
    }


def test_values_dtypes_and_names_are_tfs():
    ds.reset_default_graph()
    fetches = built()
    with ds.Session() as sess:
        got = sess.run(fetches)
    for name, value in got.items():
        want = TF["values"][name]
        assert value.dtype == np.dtype(want["dtype"]), name
        assert value.tolist() == want["value"], name
    for name, (op_type, op_name) in TF["names"].items():
        if name != "experimental":
            assert (fetches[name].op.type, fetches[name].op.name) == (op_type, op_name)


def test_a_permutation():
    ds.reset_default_graph()
    shuffled = ds.random_index_shuffle(ds.range(1000), ds.constant([7, 7, 7]), 999)
    with ds.Session() as sess:
        assert sorted(sess.run(shuffled).tolist()) == list(range(1000))


def test_build_errors():
    ds.reset_default_graph()
    with pytest.raises(ValueError, match="at most rank 1 but is rank 2"):
        ds.random_index_shuffle(ds.constant([[0, 1]]), ds.constant([1, 2, 3]), 5)
    with pytest.raises(ValueError, match="even number"):
        ds.random_index_shuffle(ds.constant(1), ds.constant([1, 2, 3]), 5, rounds=5)
