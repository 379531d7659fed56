"""``make_batched_features_dataset`` and ``parse_example_dataset``
(``devsession/data/features.py``) over TFRecord files of Examples devsession writes
(the same Examples TF wrote for tests/data/make_data_features.py): TF 2.21's batches in
TF's order, static shapes and build errors."""

from __future__ import annotations

import json
import os

import pytest

import data_features_cases as _cases
import devsession as ds
import window_cases as _window
from devsession.ops import nest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "tf_data_features.json")) as _f:
    TF = json.load(_f)


@pytest.fixture(scope="module")
def pattern(tmp_path_factory):
    return _cases.write_files(ds, str(tmp_path_factory.mktemp("examples")))


def shapes(dataset):
    return nest.map_structure(lambda s: s.as_list() if s.ndims is not None else None,
                              ds.data.get_output_shapes(dataset))


@pytest.mark.parametrize("name", sorted(TF["pipelines"]))
def test_pipelines_are_tensorflows(name, pattern):
    expected = TF["pipelines"][name]
    with ds.Graph().as_default():
        dataset = _cases.pipelines(ds, pattern)[name]
        assert _cases.flat(shapes(dataset)) == expected["shapes"]
        got = [_cases.flat(v) for v in _window.values(ds, dataset)]
    assert got == expected["values"]


@pytest.mark.parametrize("name", sorted(TF["build_errors"]))
def test_build_errors_are_tensorflows(name, pattern):
    expected = TF["build_errors"][name]
    with ds.Graph().as_default(), pytest.raises((ValueError, TypeError)) as info:
        _cases.build_errors(ds, pattern)[name]()
    assert type(info.value).__name__ == expected["class"]
    if name == "not_strings":          # the element spec's repr is each library's own
        assert expected["message"].startswith(str(info.value).split("Instead")[0])
    else:
        assert str(info.value) == expected["message"]


def test_shuffled_batches_hold_every_example_once(pattern):
    with ds.Graph().as_default():
        dataset = ds.data.experimental.make_batched_features_dataset(
            pattern, 4, _cases.features(ds), num_epochs=1, shuffle_seed=3)
        labels = sorted(x for batch in _window.values(ds, dataset) for x in
                        batch["x"][:, 0].tolist())
    assert labels == [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]


def test_a_sparse_feature_is_refused_when_the_pipeline_is_built(pattern):
    with ds.Graph().as_default(), pytest.raises(TypeError, match="dense tensors"):
        ds.data.experimental.make_batched_features_dataset(
            pattern, 2, {"name": ds.io.VarLenFeature(ds.string)}, num_epochs=1)
