"""TF1's small names: the version constants, ``tf.get_logger``, the ``tf.errors`` code
look-ups, ``tf.summary.FileWriterCache``, ``tf.IndexedSlices`` and the conversions, the
assertion and predicate helpers, ``tf.manip`` / ``tf.dtypes`` / ``tf.io`` / ``tf.math``
spellings.  Expected values are TF 2.21's (tensorflow.compat.v1), noted beside each."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.tf_export import to_tf_graph_def
from devsession.tf_signatures import signature_table


# --- versions, logger, errors -------------------------------------------------------------

def test_version_constants_say_what_devsession_is():
    assert ds.VERSION == ds.__version__ == "0.1.0"
    assert ds.GIT_VERSION == "v0.1.0"
    assert not ds.VERSION.startswith("2.")          # a version-gating script takes its TF1 path
    assert ds.GRAPH_DEF_VERSION == signature_table()["graph_def_version"]
    assert (ds.GRAPH_DEF_VERSION_MIN_CONSUMER, ds.GRAPH_DEF_VERSION_MIN_PRODUCER) == (0, 0)
    assert (ds.CXX11_ABI_FLAG, ds.MONOLITHIC_BUILD) == (0, 0)
    assert isinstance(ds.COMPILER_VERSION, str)


def test_graph_def_version_is_what_an_export_stamps():
    with ds.Graph().as_default() as g:
        ds.constant(1.0) + 2.0
    assert to_tf_graph_def(g).versions.producer == ds.GRAPH_DEF_VERSION


def test_get_logger_is_the_logging_modules():
    assert ds.get_logger() is ds.logging.get_logger()
    assert ds.get_logger().name == "devsession"


def test_error_codes_and_classes():
    E = ds.errors
    assert E.error_code_from_exception_type(E.NotFoundError) == 5        # TF: 5
    assert E.error_code_from_exception_type(E.UnknownError) == 2
    assert E.exception_type_from_error_code(3) is E.InvalidArgumentError
    assert E.exception_type_from_error_code(1) is E.CancelledError
    for code in (0, 99, -1):                                            # TF: KeyError
        with pytest.raises(KeyError):
            E.exception_type_from_error_code(code)
    for cls in (ValueError, E.OpError):               # TF warns and returns an UnknownError
        with pytest.warns(UserWarning, match="Unknown class exception"):
            got = E.error_code_from_exception_type(cls)
        assert isinstance(got, E.UnknownError)


def test_errors_take_tfs_node_def_op_message_signature():
    """TF1 code raises them as TF's classes take them: (node_def, op, message)."""
    E = ds.errors
    error = E.OutOfRangeError(None, None, "no more batches")
    assert (error.message, error.node_name, error.op, str(error)) == \
        ("no more batches", None, None, "no more batches")
    with ds.Graph().as_default():
        op = ds.constant(1.0, name="source").op
        error = E.InvalidArgumentError(None, op, "bad value")
    assert (error.message, error.node_name, error.op) == ("bad value", "source", op)
    error = E.UnknownError("its own words", "node")                   # devsession's form
    assert (error.message, error.node_name, error.op) == ("its own words", "node", None)


def test_file_writer_cache_gives_one_writer_per_logdir(tmp_path):
    ds.summary.FileWriterCache.clear()
    try:
        with ds.Graph().as_default():
            a = ds.summary.FileWriterCache.get(str(tmp_path / "a"))
            assert ds.summary.FileWriterCache.get(str(tmp_path / "a")) is a
            b = ds.summary.FileWriterCache.get(str(tmp_path / "b"))
            assert b is not a
    finally:
        ds.summary.FileWriterCache.clear()
    assert a._closed and b._closed
    assert ds.summary.FileWriterCache.get(str(tmp_path / "a")) is not a
    ds.summary.FileWriterCache.clear()
    assert list((tmp_path / "a").iterdir())          # the event file (with the graph)


# --- the rest of check_ops --------------------------------------------------------------------

def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def test_order_predicates():
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, [None])
        got = run([ds.is_non_decreasing([1, 1, 2]), ds.is_strictly_increasing([1, 1, 2]),
                   ds.is_strictly_increasing([[1, 2], [3, 4]]),      # flattened, as TF's
                   ds.math.is_non_decreasing([3, 2]), ds.is_non_decreasing(x)], {x: []})
        assert [bool(v) for v in got] == [True, False, True, False, True]   # TF's values
        assert run(ds.is_strictly_increasing(x), {x: [5.0]})
        with pytest.raises(TypeError, match="Expected x to be numeric"):
            ds.is_non_decreasing(ds.constant(["a"]))


def test_is_numeric_tensor():
    with ds.Graph().as_default():
        assert ds.is_numeric_tensor(ds.zeros([1], ds.complex64))            # TF: True
        assert ds.is_numeric_tensor(ds.constant([1]))
        assert not ds.is_numeric_tensor(ds.zeros([1], ds.bool))              # TF: False
        assert not ds.is_numeric_tensor(np.zeros(1))                         # TF: False


def test_assert_near():
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, [None], name="x")
        near = ds.assert_near(x, [1.0, 2.0], rtol=0.1, atol=0.0)
        with ds.Session() as sess:
            sess.run(near, {x: [1.05, 2.1]})
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match="x and y not equal to tolerance rtol"):
                sess.run(near, {x: [1.2, 2.0]})
            tight = ds.debugging.assert_near(x, [1.0, 2.0])       # ten epsilons
            sess.run(tight, {x: [1.0, 2.0]})
            with pytest.raises(ds.errors.InvalidArgumentError):
                sess.run(tight, {x: [1.0, 2.001]})


def test_assert_rank_in():
    with ds.Graph().as_default():
        ok = ds.assert_rank_in(ds.zeros([2], name="z"), [0, 1])
        assert ok.type == "NoOp"
        with pytest.raises(ValueError, match=r"^m\.  Tensor zeros:0 must have rank in "
                                             r"\(0, 2\)\.  Received rank 1, shape \(2,\)$"):
            ds.assert_rank_in(ds.zeros([2], name="zeros"), [0, 2], message="m")   # TF's text
        u = ds.placeholder(ds.float32)
        check = ds.debugging.assert_rank_in(u, [0, 2])
        with ds.Session() as sess:
            sess.run(check, {u: [[1.0]]})
            sess.run(check, {u: 1.0})
            with pytest.raises(ds.errors.InvalidArgumentError, match="must have rank in"):
                sess.run(check, {u: [1.0]})


def test_assert_same_float_dtype_and_proper_iterable():
    with ds.Graph().as_default():
        a, b = ds.zeros([1]), ds.zeros([1], ds.float64, name="b")
        assert ds.assert_same_float_dtype([a, ds.zeros([2])]) == ds.float32
        assert ds.assert_same_float_dtype(None, ds.float64) == ds.float64
        assert ds.assert_same_float_dtype() == ds.float32
        with pytest.raises(ValueError, match=r"^b:0, type=<dtype: 'float64'>, must be of the "
                                             r"same type \(<dtype: 'float32'>\) as zeros:0\.$"):
            ds.assert_same_float_dtype([a, b])
        with pytest.raises(ValueError, match="Expected floating point type, got "
                                             "<dtype: 'int32'>"):
            ds.assert_same_float_dtype([ds.constant([1])])
        ds.assert_proper_iterable([a, b])
        ds.assert_proper_iterable((1, 2))
        for value in (a, np.zeros(2), "ab", b"ab"):
            with pytest.raises(TypeError, match='to be a "proper" iterable'):
                ds.assert_proper_iterable(value)
        with pytest.raises(TypeError, match='Expected argument "values" to be iterable'):
            ds.assert_proper_iterable(3)


def test_erfcinv_is_tfs():
    want = [1.1630871536766743, 0.4769362762044699, -0.0, -0.4769362762044699,  # TF 2.21's
            np.inf, -np.inf, np.nan]
    with ds.Graph().as_default():
        got = run(ds.math.erfcinv(np.array([0.1, 0.5, 1.0, 1.5, 0.0, 2.0, 2.5])))
    np.testing.assert_allclose(got, want, rtol=1e-12)


# --- namespace spellings -----------------------------------------------------------------------

SAME = [("manip", n, n) for n in ("batch_to_space_nd", "gather_nd", "reshape", "reverse",
                                   "roll", "scatter_nd", "space_to_batch_nd", "tile")] + [
    ("io", n, n) for n in ("PaddingFIFOQueue", "PriorityQueue", "QueueBase",
                           "RandomShuffleQueue")] + [
    ("io", "match_filenames_once", None), ("math", "zero_fraction", None)] + [
    ("math", n, n) for n in ("is_non_decreasing", "is_strictly_increasing")] + [
    ("debugging", n, n) for n in ("assert_near", "assert_rank_in", "assert_same_float_dtype",
                                  "assert_proper_iterable", "is_numeric_tensor",
                                  "is_non_decreasing", "is_strictly_increasing")]


@pytest.mark.parametrize("namespace,name,same", SAME, ids=[f"{n}.{m}" for n, m, _ in SAME])
def test_namespace_spellings(namespace, name, same):
    other = {"match_filenames_once": ds.train.match_filenames_once,
             "zero_fraction": ds.nn.zero_fraction}
    want = getattr(ds, same) if same else other[name]
    assert getattr(getattr(ds, namespace), name) is want
    assert name in getattr(ds, namespace).__all__


def test_manip_runs_and_names_what_it_lacks():
    with ds.Graph().as_default():
        x = ds.constant([[1, 2, 3], [4, 5, 6]])
        got = run([ds.manip.roll(x, 1, axis=1), ds.manip.reverse(x, [0]),
                   ds.manip.tile(x[:1], [2, 1])])
    np.testing.assert_array_equal(got[0], [[3, 1, 2], [6, 4, 5]])
    np.testing.assert_array_equal(got[1], [[4, 5, 6], [1, 2, 3]])
    np.testing.assert_array_equal(got[2], [[1, 2, 3], [1, 2, 3]])
    from devsession.unsupported import UnsupportedTF1Error
    with pytest.raises(UnsupportedTF1Error, match=r"^tf\.manip\.unstack is not supported"):
        ds.manip.unstack  # noqa: B018


# --- IndexedSlices -----------------------------------------------------------------------------

def test_indexed_slices_converts_to_the_sum_of_its_rows_and_fetches_as_a_value():
    with ds.Graph().as_default():
        s = ds.IndexedSlices(ds.constant([[1., 2.], [3., 4.], [5., 6.]]), ds.constant([2, 0, 2]),
                             ds.constant([4, 2]))
        assert ds.convert_to_tensor_or_indexed_slices(s) is s
        assert s.dtype == ds.float32 and s.values.shape.as_list() == [3, 2]
        dense, value = run([ds.convert_to_tensor(s), s])
        np.testing.assert_array_equal(dense, [[3, 4], [0, 0], [6, 8], [0, 0]])   # TF's
        assert isinstance(value, ds.IndexedSlicesValue)
        np.testing.assert_array_equal(value.indices, [2, 0, 2])
        np.testing.assert_array_equal(value.dense_shape, [4, 2])
        assert run(ds.reduce_sum(s)) == 21.0                        # an op takes it densely
        with pytest.raises(ValueError, match="Incompatible tensor conversion requested to "
                                             "`dtype` float64"):
            ds.convert_to_tensor_or_indexed_slices(s, ds.float64)
        with pytest.raises(ValueError, match="Tensor conversion requested for IndexedSlices "
                                             "for argument `value` without dense_shape"):
            ds.convert_to_tensor(ds.IndexedSlices(ds.constant([1.]), ds.constant([0])))
        c = ds.convert_to_tensor_or_indexed_slices([1.0, 2.0])
        assert isinstance(c, ds.Tensor) and c.dtype == ds.float32


def test_convert_to_tensor_or_sparse_tensor():
    with ds.Graph().as_default():
        sp = ds.convert_to_tensor_or_sparse_tensor(
            ds.SparseTensorValue([[0]], np.array([1.0], np.float32), [2]))
        assert isinstance(sp, ds.SparseTensor)
        assert ds.convert_to_tensor_or_sparse_tensor(sp) is sp
        with pytest.raises(RuntimeError, match=r"^Sparse dtype mismatch\. Requested: int32,  "
                                               r"Actual: float32$"):
            ds.convert_to_tensor_or_sparse_tensor(sp, ds.int32)
        assert isinstance(ds.convert_to_tensor_or_sparse_tensor([1]), ds.Tensor)


def test_a_tf1_clipping_loop_over_indexed_slices_keeps_the_update_sparse():
    """TF1's loop: IndexedSlices gradients clipped by their values and rebuilt.  A
    ds.gradients result is a dense tensor (its rows recorded), so it takes the dense
    branch; an IndexedSlices the program builds still reaches the optimizer as rows."""
    with ds.Graph().as_default():
        emb = ds.Variable(np.ones((4, 2), np.float32), name="emb")
        ids = ds.constant([1, 1, 3])
        loss = ds.reduce_sum(ds.gather(emb, ids) * 2.0)
        (grad,) = ds.gradients(loss, [emb])
        assert not isinstance(grad, ds.IndexedSlices)
        rows = ds.IndexedSlices(ds.fill([3, 2], 2.0), ids, ds.shape(emb))
        clipped = []
        for gr in (grad, rows):
            if isinstance(gr, ds.IndexedSlices):
                clipped.append(ds.IndexedSlices(ds.clip_by_value(gr.values, -1.0, 1.0),
                                                gr.indices, gr.dense_shape))
            else:
                clipped.append(ds.clip_by_value(gr, -1.0, 1.0))
        opt = ds.train.MomentumOptimizer(0.5, 0.9)
        train = [opt.apply_gradients([(c, emb)]) for c in clipped]
        row3 = ds.IndexedSlices(ds.ones([1, 2]), [3], [4, 2])
        later = opt.apply_gradients([(row3, emb)])
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            sess.run(train[1])           # rows 1 (twice) and 3, each clipped to 1
            np.testing.assert_allclose(sess.run(emb), [[1, 1], [0, 0], [1, 1], [0.5, 0.5]])
            sess.run(later)              # row 3 alone: row 1's momentum must not move it
            np.testing.assert_allclose(sess.run(emb), [[1, 1], [0, 0], [1, 1],
                                                       [-0.45, -0.45]], rtol=1e-6)
            sess.run(train[0])           # the dense branch runs too


def test_batch_scatter_update_is_tfs():
    with ds.Graph().as_default():
        v = ds.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        u = ds.batch_scatter_update(v, [[2, 0], [1, 1]], [[10., 11.], [12., 13.]])
        w = ds.Variable(np.zeros((2, 2, 3, 2), np.float32))
        u2 = ds.batch_scatter_update(w, np.array([[[1], [2]], [[0], [1]]]),
                                     np.ones((2, 2, 1, 2), np.float32))
        with pytest.raises(ValueError, match="batch_gather does not allow indices with "
                                             "unknown shape"):
            ds.batch_scatter_update(v, ds.placeholder(ds.int32), [1.0])
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            assert sess.run(u).tolist() == [[11, 1, 10], [3, 13, 5]]          # TF 2.21's
            assert sess.run(u2).sum(axis=3).tolist() == [[[0, 2, 0], [0, 0, 2]],
                                                         [[2, 0, 0], [0, 2, 0]]]
            assert sess.run(v).tolist() == [[11, 1, 10], [3, 13, 5]]           # in place
