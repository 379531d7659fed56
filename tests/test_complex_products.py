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
from tf_recorded import DATA, assert_built_as_tf, assert_imported_as_tf, run_recorded


@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_complex_products")


def _close(got, want, name):
    tolerance = 1e-12 if want.dtype == np.complex128 else 2e-5
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=name)
    assert got.dtype == want.dtype, name


def test_a_graph_tf_wrote_gives_tfs_values(recorded):
    written = ds.read_graph_def(os.path.join(DATA, "tf_complex_products.pb"))
    assert {"MatMul", "BatchMatMulV2", "Einsum", "UnsortedSegmentSum"} <= {
        node.op for node in written.node}
    assert_imported_as_tf(recorded, _close)


def _built_by_ds(data, session):
    assert_built_as_tf(cases, data, session, _close, 25)


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


def test_the_orderings_refuse_complex_values_as_tf():
    with ds.Graph().as_default():
        c = ds.ones([3, 2], ds.complex64)
        for reduce in (lambda: ds.math.segment_max(c, [0, 0, 1]),
                       lambda: ds.math.unsorted_segment_min(c, [0, 1, 0], 2)):
            with pytest.raises(TypeError, match="must be numeric, not complex64"):
                reduce()
