"""reduce_prod's gradient (ops/reduce_grad.py, TF's _ProdGrad): the product of the other
factors of each element's reduction, zeros among them included, over any axes, with
keepdims, an unknown batch dimension and complex values (conjugated): a GraphDef TF 2.21
wrote (tests/data/make_tf_prod_grad.py) imports and gives TF's values, devsession builds
the same program with TF's values, and finite differences agree."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
import prod_grad_cases as cases
from gradient_check import numeric_gradient
from tf_recorded import assert_built_as_tf, assert_imported_as_tf, run_recorded


@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_prod_grad")


def _close(got, want, name):
    tolerance = 1e-12 if want.dtype in (np.float64, np.complex128) else 1e-5
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=name)
    assert got.dtype == want.dtype, name


def test_a_graph_tf_wrote_gives_tfs_values(recorded):
    assert_imported_as_tf(recorded, _close)


def test_ds_builds_tfs_gradients(recorded, make_session):
    graph = ds.Graph()
    with graph.as_default():
        assert_built_as_tf(cases, recorded[3], lambda: make_session(graph), _close, 9)


def test_finite_differences_agree():
    x0 = cases.feeds()["x"]
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float64, x0.shape)
        weights = ds.constant([1.0, -2.0, 0.5], ds.float64)
        y = ds.reduce_sum(ds.reduce_prod(x, axis=[0, 2]) * weights)
        (grad,) = ds.gradients(y, [x])
        with ds.Session() as sess:
            got = sess.run(grad, {x: x0})
            numeric = numeric_gradient(lambda v: sess.run(y, {x: v}), x0)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_an_input_of_unknown_rank_is_refused_naming_the_node():
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, None)
        with pytest.raises(ds.errors.UnimplementedError, match="Prod 'Prod' needs its input's "
                                                               "rank"):
            ds.gradients(ds.reduce_prod(x, axis=0), x)
