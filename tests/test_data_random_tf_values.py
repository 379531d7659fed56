"""tf.data's random sources give TensorFlow 2.21's values for a seed
(``kernels/reference/dataset_random.py``), recorded by tests/data/make_tf_data_random.py:
``RandomDataset``'s uint32s (seeded, by the graph seed alone, repeated, batched) and
``sample_from_datasets``' orders (weights as a list, uniform, float64, a tensor, zero
weights dropped, a single dataset left returned as it is without taking an op seed,
``stop_on_empty_dataset``).  Unseeded sources draw anew each time an iterator starts."""

from __future__ import annotations

import os

import numpy as np
import pytest

import data_random_cases as cases
import devsession as ds
from tf_recorded import DATA

TF = np.load(os.path.join(DATA, "tf_data_random.npz"))
E, Dataset = ds.data.experimental, ds.data.Dataset


def test_every_source_gives_tfs_values_in_tfs_order():
    with ds.Graph().as_default():
        ds.set_random_seed(cases.GRAPH_SEED)
        datasets = cases.sources(ds)
        assert sorted(datasets) == sorted(TF.files)
        nexts = {k: ds.data.make_one_shot_iterator(d).get_next() for k, d in datasets.items()}
        with ds.Session() as sess:
            for key, next_element in nexts.items():
                assert cases.drain(ds, sess, next_element) == TF[key].tolist(), key


def test_random_values_are_uint32s_as_int64():
    values = TF["random"]
    assert values.dtype == np.int64 and values.min() >= 0 and values.max() < 2**32


def _first_values(dataset, starts: int) -> list:
    """The elements of ``dataset`` for each of ``starts`` initializations."""
    iterator = dataset.make_initializable_iterator()
    element = iterator.get_next()
    runs = []
    with ds.Session() as sess:
        for _ in range(starts):
            sess.run(iterator.initializer)
            runs.append(cases.drain(ds, sess, element))
    return runs


def test_unseeded_sources_draw_anew_each_start_and_repeat_within_one():
    with ds.Graph().as_default():
        random = _first_values(E.RandomDataset().take(4).repeat(2), 2)
        sampled = _first_values(E.sample_from_datasets([Dataset.range(40),
                                                        Dataset.range(100, 140)]), 2)
    for run in random:                   # one seed per start, its epochs the same
        assert run[:4] == run[4:]
    assert random[0] != random[1]
    assert sampled[0] != sampled[1]
    assert all(sorted(run) == list(range(40)) + list(range(100, 140)) for run in sampled)


def test_sample_from_datasets_errors():
    with ds.Graph().as_default():
        two = [Dataset.range(3), Dataset.range(3)]
        with pytest.raises(ValueError, match="same length as `datasets`"):
            E.sample_from_datasets(two, [0.5, 0.25, 0.25])
        with pytest.raises(TypeError, match="must be either `tf.float32` or `tf.float64`"):
            E.sample_from_datasets(two, [1, 2])
        negative = E.sample_from_datasets(two, ds.constant([0.5, -0.5]), seed=1)
        with pytest.raises(ds.errors.InvalidArgumentError, match="non-negative weights"):
            cases.drain(ds, ds.Session(), negative.make_one_shot_iterator().get_next())


def test_dataset_static_methods_are_the_experimental_functions():
    with ds.Graph().as_default():
        ds.set_random_seed(cases.GRAPH_SEED)
        random = Dataset.random(7).take(20)
        sampled = Dataset.sample_from_datasets(
            [Dataset.range(0, 100), Dataset.range(100, 200), Dataset.range(200, 300)],
            [0.2, 0.3, 0.5], seed=5).take(60)
        chosen = Dataset.choose_from_datasets([Dataset.range(2), Dataset.range(10, 14)],
                                              Dataset.from_tensor_slices(
                                                  np.array([0, 1, 0, 0, 1], np.int64)))
        with ds.Session() as sess:
            drained = [cases.drain(ds, sess, d.make_one_shot_iterator().get_next())
                       for d in (random, sampled, chosen)]
    assert drained[:2] == [TF["random"].tolist(), TF["sample_three"].tolist()]
    assert drained[2] == [0, 10, 1]                 # stops at the ended first dataset
