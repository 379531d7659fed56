"""``ds.data.experimental.make_csv_dataset`` and ``CsvDataset`` against what TensorFlow
2.21 produced for the same files (tests/data/tf_csv_datasets.json, recorded by
tests/data/make_tf_csv_datasets.py from the cases in tests/data/csv_cases.py): the
header's names, the types inferred (int32/int64/float32/float64/string, empty and NA
fields), select_columns by name and index, the label, the batches of one epoch and of
forever, TF's ValueErrors and its InvalidArgumentErrors at run time."""

import collections
import json
import os

import numpy as np
import pytest

import devsession as ds
from csv_cases import (CSV, build_errors, path, pipelines, plain,
                       run_errors, static, values)
from devsession.unsupported import UnsupportedTF1Error


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                       "tf_csv_datasets.json")) as _f:
    RECORDED = json.load(_f)


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def _assert_same(ours, theirs, where: str):
    """``ours`` (plain()'d) equals TF's element: structure, order, dtypes, values."""
    if isinstance(theirs, dict) and "dict" in theirs:
        assert isinstance(ours, dict) and "dict" in ours, where
        assert [k for k, _ in ours["dict"]] == [k for k, _ in theirs["dict"]], where
        for (k, a), (_, b) in zip(ours["dict"], theirs["dict"]):
            _assert_same(a, b, f"{where}[{k}]")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _assert_same(a, b, f"{where}[{k}]")
    else:
        assert ours["dtype"] == theirs["dtype"], where
        if theirs["dtype"] == "string":
            assert ours["value"] == theirs["value"], where
        else:
            np.testing.assert_array_equal(np.asarray(ours["value"], theirs["dtype"]),
                                          np.asarray(theirs["value"], theirs["dtype"]),
                                          err_msg=where)


@pytest.mark.parametrize("name", sorted(RECORDED["pipelines"]))
def test_elements_equal_tensorflows(graph, name):
    dataset, count = pipelines(ds)[name]
    recorded = RECORDED["pipelines"][name]
    assert static(dataset) == recorded["static"]
    got = [plain(v) for v in values(ds, dataset, count)]
    assert len(got) == len(recorded["elements"])
    for k, (ours, theirs) in enumerate(zip(got, recorded["elements"])):
        _assert_same(ours, theirs, f"{name} element {k}")


@pytest.mark.parametrize("name", sorted(RECORDED["build_errors"]))
def test_build_errors_are_tensorflows(graph, name):
    with pytest.raises(ValueError) as caught:
        build_errors(ds)[name]()
    assert str(caught.value).replace(CSV, "<CSV>") == RECORDED["build_errors"][name]


@pytest.mark.parametrize("name", sorted(RECORDED["run_errors"]))
def test_run_errors_are_tensorflows(graph, name):
    dataset, before = run_errors(ds)[name]
    recorded = RECORDED["run_errors"][name]
    element = dataset.make_one_shot_iterator().get_next()
    with ds.Session() as sess:
        for k in range(before):
            _assert_same(plain(sess.run(element)), recorded["read"][k], f"{name} {k}")
        with pytest.raises(ds.errors.InvalidArgumentError) as caught:
            sess.run(element)
    assert caught.value.message.endswith(recorded["message"])


def test_inferred_types_and_the_label(graph):
    """The header's names in order, each column's narrowest type, the label popped."""
    dataset = ds.data.experimental.make_csv_dataset(
        path("people.csv"), 7, label_name="label", na_value="NA", shuffle=False,
        num_epochs=1)
    features, label = dataset.output_types
    assert isinstance(features, collections.OrderedDict)
    assert list(features.items()) == [
        ("id", ds.int32), ("big", ds.int64), ("score", ds.float32), ("huge", ds.float64),
        ("name", ds.string), ("na", ds.int32), ("blank", ds.string)]
    assert label == ds.int32
    (batch,) = values(ds, dataset)
    np.testing.assert_array_equal(batch[0]["na"], [7, 0, 0, 9, 0, 11, 0])
    np.testing.assert_array_equal(batch[0]["score"],
                                  np.float32([1, 1.5, 0, 2.25, -3, 4, 0.125]))
    np.testing.assert_array_equal(batch[1], [0, 1, 0, 1, 0, 1, 0])


def test_na_value_unset_makes_the_column_strings(graph):
    dataset = ds.data.experimental.make_csv_dataset(
        path("people.csv"), 2, select_columns=["na"], shuffle=False, num_epochs=1)
    assert dataset.output_types["na"] == ds.string


def test_num_epochs_one_keeps_the_short_batch_none_drops_it(graph):
    make = ds.data.experimental.make_csv_dataset
    once = make(path("people.csv"), 5, select_columns=["id"], shuffle=False, num_epochs=1)
    forever = make(path("people.csv"), 5, select_columns=["id"], shuffle=False)
    assert once.output_shapes["id"].as_list() == [None]
    assert forever.output_shapes["id"].as_list() == [5]
    assert [list(b["id"]) for b in values(ds, once)] == [[1, 2, 3, 4, 5], [6, 7]]
    assert [list(b["id"]) for b in values(ds, forever, 3)] == [
        [1, 2, 3, 4, 5], [6, 7, 1, 2, 3], [4, 5, 6, 7, 1]]


def test_shuffle_gives_a_permutation_of_the_rows(graph):
    dataset = ds.data.experimental.make_csv_dataset(
        path("people*.csv"), 3, select_columns=["id", "name"], shuffle_seed=5,
        num_epochs=1)
    batches = values(ds, dataset)
    ids = [int(i) for b in batches for i in b["id"]]
    names = [n for b in batches for n in b["name"]]
    assert sorted(ids) == list(range(1, 11))
    assert ids != sorted(ids)
    rows = dict(zip(ids, names))
    assert rows[3] == b"smith, j" and rows[8] == b"amy"     # rows stay whole


def test_csv_dataset_filenames_from_a_placeholder(graph):
    files = ds.placeholder(ds.string, [None])
    dataset = ds.data.experimental.CsvDataset(files, [ds.int32], header=True,
                                              select_cols=[0])
    iterator = dataset.make_initializable_iterator()
    (row,) = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer, {files: [path("people2.csv"), path("people.csv")]})
        got = []
        while True:
            try:
                got.append(int(sess.run(row)))
            except ds.errors.OutOfRangeError:
                break
    assert got == [8, 9, 10, 1, 2, 3, 4, 5, 6, 7]


def test_csv_dataset_exclude_cols(graph):
    dataset = ds.data.experimental.CsvDataset(path("semi.csv"), [[""], [0.0]],
                                              field_delim=";", header=True,
                                              exclude_cols=[0])
    got = values(ds, dataset)
    assert [(y, float(z)) for y, z in got] == [
        (b"a;b", 0.5), (b"plain", 0.0), (b'q "x"', 1.25)]
    with pytest.raises(ValueError, match="Either select_cols or exclude_cols"):
        ds.data.experimental.CsvDataset(path("semi.csv"), [[""]], select_cols=[1],
                                        exclude_cols=[0])


def test_select_cols_checked_when_the_iterator_runs(graph):
    dataset = ds.data.experimental.CsvDataset(path("people.csv"), [[0], [0]],
                                              select_cols=[2, 1])
    element = dataset.make_one_shot_iterator().get_next()
    with ds.Session() as sess, pytest.raises(ds.errors.InvalidArgumentError,
                                             match="strictly increasing"):
        sess.run(element)


def test_other_experimental_names_are_unsupported():
    assert ds.data.experimental.AUTOTUNE == -1
    with pytest.raises(UnsupportedTF1Error, match="tf.data.experimental.snapshot"):
        ds.data.experimental.snapshot
