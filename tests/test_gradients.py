"""``ds.gradients`` and every op's gradient function.

Each op's gradient is checked against central finite differences in float64
(``gradient_check.check_op_gradient``), on broadcast shapes where the op broadcasts;
the engine is checked on whole graphs (chain rule, several paths and ys, ``grad_ys``,
``stop_gradients``, unreachable and integer xs, second derivatives, unknown shapes,
which take the runtime shape-of ops) against numpy formulas or finite differences.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import devsession as ds
from devsession.ops.common import make_op
from devsession.ops.registry import OpDef, get_gradient, register_op, registered_ops
from devsession.ops.shape_of import (broadcast_to_shape_of, reduce_to_shape_of,
                                     reshape_to_shape_of, split_to_shapes_of)
from gradient_check import check_op_gradient, numeric_gradient

F64 = np.float64


def rand(*shape, low=-2.0, high=2.0, seed=0):
    return np.random.default_rng(seed + 7 * len(shape)).uniform(low, high, shape)


def positive(*shape, seed=0):
    return rand(*shape, low=0.5, high=2.0, seed=seed)


# --- one op at a time, against finite differences -------------------------------------------

UNARY = [
    ("Neg", ds.negative, rand), ("Abs", ds.abs, rand), ("Square", ds.square, rand),
    ("Relu", ds.nn.relu, rand), ("Exp", ds.exp, rand), ("Log", ds.log, positive),
    ("Sqrt", ds.sqrt, positive), ("Tanh", ds.tanh, rand), ("Sigmoid", ds.sigmoid, rand),
    ("Identity", ds.identity, rand),
]


@pytest.mark.parametrize("op,build,values", UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradients(op, build, values):
    x = values(3, 4)
    if op in ("Abs", "Relu"):
        x[np.abs(x) < 0.05] = 0.3        # stay away from the kink
    check_op_gradient(build, [x])


def test_cast_gradient_between_floats_and_none_to_ints():
    check_op_gradient(lambda x: ds.cast(x, ds.float32), [rand(3, 2)], eps=1e-3, rtol=1e-3)
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float64, (2,))
        n = ds.cast(x, ds.int32)
        assert ds.gradients(ds.cast(n, ds.float64), x) == [None]


BROADCASTS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 1, 3), (4, 1)),
              ((), (3,)), ((5,), ())]
BINARY = [("Add", ds.add), ("Sub", ds.subtract), ("Mul", ds.multiply),
          ("RealDiv", ds.divide), ("Pow", ds.pow), ("Maximum", ds.maximum),
          ("Minimum", ds.minimum)]


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("op,build", BINARY, ids=[b[0] for b in BINARY])
def test_binary_gradients_with_broadcasting(op, build, shapes):
    a, b = shapes
    x, y = rand(*a, seed=1), rand(*b, seed=2)
    if op in ("RealDiv", "Pow"):
        x, y = positive(*a, seed=1), positive(*b, seed=2)
    check_op_gradient(build, [x, y])


def test_pow_gradient_is_finite_at_zero_and_negative_bases():
    # d/dy x**y is taken as 0 where x <= 0, as TF does (no log of a non-positive x)
    with ds.Graph().as_default() as g:
        x = ds.placeholder(ds.float64, (3,))
        e = ds.placeholder(ds.float64, (3,))
        dx, de = ds.gradients(ds.pow(x, e), [x, e])
        with ds.Session(graph=g) as sess:
            got_dx, got_de = sess.run([dx, de], {x: [0.0, -1.5, 2.0], e: [2.0, 2.0, 3.0]})
    np.testing.assert_allclose(got_dx, [0.0, -3.0, 12.0])
    np.testing.assert_allclose(got_de, [0.0, 0.0, 8 * np.log(2.0)])


def test_maximum_and_minimum_give_ties_to_x():
    with ds.Graph().as_default() as g:
        x = ds.constant([1.0, 2.0, 3.0], ds.float64)
        y = ds.constant([1.0, 5.0, 0.0], ds.float64)
        grads = ds.gradients(ds.maximum(x, y), [x, y]) + ds.gradients(ds.minimum(x, y), [x, y])
        with ds.Session(graph=g) as sess:
            mx, my, nx, ny = sess.run(grads)
    np.testing.assert_array_equal(mx, [1, 0, 1])
    np.testing.assert_array_equal(my, [0, 1, 0])
    np.testing.assert_array_equal(nx, [1, 1, 0])
    np.testing.assert_array_equal(ny, [0, 0, 1])


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), (3, 4)),
                                    ((4,), (2, 4), ()), ((), (3,), (2, 1))], ids=str)
def test_select_gradient_with_broadcasting(shapes):
    cond = rand(*shapes[0], seed=3) > 0
    check_op_gradient(lambda c, x, y: ds.where_v2(c, x, y),      # SelectV2 broadcasts
                      [cond, rand(*shapes[1], seed=4), rand(*shapes[2], seed=5)],
                      no_gradient=(0,))


REDUCTIONS = [((3, 4, 5), axis, keep) for axis in [None, 0, 1, (0, 2), (1, 2), -1]
              for keep in (False, True)]


@pytest.mark.parametrize("shape,axis,keep", REDUCTIONS, ids=str)
@pytest.mark.parametrize("reduce", [ds.reduce_sum, ds.reduce_mean, ds.reduce_max,
                                    ds.reduce_min], ids=lambda f: f.__name__)
def test_reduction_gradients(reduce, shape, axis, keep):
    check_op_gradient(lambda x: reduce(x, axis=axis, keepdims=keep),
                      [rand(*shape, seed=6)])


def test_max_and_min_split_the_gradient_equally_among_ties():
    with ds.Graph().as_default() as g:
        x = ds.constant([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], ds.float64)
        gmax = ds.gradients(ds.reduce_max(x, axis=1), x, grad_ys=ds.constant([6.0, 3.0],
                                                                              ds.float64))
        gmin = ds.gradients(ds.reduce_min(x), x)
        with ds.Session(graph=g) as sess:
            got_max, got_min = sess.run(gmax + gmin)
    np.testing.assert_allclose(got_max, [[0, 3, 3], [1, 1, 1]])
    np.testing.assert_allclose(got_min, [[1, 0, 0], [0, 0, 0]])


MATMULS = [((2, 3), (3, 4), False, False), ((3, 2), (3, 4), True, False),
           ((2, 3), (4, 3), False, True), ((3, 2), (4, 3), True, True),
           ((5, 2, 3), (5, 3, 4), False, False), ((2, 1, 3, 4), (5, 4, 2), False, False),
           ((5, 3, 4), (3, 2), True, False), ((2, 3), (2, 4, 3), False, True)]


@pytest.mark.parametrize("a,b,ta,tb", MATMULS, ids=str)
def test_matmul_gradients(a, b, ta, tb):
    check_op_gradient(lambda x, y: ds.matmul(x, y, transpose_a=ta, transpose_b=tb),
                      [rand(*a, seed=8), rand(*b, seed=9)])


def test_array_op_gradients():
    check_op_gradient(lambda x: ds.reshape(x, (4, -1)), [rand(2, 6)])
    check_op_gradient(lambda x: ds.transpose(x, (2, 0, 1)), [rand(2, 3, 4)])
    check_op_gradient(lambda x: ds.transpose(x), [rand(2, 3)])
    for axis in (0, 1, -1):
        check_op_gradient(lambda x, y, z: ds.concat([x, y, z], axis),
                          [rand(2, 3, seed=1), rand(2, 3, seed=2), rand(2, 3, seed=3)])
    check_op_gradient(lambda x, y: ds.concat([x, y], 1), [rand(2, 1), rand(2, 4)])


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_gradient(axis):
    check_op_gradient(lambda x: ds.nn.softmax(x, axis=axis), [rand(3, 4, seed=axis + 1) * 3])


def test_shape_of_op_gradients():
    """The internal ops gradients build have gradients too (for second derivatives)."""
    check_op_gradient(lambda v, like: make_op("_BroadcastToShapeOf", [v, like], name="b"),
                      [rand(3, 1), rand(2, 3, 4)], no_gradient=(1,))
    check_op_gradient(lambda g, like: make_op("_ReduceToShapeOf", [g, like], name="r"),
                      [rand(2, 3, 4), rand(3, 1)], no_gradient=(1,))
    check_op_gradient(lambda v, like: make_op("_ReshapeToShapeOf", [v, like],
                                              {"reduced_axes": (1,)}, name="s"),
                      [rand(2, 4), rand(2, 3, 4)], no_gradient=(1,))
    check_op_gradient(lambda v, a, b: split_to_shapes_of(v, [a, b], 1),
                      [rand(2, 5), rand(2, 2), rand(2, 3)], no_gradient=(1, 2))


def test_sqrt_rsqrt_reciprocal_gradients_are_zero_where_no_gradient_flows():
    # TF 2.21: tf.gradients(tf.sqrt(x), x, grad_ys=dy) with x = [0, 0, 4, 0, -1] and
    # dy = [0, 1, 0, -1, 0] is [0, inf, 0, -inf, 0] (its SqrtGrad kernel gives 0 where dy
    # is 0), so a pairwise distance masked after its sqrt has no NaN gradient at 0
    x = ds.constant([0.0, 0.0, 4.0, 0.0, -1.0])
    dy = ds.constant([0.0, 1.0, 0.0, -1.0, 0.0])
    grads = [ds.gradients(f(x), x, grad_ys=dy)[0] for f in (ds.sqrt, ds.rsqrt, ds.reciprocal)]
    assert [g.op.type for g in grads] == ["SqrtGrad", "RsqrtGrad", "ReciprocalGrad"]
    with ds.Session() as sess:
        got = sess.run(grads)
    np.testing.assert_array_equal(got[0], [0, np.inf, 0, -np.inf, 0])
    np.testing.assert_array_equal(got[1], [0, -np.inf, 0, np.inf, 0])
    np.testing.assert_array_equal(got[2], [0, -np.inf, 0, np.inf, 0])
    d = ds.constant([0.0, 0.25])                     # masked sqrt: gradient 0 at 0
    masked = ds.gradients(ds.reduce_sum(ds.sqrt(d) * [0.0, 1.0]), d)[0]
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(masked), [0.0, 1.0])


def test_tf1_math_gradients():
    rng = np.random.default_rng(7)
    x = rng.uniform(1, 4, (3, 4))
    y = rng.uniform(0.5, 2, (4,))                     # broadcast, away from integer jumps
    check_op_gradient(ds.floormod, [x, y])
    check_op_gradient(ds.rsqrt, [x])
    check_op_gradient(ds.reciprocal, [x])
    check_op_gradient(ds.sin, [x])
    check_op_gradient(ds.cos, [x])
    check_op_gradient(ds.diag, [rng.standard_normal(3)])
    check_op_gradient(ds.diag, [rng.standard_normal((2, 2))])
    for op in (ds.floor, ds.round, ds.ceil):
        g = ds.Graph()
        with g.as_default():
            t = ds.placeholder(ds.float64, (2,))
            assert ds.gradients(op(t), [t]) == [None]
    with ds.Graph().as_default():                # TF's Sign gradient is zeros, not None
        t = ds.placeholder(ds.float64, (2,))
        (zeros,) = ds.gradients(ds.sign(t) * 3.0, [t])
        with ds.Session() as sess:
            np.testing.assert_array_equal(sess.run(zeros, {t: [-2.0, 5.0]}), [0.0, 0.0])
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)     # well conditioned
    check_op_gradient(ds.matrix_determinant, [a])


def test_space_and_depth_gradients():
    """Each rearrangement's gradient is its inverse (ops/space_depth_grad.py); the block
    shapes, paddings and crops get none."""
    x = rand(2, 4, 6, 3, seed=3)
    check_op_gradient(lambda v: ds.space_to_depth(v, 2), [x])
    check_op_gradient(lambda v: ds.depth_to_space(v, 2), [rand(1, 2, 3, 8, seed=4)])
    check_op_gradient(lambda v: ds.space_to_depth(v, 2, data_format="NCHW"),
                      [x.transpose(0, 3, 1, 2).copy()])
    check_op_gradient(lambda v, b, p: ds.space_to_batch_nd(v, b, p),
                      [x, np.array([2, 3]), np.array([[1, 1], [0, 3]])], no_gradient=(1, 2))
    check_op_gradient(lambda v, b, c: ds.batch_to_space_nd(v, b, c),
                      [rand(6, 2, 3, 2, seed=5), np.array([3, 2]), np.array([[1, 1], [0, 3]])],
                      no_gradient=(1, 2))
    check_op_gradient(lambda v, p: make_op("SpaceToBatch", [v, p], {"block_size": 2}),
                      [rand(1, 3, 4, 2, seed=6), np.array([[1, 0], [0, 0]])], no_gradient=(1,))
    check_op_gradient(lambda v, c: make_op("BatchToSpace", [v, c], {"block_size": 2}),
                      [rand(4, 2, 2, 1, seed=7), np.array([[1, 0], [0, 2]])], no_gradient=(1,))


@pytest.mark.parametrize("k,s,r,padding", [((2, 2), (1, 1), (1, 1), "VALID"),
                                           ((3, 2), (2, 1), (1, 2), "SAME"),
                                           ((2, 3), (1, 2), (2, 1), "VALID"),
                                           ((1, 1), (2, 3), (1, 1), "SAME")], ids=str)
def test_extract_image_patches_gradient(k, s, r, padding):
    """Overlapping windows add up; what falls on the padding is dropped."""
    check_op_gradient(lambda v: ds.extract_image_patches(v, [1, *k, 1], [1, *s, 1],
                                                         [1, *r, 1], padding),
                      [rand(2, 5, 6, 2, seed=8)])


def test_extract_image_patches_gradient_of_unknown_shapes_and_second_order():
    x = ds.placeholder(ds.float64, (None, None, None, 2), name="x")
    p = ds.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
    (g,) = ds.gradients(ds.reduce_sum(p * p * p), [x])
    (gg,) = ds.gradients(ds.reduce_sum(g), [x])     # the gradient's own gradient
    xv = rand(2, 4, 5, 2, seed=9)

    def patches(v):
        with ds.Graph().as_default():
            t = ds.placeholder(ds.float64, v.shape)
            out = ds.extract_image_patches(t, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
            with ds.Session() as sess:
                return sess.run(out, {t: v})
    got, second = run([g, gg], {x: xv})
    np.testing.assert_allclose(got, numeric_gradient(lambda v: patches(v) ** 3, xv),
                               rtol=1e-5, atol=1e-8)
    # d/dx sum(3 p^2 read back) = 6 x * (reads per pixel): the first gradient over 3x^2 twice
    np.testing.assert_allclose(second, 2 * got / xv, rtol=1e-6)


def test_dilated_convolutions_gradients():
    """Conv2D and its input gradient with dilations (atrous_conv2d and its transpose)."""
    x, f = rand(2, 7, 6, 2, seed=10), rand(3, 2, 2, 3, seed=11)
    for padding in ("SAME", "VALID"):
        check_op_gradient(lambda v, w: ds.nn.conv2d(v, w, [1, 1, 1, 1], padding,
                                                    dilations=[1, 2, 3, 1]), [x, f])
        check_op_gradient(lambda v, w: ds.nn.atrous_conv2d(v, w, 2, padding), [x, f])
    dy = rand(2, 7, 6, 3, seed=12)
    check_op_gradient(lambda d, w: ds.nn.atrous_conv2d_transpose(d, w, [2, 7, 6, 2], 2, "SAME"),
                      [dy, f])


def test_string_ops_are_not_differentiable():
    """As TF's: no gradient flows through text (DecodeCSV, the regex ops...)."""
    from devsession.ops.decode_csv import DECODE_CSV
    from devsession.ops.string_regex import REGEX_OPS
    from devsession.ops.string_split import SPLIT_OPS
    from devsession.ops.strings import STRING_OPS

    for op_type in (*STRING_OPS, *REGEX_OPS, *SPLIT_OPS, DECODE_CSV):
        assert get_gradient(op_type) is None, op_type


def test_multinomial_is_not_differentiable():
    logits = ds.placeholder(ds.float64, (2, 3))
    draws = ds.random.categorical(logits, 5)
    assert get_gradient("Multinomial") is None
    assert ds.gradients(ds.cast(draws, ds.float64), [logits]) == [None]


def test_every_op_with_inputs_has_a_gradient_or_is_marked_not_differentiable():
    """API.md: every differentiable op has its gradient.  An op added without one (nor a
    ``not_differentiable`` entry) fails here, naming it."""
    from devsession.ops.registry import get_gradient, get_op_def

    missing = []
    lookup_error_as_in_tf = {"LRNGrad",                                 # none in TF1 either
                             "SparseSplit", "SparseReduceMax", "SparseReduceMaxSparse",
                             "SparseReduceSumSparse", "SparseSliceGrad",
                             "SparseFillEmptyRowsGrad", "SoftsignGrad",
                             "RFFT3D", "IRFFT3D", "GuaranteeConst", "Lu",
                             "MatrixLogarithm", "StatelessShuffle", "ResizeArea",
                             "ResizeBicubicGrad", "CropAndResizeGradImage",
                             "CropAndResizeGradBoxes",
                             "Bincount", "DenseBincount", "SparseBincount",   # the counts
                             "DenseCountSparseOutput", "SparseCountSparseOutput",
                             "StridedSliceAssign"}          # TF registers none for it
    # TF differentiates these (_FusedBatchNormGradGrad); devsession does not yet
    not_yet = {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}
    for op in sorted(set(registered_ops()) - lookup_error_as_in_tf - not_yet):
        # "_" ops are made by the runtime (fusion, sends) or by gradients themselves
        # (the shape-of ops: test_shape_of_op_gradients checks those)
        if get_op_def(op).num_inputs == 0 or op.startswith("_"):
            continue
        try:
            get_gradient(op)
        except LookupError:
            missing.append(op)
    assert not missing, f"ops without a gradient or a not_differentiable entry: {missing}"


# --- the engine on whole graphs --------------------------------------------------------------

def run(fetches, feed=None, graph=None):
    with ds.Session(graph=graph) as sess:
        sess.run(ds.variables_initializer((graph or ds.get_default_graph()).get_collection(
            "variables")))
        return sess.run(fetches, feed)




def test_chain_rule_through_a_small_network():
    xv, wv, bv = rand(5, 3, seed=1), rand(3, 2, seed=2), rand(2, seed=3)
    x = ds.placeholder(ds.float64, (None, 3), name="x")
    w = ds.Variable(wv, name="w")
    b = ds.Variable(bv, name="b")
    loss = ds.reduce_mean(ds.square(ds.tanh(ds.matmul(x, w) + b)))
    gx, gw, gb = ds.gradients(loss, [x, w, b])
    got = run([gx, gw, gb], {x: xv})

    def f(xv=xv, wv=wv, bv=bv):
        return np.mean(np.tanh(xv @ wv + bv) ** 2)
    np.testing.assert_allclose(got[0], numeric_gradient(lambda v: f(xv=v), xv), rtol=1e-6)
    np.testing.assert_allclose(got[1], numeric_gradient(lambda v: f(wv=v), wv), rtol=1e-6)
    np.testing.assert_allclose(got[2], numeric_gradient(lambda v: f(bv=v), bv), rtol=1e-6)
    assert gw.shape == (3, 2) and gb.shape == (2,) and gx.shape == (None, 3)


def test_every_path_and_every_y_is_summed():
    xv = rand(4)
    x = ds.placeholder(ds.float64, (4,))
    y1 = x * x + 3.0 * x                       # two paths through x
    y2 = ds.exp(x)
    (g,) = ds.gradients([y1, y2], [x])
    np.testing.assert_allclose(run(g, {x: xv}), 2 * xv + 3 + np.exp(xv))
    (g2,) = ds.gradients(x * x * x, x)         # a variable reused in one expression
    np.testing.assert_allclose(run(g2, {x: xv}), 3 * xv ** 2)


def test_grad_ys_weight_each_y():
    xv = rand(3)
    x = ds.placeholder(ds.float64, (3,))
    w1, w2 = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 4.0])
    (g,) = ds.gradients([x * x, ds.sigmoid(x)], x, grad_ys=[w1, ds.constant(w2)])
    s = 1 / (1 + np.exp(-xv))
    np.testing.assert_allclose(run(g, {x: xv}), w1 * 2 * xv + w2 * s * (1 - s))
    with pytest.raises(TypeError, match="dtype"):
        ds.gradients(x * x, x, grad_ys=[ds.constant([1, 2, 3])])
    with pytest.raises(ValueError, match="shape"):
        ds.gradients(x * x, x, grad_ys=[np.ones(4)])
    with pytest.raises(ValueError, match="grad_ys"):
        ds.gradients([x, x], x, grad_ys=[np.ones(3)])


def test_a_complex_y_needs_its_grad_ys_as_in_tf():
    # TF1 refuses to pick a weight for a complex y (the real part's? both parts'?)
    x = ds.placeholder(ds.complex64, (2,))
    y = ds.reduce_sum(x * x)
    with pytest.raises(TypeError, match=r"Gradients of complex tensors \(.*\) must set "
                                        r"grad_ys \(y.dtype = complex64\)"):
        ds.gradients(y, x)
    with pytest.raises(TypeError, match="must set grad_ys"):
        ds.gradients([ds.real(y), y], x, grad_ys=[1.0, None])
    (g,) = ds.gradients(y, x, grad_ys=ds.constant(1 + 0j, ds.complex64))
    np.testing.assert_allclose(run(g, {x: [1 + 1j, 2]}), [2 - 2j, 4])   # 2 conj(x)
    (g,) = ds.gradients(ds.real(y), x)        # a real y: ones, as always
    np.testing.assert_allclose(run(g, {x: [1 + 1j, 2]}), [2 - 2j, 4])


def test_stop_gradients_and_the_stop_gradient_op():
    xv = rand(3)
    x = ds.placeholder(ds.float64, (3,))
    a = x * 2.0
    y = a * x                                  # 2x^2
    (held,) = ds.gradients(y, x, stop_gradients=[a])
    (free,) = ds.gradients(y, x)
    (blocked,) = ds.gradients(ds.stop_gradient(a) * x, x)
    got = run([held, free, blocked], {x: xv})
    np.testing.assert_allclose(got[0], 2 * xv)
    np.testing.assert_allclose(got[1], 4 * xv)
    np.testing.assert_allclose(got[2], 2 * xv)
    assert ds.gradients(ds.stop_gradient(x), x) == [None]
    np.testing.assert_array_equal(run(ds.stop_gradient(a), {x: xv}), 2 * xv)


def test_unreachable_and_integer_xs_get_none():
    x = ds.placeholder(ds.float64, (3,), name="x")
    other = ds.placeholder(ds.float64, (3,), name="other")
    n = ds.placeholder(ds.int32, (3,), name="n")
    y = x * ds.cast(n, ds.float64)
    assert ds.gradients(y, [other, n]) == [None, None]
    assert ds.gradients(ds.cast(ds.argmax(x), ds.float64), x) == [None]   # not differentiable
    zero, = ds.gradients(y, other, unconnected_gradients="zero")
    np.testing.assert_array_equal(run(zero, {other: np.ones(3)}), np.zeros(3))


def test_gradient_of_y_with_respect_to_itself_is_grad_ys():
    x = ds.placeholder(ds.float64, (2,))
    (g,) = ds.gradients(x, x)
    np.testing.assert_array_equal(run(g, {x: [3.0, 4.0]}), [1.0, 1.0])


SECOND = [
    (lambda x: x ** 3.0, lambda v: 6 * v, rand),
    (ds.exp, np.exp, rand), (ds.square, lambda v: np.full_like(v, 2.0), rand),
    (ds.tanh, lambda v: -2 * np.tanh(v) * (1 - np.tanh(v) ** 2), rand),
    (ds.sigmoid, lambda v: (s := 1 / (1 + np.exp(-v))) * (1 - s) * (1 - 2 * s), rand),
    (ds.log, lambda v: -1 / v ** 2, positive), (ds.sqrt, lambda v: -0.25 * v ** -1.5, positive),
    (lambda x: 1.0 / x, lambda v: 2 / v ** 3, positive),
    (lambda x: ds.reduce_mean(x * x * x), lambda v: 6 * v / v.size, rand),
    (lambda x: ds.nn.relu(x) * x, lambda v: 2.0 * (v > 0), rand),
]


@pytest.mark.parametrize("f,want,values", SECOND, ids=range(len(SECOND)))
def test_second_derivatives(f, want, values):
    xv = values(4)
    x = ds.placeholder(ds.float64, (None,))
    (dx,) = ds.gradients(f(x), x)
    (ddx,) = ds.gradients(dx, x)
    np.testing.assert_allclose(run(ddx, {x: xv}), want(xv), rtol=1e-10, atol=1e-12)


def test_variables_as_xs_and_as_ys():
    v = ds.Variable(np.array([1.0, 2.0], F64), name="v")
    (g,) = ds.gradients(ds.reduce_sum(v * v), [v])
    np.testing.assert_array_equal(run(g), [2.0, 4.0])
    (one,) = ds.gradients(v, v)
    np.testing.assert_array_equal(run(one), [1.0, 1.0])


def test_ops_go_under_a_gradients_scope_named_after_the_forward_ops():
    x = ds.placeholder(ds.float64, (3,), name="x")
    y = ds.square(x, name="sq")
    (g,) = ds.gradients(y, x)
    ds.gradients(y, x, name="mine")
    names = [op.name for op in ds.get_default_graph().get_operations()]
    assert g.op.name.startswith("gradients/sq_grad/")
    assert "gradients/grad_ys_0" in names
    assert any(n.startswith("mine/sq_grad/") for n in names)


def _no_gradient_op():
    if "_TestOpWithoutGradient" not in registered_ops():
        register_op(OpDef("_TestOpWithoutGradient", lambda i, a, n: (i[0].dtype, i[0].shape), 1))


def test_an_op_without_a_gradient_raises_lookup_error_naming_it():
    _no_gradient_op()
    x = ds.placeholder(ds.float64, (3,))
    y = make_op("_TestOpWithoutGradient", [x * 2.0], name="mystery")
    with pytest.raises(LookupError, match=r"'mystery'.*_TestOpWithoutGradient"):
        ds.gradients(y * x, x)
    (g,) = ds.gradients(ds.stop_gradient(y) * x, x)     # not on a path: fine
    assert g is not None
    (g,) = ds.gradients(y * x, x, stop_gradients=[y])
    assert g is not None


def test_unused_outputs_of_a_several_output_op_get_none():
    xv = rand(2, 5)
    x = ds.placeholder(ds.float64, (2, 5))
    first, _ = split_to_shapes_of(x, [ds.constant(np.zeros((2, 2))),
                                      ds.constant(np.zeros((2, 3)))], 1)
    (g,) = ds.gradients(first * 3.0, x)
    np.testing.assert_array_equal(run(g, {x: xv}), [[3, 3, 0, 0, 0]] * 2)


def test_tensors_from_another_graph_are_refused():
    """TF's ValueError and message, an x or a y against the first y (also through an
    optimizer's var_list): it must be from the same graph."""
    x = ds.placeholder(ds.float64, (2,), name="x")
    y = ds.multiply(x, 2.0, name="y")
    with ds.Graph().as_default():
        other = ds.placeholder(ds.float64, (2,), name="other")
        v = ds.Variable([1.0, 2.0], name="v")

    def same(item, original):
        return re.escape(f"{item!r} must be from the same graph as {original!r} (graphs are")

    with pytest.raises(ValueError, match=same(other, y)):
        ds.gradients(y, other)
    with pytest.raises(ValueError, match=same(other, y)):
        ds.gradients([y, other], x)
    loss = ds.reduce_sum(y, name="loss")
    with pytest.raises(ValueError, match="'v:0'.* must be from the same graph as "
                                         + re.escape(repr(loss))):
        ds.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[v])


# --- unknown shapes: the runtime shape-of ops -------------------------------------------------

def test_broadcasts_undecidable_at_build_time_are_reduced_at_run_time():
    a = ds.placeholder(ds.float64, (None, None), name="a")
    b = ds.placeholder(ds.float64, (None, None), name="b")
    ga, gb = ds.gradients(ds.reduce_sum(a * b), [a, b])
    types = {op.type for op in ds.get_default_graph().get_operations()}
    assert "_ReduceToShapeOf" in types
    for av, bv in [(rand(3, 1, seed=1), rand(1, 4, seed=2)), (rand(3, 4), rand(3, 4, seed=5)),
                   (rand(1, 4), rand(3, 4, seed=3))]:
        got_a, got_b = run([ga, gb], {a: av, b: bv})
        np.testing.assert_allclose(got_a, numeric_gradient(lambda v: v * bv, av), rtol=1e-6)
        np.testing.assert_allclose(got_b, numeric_gradient(lambda v: av * v, bv), rtol=1e-6)


def test_bias_gradient_over_an_unknown_batch_stays_static():
    x = ds.placeholder(ds.float64, (None, 3), name="x")
    b = ds.placeholder(ds.float64, (3,), name="b")
    gx, gb = ds.gradients(ds.reduce_mean(ds.square(x + b)), [x, b])
    assert gb.op.type == "Sum" and gx.shape == (None, 3)
    xv, bv = rand(4, 3), rand(3, seed=1)
    got_x, got_b = run([gx, gb], {x: xv, b: bv})
    np.testing.assert_allclose(got_x, 2 * (xv + bv) / xv.size)
    np.testing.assert_allclose(got_b, (2 * (xv + bv) / xv.size).sum(axis=0))


def test_reductions_and_reshapes_of_unknown_shapes():
    x = ds.placeholder(ds.float64, (None, None, 2), name="x")
    ys = [ds.reduce_mean(x, axis=2), ds.reduce_max(x, axis=0), ds.reduce_sum(x, axis=[0, 1]),
          ds.reshape(x, (-1,)) * 2.0, ds.reduce_mean(x)]
    grads = [ds.gradients(y, x)[0] for y in ys]
    types = {op.type for op in ds.get_default_graph().get_operations()}
    assert {"_ReducedSize", "_ReshapeToShapeOf"} <= types
    xv = rand(3, 4, 2)
    got = run(grads, {x: xv})
    forward = [lambda v: v.mean(axis=2), lambda v: v.max(axis=0), lambda v: v.sum(axis=(0, 1)),
               lambda v: v.reshape(-1) * 2, lambda v: v.mean()]
    for g, f in zip(got, forward):
        np.testing.assert_allclose(g, numeric_gradient(f, xv), rtol=1e-6, atol=1e-9)


def test_matmul_with_an_unknown_batch_broadcast():
    a = ds.placeholder(ds.float64, (None, 2, 3), name="a")
    b = ds.placeholder(ds.float64, (None, 3, 4), name="b")
    ga, gb = ds.gradients(ds.reduce_sum(ds.matmul(a, b)), [a, b])
    av, bv = rand(1, 2, 3), rand(5, 3, 4, seed=2)
    got_a, got_b = run([ga, gb], {a: av, b: bv})
    np.testing.assert_allclose(got_a, numeric_gradient(lambda v: v @ bv, av), rtol=1e-6)
    np.testing.assert_allclose(got_b, numeric_gradient(lambda v: av @ v, bv), rtol=1e-6)


def test_shape_of_builders_stay_static_when_shapes_decide():
    x = ds.placeholder(ds.float64, (None, 3))
    b = ds.placeholder(ds.float64, (3,))
    g = ds.placeholder(ds.float64, (None, 3))
    assert reduce_to_shape_of(g, x, peers=(b,)) is g
    assert reduce_to_shape_of(g, b, peers=(x,)).op.type == "Sum"
    unknown = ds.placeholder(ds.float64, (None, None))
    ones = ds.placeholder(ds.float64, (1, 1))
    assert reduce_to_shape_of(g, unknown, peers=(ones,)) is g   # only unknown can widen
    assert reduce_to_shape_of(g, unknown, peers=(x,)).op.type == "_ReduceToShapeOf"
    assert reshape_to_shape_of(g, x) is g
    assert broadcast_to_shape_of(b, b) is b
    one = ds.placeholder(ds.float64, (1, 3))
    assert reduce_to_shape_of(g, one, peers=(x,)).op.get_attr("keepdims")
