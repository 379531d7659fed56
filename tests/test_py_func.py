"""``ds.py_func`` and ``ds.numpy_function``: Python functions as ops, with TF1's checks
(the messages TF 2.21 gives for the same mistakes), in sessions, inside a dataset's map,
and on a graph imported where the function was never registered."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import devsession as ds
from devsession.errors import (FailedPreconditionError, InvalidArgumentError,
                               OutOfRangeError, ResourceExhaustedError, UnimplementedError,
                               UnknownError)
from fake_gpu import fake_gpus

X = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)


def test_values_go_through_the_python_function():
    x = ds.placeholder(ds.float32, [None, 2])
    doubled = ds.py_func(lambda a: a * 2, [x], ds.float32)
    total, count = ds.py_func(lambda a, b: (a + b, np.int64(a.size)), [x, doubled],
                              [ds.float32, ds.int64])
    assert doubled.shape.ndims is None and doubled.dtype == ds.float32   # as TF: unknown
    with ds.Session() as sess:
        got = sess.run([doubled, total, count], {x: X})
    np.testing.assert_array_equal(got[0], X * 2)
    np.testing.assert_array_equal(got[1], X * 3)
    assert got[2] == 4 and got[2].dtype == np.int64


def test_stateful_calls_happen_once_per_run_and_strings_come_back_as_bytes():
    calls = []

    def record(a):
        calls.append(a.copy())
        return np.array([b"seen", "twice"], dtype=object)
    words = ds.numpy_function(record, [ds.constant(3)], ds.string)
    with ds.Session() as sess:
        assert sess.run(words).tolist() == [b"seen", b"twice"]
        sess.run(words)
    assert len(calls) == 2 and calls[0] == 3
    assert ds.py_func(record, [ds.constant(1)], [], name="effect").type == "PyFunc"


@pytest.mark.parametrize("result,tout,message", [
    (lambda a: a.astype(np.float64), ds.float32,
     r"0-th value returned by 'PyFunc' is float64, but expects float32"),
    (lambda a: [1.5, 2.5], ds.float32, r"returns 2 values, but expects to see 1 values"),
    (lambda a: 3, ds.float32, r"is int64, but expects float32"),
])
def test_results_must_match_tout_exactly_as_in_tf(result, tout, message):
    value = ds.py_func(result, [ds.constant(X)], tout)
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match=message) as info:
            sess.run(value)
    assert info.value.node_name == value.op.name


def test_exceptions_become_op_errors_naming_the_node():
    broken = ds.py_func(lambda a: 1 // int(a), [ds.constant(0)], ds.int64)
    ended = ds.py_func(lambda a: next(iter(())), [ds.constant(0)], ds.int64)
    with ds.Session() as sess:
        with pytest.raises(UnknownError, match="ZeroDivisionError") as info:
            sess.run(broken)
        assert info.value.node_name == broken.op.name
        with pytest.raises(OutOfRangeError):
            sess.run(ended)


def _raises(exception):
    def fails(a):
        raise exception
    return fails


# what TF 2.21 raised for each (py_func.cc picks the class; subclasses count)
@pytest.mark.parametrize("exception,error", [
    (ValueError("bad"), InvalidArgumentError), (TypeError("bad"), InvalidArgumentError),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), InvalidArgumentError),
    (StopIteration(), OutOfRangeError), (MemoryError("bad"), ResourceExhaustedError),
    (NotImplementedError("bad"), UnimplementedError), (KeyError("bad"), UnknownError),
    (AssertionError("bad"), UnknownError), (StopAsyncIteration("bad"), UnknownError),
    (OutOfRangeError("bad"), UnknownError)])
@pytest.mark.parametrize("wrap", [ds.py_func, ds.numpy_function, ds.py_function])
def test_an_exception_becomes_the_op_error_tf_picks_for_its_class(exception, error, wrap):
    value = wrap(_raises(exception), [ds.constant(1.0)], ds.float32)
    with ds.Session() as sess:
        with pytest.raises(error, match=type(exception).__name__) as info:
            sess.run(value)
    assert type(info.value) is error and info.value.node_name == value.op.name


def test_a_graph_from_another_process_has_no_function_for_the_token():
    graph = ds.Graph()
    with graph.as_default():
        ds.py_func(np.negative, [ds.constant(X)], ds.float32, name="neg")
    definition = graph.as_graph_def()
    token = next(n for n in definition.node if n.name == "neg").attr["token"]
    token.s = b"pyfunc_0"          # TF's first token; another process's numbering
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(definition, name="")
    with ds.Session(graph=imported) as sess:
        with pytest.raises(FailedPreconditionError, match="where its graph was built"):
            sess.run("neg:0")


def test_no_gradient_flows_through_a_py_func_as_in_tf():
    """TF 2.21: PyFunc and PyFuncStateless are not differentiable (None, so minimize
    trains what else reaches the loss); py_function's gradient, which TF takes on its eager
    tape, is a LookupError here, never a silent None."""
    x = ds.placeholder(ds.float32, [2])
    for stateful in (True, False):
        y = ds.py_func(np.square, [x], ds.float32, stateful=stateful)
        assert ds.gradients(ds.reduce_sum(y), x) == [None]
        (grad,) = ds.gradients(ds.reduce_sum(y * x), x)
        with ds.Session() as sess:
            np.testing.assert_array_equal(
                sess.run(grad, {y: [4.0, 9.0], x: [2.0, 3.0]}), [4.0, 9.0])
    with pytest.raises(LookupError, match="py_function 'EagerPyFunc'.*eager GradientTape"):
        ds.gradients(ds.reduce_sum(ds.py_function(lambda a: a * 2, [x], ds.float32)), x)


def test_a_dataset_map_can_call_python():
    rows = ds.data.Dataset.from_tensor_slices(X).map(
        lambda r: ds.py_func(lambda a: np.sort(a), [r], ds.float32))
    value = rows.make_one_shot_iterator().get_next()
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(value), np.sort(X[0]))
        np.testing.assert_array_equal(sess.run(value), np.sort(X[1]))


def test_a_gpu_session_runs_it_on_the_host(caplog):
    with fake_gpus(1, without={"PyFunc", "PyFuncStateless"}):
        value = ds.py_func(lambda a: a + 1, [ds.constant(X)], ds.float32)
        scaled = value * 2.0
        options = ds.SessionOptions(device="gpu:0", allow_soft_placement=False)
        with caplog.at_level(logging.WARNING, logger="devsession"):
            with ds.Session(options=options) as sess:
                np.testing.assert_array_equal(sess.run(scaled), (X + 1) * 2)
                placed = sess.placement()
    assert placed[value.op.name].endswith("CPU:0")
    assert placed[scaled.op.name].endswith("GPU:0")


def test_bad_arguments_at_build_time():
    with pytest.raises(TypeError, match="callable"):
        ds.py_func("np.negative", [X], ds.float32)
