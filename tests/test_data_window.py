"""``Dataset.window`` consumed by ``flat_map``/``interleave``, against TensorFlow 2.21's
outputs recorded by tests/data/make_tf_window.py: the grid of size, shift, stride and
drop_remainder (partial windows at the end, a shift past the window, an empty input),
tuple and dict elements, and stages inside and around the windows."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession.data import Dataset

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                       "tf_window.json")) as _f:
    TF = json.load(_f)


def values(dataset) -> list:
    element = dataset.make_one_shot_iterator().get_next()
    out = []
    with ds.Session() as sess:
        while True:
            try:
                out.append(sess.run(element))
            except ds.errors.OutOfRangeError:
                return out


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return np.asarray(value).tolist()


@pytest.mark.parametrize("case", TF["grid"], ids=lambda c: "n{n}-size{size}-shift{shift}-"
                         "stride{stride}-drop{drop_remainder}".format(**c))
def test_windows_are_tensorflows(case):
    windows = Dataset.range(case["n"]).window(case["size"], case["shift"], case["stride"],
                                              case["drop_remainder"])
    batched = windows.flat_map(lambda w: w.batch(case["size"]))
    assert batched.output_shapes.as_list() == [None]
    assert [plain(v) for v in values(batched)] == case["windows"]


def pipelines():
    pairs = Dataset.from_tensor_slices((np.arange(6), np.arange(6) * 10.0))
    table = Dataset.from_tensor_slices({"a": np.arange(5), "b": np.arange(10).reshape(5, 2)})
    return {
        "tuple": pairs.window(3, 2).flat_map(
            lambda x, y: Dataset.zip((x.batch(3), y.batch(3)))),
        "dict": table.window(2, 1, drop_remainder=True).flat_map(
            lambda w: Dataset.zip({"a": w["a"].batch(2), "b": w["b"].batch(2)})),
        "take_in_window": Dataset.range(8).window(4, 2).flat_map(lambda w: w.take(2)),
        "interleave": Dataset.range(9).window(3).interleave(
            lambda w: w.batch(2), cycle_length=2, block_length=1),
        "repeat_windows": Dataset.range(5).window(2).repeat(2).flat_map(
            lambda w: w.batch(2)),
    }


@pytest.mark.parametrize("name", sorted(TF["pipelines"]))
def test_pipelines_over_windows_are_tensorflows(name):
    dataset = pipelines()[name]
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
