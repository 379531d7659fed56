"""``ds.random.split``, ``fold_in``, ``create_rng_state`` (``ops/stateless_seeds.py``)
and ``get_seed``: TF 2.21's values, recorded by tests/data/make_tf_random_seeds.py."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from tf_recorded import DATA

TF = json.load(open(os.path.join(DATA, "tf_random_seeds.json")))


def built():
    return {
        "split": ds.random.split([1, 2], 3),
        "split_default": ds.random.split(ds.constant([7, -9], ds.int64)),
        "split_one": ds.random.split([3, 4], 1),
        "split_philox": ds.random.split([1, 2], 2, alg="philox"),
        "fold_in": ds.random.fold_in([1, 2], 3),
        "fold_in_64": ds.random.fold_in(ds.constant([7, -9], ds.int64),
                                        ds.constant(5, ds.int64)),
        "create_int": ds.random.create_rng_state(1234, "philox"),
        "create_big": ds.random.create_rng_state(2**70 + 5, "philox"),
        "create_negative": ds.random.create_rng_state(-3, 3),
        "create_vector_threefry": ds.random.create_rng_state([12, 34], "threefry"),
        "create_vector_padded": ds.random.create_rng_state([12, 34], 1),
        "create_vector_cut": ds.random.create_rng_state(np.array([1, 2, 3, 4]), "philox"),
    }


def test_values_names_and_dtypes_are_tfs():
    ds.reset_default_graph()
    fetches = built()
    with ds.Session() as sess:
        got = sess.run(fetches)
    for name, value in got.items():
        want = TF[name]
        assert value.dtype == np.dtype(want["dtype"]), name
        assert value.tolist() == want["value"], name
    for name, (op_type, op_name) in TF["names"].items():
        assert (fetches[name].op.type, fetches[name].op.name) == (op_type, op_name), name


def test_a_split_seed_seeds_the_stateless_ops():
    ds.reset_default_graph()
    seeds = ds.random.split([1, 2], 3)
    draw = ds.random.stateless_normal([3], seed=seeds[0, :])
    same = ds.random.stateless_normal([3], seed=TF["split"]["value"][0])
    with ds.Session() as sess:
        a, b = sess.run([draw, same])
    np.testing.assert_array_equal(a, b)


def test_get_seed_as_tfs():
    ds.reset_default_graph()
    got = [list(ds.random.get_seed(None)), list(ds.random.get_seed(5)),
           list(ds.random.get_seed(2**33))]
    ds.set_random_seed(2**31 + 6)
    got += [list(ds.random.get_seed(7)), [ds.random.get_seed(0)[0], 0]]
    ds.set_random_seed(0)
    got += [list(ds.random.get_seed(0))]
    want = TF["get_seed"]
    want[4][1] = 0            # TF2 counts unseeded ops per graph; TF1's op seed is an op id
    assert got == want
    assert ds.get_seed is ds.random.get_seed


def test_bad_arguments():
    ds.reset_default_graph()
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        ds.random.split([1, 2, 3])
    with pytest.raises(ValueError, match="unsupported value 7"):
        ds.random.create_rng_state(1, 7)
    with pytest.raises(ValueError, match="unsupported value"):
        ds.random.split([1, 2], alg="mersenne")


def test_a_shape_list_holding_a_tensor_is_packed_for_the_random_ops_and_pad():
    """TF's auto-packing: ``random_normal([tf.shape(x)[0], 6])`` (a VAE's or WGAN-GP's
    noise per example) and ``pad(x, [[0, 0], [0, n]])``, nested lists included."""
    x = ds.placeholder(ds.float32, [None, 3])
    n = ds.shape(x)[0]
    draws = [ds.random_normal([n, 6]), ds.random_uniform([n, 6]),
             ds.random_uniform([n, 2], maxval=5, dtype=ds.int32), ds.truncated_normal([n, 6]),
             ds.random.normal([n, 6])]
    padded = ds.pad(x, [[0, 0], [0, n]])
    assert [d.shape.as_list() for d in draws] == [[None, 6], [None, 6], [None, 2], [None, 6],
                                                  [None, 6]]
    with ds.Session() as sess:
        got = sess.run(draws + [padded], {x: np.ones((4, 3), np.float32)})
    assert [g.shape for g in got] == [(4, 6), (4, 6), (4, 2), (4, 6), (4, 6), (4, 7)]
    np.testing.assert_array_equal(got[-1], np.pad(np.ones((4, 3)), [[0, 0], [0, 4]]))
