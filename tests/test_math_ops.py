"""The TF1 math ops (branch tf1-math) as users build them: ``tf.log1p``, ``tf.is_nan``,
``tf.math.xlogy``, ``tf.check_numerics``... through a session against numpy (sizes 0, 1
and broadcast shapes), their static shapes and dtypes, TF's type errors, each gradient
against float64 finite differences, and CheckNumerics' run-time errors.  The kernels
themselves are compared with the reference in ``test_math_kernels.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient

_erf = np.vectorize(math.erf, otypes=[np.float64])
UNARY = [  # (public name, numpy formula, input values)
    ("log1p", np.log1p, lambda x: np.abs(x)), ("expm1", np.expm1, None),
    ("erf", _erf, None), ("erfc", lambda x: 1 - _erf(x), None), ("tan", np.tan, None),
    ("asin", np.arcsin, lambda x: x / 3), ("acos", np.arccos, lambda x: x / 3),
    ("atan", np.arctan, None), ("sinh", np.sinh, None), ("cosh", np.cosh, None),
]
PREDICATES = [("is_nan", np.isnan), ("is_inf", np.isinf), ("is_finite", np.isfinite)]
BINARY = [
    ("atan2", np.arctan2),
    ("xlogy", lambda x, y: np.where(x == 0, 0, x * np.log(np.where(x == 0, 1, y)))),
    ("div_no_nan", lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y))),
]
SIZES = [(0,), (1,), (2, 3)]
BROADCASTS = [((2, 3), (3,)), ((3, 1), (1, 4)), ((), (5,)), ((0, 2), (2,))]


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def values(shape, seed=0, low=-2.5, high=2.5):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


@pytest.fixture(autouse=True)
def graph():
    with ds.Graph().as_default() as g:
        yield g


@pytest.mark.parametrize("shape", SIZES, ids=str)
@pytest.mark.parametrize("name,formula,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary_through_a_session(name, formula, domain, shape):
    x = values(shape)
    x = (domain or (lambda v: v))(x).astype(np.float32)
    p = ds.placeholder(ds.float32, (None,) * len(shape))
    y = getattr(ds, name)(p)
    assert y.dtype == ds.float32 and y.op.type == y.op.type
    assert getattr(ds.math, name) is getattr(ds, name)
    np.testing.assert_allclose(run(y, {p: x}), formula(x.astype(np.float64)), rtol=2e-6,
                               atol=1e-6)


@pytest.mark.parametrize("name,formula", PREDICATES, ids=[p[0] for p in PREDICATES])
def test_predicates_give_bools(name, formula):
    x = np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.0]], np.float32)
    p = ds.placeholder(ds.float64, (2, None))
    y = getattr(ds.math, name)(p)
    assert (y.dtype, y.shape.as_list()) == (ds.bool, [2, None])
    got = run(y, {p: x.astype(np.float64)})
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, formula(x))
    assert run(getattr(ds, name)(np.zeros((0,), np.float32))).shape == (0,)
    with pytest.raises(TypeError, match="floating-point"):
        getattr(ds, name)(ds.constant([1, 2]))            # as TF: ints are a TypeError


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("name,formula", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcast_through_a_session(name, formula, shapes):
    x, y = values(shapes[0], 1), values(shapes[1], 2, low=0.0)
    if x.size:
        x.reshape(-1)[0] = 0.0
    if y.size:
        y.reshape(-1)[-1] = 0.0
    build = getattr(ds.math, "divide_no_nan" if name == "div_no_nan" else name)
    px, py = ds.placeholder(ds.float32, shapes[0]), ds.placeholder(ds.float32, shapes[1])
    z = build(px, py)
    assert z.shape.as_list() == list(np.broadcast_shapes(*shapes))
    with np.errstate(all="ignore"):
        want = formula(x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(run(z, {px: x, py: y}), want, rtol=2e-6, atol=1e-6)


def test_binary_ops_take_python_operands_and_refuse_ints():
    assert run(ds.math.xlogy(0.0, ds.constant(0.0))) == 0.0       # TF: xlogy(0, 0) = 0
    assert run(ds.div_no_nan(ds.constant(1.0), 0.0)) == 0.0
    np.testing.assert_allclose(run(ds.atan2(1.0, ds.constant(-1.0))), 3 * np.pi / 4)
    with pytest.raises(TypeError, match="floating-point"):
        ds.math.xlogy(ds.constant([1]), ds.constant([2]))
    assert run(ds.div_no_nan(ds.constant([1]), ds.constant([2]))).tolist() == [0.5]  # TF casts
    with pytest.raises(ValueError):
        ds.atan2(ds.zeros((2, 3)), ds.zeros((4,)))             # shapes that do not broadcast


def test_ops_fuse_with_their_neighbours():
    """Elementwise like Exp: a chain of them runs as one fused kernel, with the values
    the unfused graph gives."""
    from devsession.options import OptimizerOptions

    p = ds.placeholder(ds.float32, (None,))
    z = ds.is_finite(ds.log1p(ds.cosh(p) * 2.0 - 1.0))
    w = ds.math.xlogy(ds.atan(p), ds.expm1(p) + 2.0) + ds.div_no_nan(ds.erf(p), p)
    x = np.array([0.5, -3.0, 100.0, 0.0], np.float32)
    off = ds.SessionOptions(optimizer=OptimizerOptions.none())
    with ds.Session() as fused, ds.Session(options=off) as plain:
        for fetch in (z, w):
            steps = fused._prepare((p,), (fetch,), ()).plan.steps
            assert [s.op_type for s in steps if s.op_type != "Const"] == ["_FusedElementwise"]
            np.testing.assert_array_equal(fused.run(fetch, {p: x}), plain.run(fetch, {p: x}))
    np.testing.assert_array_equal(run(z, {p: x}), [True, True, False, True])   # cosh(100)


# --- gradients against finite differences --------------------------------------------------

def _rand(shape, low, high, seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape)


GRADIENTS = [  # (name, (low, high) of the inputs, away from poles and domain edges)
    ("log1p", (-0.5, 2)), ("expm1", (-2, 2)), ("erf", (-2, 2)), ("erfc", (-2, 2)),
    ("tan", (-1.2, 1.2)), ("asin", (-0.9, 0.9)), ("acos", (-0.9, 0.9)), ("atan", (-3, 3)),
    ("sinh", (-2, 2)), ("cosh", (-2, 2)),
]


@pytest.mark.parametrize("name,bounds", GRADIENTS, ids=[g[0] for g in GRADIENTS])
def test_unary_gradients(name, bounds):
    check_op_gradient(getattr(ds, name), [_rand((3, 4), *bounds)])


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)),
                                    ((), (3,))], ids=str)
@pytest.mark.parametrize("name", ["atan2", "xlogy", "divide_no_nan"])
def test_binary_gradients_with_broadcasting(name, shapes):
    x, y = _rand(shapes[0], -2, 2, 1), _rand(shapes[1], 0.5, 2, 2)
    check_op_gradient(getattr(ds.math, name), [x, y])


def test_xlogy_and_div_no_nan_gradients_at_their_zeros():
    """TF's rules: nothing flows where x is 0 (Xlogy) or y is 0 (DivNoNan), no NaN."""
    x = ds.constant([0.0, 2.0, 0.0], ds.float64)
    y = ds.constant([0.0, 3.0, 2.0], ds.float64)
    gx, gy = ds.gradients(ds.reduce_sum(ds.math.xlogy(x, y)), [x, y])
    np.testing.assert_allclose(run(gx), [0, np.log(3), 0])
    np.testing.assert_allclose(run(gy), [0, 2 / 3, 0])
    gx, gy = ds.gradients(ds.reduce_sum(ds.div_no_nan(y, x)), [y, x])
    np.testing.assert_allclose(run(gx), [0, 0.5, 0])
    np.testing.assert_allclose(run(gy), [0, -0.75, 0])


def test_predicates_are_not_differentiable():
    x = ds.placeholder(ds.float64, (2,))
    for build in (ds.is_nan, ds.is_inf, ds.is_finite):
        assert ds.gradients(ds.cast(build(x), ds.float64), x) == [None]


# --- check_numerics ------------------------------------------------------------------------

def test_check_numerics_passes_values_and_fails_naming_the_node():
    x = ds.placeholder(ds.float32, (None,))
    checked = ds.check_numerics(x * 2.0, "after doubling", name="checked")
    assert checked.op.type == "CheckNumerics" and checked.shape.as_list() == [None]
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(checked, {x: [1.0, -3.0]}), [2.0, -6.0])
        assert sess.run(checked, {x: np.zeros(0, np.float32)}).shape == (0,)
        for value, what in (([1.0, np.nan], "NaN"), ([np.inf], "Inf"),
                            ([np.nan, -np.inf], "Inf and NaN")):
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match=f"after doubling : Tensor had {what} values") as info:
                sess.run(checked, {x: value})
            assert info.value.node_name == "checked" and "'checked'" in str(info.value)
    with pytest.raises(TypeError, match="floating-point"):
        ds.check_numerics(ds.constant([1]), "ints")


def test_check_numerics_gradient_passes_through_and_checks_the_gradient():
    x = ds.placeholder(ds.float64, (2,))
    checked = ds.check_numerics(x, "forward")
    check_op_gradient(lambda t: ds.check_numerics(t, "m"), [np.array([0.5, -1.0])])
    dy = ds.placeholder(ds.float64, (2,))
    (gx,) = ds.gradients(checked, [x], grad_ys=[dy])
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(gx, {x: [1, 2], dy: [3, 4]}), [3, 4])
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="NaN\\) or infinity \\(Inf\\) values detected in gradient. "
                                 "forward : Tensor had NaN values"):
            sess.run(gx, {x: [1, 2], dy: [np.nan, 4]})


def test_verify_tensor_all_finite_is_an_identity_after_the_check():
    x = ds.placeholder(ds.float32, (2,))
    y = ds.verify_tensor_all_finite(x, "input")
    assert y.op.type == "Identity" and y.name == "VerifyFinite/control_dependency:0"   # TF's
    assert ds.verify_tensor_all_finite(x, "m", name="vf").name == "vf/control_dependency:0"
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [1, 2])
        with pytest.raises(ds.errors.InvalidArgumentError, match="input : Tensor had Inf"):
            sess.run(y, {x: [1, np.inf]})


# --- a GraphDef TensorFlow wrote ------------------------------------------------------------

def test_a_graph_def_written_by_tensorflow_runs_with_tfs_values_and_shapes(capfd):
    """tests/data/tf_math_ops.pb (make_tf_math_ops.py): TF's op names and attrs import,
    and every fetch equals TF's value with TF's static shape; Print writes TF's text."""
    from tf_recorded import run_recorded, tf_static_shape

    graph, names, values, data = run_recorded("tf_math_ops")
    assert len(names) == 19
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        np.testing.assert_allclose(value, want, rtol=2e-6, atol=1e-7, err_msg=name)
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name
    assert capfd.readouterr().err == "x: [[0 -1.5...]...][text]\n"
