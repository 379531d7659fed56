"""TF's sparse feature crosses (``ops/sparse_cross.py``, kernels in
``kernels/reference/sparse_cross.py``): a GraphDef TensorFlow wrote with SparseCross,
SparseCrossV2 and SparseCrossHashed runs to TF's values bit for bit
(tests/data/make_tf_sparse_cross.py), ``ds.sparse.cross`` / ``cross_hashed`` build
what TF builds, and bad inputs raise TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.ops.sparse_cross import CROSS_OPS
from tf_recorded import run_recorded, tf_static_shape


def _as_recorded(value):
    value = np.asarray(value)
    return value.astype(np.bytes_) if value.dtype == object else value


def test_a_graph_def_tf_wrote_runs_to_tf_values():
    graph, names, values, data = run_recorded("tf_sparse_cross")
    assert {op.type for op in graph.get_operations()} >= set(CROSS_OPS)
    assert len(names) == 45
    for name, value in zip(names, values):
        want, got = data[f"fetch:{name}"], _as_recorded(value)
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)
        tensor = graph.get_tensor_by_name(name)
        assert tensor.shape.is_compatible_with(tf_static_shape(data, name)), name


def test_builders_make_tfs_nodes_and_values():
    with ds.Graph().as_default() as graph:
        words = ds.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
        more = ds.SparseTensor([[0, 0], [1, 0]], ["d", "e"], [2, 1])
        dense = ds.constant([["f"], ["g"]])
        joined = ds.sparse.cross([words, more, dense])
        hashed = ds.sparse.cross_hashed([words, ds.constant([[1, 2], [3, 4]])], 10)
        assert joined.values.op.type == "SparseCrossV2"
        assert hashed.values.op.type == "SparseCross"
        assert hashed.values.op.get_attr("hash_key") == 0xDECAFCAFFE
        assert hashed.values.op.get_attr("internal_type") == ds.int64
        assert [t.dtype for t in hashed.values.op.inputs[3:]] == [ds.int64]   # int32 cast
        assert joined.indices.shape.as_list() == [None, 2]
        with ds.Session(graph=graph) as sess:
            got, ids = sess.run([joined, hashed])
    np.testing.assert_array_equal(got.indices, [[0, 0], [1, 0], [1, 1]])
    assert got.values.tolist() == [b"a_X_d_X_f", b"b_X_e_X_g", b"c_X_e_X_g"]
    np.testing.assert_array_equal(got.dense_shape, [2, 2])
    np.testing.assert_array_equal(ids.indices, [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]])
    assert ids.values.min() >= 0 and ids.values.max() < 10
    np.testing.assert_array_equal(ids.dense_shape, [2, 4])


def test_fingerprint_cat64_is_tfs_chain():
    from devsession.kernels.reference.farmhash import fingerprint64, fingerprint_cat64

    # a cross of one string feature, hashed without buckets: TF's value is the chain
    # FingerprintCat64(hash_key, Fingerprint64(s)) modulo 2**63 - 1
    with ds.Graph().as_default(), ds.Session() as sess:
        out = sess.run(ds.sparse.cross_hashed([ds.constant([["kiwi"]])], hash_key=99))
    assert out.values.tolist() == [fingerprint_cat64(99, fingerprint64(b"kiwi")) % (2**63 - 1)]
    assert fingerprint_cat64(1, 2) != fingerprint_cat64(2, 1)


def test_bad_inputs_raise_tfs_errors():
    with ds.Graph().as_default():
        with pytest.raises(TypeError, match="Inputs must be a list"):
            ds.sparse.cross(ds.constant([["a"]]))
        with pytest.raises(ValueError, match="rank 2"):
            ds.sparse.cross([ds.constant(["a", "b"])])
        a = ds.placeholder(ds.string, (None, 1))
        b = ds.placeholder(ds.string, (None, 1))
        cross = ds.sparse.cross([a, b])
        with ds.Session() as sess:
            with pytest.raises(InvalidArgumentError, match="Expected batch size 2 got 3 at "
                                                           "dense tensor 1") as info:
                sess.run(cross.values, {a: [["x"], ["y"]], b: [["x"], ["y"], ["z"]]})
    assert info.value.node_name == cross.values.op.name


def test_a_gpu_session_runs_the_crosses_on_the_cpu():
    from fake_gpu import fake_gpus

    with fake_gpus(1, without=set(CROSS_OPS)):
        codes = ds.placeholder(ds.float32, (None, 2))     # floats are cast to int64, as TF
        doubled = codes * 2.0
        cross = ds.sparse.cross_hashed([ds.cast(doubled, ds.int64)], 1000)
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            got = sess.run(cross.values, {codes: [[1.0, 2.0]]})
            placed = sess.placement()
    assert got.shape == (2,) and (got < 1000).all()
    assert placed[cross.values.op.name].endswith("CPU:0")
    assert placed[doubled.op.name].endswith("GPU:0")
