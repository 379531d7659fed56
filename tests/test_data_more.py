"""``unique``, ``assert_cardinality``, ``from_list``, ``RandomDataset`` and
``with_options`` / ``options()`` (``devsession/data/transformations.py``, ``options.py``,
``kernels/reference/dataset_checks.py``) against TensorFlow 2.21's elements, static
shapes, cardinalities, errors and merged options, recorded by
tests/data/make_data_more.py; and ``rejection_resample``'s elements for a seed or the
graph seed alone (tests/data/make_data_resampling.py)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import data_more_cases as _cases
import devsession as ds
import window_cases as _window
from devsession.ops import nest

E = ds.data.experimental
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "tf_data_more.json")) as _f:
    TF = json.load(_f)


def shapes(dataset):
    return _window.plain(nest.map_structure(
        lambda s: s.as_list() if s.ndims is not None else None,
        ds.data.get_output_shapes(dataset)))


@pytest.mark.parametrize("name", sorted(TF["pipelines"]))
def test_pipelines_are_tensorflows(name):
    expected = TF["pipelines"][name]
    with ds.Graph().as_default():
        dataset = _cases.pipelines(ds)[name]
        assert shapes(dataset) == expected["shapes"]
        types = nest.map_structure(lambda t: t.name, ds.data.get_output_types(dataset))
        assert _window.plain(types) == expected["types"]
        got = [_cases.jsonable(_window.plain(v)) for v in _window.values(ds, dataset)]
    assert got == expected["values"]


@pytest.mark.parametrize("name", sorted(TF["cardinality"]))
def test_cardinality_is_tensorflows(name):
    with ds.Graph().as_default(), ds.Session() as sess:
        count = E.cardinality(_cases.cardinalities(ds)[name])
        assert sess.run(count) == TF["cardinality"][name]


@pytest.mark.parametrize("name", sorted(TF["run_errors"]))
def test_a_wrong_cardinality_fails_as_tensorflows(name):
    expected = TF["run_errors"][name]
    got = []
    with ds.Graph().as_default():
        element = _cases.run_errors(ds)[name].make_one_shot_iterator().get_next()
        with ds.Session() as sess, pytest.raises(ds.errors.OpError) as info:
            while True:
                got.append(int(sess.run(element)))
    assert type(info.value).__name__ == expected["class"]
    assert info.value.message in expected["message"]
    assert got == expected["before"]


@pytest.mark.parametrize("name", sorted(TF["build_errors"]))
def test_build_errors_are_tensorflows(name):
    expected = TF["build_errors"][name]
    with ds.Graph().as_default(), pytest.raises((ValueError, TypeError, AttributeError)) \
            as info:
        _cases.build_errors(ds)[name]()
    assert type(info.value).__name__ == expected["class"]
    assert str(info.value) == expected["message"]


@pytest.mark.parametrize("name", sorted(TF["options"]))
def test_options_merge_as_tensorflows(name):
    with ds.Graph().as_default():
        assert _cases.described(_cases.options(ds)[name].options()) == TF["options"][name]


def test_options_are_values_with_tensorflows_aliases_and_survive_a_graph_def():
    options = ds.data.Options()
    options.experimental_threading.private_threadpool_size = 3
    options.experimental_deterministic = True
    assert options.threading.private_threadpool_size == 3 and options.deterministic
    other = ds.data.Options()
    other.threading = ds.data.ThreadingOptions()
    other.threading.private_threadpool_size = 3
    other.deterministic = True
    assert options == other and options != ds.data.Options()
    assert options.merge(ds.data.Options()) == options
    with ds.Graph().as_default() as graph:
        dataset = ds.data.Dataset.range(2).with_options(options)
        assert dataset.options() == options
        element = dataset.make_one_shot_iterator().get_next()
        graph_def = graph.as_graph_def()
    with ds.Graph().as_default():
        ds.import_graph_def(graph_def, name="")
        with ds.Session() as sess:
            assert [sess.run(element.name) for _ in range(2)] == [0, 1]
    with pytest.raises(TypeError, match="tf.data.Options"):
        ds.data.Dataset.range(2).with_options({"deterministic": False})


def test_options_pass_through_windows():
    options = ds.data.Options()
    options.experimental_slack = True
    with ds.Graph().as_default():
        dataset = ds.data.Dataset.range(4).window(2).with_options(options)
        assert dataset.options().experimental_slack
        got = _window.values(ds, dataset.flat_map(lambda w: w.batch(2)))
        assert [v.tolist() for v in got] == [[0, 1], [2, 3]]


def test_random_dataset_is_seeded_and_spans_uint32():
    def draws(seed):
        with ds.Graph().as_default():
            element = E.RandomDataset(seed).take(200).batch(200) \
                .make_one_shot_iterator().get_next()
            with ds.Session() as sess:
                return sess.run(element)
    first, again, other = draws(7), draws(7), draws(8)
    assert first.dtype == np.int64 and first.shape == (200,)
    np.testing.assert_array_equal(first, again)
    assert (first != other).any()
    # TF's values: uint32 words (tests/test_data_random_tf_values.py compares them)
    assert first.min() >= 0 and first.max() >= 2**31 and first.max() < 2**32
    assert len(set(first.tolist())) == 200
    with ds.Graph().as_default(), ds.Session() as sess:
        assert sess.run(E.cardinality(E.RandomDataset(1))) == E.INFINITE_CARDINALITY


@pytest.mark.parametrize("name", sorted(TF["tables"]))
def test_tables_from_datasets_are_tensorflows(name):
    expected = TF["tables"][name]
    with ds.Graph().as_default():
        table, keys = _cases.tables(ds)[name]()
        found, size = table.lookup(keys), table.size()
        with ds.Session() as sess:
            if "error" in expected:
                with pytest.raises(ds.errors.OpError) as info:
                    sess.run(ds.tables_initializer())
                assert type(info.value).__name__ == expected["error"]
                if name != "empty":          # TF's "end of iterator" is its own
                    assert info.value.message.split("(")[0].strip(". ") in \
                        expected["message"], info.value.message
                return
            sess.run(ds.tables_initializer())
            got = _cases.jsonable(_window.plain(sess.run(found)))
            assert (got, int(sess.run(size))) == (expected["lookup"], expected["size"])


@pytest.mark.parametrize("name", sorted(TF["table_errors"]))
def test_table_build_errors_are_tensorflows(name):
    expected = TF["table_errors"][name]
    with ds.Graph().as_default(), pytest.raises((ValueError, TypeError)) as info:
        _cases.table_errors(ds)[name]()
    assert type(info.value).__name__ == expected["class"]
    if name == "not_pairs":           # the element spec's repr is each library's own
        assert expected["message"].startswith(str(info.value).split("Full dataset")[0])
    else:
        assert str(info.value) == expected["message"]


@pytest.mark.parametrize("name", sorted(TF["optionals"]))
def test_optionals_are_tensorflows(name):
    expected = TF["optionals"][name]
    with ds.Graph().as_default():
        optional = _cases.optionals(ds)[name]
        with ds.Session() as sess:
            for step in expected:
                run = [optional.has_value(), optional.get_value()]
                if "error" in step:
                    with pytest.raises(ds.errors.InvalidArgumentError) as info:
                        sess.run(run)
                    assert info.value.message in step["message"]
                    continue
                has, value = sess.run(run)
                assert {"has_value": bool(has), "value": _cases.jsonable(
                    _window.plain(value))} == step


def test_an_optional_at_the_end_has_no_value_without_an_error():
    with ds.Graph().as_default():
        dataset = ds.data.Dataset.from_tensor_slices(np.zeros([1, 3], np.float32))
        optional = dataset.make_one_shot_iterator().get_next_as_optional()
        assert optional.element_spec.shape.as_list() == [3]
        with ds.Session() as sess:
            assert [bool(sess.run(optional.has_value())) for _ in range(3)] == \
                [True, False, False]


def test_tfrecord_writer_writes_tensorflows_bytes(tmp_path):
    import base64
    import gzip
    import zlib

    with ds.Graph().as_default():
        ops = _cases.writes(ds, str(tmp_path))
        with ds.Session() as sess:
            for name, (op, path) in ops.items():
                assert sess.run(op) is None
                data = open(path, "rb").read()
                data = gzip.decompress(data) if name == "gzip" else \
                    zlib.decompress(data) if name == "zlib" else data
                assert base64.b64encode(data).decode() == TF["writes"][name], name
            # run again: the pipeline runs anew and the file is replaced
            sess.run(ops["plain"][0])
            assert list(ds.io.tf_record_iterator(ops["plain"][1])) == \
                [b"alpha", b"", b"gamma" * 40]


@pytest.mark.parametrize("name", sorted(TF["write_errors"]))
def test_tfrecord_writer_errors_are_tensorflows(name):
    with ds.Graph().as_default(), pytest.raises(TypeError) as info:
        _cases.write_errors(ds)[name]()
    if name == "numbers":              # the shapes' and types' reprs are each library's own
        assert TF["write_errors"][name].startswith(str(info.value).split(" with shapes")[0])
    else:
        assert str(info.value) == TF["write_errors"][name]


def test_tfrecord_writer_run_errors(tmp_path):
    with ds.Graph().as_default():
        records = ds.data.Dataset.from_tensors(b"x")
        missing = ds.data.experimental.TFRecordWriter(
            str(tmp_path / "no" / "x.tfrecord")).write(records)
        unknown = ds.data.experimental.TFRecordWriter(str(tmp_path / "x.tfrecord"),
                                                      "LZ4").write(records)
        with ds.Session() as sess:
            with pytest.raises(ds.errors.NotFoundError):
                sess.run(missing)
            with pytest.raises(ds.errors.InvalidArgumentError, match="compression"):
                sess.run(unknown)


def test_tf_experimental_optional_is_the_data_one():
    from devsession.unsupported import TF1_NAMESPACES, UnsupportedTF1Error

    assert "experimental" not in TF1_NAMESPACES
    assert ds.experimental.Optional is ds.data.experimental.Optional
    with pytest.raises(UnsupportedTF1Error, match=r"^tf\.experimental\.nope is not supported"):
        ds.experimental.nope


with open(os.path.join(DATA, "tf_data_resampling.json")) as _f:
    RESAMPLED = json.load(_f)


def _run_of(elements: list) -> dict:
    """As the recorder reads them: classes and first components, or plain values."""
    if all(isinstance(e, tuple) for e in elements):
        return {"classes": [int(c) for c, _ in elements],
                "first": [int(nest.flatten(e)[0]) for _, e in elements]}
    return {"values": [int(e) for e in elements]}


@pytest.mark.parametrize("name", sorted(RESAMPLED["runs"]))
def test_rejection_resample_gives_tensorflows_elements_for_each_seed(name):
    for seed, tf_run in zip(RESAMPLED["seeds"], RESAMPLED["runs"][name]):
        with ds.Graph().as_default():
            dataset = _cases.resamplings(ds, seed)[name]
            types = [t.name for t in nest.flatten(ds.data.get_output_types(dataset))]
            assert types == RESAMPLED["types"][name]
            assert _run_of(_window.values(ds, dataset)) == tf_run, seed


def test_rejection_resample_takes_tensorflows_op_seeds_from_the_graph_seed():
    expected = RESAMPLED["graph_seeded"]
    with ds.Graph().as_default():
        ds.set_random_seed(1)
        datasets = _cases.graph_seeded_resamplings(ds)
        assert sorted(datasets) == sorted(expected)
        for name, dataset in datasets.items():
            assert _run_of(_window.values(ds, dataset)) == expected[name], name


@pytest.mark.parametrize("name", sorted(TF["sparse_batches"]))
def test_dense_to_sparse_batch_is_tensorflows(name):
    expected = TF["sparse_batches"][name]
    with ds.Graph().as_default():
        dataset = _cases.sparse_batches(ds)[name]
        assert ds.data.get_output_shapes(dataset).as_list() == expected["shape"]
        assert ds.data.get_output_classes(dataset) is ds.SparseTensor
        element = dataset.make_one_shot_iterator().get_next()
        assert isinstance(element, ds.SparseTensor)
        got = []
        with ds.Session() as sess:
            try:
                while True:
                    v = sess.run(element)
                    got.append([v.indices.tolist(), v.values.tolist(),
                                v.dense_shape.tolist()])
            except ds.errors.OutOfRangeError:
                assert "error" not in expected
            except ds.errors.OpError as e:
                assert type(e).__name__ == expected["error"]["class"]
                assert e.message in expected["error"]["message"]
    assert got == expected["batches"]


def test_a_dataset_of_sparse_tensors_refuses_what_needs_dense_elements():
    with ds.Graph().as_default():
        sparse = ds.data.Dataset.range(3).map(lambda x: ds.fill([2], x)).apply(
            E.dense_to_sparse_batch(2, [2]))
        for build in (lambda: sparse.padded_batch(2, [2]), lambda: sparse.window(2),
                      lambda: sparse.apply(E.dense_to_sparse_batch(2, [2])),
                      lambda: sparse.make_one_shot_iterator().get_next_as_optional()):
            with pytest.raises(TypeError, match="SparseTensor"):
                build()
        with pytest.raises(TypeError, match="single component"):
            ds.data.Dataset.zip((ds.data.Dataset.range(2), ds.data.Dataset.range(2))).apply(
                E.dense_to_sparse_batch(2, [2]))


def test_reduce_folds_every_element_from_the_start_on_each_run():
    graph = ds.Graph()
    with graph.as_default():
        numbers = ds.data.Dataset.range(5)
        total = numbers.reduce(np.int64(0), lambda state, x: state + x)
        rows = np.arange(6, dtype=np.float32).reshape(3, 2)
        pairs = ds.data.Dataset.from_tensor_slices((rows, np.arange(3))).reduce(
            (np.float32(1), np.int64(0)), lambda s, e: (s[0] * ds.reduce_sum(e[0]), s[1] + e[1]))
        columns = ds.data.Dataset.from_tensor_slices({"a": rows}).reduce(
            {"sum": ds.zeros([2])}, lambda s, e: {"sum": s["sum"] + e["a"]})
        start = ds.placeholder(ds.int64, [])
        empty = numbers.filter(lambda x: x > 10).reduce(start, lambda s, x: s + x)
    with ds.Session(graph=graph) as sess:
        first = sess.run([total, pairs, columns])
        again = sess.run(total)
        nothing = sess.run(empty, {start: 7})
    assert total.op.type == "DatasetReduce" and total.name == "ReduceDataset:0"
    assert first[0] == again == 10 and first[0].dtype == np.int64
    assert first[1] == (np.float32(np.prod(rows.sum(axis=1))), 3)
    np.testing.assert_array_equal(first[2]["sum"], rows.sum(axis=0))
    assert columns["sum"].shape.as_list() == [2]
    assert nothing == 7


def test_reduce_checks_the_new_state_and_fails_the_run_on_a_pipeline_error():
    numbers = ds.data.Dataset.range(3)
    with pytest.raises(TypeError, match="types for the new state"):
        numbers.reduce(np.int64(0), lambda s, x: ds.cast(s, ds.float32))
    with pytest.raises(TypeError, match="structure for the new state"):
        numbers.reduce(np.int64(0), lambda s, x: (s, s))
    with pytest.raises(ValueError, match="Dataset.reduce: the new state's shape"):
        numbers.reduce(ds.zeros([1], ds.int64), lambda s, x: ds.concat([s, [x]], 0))
    logs = ds.data.Dataset.from_tensor_slices([1.0, 0.0]).map(
        lambda x: ds.debugging.check_numerics(ds.log(x), "bad"))
    total = logs.reduce(np.float32(0), lambda s, x: s + x)
    with ds.Session() as sess, pytest.raises(ds.errors.InvalidArgumentError):
        sess.run(total)
