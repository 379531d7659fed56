"""SparseTensor gaps an audit found against TensorFlow 2.21, each now as TF's: ``tf.cast``
of a SparseTensor, SparseTensor times/over a dense tensor, the static shape of a sparse
dataset element and of a sparse placeholder, ``tf.io.SparseFeature`` in the parse ops and
SparseTensor sources of datasets.  Expected values are worked out by hand or in numpy;
TensorFlow 2.21 gave the same values, dtypes and static shapes on the same graphs."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def run(*fetches):
    with ds.Session() as sess:
        return sess.run(list(fetches))


# --- 1. tf.cast of a SparseTensor ----------------------------------------------------------

def test_cast_of_a_sparse_tensor_casts_its_values_and_keeps_the_rest(graph):
    st = ds.SparseTensor([[0, 0], [1, 2]], ds.constant([1.5, -2.7]), [2, 3])
    as_int, as_bool = ds.cast(st, ds.int32), ds.cast(st, ds.bool)
    assert isinstance(as_int, ds.SparseTensor) and as_int.dtype == ds.int32
    assert as_int.indices is st.indices and as_int.dense_shape is st.dense_shape
    assert as_int.shape.as_list() == [2, 3]
    assert ds.cast(st, ds.int32, name="foo").values.name == "foo:0"
    got_int, got_bool = run(as_int, as_bool)
    np.testing.assert_array_equal(got_int.values, np.array([1, -2], np.int32))
    assert got_int.values.dtype == np.int32
    np.testing.assert_array_equal(got_bool.values, [True, True])
    np.testing.assert_array_equal(got_int.indices, [[0, 0], [1, 2]])
    np.testing.assert_array_equal(got_int.dense_shape, [2, 3])


def test_the_ctc_idiom_casts_decoded_labels_for_edit_distance(graph):
    decoded = ds.SparseTensor([[0, 0], [0, 1]], ds.constant([1, 2], ds.int64), [1, 2])
    labels = ds.SparseTensor([[0, 0], [0, 1], [0, 2]], ds.constant([1, 3, 2], ds.int32), [1, 3])
    distance, = run(ds.edit_distance(ds.cast(decoded, ds.int32), labels))
    np.testing.assert_allclose(distance, [1 / 3], rtol=1e-6)     # one insertion of three


def test_saturate_cast_refuses_a_sparse_tensor_as_tf(graph):
    st = ds.SparseTensor([[0]], ds.constant([300.0]), [1])
    with pytest.raises(TypeError):
        ds.saturate_cast(st, ds.uint8)
