"""``Dataset.from_generator`` (``data/generator.py``): elements a Python generator
yields, converted and checked against the declared dtypes and shapes, the generator
called again with fed ``args`` each time the iterator starts."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from test_data import drain, run_all

Dataset = ds.data.Dataset


def ramps(n):
    for i in range(int(n)):
        yield i, [float(i)] * i


def test_tuples_of_a_generator_padded_into_batches():
    dataset = Dataset.from_generator(ramps, (ds.int64, ds.float32), ([], [None]), args=(4,))
    assert dataset.output_types == (ds.int64, ds.float32)
    assert [s.as_list() for s in dataset.output_shapes] == [[], [None]]
    batches = run_all(dataset.padded_batch(2))
    np.testing.assert_array_equal(batches[0][0], [0, 1])
    np.testing.assert_array_equal(batches[0][1], np.float32([[0], [1]]))
    np.testing.assert_array_equal(batches[1][1], np.float32([[2, 2, 0], [3, 3, 3]]))
    assert batches[1][0].dtype == np.int64


def test_dicts_and_strings_and_unknown_shapes():
    def words():
        yield {"word": "alpha", "ids": [1, 2]}
        yield {"word": b"be", "ids": [3]}
    dataset = Dataset.from_generator(words, {"word": ds.string, "ids": ds.int32})
    assert dataset.output_shapes["ids"].ndims is None
    got = run_all(dataset)
    assert [g["word"] for g in got] == [b"alpha", b"be"]
    assert [g["ids"].tolist() for g in got] == [[1, 2], [3]]
    assert got[0]["ids"].dtype == np.int32


def test_args_are_fed_when_the_iterator_starts_and_the_generator_runs_again():
    n = ds.placeholder(ds.int64, [])
    calls = []

    def counting(limit):
        calls.append(int(limit))
        yield from range(int(limit))
    iterator = Dataset.from_generator(counting, ds.int64, [], args=[n]) \
        .map(lambda x: x * 10).make_initializable_iterator()
    value = iterator.get_next()
    with ds.Session() as sess:
        sess.run(iterator.initializer, {n: 3})
        first = drain(sess, value)
        sess.run(iterator.initializer, {n: 2})
        second = drain(sess, value)
    assert (first, second, calls) == ([0, 10, 20], [0, 10], [3, 2])


@pytest.mark.parametrize("yielded, pattern", [
    ("abc", "could not be converted to the expected type. The expected type was float32"),
    ([1.0, 2.0, 3.0], r"yielded an element of shape \[3\] where an element of shape "
                      r"\(2,\) was expected"),
    ([[1.0, 2.0]], r"element of shape \[1, 2\] where"),
])
def test_elements_of_another_dtype_or_shape_are_invalid_arguments(yielded, pattern):
    def once():
        yield [0.5, 1.5]
        yield yielded
    value = Dataset.from_generator(once, ds.float32, [2]).make_one_shot_iterator().get_next()
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(value), np.float32([0.5, 1.5]))
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            sess.run(value)
    assert info.value.node_name


def test_an_element_of_another_structure_is_an_invalid_argument():
    value = Dataset.from_generator(lambda: iter([(1, 2, 3)]), (ds.int64, ds.int64)) \
        .make_one_shot_iterator().get_next()
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="did not match the expected "
                                                       "structure"):
            sess.run(value)


def test_a_generator_must_be_callable():
    with pytest.raises(TypeError, match="must be callable"):
        Dataset.from_generator([1, 2], ds.int64)
