"""Complex matrix products (ops/linalg.py): tf.matmul of complex64 and complex128 with
every transpose and adjoint (conjugate transpose), broadcast batches, matvec, tensordot,
einsum, and the gradients of real losses through them, as TensorFlow computes them: a
GraphDef TF wrote (MatMul, BatchMatMulV2 with adj_x/adj_y, Einsum: made by
tests/data/make_tf_complex_products.py) imports and gives TF's values, and devsession
builds the same from the same program."""

from __future__ import annotations

import os

import numpy as np
import pytest

import complex_products_cases as cases
import devsession as ds
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)
from tf_recorded import DATA, run_recorded, tf_static_shape


@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_complex_products")


def _close(got, want, name):
    tolerance = 1e-12 if want.dtype == np.complex128 else 2e-5
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=name)
    assert got.dtype == want.dtype, name


def test_a_graph_tf_wrote_gives_tfs_values(recorded):
    graph, names, values, data = recorded
    written = ds.read_graph_def(os.path.join(DATA, "tf_complex_products.pb"))
    assert {"MatMul", "BatchMatMulV2", "Einsum"} <= {node.op for node in written.node}
    for name, value in zip(names, values):
        _close(value, data[f"fetch:{name}"], name)
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name


def _built_by_ds(data, session):
    keys = {k[4:]: str(data[k]) for k in data if k.startswith("key:")}
    placeholders = cases.placeholders(ds)
    outs = cases.all_ops(ds, placeholders)
    with session() as sess:
        got = sess.run(outs, {placeholders[k]: data[f"feed:{k}"] for k in placeholders})
    assert set(outs) == set(keys) and len(outs) == 18
    for key in outs:
        _close(got[key], data[f"fetch:{keys[key]}"], key)


def test_ds_builds_tfs_products_and_gradients(recorded, make_session):
    graph = ds.Graph()
    with graph.as_default():
        _built_by_ds(recorded[3], lambda: make_session(graph))


def test_on_the_stand_in_gpu(recorded, standin):  # noqa: F811
    _built_by_ds(recorded[3], lambda: ds.Session(options=ds.SessionOptions(device="gpu:0")))


def test_matmul_refuses_what_tf_refuses():
    with ds.Graph().as_default():
        a = ds.ones([2, 2], ds.complex64)
        with pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a can be"):
            ds.matmul(a, a, transpose_a=True, adjoint_a=True)
        with pytest.raises(ValueError, match="Only one of transpose_b and adjoint_b can be"):
            ds.linalg.matmul(a, a, transpose_b=True, adjoint_b=True)
        with pytest.raises(TypeError, match="needs a numeric input"):
            ds.matmul(ds.ones([2, 2], ds.bool), ds.ones([2, 2], ds.bool))
        real = ds.ones([2, 3])
        assert ds.matmul(real, real, adjoint_b=True, a_is_sparse=True).shape == (2, 2)
