"""The TF1 math names (branch tf1-math-names) as users build them: ``tf.acosh``,
``tf.rint``, ``tf.math.xdivy``, ``tf.bitwise.left_shift``, ``tf.nn.crelu``... through a
session against numpy or hand-computed values (TF 2.21's where it matters), their dtypes
and TF's errors, each new op's gradient against float64 finite differences, the
composites' gradients through ``ds.gradients``, and where the names live.  The kernels
themselves are compared with the reference in ``test_math_names_kernels.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def values(shape, seed=0, low=-2.5, high=2.5):
    return np.random.default_rng(seed).uniform(low, high, shape)


@pytest.fixture(autouse=True)
def graph():
    with ds.Graph().as_default() as g:
        yield g


# --- elementwise ops ----------------------------------------------------------------------

UNARY = [("acosh", np.arccosh, lambda x: np.abs(x) + 1), ("asinh", np.arcsinh, None),
         ("atanh", np.arctanh, lambda x: x / 3), ("rint", np.rint, lambda x: np.round(x * 2) / 2)]


@pytest.mark.parametrize("shape", [(0,), (1,), (2, 3)], ids=str)
@pytest.mark.parametrize("name,formula,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary_through_a_session(name, formula, domain, shape):
    x = (domain or (lambda v: v))(values(shape)).astype(np.float32)
    p = ds.placeholder(ds.float32, (None,) * len(shape))
    y = getattr(ds, name)(p)
    assert y.dtype == ds.float32 and y.op.type == name.capitalize()
    assert getattr(ds.math, name) is getattr(ds, name)
    np.testing.assert_allclose(run(y, {p: x}), formula(x.astype(np.float64)), rtol=2e-6,
                               atol=1e-6)


def test_rint_rounds_half_to_even_and_refuses_integers():
    np.testing.assert_array_equal(run(ds.rint([0.5, 1.5, 2.5, -2.5, 3.7])), [0, 2, 2, -2, 4])
    with pytest.raises(TypeError, match="floating-point"):
        ds.rint(ds.constant([1, 2]))


BINARY = [  # (public name of ds.math, op type, numpy formula)
    ("xdivy", "Xdivy", lambda x, y: np.where(x == 0, 0, x / np.where(x == 0, 1, y))),
    ("xlog1py", "Xlog1py",
     lambda x, y: np.where(x == 0, 0, x * np.log1p(np.where(x == 0, 0, y)))),
    ("multiply_no_nan", "MulNoNan", lambda x, y: np.where(y == 0, 0, x * y)),
]


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((3, 1), (1, 4)), ((), (5,))], ids=str)
@pytest.mark.parametrize("name,op_type,formula", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcast_through_a_session(name, op_type, formula, shapes):
    x, y = values(shapes[0], 1), values(shapes[1], 2, 0.1, 3)
    x.reshape(-1)[:1] = 0
    y.reshape(-1)[-1:] = 0
    px, py = ds.placeholder(ds.float64, shapes[0]), ds.placeholder(ds.float64, shapes[1])
    z = getattr(ds.math, name)(px, py)
    assert z.op.type == op_type and z.shape == np.broadcast_shapes(*shapes)
    with np.errstate(divide="ignore"):
        want = formula(x, y)
    np.testing.assert_allclose(run(z, {px: x, py: y}), want, rtol=1e-12)


def test_zero_rules_as_tf():
    """TF 2.21: xdivy(0, nan) = 0, xlog1py(0, -1) = 0, multiply_no_nan(nan, 0) = 0, and
    the other operand's NaN or inf still shows elsewhere."""
    nan, inf = np.nan, np.inf
    got = run([ds.math.xdivy([0.0, 0.0, 1.0], [nan, 0.0, 0.0]),
               ds.math.xlog1py([0.0, 0.0, 1.0], [-1.0, nan, -1.0]),
               ds.math.multiply_no_nan([nan, inf, 1.0], [0.0, 0.0, nan])])
    np.testing.assert_array_equal(got[0], [0, 0, inf])
    np.testing.assert_array_equal(got[1], [0, 0, -inf])
    np.testing.assert_array_equal(got[2], [0, 0, nan])


def test_realdiv_divides_as_tf():
    z = ds.realdiv(ds.constant([1.0, -3.0]), 2.0)
    assert z.op.type == "RealDiv"
    np.testing.assert_array_equal(run(z), [0.5, -1.5])


def test_integer_operands_are_type_errors():
    with pytest.raises(TypeError):
        ds.math.xdivy(ds.constant([1]), ds.constant([2]))
    with pytest.raises(TypeError):
        ds.acosh(ds.constant([1]))


# --- tf.bitwise ------------------------------------------------------------------------------

def test_bitwise_ops_as_tf():
    a, b = ds.constant([12, -1, 0], ds.int32), ds.constant([10, 5, -7], ds.int32)
    got = run([ds.bitwise.bitwise_and(a, b), ds.bitwise.bitwise_or(a, b),
               ds.bitwise.bitwise_xor(a, b), ds.bitwise.invert(a)])
    np.testing.assert_array_equal(got[0], [8, 5, 0])
    np.testing.assert_array_equal(got[1], [14, -1, -7])
    np.testing.assert_array_equal(got[2], [6, -6, -7])
    np.testing.assert_array_equal(got[3], [-13, 0, -1])


def test_shifts_clamp_their_count_as_tf():
    """TF 2.21's values: a count below 0 is 0, one at or past the width is width - 1."""
    x = ds.constant([1, -8, 5, 127, -128], ds.int8)
    left = ds.bitwise.left_shift(x, ds.constant([-1, 3, 8, 9, 1], ds.int8))
    right = ds.bitwise.right_shift(x, ds.constant([-1, 1, 8, 9, 100], ds.int8))
    wide = ds.bitwise.left_shift(ds.constant([1], ds.int64), 70)
    got = run([left, right, wide])
    np.testing.assert_array_equal(got[0], [1, -64, -128, -128, 0])
    np.testing.assert_array_equal(got[1], [1, -4, 0, 0, -1])
    np.testing.assert_array_equal(got[2], [np.iinfo(np.int64).min])
    assert left.dtype == ds.int8 and left.op.type == "LeftShift"


def test_bitwise_refuses_floats_and_bools_and_has_no_gradient():
    with pytest.raises(TypeError, match="integer"):
        ds.bitwise.bitwise_and(ds.constant([1.0]), ds.constant([2.0]))
    with pytest.raises(TypeError, match="integer"):
        ds.bitwise.invert(ds.constant([True]))
    x = ds.placeholder(ds.float64, (2,))
    shifted = ds.bitwise.left_shift(ds.cast(x, ds.int32), 1)
    assert ds.gradients(ds.cast(shifted, ds.float64), x) == [None]
    assert ds.gradients(ds.rint(x), x) == [None]


def test_bitwise_is_a_namespace_now():
    from devsession.unsupported import TF1_NAMESPACES

    assert "bitwise" not in TF1_NAMESPACES
    from devsession.unsupported import UnsupportedTF1Error

    with pytest.raises(UnsupportedTF1Error, match="tf.bitwise.population_count"):
        ds.bitwise.population_count


# --- reductions and scans ----------------------------------------------------------------

@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ([0, 2], True),
                                           (-1, True)])
def test_reduce_euclidean_norm(axis, keepdims):
    x = values((2, 3, 4))
    y = ds.math.reduce_euclidean_norm(ds.constant(x), axis, keepdims=keepdims)
    want = np.sqrt(np.sum(x * x, axis=None if axis is None else tuple(np.atleast_1d(axis)),
                          keepdims=keepdims))
    assert y.op.type == "EuclideanNorm" and y.shape == want.shape
    np.testing.assert_allclose(run(y), want, rtol=1e-12)


def test_reduce_euclidean_norm_of_an_input_of_unknown_rank():
    p = ds.placeholder(ds.float32)
    y = ds.math.reduce_euclidean_norm(p, keep_dims=True)
    np.testing.assert_allclose(run(y, {p: [[3, 4]]}), [[5]])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_logsumexp(exclusive, reverse):
    x = values((3, 4))
    y = ds.math.cumulative_logsumexp(ds.constant(x), axis=1, exclusive=exclusive,
                                     reverse=reverse)
    assert y.op.type == "CumulativeLogsumexp"
    assert (y.op.get_attr("exclusive"), y.op.get_attr("reverse")) == (exclusive, reverse)
    e = np.exp(x[:, ::-1] if reverse else x)
    total = np.cumsum(e, axis=1) - (e if exclusive else 0)
    with np.errstate(divide="ignore"):
        want = np.log(total)
    np.testing.assert_allclose(run(y), want[:, ::-1] if reverse else want, rtol=1e-12)


def test_cumulative_logsumexp_refuses_integers_and_bad_axes():
    with pytest.raises(TypeError, match="floating-point"):
        ds.math.cumulative_logsumexp(ds.constant([1, 2]))
    static = ds.math.cumulative_logsumexp(ds.constant([1.0, 2.0]), axis=1)   # builds, as TF's
    with pytest.raises(ds.errors.InvalidArgumentError, match="scan axis"):
        run(static)
    p = ds.placeholder(ds.float32)
    with pytest.raises(ds.errors.InvalidArgumentError, match="scan axis"):
        run(ds.math.cumulative_logsumexp(p, axis=3), {p: [1.0]})


# --- gradients against finite differences ------------------------------------------------

GRADIENTS = [  # (build, input ranges)
    (ds.acosh, [(1.2, 3)]), (ds.asinh, [(-3, 3)]), (ds.atanh, [(-0.8, 0.8)]),
    (ds.math.xdivy, [(-2, 2), (0.5, 2)]), (ds.math.xlog1py, [(-2, 2), (-0.5, 2)]),
    (ds.math.multiply_no_nan, [(-2, 2), (-2, 2)]),
    (lambda x: ds.math.reduce_euclidean_norm(x, 1), [(-2, 2)]),
    (lambda x: ds.math.reduce_euclidean_norm(x, [0, 1], keepdims=True), [(-2, 2)]),
    (lambda x: ds.math.cumulative_logsumexp(x, 1), [(-2, 2)]),
    (lambda x: ds.math.cumulative_logsumexp(x, 0, reverse=True), [(-2, 2)]),
]


@pytest.mark.parametrize("k", range(len(GRADIENTS)))
def test_gradients(k):
    build, ranges = GRADIENTS[k]
    shapes = [(3, 4), (4,)] if len(ranges) == 2 else [(3, 4)]
    inputs = [values(s, i, *r) for i, (s, r) in enumerate(zip(shapes, ranges))]
    no_gradient = (1,) if "cumulative" in repr(build.__code__.co_names) else ()
    check_op_gradient(build, inputs, no_gradient=no_gradient)


def test_xdivy_xlog1py_and_mul_no_nan_gradients_at_their_zeros():
    """TF's rules: nothing flows where x is 0 (Xdivy, Xlog1py) or y is 0 (MulNoNan)."""
    x = ds.constant([0.0, 2.0], ds.float64)
    y = ds.constant([0.0, 3.0], ds.float64)
    grads = ds.gradients(ds.reduce_sum(ds.math.xdivy(x, y)), [x, y])
    np.testing.assert_allclose(run(grads), [[0, 1 / 3], [0, -2 / 9]])
    grads = ds.gradients(ds.reduce_sum(ds.math.xlog1py(x, y - 1)), [x, y])
    np.testing.assert_allclose(run(grads), [[0, np.log(3)], [0, 2 / 3]])
    grads = ds.gradients(ds.reduce_sum(ds.math.multiply_no_nan(x + np.inf, y)), [x, y])
    assert run(grads[0]).tolist()[0] == 0


def _numeric_gradient(build, x, eps=1e-6):
    f = lambda v: run(ds.reduce_sum(build(ds.constant(v))))  # noqa: E731
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


COMPOSITES = [  # differentiable composites: their gradients come from their ops
    lambda x: ds.log_sigmoid(x), lambda x: ds.math.reciprocal_no_nan(x + 3),
    lambda x: ds.scalar_mul(2.5, x), lambda x: ds.math.polyval([1.0, -2.0, 0.5], x),
    lambda x: ds.nn.silu(x, beta=1.5), lambda x: ds.nn.crelu(x),
    lambda x: ds.nn.log_poisson_loss(ds.constant(values((2, 3), 5, 0, 3)), x, True),
    lambda x: ds.clip_by_average_norm(x, 0.1),
    # exclusive runs start at -inf: the finite part, in both directions
    lambda x: ds.math.cumulative_logsumexp(x, 1, exclusive=True, reverse=True)[:, :-1],
    lambda x: ds.math.cumulative_logsumexp(x, 1, exclusive=True)[:, 1:],
]


@pytest.mark.parametrize("k", range(len(COMPOSITES)))
def test_composite_gradients(k):
    x = values((2, 3), 3)
    p = ds.constant(x)
    (analytic,) = run(ds.gradients(ds.reduce_sum(COMPOSITES[k](p)), [p]))
    np.testing.assert_allclose(analytic, _numeric_gradient(COMPOSITES[k], x), rtol=1e-6,
                               atol=1e-8)


# --- composites ------------------------------------------------------------------------------

def test_log_sigmoid_is_stable_and_named_as_tf():
    y = ds.math.log_sigmoid(ds.constant([-1000.0, 0.0, 1000.0, 20.0]))
    assert y.op.name == "LogSigmoid" and ds.log_sigmoid is ds.math.log_sigmoid
    np.testing.assert_allclose(run(y), [-1000, -np.log(2), 0, -np.log1p(np.exp(-20))],
                               rtol=1e-6)


def test_reciprocal_no_nan_as_tf():
    y = ds.math.reciprocal_no_nan(ds.constant([0.0, np.inf, -np.inf, 2.0, np.nan]))
    assert y.op.type == "DivNoNan"
    got = run(y)
    np.testing.assert_array_equal(got, [0, 0, 0, 0.5, np.nan])
    assert np.signbit(got[2])


def test_scalar_mul_takes_only_scalars():
    x = ds.constant([[1.0, 2.0]])
    np.testing.assert_array_equal(run(ds.scalar_mul(3, x)), [[3, 6]])
    assert ds.math.scalar_mul is ds.scalar_mul
    with pytest.raises(ValueError, match="0-D"):
        ds.scalar_mul([1.0, 2.0], x)


def test_polyval():
    x = values((4,))
    np.testing.assert_allclose(run(ds.math.polyval([2.0, -1.0, 3.0], ds.constant(x))),
                               2 * x * x - x + 3)
    np.testing.assert_array_equal(run(ds.math.polyval([], ds.constant([1.0, 2.0]))), [0, 0])
    with pytest.raises(ValueError, match="list"):
        ds.math.polyval((1.0, 2.0), 1.0)


def test_accumulate_n():
    a, b = ds.constant([1.0, 2.0]), ds.constant([10.0, 20.0])
    total = ds.accumulate_n([a, b, a])
    assert total.op.type == "AddN" and ds.math.accumulate_n is ds.accumulate_n
    np.testing.assert_array_equal(run(total), [12, 24])
    assert ds.accumulate_n([a]) is a
    assert ds.accumulate_n([a], name="only").op.type == "Identity"
    with pytest.raises(ValueError):
        ds.accumulate_n([])
    with pytest.raises(ValueError):
        ds.accumulate_n([a, ds.constant([1, 2])])
    with pytest.raises(ValueError):
        ds.accumulate_n([a, ds.constant([1.0, 2.0, 3.0])])
    with pytest.raises(TypeError, match="tensor_dtype"):
        ds.accumulate_n([a, b], tensor_dtype=ds.float64)


def test_math_aliases():
    assert ds.math.mod is ds.math.floormod
    assert ds.math.log_softmax is ds.nn.log_softmax
    np.testing.assert_array_equal(run(ds.math.mod(ds.constant([-7, 7]), 3)), [2, 1])


def test_silu_is_swish():
    x = values((5,))
    y, y2 = ds.nn.silu(ds.constant(x)), ds.nn.silu(ds.constant(x), beta=2.0)
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    np.testing.assert_allclose(run(y), x * sigmoid(x), rtol=1e-12)
    np.testing.assert_allclose(run(y2), x * sigmoid(2 * x), rtol=1e-12)
    with pytest.raises(ValueError, match="rank 0"):
        ds.nn.silu(ds.constant(x), beta=ds.constant([1.0, 2.0], ds.float64))


def test_crelu_doubles_the_axis():
    x = np.array([[1.0, -2.0], [0.0, 3.0]])
    y = ds.nn.crelu(ds.constant(x))
    assert y.shape == (2, 4) and y.op.type == "Relu"
    np.testing.assert_array_equal(run(y), [[1, 0, 0, 2], [0, 3, 0, 0]])
    np.testing.assert_array_equal(run(ds.nn.crelu(ds.constant(x), axis=0)),
                                  [[1, 0], [0, 3], [0, 2], [0, 0]])


def test_relu_layer():
    x, w, b = values((2, 3), 1), values((3, 4), 2), values((4,), 3)
    y = ds.nn.relu_layer(ds.constant(x), ds.constant(w), ds.constant(b))
    assert y.op.type == "Relu" and y.op.name == "relu_layer"
    np.testing.assert_allclose(run(y), np.maximum(x @ w + b, 0), rtol=1e-12)


def test_zero_fraction():
    y = ds.nn.zero_fraction(ds.constant([[0, 1, 0, 3]], ds.int32))
    assert y.dtype == ds.float32 and y.shape == ()
    assert run(y) == 0.5
    p = ds.placeholder(ds.float32, (None,))
    assert np.isnan(run(ds.nn.zero_fraction(p), {p: np.zeros(0, np.float32)}))


def test_log_poisson_loss():
    targets = np.array([0.0, 0.5, 1.0, 3.0])
    log_input = np.array([0.1, -1.0, 2.0, 1.0])
    base = np.exp(log_input) - log_input * targets
    stirling = targets * np.log(np.where(targets > 0, targets, 1)) - targets + \
        0.5 * np.log(2 * np.pi * np.where(targets > 0, targets, 1))
    full = base + np.where(targets <= 1, 0, stirling)
    np.testing.assert_allclose(run(ds.nn.log_poisson_loss(targets, ds.constant(log_input))),
                               base, rtol=1e-12)
    np.testing.assert_allclose(
        run(ds.nn.log_poisson_loss(targets, ds.constant(log_input), compute_full_loss=True)),
        full, rtol=1e-12)
    with pytest.raises(ValueError, match="same shape"):
        ds.nn.log_poisson_loss(ds.constant([1.0, 2.0]), ds.constant([1.0, 2.0, 3.0]))


def test_clip_by_average_norm():
    small, big = np.array([[0.1, -0.2]]), np.array([[3.0, -4.0]])
    clipped = ds.clip_by_average_norm(ds.constant(big), 1.0)
    assert clipped.op.name == "clip_by_average_norm"
    # norm 5 over 2 elements = 2.5 > 1: scaled to an average norm of 1
    np.testing.assert_allclose(run(clipped), big * 2 / 5, rtol=1e-12)
    np.testing.assert_allclose(run(ds.clip_by_average_norm(ds.constant(small), 1.0)), small)


def test_names_live_where_tf1_puts_them():
    for name in ("acosh", "asinh", "atanh", "rint", "realdiv", "scalar_mul", "log_sigmoid",
                 "accumulate_n", "clip_by_average_norm"):
        assert callable(getattr(ds, name)), name
    for name in ("acosh", "asinh", "atanh", "rint", "mod", "scalar_mul", "log_softmax",
                 "log_sigmoid", "reciprocal_no_nan", "xdivy", "xlog1py", "multiply_no_nan",
                 "polyval", "reduce_euclidean_norm", "cumulative_logsumexp", "accumulate_n"):
        assert callable(getattr(ds.math, name)), name
    for name in ("silu", "swish", "crelu", "relu_layer", "zero_fraction", "log_poisson_loss"):
        assert callable(getattr(ds.nn, name)), name


def test_realdiv_of_integers_builds_and_its_run_has_no_kernel():
    # TF 2.21: RealDiv keeps T=int32 when built, and no kernel runs it; a Mul after it
    # (which fusion would otherwise join) does not hide the error
    x, y = ds.placeholder(ds.int32, [2]), ds.placeholder(ds.int32, [2])
    z = ds.realdiv(x, y, name="rd")
    assert z.dtype == ds.int32 and z.op.type == "RealDiv"
    with pytest.raises(ds.errors.InvalidArgumentError,
                       match=r"No OpKernel was registered to support Op 'RealDiv' used by "
                             r"\{\{node rd\}\} with these attrs: \[T=DT_INT32\]") as info:
        run(z * 2, {x: [7, 3], y: [2, 1]})
    assert info.value.node_name == "rd"


@pytest.mark.parametrize("dtype, want", [(ds.int8, ds.float32), (ds.uint16, ds.float32),
                                         (ds.int32, ds.float64), (ds.int64, ds.float64)])
def test_truediv_casts_integers_as_tf(dtype, want):
    # TF 2.21's truediv table and names: truediv/Cast, truediv/Cast_1, truediv (RealDiv)
    with ds.Graph().as_default() as graph:
        x, y = ds.constant([7, 3], dtype), ds.constant([2, 4], dtype)
        zs = [x / y, ds.truediv(x, y), ds.divide(x, y, name="dv")]
        assert [z.dtype for z in zs] == [want] * 3
        names = [op.name for op in graph.get_operations()]
        assert names[2:5] == ["truediv/Cast", "truediv/Cast_1", "truediv"]
        assert names[-3:] == ["dv/Cast", "dv/Cast_1", "dv"]
        with ds.Session() as sess:
            for got in sess.run(zs):
                assert got.dtype == want.np
                np.testing.assert_array_equal(got, [3.5, 0.75])
