"""``tf.data.experimental``'s transformations (``devsession/data/transformations.py``)
against TensorFlow 2.21's outputs recorded by tests/data/make_tf_data_experimental.py:
each pipeline's elements, ``cardinality``, ``get_single_element``'s value and errors;
and random orders by their statistics (``sample_from_datasets``' proportions, whose
orders tests/test_data_random_tf_values.py compares with TF's; shuffle_and_repeat's
epochs), and TF's build-time errors."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import data_experimental_cases as _cases
import window_cases as _window
from devsession.data import Dataset

E = ds.data.experimental
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "tf_data_experimental.json")) as _f:
    TF = json.load(_f)


plain = _window.plain


def values(dataset) -> list:
    return [plain(v) for v in _window.values(ds, dataset)]


def close(a, b) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(close, a, b))
    return bool(np.isclose(a, b, rtol=1e-6))


@pytest.mark.parametrize("name", sorted(TF["pipelines"]))
def test_pipelines_are_tensorflows(name):
    got = values(_cases.pipelines(ds)[name])
    assert close(got, TF["pipelines"][name]), (got, TF["pipelines"][name])


@pytest.mark.parametrize("name", sorted(TF["cardinality"]))
def test_cardinality_is_tensorflows(name):
    count = E.cardinality(_cases.cardinalities(ds)[name])
    assert count.dtype == ds.int64
    with ds.Session() as sess:
        assert sess.run(count) == TF["cardinality"][name]


def test_cardinality_constants():
    assert (E.INFINITE_CARDINALITY, E.UNKNOWN_CARDINALITY) == (-1, -2)
    assert (ds.data.INFINITE_CARDINALITY, ds.data.UNKNOWN_CARDINALITY) == (-1, -2)
    assert ds.data.AUTOTUNE == E.AUTOTUNE == -1
    with pytest.raises(TypeError):
        E.cardinality([1, 2])


@pytest.mark.parametrize("name", sorted(TF["single"]))
def test_get_single_element_is_tensorflows(name):
    element = E.get_single_element(_cases.single_elements(ds)[name])
    with ds.Session() as sess:
        recorded = TF["single"][name]
        if "value" in recorded:
            for _ in range(2):                  # each run makes the element anew
                assert close(plain(sess.run(element)), recorded["value"])
        else:
            message = recorded["error"].split("\n")[-2].strip()   # TF's text
            with pytest.raises(ds.errors.InvalidArgumentError, match=message):
                sess.run(element)


def test_sample_from_datasets_draws_by_the_weights():
    ones, twos = Dataset.from_tensors(np.int64(1)).repeat(), \
        Dataset.from_tensors(np.int64(2)).repeat()
    sampled = E.sample_from_datasets([ones, twos], weights=[0.2, 0.8], seed=7).take(4000)
    got = np.array(values(sampled))
    assert abs((got == 2).mean() - 0.8) < 0.03          # 5 standard deviations
    assert values(E.sample_from_datasets([ones, twos], [0.2, 0.8], seed=7).take(4000)) \
        == got.tolist()                                 # seeded: the same draws
    uniform = np.array(values(E.sample_from_datasets([ones, twos], seed=1).take(2000)))
    assert abs((uniform == 1).mean() - 0.5) < 0.06


def test_sample_from_datasets_ends_when_every_dataset_has():
    got = values(E.sample_from_datasets([Dataset.range(3), Dataset.range(10, 14)], seed=3))
    assert sorted(got) == [0, 1, 2, 10, 11, 12, 13]
    assert [v for v in got if v < 10] == [0, 1, 2]      # each dataset's order kept


def test_shuffle_and_repeat_shuffles_each_epoch():
    got = values(Dataset.range(20).apply(E.shuffle_and_repeat(20, count=3, seed=5)))
    epochs = [got[:20], got[20:40], got[40:]]
    assert all(sorted(e) == list(range(20)) for e in epochs)
    assert epochs[0] != epochs[1] and epochs[0] != list(range(20))


def test_choose_from_datasets_errors_are_tensorflows():
    with pytest.raises(TypeError, match="scalar of type `tf.int64`"):
        E.choose_from_datasets([Dataset.range(2)], Dataset.from_tensor_slices([0, 1]))
    with pytest.raises(ValueError, match="should not be empty"):
        E.choose_from_datasets([], Dataset.range(2))
    with pytest.raises(TypeError, match="compatible element specs"):
        E.choose_from_datasets([Dataset.range(2), Dataset.from_tensors(1.0)],
                               Dataset.range(2))
    bad = E.choose_from_datasets([Dataset.range(2)], Dataset.range(3))
    with pytest.raises(ds.errors.InvalidArgumentError, match="Selector index out of range"):
        values(bad)


def test_map_and_batch_refuses_both_parallelisms():
    with pytest.raises(ValueError, match="mutually exclusive"):
        E.map_and_batch(lambda x: x, 2, num_parallel_batches=1, num_parallel_calls=1)


def test_scan_checks_the_new_state_as_tf():
    with pytest.raises(TypeError, match="types for the new state"):
        Dataset.range(3).scan(np.int64(0), lambda s, x: (ds.cast(s, ds.float32), x))
    with pytest.raises(TypeError, match="pair"):
        Dataset.range(3).scan(np.int64(0), lambda s, x: s)


def test_an_error_without_ignore_errors_fails_the_run():
    failing = Dataset.from_tensor_slices([1.0, 0.0]).map(
        lambda x: ds.debugging.check_numerics(ds.log(x), "bad"))
    with pytest.raises(ds.errors.InvalidArgumentError):
        values(failing)
