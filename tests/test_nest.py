"""tf.nest (devsession/nest.py): every case in tests/data/nest_cases.py returns or raises
what TensorFlow's did (tests/data/tf_nest.json, written by make_tf_nest.py)."""

import json
import os

import numpy as np
import pytest

import devsession as ds
import nest_cases

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "data", "tf_nest.json")))


@pytest.mark.parametrize("name", sorted(nest_cases.CASES))
def test_as_tensorflow(name):
    with ds.Graph().as_default():
        got = nest_cases.outcome(lambda: nest_cases.CASES[name](ds))
    assert got == RECORDED["cases"][name]


def test_every_case_was_recorded():
    assert sorted(RECORDED["cases"]) == sorted(nest_cases.CASES)


def test_a_sparse_tensor_mapped_over_its_components_computes():
    with ds.Graph().as_default():
        sparse = ds.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
        doubled = ds.nest.map_structure(lambda t: t * 2 if t.dtype == ds.float32 else t,
                                        {"s": sparse}, expand_composites=True)["s"]
        with ds.Session() as sess:
            dense = sess.run(ds.sparse.to_dense(doubled))
    np.testing.assert_array_equal(dense, [[2, 0, 0], [0, 0, 4]])


def test_a_ragged_tensor_packed_from_its_components_computes():
    with ds.Graph().as_default():
        ragged = ds.ragged.constant([[[1], [2, 3]], [[4]]])
        parts = ds.nest.flatten(ragged, expand_composites=True)
        again = ds.nest.pack_sequence_as(ragged, [parts[0] + 10] + parts[1:],
                                         expand_composites=True)
        with ds.Session() as sess:
            value = sess.run(again)
    assert value.to_list() == [[[11], [12, 13]], [[14]]]
