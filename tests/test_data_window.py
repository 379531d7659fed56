"""``Dataset.window`` consumed by ``flat_map``/``interleave``, against TensorFlow 2.21's
outputs recorded by tests/data/make_tf_window.py: the grid of size, shift, stride and
drop_remainder (partial windows at the end, a shift past the window, an empty input),
tuple and dict elements, and stages inside and around the windows."""

from __future__ import annotations

import json
import os

import pytest

import devsession as ds
import window_cases as _cases
from devsession.data import Dataset

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "tf_window.json")) as _f:
    TF = json.load(_f)


def values(dataset) -> list:
    return _cases.values(ds, dataset)


plain = _cases.plain


@pytest.mark.parametrize("case", TF["grid"], ids=lambda c: "n{n}-size{size}-shift{shift}-"
                         "stride{stride}-drop{drop_remainder}".format(**c))
def test_windows_are_tensorflows(case):
    windows = Dataset.range(case["n"]).window(case["size"], case["shift"], case["stride"],
                                              case["drop_remainder"])
    batched = windows.flat_map(lambda w: w.batch(case["size"]))
    assert batched.output_shapes.as_list() == [None]
    assert [plain(v) for v in values(batched)] == case["windows"]


@pytest.mark.parametrize("name", sorted(TF["pipelines"]))
def test_pipelines_over_windows_are_tensorflows(name):
    dataset = _cases.pipelines(ds)[name]
    assert [plain(v) for v in values(dataset)] == TF["pipelines"][name]


def test_a_window_dataset_is_consumed_by_flat_map():
    windows = Dataset.range(4).window(2)
    for use in (lambda: windows.map(lambda w: w), lambda: windows.batch(2),
                lambda: windows.make_one_shot_iterator(), lambda: windows.filter(lambda w: True),
                lambda: Dataset.zip((windows, windows))):
        with pytest.raises(TypeError, match="flat_map or interleave"):
            use()
    with pytest.raises(ValueError, match="at least 1"):
        Dataset.range(4).window(0)
    with pytest.raises(ValueError, match="at least 1"):
        Dataset.range(4).window(2, shift=0)
    ragged = Dataset.from_generator(lambda: iter([[1], [2, 3]]), ds.int64, [None])
    with pytest.raises(ds.errors.InvalidArgumentError, match="different shapes"):
        values(ragged.window(2).flat_map(lambda w: w.batch(2)))
