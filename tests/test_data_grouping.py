"""``group_by_window``, ``bucket_by_sequence_length`` and ``group_by_reducer``
(``devsession/data/grouping.py``, ``kernels/reference/dataset_grouping.py``) against TensorFlow 2.21's elements, order,
static shapes and errors, recorded by tests/data/make_data_grouping.py."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession.ops import nest
import data_grouping_cases as _cases
import window_cases as _window

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "tf_data_grouping.json")) as _f:
    TF = json.load(_f)

plain = _window.plain


def shapes(dataset):
    return plain(nest.map_structure(lambda s: s.as_list() if s.ndims is not None else None,
                                       ds.data.get_output_shapes(dataset)))


def close(a, b) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(close, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and \
            all(close(a[k], b[k]) for k in a)
    return bool(np.isclose(a, b, rtol=1e-6))


@pytest.mark.parametrize("name", sorted(TF["pipelines"]))
def test_pipelines_are_tensorflows(name):
    with ds.Graph().as_default():
        dataset = _cases.pipelines(ds)[name]
        assert shapes(dataset) == TF["pipelines"][name]["shapes"]
        got = [plain(v) for v in _window.values(ds, dataset)]
    expected = TF["pipelines"][name]["values"]
    assert close(got, expected), (got, expected)


@pytest.mark.parametrize("name", sorted(TF["reducers"]))
def test_group_by_reducer_is_tensorflows(name):
    with ds.Graph().as_default():
        dataset = _cases.reducers(ds)[name]
        assert shapes(dataset) == TF["reducers"][name]["shapes"]
        got = [plain(v) for v in _window.values(ds, dataset)]
    expected = TF["reducers"][name]["values"]
    assert close(got, expected), (got, expected)


def test_a_reducer_keeps_its_functions():
    reducer = ds.data.experimental.Reducer(abs, min, max)
    assert (reducer.init_func, reducer.reduce_func, reducer.finalize_func) == (abs, min, max)


def test_a_window_size_below_one_fails_the_get_next_as_tensorflows():
    expected = TF["run_errors"]["window_size_zero"]
    with ds.Graph().as_default():
        dataset = _cases.run_errors(ds)["window_size_zero"]
        with pytest.raises(ds.errors.InvalidArgumentError) as info:
            _window.values(ds, dataset)
    assert expected["class"] == "InvalidArgumentError"
    assert info.value.message in expected["message"]


def test_an_element_past_the_last_boundary_fails_its_padding_with_tensorflows_message():
    # TF wraps the assertion of its reduce function in an InternalError.
    expected = TF["run_errors"]["past_boundary"]["message"]
    with ds.Graph().as_default():
        dataset = _cases.run_errors(ds)["past_boundary"]
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="pad_to_bucket_boundary=True, elements must have length"):
            _window.values(ds, dataset)
    assert "When pad_to_bucket_boundary=True, elements must have length < " \
        "max(bucket_boundaries)." in expected


@pytest.mark.parametrize("name", sorted(TF["build_errors"]))
def test_build_errors_are_tensorflows(name):
    expected = TF["build_errors"][name]
    with ds.Graph().as_default(), pytest.raises((ValueError, TypeError)) as info:
        _cases.build_errors(ds)[name]()
    assert type(info.value).__name__ == expected["class"]
    message = str(info.value)
    if name == "key_int32":      # the tensor's repr is each library's own
        assert message.startswith("Tensor conversion requested dtype int64 for Tensor "
                                  "with dtype int32")
    elif name == "reduce_tensor":
        assert expected["message"].startswith(message[:-1])
    else:
        assert message == expected["message"]


def test_a_window_dataset_is_a_dataset_of_the_elements():
    with ds.Graph().as_default():
        seen = []

        def reduce(key, window):
            seen.append(window)
            return window.batch(2)
        dataset = ds.data.Dataset.range(3).map(ds.range).apply(
            ds.data.experimental.group_by_window(lambda x: ds.size(x, out_type=ds.int64),
                                                 reduce, window_size=2))
        assert seen[0].output_shapes.as_list() == [None]
        assert seen[0].output_types == ds.int64
        assert [plain(v) for v in _window.values(ds, dataset)] == [[[]], [[0]], [[0, 1]]]
