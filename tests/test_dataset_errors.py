"""An error inside a tf.data pipeline is raised for its get_next alone and the iterator
goes on, as TF's (``kernels/reference/dataset_failures.py``): each stage's sequence of
values and errors, recorded from TensorFlow 2.21 (``tf.compat.v1``, graph mode)."""

import numpy as np
import pytest

import devsession as ds
from devsession.errors import (FailedPreconditionError, InvalidArgumentError, OpError,
                               OutOfRangeError)

NAN = float("nan")
ERROR, UNKNOWN, FAILED, END = ("InvalidArgumentError", "UnknownError",
                               "FailedPreconditionError", "end")
D7 = [1., 2., NAN, 4., 5., NAN, 7.]
D9 = [1., NAN, 3., 4., 5., 6., NAN, 8., 9.]


def _checked(values):
    """A dataset of ``values`` (float32) whose NaNs are check_numerics errors."""
    return ds.data.Dataset.from_tensor_slices(np.array(values, np.float32)).map(
        lambda x: ds.debugging.check_numerics(x, "bad element"))


def _checked_in(function):
    """``function`` of each of D7's values, its NaN a check_numerics error."""
    return lambda x: function(ds.debugging.check_numerics(x, "bad element"))


def _ragged(count, sizes):
    """``count`` float32 vectors of ones, element n of length ``n % sizes + 1``."""
    return ds.data.Dataset.range(count).map(
        lambda n: ds.fill(ds.reshape(ds.cast(n % sizes, ds.int32) + 1, [1]), 1.0))


def _no_fusion(name="map_and_batch_fusion"):
    options = ds.data.Options()
    setattr(options.experimental_optimization, name, False)
    return options


def _raising(kind):
    def generate():
        yield 1.0
        yield 2.0
        raise kind("boom")
    return generate


def _yielding_text():
    yield 1.0
    yield "x"
    yield 3.0


def _outcomes(dataset, count=20) -> list:
    """What ``count`` get_next runs give: values, error class names, "end"."""
    value = ds.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with ds.Session() as sess:
        for _ in range(count):
            try:
                v = sess.run(value)
            except OutOfRangeError:
                out.append(END)
                break
            except OpError as e:
                out.append(type(e).__name__)
                continue
            out.append(tuple(np.asarray(x).tolist() for x in v) if isinstance(v, tuple)
                       else np.asarray(v).tolist())
    return out


ELEMENTWISE = {
    "map": (lambda: _checked(D7), [1.0, 2.0, ERROR, 4.0, 5.0, ERROR, 7.0, END]),
    "map_parallel": (
        lambda: ds.data.Dataset.from_tensor_slices(np.array(D7, np.float32)).map(
            _checked_in(lambda x: x), num_parallel_calls=2),
        [1.0, 2.0, ERROR, 4.0, 5.0, ERROR, 7.0, END]),
    "filter_predicate": (
        lambda: ds.data.Dataset.from_tensor_slices(np.array(D7, np.float32)).filter(
            _checked_in(lambda x: x > 1.5)),
        [2.0, ERROR, 4.0, 5.0, ERROR, 7.0, END]),
    "filter_after": (lambda: _checked(D7).filter(lambda x: x > 1.5),
                     [2.0, ERROR, 4.0, 5.0, ERROR, 7.0, END]),
    "take_while": (lambda: _checked(D9).take_while(lambda x: x < 7),
                   [1.0, ERROR, 3.0, 4.0, 5.0, 6.0, ERROR, END]),
    "scan": (lambda: _checked([1., NAN, 3., 4.]).scan(
        ds.constant(0.), lambda s, x: (s + x, s + x)), [1.0, ERROR, 4.0, 8.0, END]),
    "scan_function": (       # the state stays 3 past the error: sqrt(3 + 4) next
        lambda: ds.data.Dataset.from_tensor_slices(
            np.array([1., 2., -30., 4.], np.float32)).scan(
            ds.constant(0.), lambda s, x: (s + x, ds.debugging.check_numerics(
                ds.sqrt(s + x), "bad"))),
        [1.0, 1.7320507764816284, ERROR, 2.6457512378692627, END]),
    "unique": (lambda: _checked([1., 1., NAN, 3., 1.]).map(
        lambda x: ds.cast(x, ds.int64)).apply(ds.data.experimental.unique()),
        [1, ERROR, 3, END]),
    "unbatch_ragged": (lambda: ds.data.Dataset.range(3).map(
        lambda n: (ds.fill([n + 1], n), ds.fill([2], n))).unbatch(),
        [ERROR, (1, 1), (1, 1), ERROR, END]),
    "concatenate_prefetch": (lambda: _checked([1., NAN]).concatenate(
        _checked([NAN, 4.])).prefetch(2), [1.0, ERROR, ERROR, 4.0, END]),
    "ignore_errors": (lambda: _ragged(7, 3).take(100).batch(2).apply(
        ds.data.experimental.ignore_errors()), [[[1.0]], END]),
}

BATCHES = {       # a batch right after a map is TF's fused MapAndBatch: it takes them all
    "after_map": (lambda: _checked(D9).batch(2),
                  [ERROR, [3.0, 4.0], [5.0, 6.0], ERROR, [9.0], END]),
    "after_map_drop": (lambda: _checked(D7).batch(2, drop_remainder=True),
                       [[1.0, 2.0], ERROR, ERROR, END]),
    "unfused": (lambda: _checked(D9).take(100).batch(3),
                [ERROR, [3.0, 4.0, 5.0], ERROR, [8.0, 9.0], END]),
    "unfused_drop": (lambda: _checked(D9).take(100).batch(3, drop_remainder=True),
                     [ERROR, [3.0, 4.0, 5.0], ERROR, END]),
    "unfused_by_options": (lambda: _checked(D9).batch(2).with_options(_no_fusion()),
                           [ERROR, [3.0, 4.0], [5.0, 6.0], ERROR, [8.0, 9.0], END]),
    "ragged_after_map": (lambda: _ragged(5, 2).batch(2), [ERROR, ERROR, [[1.0]], END]),
    "ragged": (lambda: _ragged(7, 3).take(100).batch(2),
               [ERROR, ERROR, ERROR, [[1.0]], END]),
    "padded": (lambda: _checked(D9).map(lambda x: ds.fill([ds.cast(x, ds.int32) % 3], x))
               .padded_batch(3, [None]),
               [ERROR, [[0.0, 0.0], [4.0, 0.0], [5.0, 5.0]], ERROR,
                [[8.0, 8.0], [0.0, 0.0]], END]),
    "unbatched": (lambda: _checked(D9).take(100).batch(2).unbatch(),
                  [ERROR, 3.0, 4.0, 5.0, 6.0, ERROR, 8.0, 9.0, END]),
    "window": (lambda: _checked(D9).window(2, shift=1, stride=2).flat_map(
        lambda w: w.batch(2)),
        [[1.0, 3.0], ERROR, [3.0, 5.0], [4.0, 6.0], ERROR, [6.0, 8.0], ERROR, [8.0], [9.0],
         END]),
    "dense_to_sparse": (lambda: _checked(D9).map(
        lambda x: ds.fill([ds.cast(x, ds.int32) % 3], x)).apply(
        ds.data.experimental.dense_to_sparse_batch(2, [5])),
        [ERROR, ([[1, 0]], [4.0], [2, 5]), ([[0, 0], [0, 1]], [5.0, 5.0], [2, 5]), ERROR,
         ([[0, 0], [0, 1]], [8.0, 8.0], [2, 5]), END]),
}

ORDER = {         # stages that reorder, count or repeat elements
    "shuffle": (lambda: _checked(D7).shuffle(3, seed=1),
                [ERROR, 2.0, 5.0, ERROR, 1.0, 7.0, 4.0, END]),
    "shuffle_repeat": (      # TF's fused ShuffleAndRepeat reads epoch 2 sooner: its error
        lambda: _checked(D9).shuffle(3, seed=1).repeat(2),
        [ERROR, 3.0, 5.0, 1.0, ERROR, 8.0, 4.0, 6.0, ERROR, 9.0, 3.0, 5.0, 1.0, ERROR, 8.0,
         6.0, 9.0, 4.0, END]),
    "shuffle_repeat_unfused_by_options": (
        lambda: _checked(D9).shuffle(3, seed=1).repeat(2).with_options(
            _no_fusion("shuffle_and_repeat_fusion")),
        [ERROR, 3.0, 5.0, 1.0, ERROR, 8.0, 4.0, 6.0, 9.0, ERROR, 3.0, 5.0, 1.0, ERROR, 8.0,
         6.0, 9.0, 4.0, END]),
    "shuffle_all_repeat": (lambda: _checked(D9).shuffle(20, seed=3).repeat(2),
                           [ERROR, ERROR, ERROR, ERROR, 8.0, 3.0, 6.0, 5.0, 1.0, 4.0, 9.0,
                            3.0, 9.0, 4.0, 6.0, 5.0, 8.0, 1.0, END]),
    "shuffle_repeat_forever_errors_only": (
        lambda: _checked([NAN, NAN]).shuffle(2, seed=1).repeat(), [ERROR, ERROR, END]),
    "repeat": (lambda: _checked([1., NAN, 3.]).repeat(2),
               [1.0, ERROR, 3.0, 1.0, ERROR, 3.0, END]),
    "repeat_forever_errors_only": (lambda: _checked([NAN]).repeat(), [ERROR, END]),
    "repeat_errors_only": (lambda: _checked([NAN]).repeat(3), [ERROR, ERROR, ERROR, END]),
    "take": (lambda: _checked(D7).take(4), [1.0, 2.0, ERROR, 4.0, 5.0, END]),
    "skip": (lambda: _checked(D7).skip(3), [ERROR, ERROR, END]),
    "skip_again": (lambda: _checked(D7 + [8., 9., 10., 11.]).skip(4),
                   [ERROR, ERROR, 11.0, END]),
    "shard_0": (lambda: _checked(D9).shard(2, 0), [1.0, ERROR, 4.0, 6.0, ERROR, 9.0, END]),
    "shard_1": (lambda: _checked(D9).shard(2, 1), [ERROR, 3.0, 5.0, ERROR, 8.0, END]),
    "cache": (lambda: _checked([1., NAN, 3.]).cache().repeat(2),
              [1.0, ERROR, 3.0, 1.0, 3.0, END]),
    "assert_cardinality": (lambda: _checked([1., NAN, 3.]).apply(
        ds.data.experimental.assert_cardinality(2)), [1.0, ERROR, 3.0, END]),
    "assert_cardinality_short": (lambda: _checked([1., NAN, 3.]).apply(
        ds.data.experimental.assert_cardinality(3)), [1.0, ERROR, 3.0] + [FAILED] * 17),
    "assert_cardinality_long": (lambda: _checked([1., NAN, 3., 4.]).apply(
        ds.data.experimental.assert_cardinality(1)), [1.0, ERROR] + [FAILED] * 18),
}

COMBINED = {      # stages of several datasets
    "zip": (lambda: ds.data.Dataset.zip((_checked(D7), ds.data.Dataset.range(10))),
            [(1.0, 0), (2.0, 1), ERROR, (4.0, 3), (5.0, 4), ERROR, (7.0, 6), END]),
    "zip_error_then_end": (lambda: ds.data.Dataset.zip(
        (_checked([1., NAN]), ds.data.Dataset.range(1))), [(1.0, 0), ERROR, END]),
    "zip_end_first": (lambda: ds.data.Dataset.zip(
        (ds.data.Dataset.range(1), _checked([1., NAN]))), [(0, 1.0), END]),
    "flat_map": (lambda: _checked([1., NAN, 3.]).flat_map(
        lambda x: ds.data.Dataset.from_tensors(x).repeat(2)),
        [1.0, 1.0, ERROR, 3.0, 3.0, END]),
    "interleave_inner": (lambda: ds.data.Dataset.range(3).interleave(
        lambda i: _checked([1., NAN, 3.]).map(lambda x: x * ds.cast(i + 1, ds.float32)),
        cycle_length=2, block_length=1),
        [1.0, 2.0, ERROR, 3.0, ERROR, 6.0, 3.0, ERROR, 9.0, END]),
    "interleave_input": (lambda: _checked(D9[:6]).interleave(
        lambda x: ds.data.Dataset.from_tensors(x).repeat(2), cycle_length=2,
        block_length=1),
        [1.0, ERROR, 3.0, 1.0, 3.0, 4.0, 5.0, 4.0, 5.0, 6.0, 6.0, END]),
    "interleave_function": (lambda: ds.data.Dataset.range(4).interleave(
        lambda i: ds.data.Dataset.from_tensors(ds.debugging.check_numerics(
            ds.sqrt(ds.cast(i, ds.float32) - 1.5), "bad")).repeat(2),
        cycle_length=2, block_length=2),
        [ERROR, ERROR, 0.7071067690849304, 0.7071067690849304, 1.2247449159622192,
         1.2247449159622192, END]),
    "interleave_parallel_input": (lambda: _checked(D9[:6]).interleave(   # a slot of it
        lambda x: ds.data.Dataset.from_tensors(x).repeat(3), cycle_length=2,
        block_length=2, num_parallel_calls=2),
        [1.0, 1.0, ERROR, 1.0, 3.0, 3.0, 4.0, 4.0, 3.0, 4.0, 5.0, 5.0, 6.0, 6.0, 5.0, 6.0,
         END]),
    "interleave_parallel_inner": (lambda: ds.data.Dataset.range(3).interleave(
        lambda i: _checked([1., NAN, 3.]).map(lambda x: x * ds.cast(i + 1, ds.float32)),
        cycle_length=2, block_length=2, num_parallel_calls=2),   # counted in its block
        [1.0, ERROR, 2.0, ERROR, 3.0, 6.0, 3.0, ERROR, 9.0, END]),
    "parallel_interleave": (lambda: ds.data.Dataset.range(3).apply(
        ds.data.experimental.parallel_interleave(
            lambda i: _checked([1., NAN, 3.]).map(lambda x: x * ds.cast(i + 1, ds.float32)),
            cycle_length=2)),
        [1.0, 2.0, ERROR, ERROR, 3.0, 6.0, 3.0, ERROR, 9.0, END]),
    "choose_from_datasets": (lambda: ds.data.experimental.choose_from_datasets(
        [_checked(D9), ds.data.Dataset.range(10, 20).map(lambda x: ds.cast(x, ds.float32))],
        ds.data.Dataset.from_tensor_slices(ds.constant([0, 1, 0, 0, 1, 0], ds.int64))),
        [1.0, 10.0, ERROR, 3.0, 11.0, 4.0, END]),
    "group_by_window": (lambda: _checked(D9).map(lambda x: ds.cast(x, ds.int64)).apply(
        ds.data.experimental.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), 3)),
        [ERROR, [1, 3, 5], ERROR, [4, 6, 8], [9], END]),
    "group_by_window_size": (lambda: ds.data.Dataset.range(6).apply(
        ds.data.experimental.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3),
                                             window_size_func=lambda k: 2 - k * 2)),
        [ERROR, [0, 2], ERROR, ERROR, [4], END]),
    "group_by_reducer": (lambda: _checked(D9).map(lambda x: ds.cast(x, ds.int64)).apply(
        ds.data.experimental.group_by_reducer(lambda x: x % 2, ds.data.experimental.Reducer(
            lambda k: ds.constant(0, ds.int64), lambda s, x: s + x, lambda s: s))),
        [ERROR, ERROR, 18, 18, END]),
}

GENERATORS = {    # the generator's exception ends it; a value that does not fit does not
    "value_error": (lambda: ds.data.Dataset.from_generator(
        _raising(ValueError), ds.float32, []), [1.0, 2.0, ERROR, END]),
    "runtime_error_repeated": (lambda: ds.data.Dataset.from_generator(
        _raising(RuntimeError), ds.float32, []).repeat(2),
        [1.0, 2.0, UNKNOWN, 1.0, 2.0, UNKNOWN, END]),
    "bad_value": (lambda: ds.data.Dataset.from_generator(_yielding_text, ds.float32, []),
                  [1.0, ERROR, 3.0, END]),
    "ignore_errors": (lambda: ds.data.Dataset.from_generator(
        _raising(ValueError), ds.float32, []).apply(ds.data.experimental.ignore_errors()),
        [1.0, 2.0, END]),
}


def _cases(table: dict) -> list:
    return [pytest.param(build, expected, id=name)
            for name, (build, expected) in table.items()]


@pytest.mark.parametrize("build, expected", _cases(ELEMENTWISE))
def test_an_elements_error_is_its_get_next_alone(build, expected):
    assert _outcomes(build()) == expected


@pytest.mark.parametrize("build, expected", _cases(BATCHES))
def test_a_batch_that_meets_an_error_is_that_error(build, expected):
    assert _outcomes(build()) == expected


@pytest.mark.parametrize("build, expected", _cases(ORDER))
def test_counting_and_reordering_stages_go_on_past_an_error(build, expected):
    assert _outcomes(build()) == expected


@pytest.mark.parametrize("build, expected", _cases(COMBINED))
def test_stages_of_several_datasets_go_on_past_an_error(build, expected):
    assert _outcomes(build()) == expected


@pytest.mark.parametrize("build, expected", _cases(GENERATORS))
def test_from_generator_errors_as_tfs(build, expected):
    assert _outcomes(build()) == expected


def test_the_error_is_the_map_functions_and_the_iterator_is_not_failed():
    iterator = _checked(D7).make_initializable_iterator()
    value = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer)
        assert [sess.run(value) for _ in range(2)] == [1.0, 2.0]
        with pytest.raises(InvalidArgumentError, match="bad element") as info:
            sess.run(value)
        assert "CheckNumerics" in info.value.node_name
        assert sess.run(value) == 4.0
        sess.run(iterator.initializer)                 # starts it again, as before
        assert sess.run(value) == 1.0


def test_an_error_that_ends_a_stage_still_fails_the_iterator():
    """rejection_resample is not mirrored past an error: it ends the iterator, and
    later get_nexts say so until the initializer runs again."""
    dataset = _checked([1., NAN, 3., 4.]).map(lambda x: ds.cast(x, ds.int64) % 2).apply(
        ds.data.experimental.rejection_resample(lambda x: ds.cast(x, ds.int32),
                                                [0.5, 0.5], initial_dist=[0.25, 0.75],
                                                seed=3))
    iterator = dataset.make_initializable_iterator()
    value = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer)
        with pytest.raises(InvalidArgumentError, match="bad element"):
            while True:
                sess.run(value)
        with pytest.raises(FailedPreconditionError, match="failed earlier"):
            sess.run(value)


def _records(path, records):
    with ds.io.TFRecordWriter(str(path)) as writer:
        for record in records:
            writer.write(record)
    return str(path)


def test_a_file_that_cannot_be_opened_is_its_error_at_every_get_next(tmp_path):
    """TF's reader opens it again each time: NotFoundError, never the files after it."""
    first = _records(tmp_path / "a.tfr", [b"a1", b"a2"])
    later = _records(tmp_path / "b.tfr", [b"b1"])
    dataset = ds.data.TFRecordDataset([first, str(tmp_path / "missing.tfr"), later])
    outcomes = _outcomes(dataset, 5)
    assert outcomes == [b"a1", b"a2"] + ["NotFoundError"] * 3


def test_a_corrupt_record_ends_its_file_and_the_next_file_follows(tmp_path):
    corrupt = bytearray(open(_records(tmp_path / "c.tfr", [b"c1", b"c2", b"c3"]),
                             "rb").read())
    corrupt[len(corrupt) // 2] ^= 0xFF                      # inside c2: its checksum
    (tmp_path / "c.tfr").write_bytes(bytes(corrupt))
    later = _records(tmp_path / "a.tfr", [b"a1"])
    dataset = ds.data.TFRecordDataset([str(tmp_path / "c.tfr"), later])
    assert _outcomes(dataset) == [b"c1", "DataLossError", b"a1", END]


def test_a_parallel_read_of_a_missing_file_goes_on_with_the_other_files(tmp_path):
    first = _records(tmp_path / "a.tfr", [b"a1", b"a2"])
    dataset = ds.data.TFRecordDataset([first, str(tmp_path / "missing.tfr")],
                                      num_parallel_reads=2)
    assert _outcomes(dataset, 4) == [b"a1", "NotFoundError", b"a2", "NotFoundError"]


def test_a_malformed_csv_record_is_its_error_and_the_next_record_follows(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("1,2\n3,x\n5,6\n7\n8,9\n")
    dataset = ds.data.experimental.CsvDataset(str(path), [ds.int32, ds.int32])
    assert _outcomes(dataset) == [(1, 2), ERROR, (5, 6), ERROR, (8, 9), END]

