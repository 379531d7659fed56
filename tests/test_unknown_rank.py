"""Ops on tensors whose rank the graph does not know (``placeholder(shape=None)``, a
``reshape`` to a fed shape): each builds as TF1 builds it, with TF's static shape
(recorded from TF 2.21's tf.compat.v1: ``None`` is an unknown rank), and computes
numpy's value for the array fed; what TF checks at run time is its error class then,
naming the node.  (Reductions: tests/test_reduce_unknown_rank.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds



def _inputs():
    """The fed values, drawn once at import by a generator no test shares."""
    rng = np.random.default_rng(7)
    return (rng.standard_normal((2, 3, 4)).astype(np.float32),
            rng.standard_normal((2, 3, 3)).astype(np.float32),
            rng.uniform(0, 1, (2, 5, 4, 3)).astype(np.float32))


A3, SQ, IMAGES = _inputs()
W = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)


def _softmax(v, axis=-1):
    e = np.exp(v - v.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _swap(v):
    return np.swapaxes(v, -1, -2)


def _standardized(v):
    mean = v.mean((-3, -2, -1), keepdims=True)
    floor = 1 / np.sqrt(np.prod(v.shape[-3:]))
    return (v - mean) / np.maximum(v.std((-3, -2, -1), keepdims=True), floor)


def _contrast(v, factor=2.0):
    mean = v.mean((-3, -2), keepdims=True)
    return (v - mean) * factor + mean


def _perm_from_rank(x):                     # a perm only a run knows
    r = ds.rank(x)
    return ds.transpose(x, ds.concat([ds.range(r - 2), [r - 1, r - 2]], 0))


# (id, build(x), array fed, TF's static shape, numpy's value)
CASES = [
    ("transpose", ds.transpose, A3, None, lambda v: v.T),
    ("transpose_run_time_perm", _perm_from_rank, A3, None, _swap),
    ("matrix_transpose", ds.linalg.matrix_transpose, A3, None, _swap),
    ("matrix_transpose_2d", ds.linalg.transpose, A3[0], None, _swap),
    ("trace", ds.linalg.trace, SQ, None, lambda v: np.trace(v, axis1=-2, axis2=-1)),
    ("tensordot_1", lambda x: ds.tensordot(x, ds.constant(W), 1), A3, None,
     lambda v: np.tensordot(v, W, 1)),
    ("tensordot_pairs", lambda x: ds.tensordot(x, ds.ones([3, 4]), [[1, -1], [0, 1]]), A3,
     None, lambda v: np.tensordot(v, np.ones((3, 4), np.float32), [[1, 2], [0, 1]])),
    ("tensordot_0", lambda x: ds.tensordot(x, ds.constant(W[0]), 0), A3[0], None,
     lambda v: np.tensordot(v, W[0], 0)),
    ("set_diag", lambda x: ds.linalg.set_diag(x, ds.ones([2, 3])), SQ, [2, None, None],
     lambda v: np.where(np.eye(3, dtype=bool), 1.0, v)),
    ("band_part", lambda x: ds.linalg.band_part(x, 0, -1), SQ, None, np.triu),
    ("matrix_solve", lambda x: ds.matrix_solve(x + 3 * ds.eye(3), ds.ones([2, 3, 1])), SQ,
     [2, 3, 1], lambda v: np.linalg.solve(v + 3 * np.eye(3), np.ones((2, 3, 1)))),
    ("softmax", ds.nn.softmax, A3, None, _softmax),
    ("log_softmax", ds.nn.log_softmax, A3[0, 0], None, lambda v: np.log(_softmax(v))),
    ("softmax_xent", lambda x: ds.nn.softmax_cross_entropy_with_logits_v2(
        labels=ds.nn.softmax(x), logits=x), A3, None,
     lambda v: -(_softmax(v) * np.log(_softmax(v))).sum(-1)),
    ("concat_last", lambda x: ds.concat([x, 2 * x], -1), A3, None,
     lambda v: np.concatenate([v, 2 * v], -1)),
    ("concat_known", lambda x: ds.concat([x, ds.ones([2, 3, 1])], -1), A3, [2, 3, None],
     lambda v: np.concatenate([v, np.ones((2, 3, 1), np.float32)], -1)),
    ("crelu", ds.nn.crelu, A3, None,
     lambda v: np.concatenate([np.maximum(v, 0), np.maximum(-v, 0)], -1)),
    ("moments_last_kept", lambda x: ds.nn.moments(x, [-1], keep_dims=True)[1], A3, None,
     lambda v: v.var(-1, keepdims=True)),
    ("moments", lambda x: ds.nn.moments(x, [0, -2])[0], A3, None, lambda v: v.mean((0, 1))),
    ("flip_left_right", ds.image.flip_left_right, IMAGES[0], None, lambda v: v[:, ::-1]),
    ("flip_up_down_batch", ds.image.flip_up_down, IMAGES, None, lambda v: v[:, ::-1]),
    ("per_image_standardization", ds.image.per_image_standardization, IMAGES, None,
     _standardized),
    ("rgb_to_grayscale", ds.image.rgb_to_grayscale, IMAGES[0], None,
     lambda v: (v @ np.float32([0.2989, 0.5870, 0.1140]))[..., None]),
    ("adjust_contrast", lambda x: ds.image.adjust_contrast(x, 2.0), IMAGES, None, _contrast),
    ("rot90", ds.image.rot90, IMAGES[0], None, lambda v: np.rot90(v, 1, (0, 1))),
    ("rot90_batch", lambda x: ds.image.rot90(x, 3), IMAGES, None,
     lambda v: np.rot90(v, 3, (1, 2))),
    ("transpose_image", ds.image.transpose_image, IMAGES, None,
     lambda v: v.transpose(0, 2, 1, 3)),
    ("grayscale_to_rgb", ds.image.grayscale_to_rgb, IMAGES[..., :1], None,
     lambda v: np.repeat(v, 3, -1)),
    ("hsv_round_trip", lambda x: ds.image.hsv_to_rgb(ds.image.rgb_to_hsv(x)), IMAGES[0], None,
     lambda v: v),
    ("psnr", lambda x: ds.image.psnr(x, x * 0.5, 1.0), IMAGES, None,
     lambda v: -10 * np.log10(np.square(v * 0.5).mean((1, 2, 3)))),
    ("reverse_sequence", lambda x: ds.reverse_sequence(x, [2, 4, 1], seq_axis=2,
                                                       batch_axis=1), A3, None,
     lambda v: np.stack([np.concatenate([v[:, b, :n][..., ::-1], v[:, b, n:]], -1)
                         for b, n in enumerate([2, 4, 1])], 1)),
    ("lrn", ds.nn.lrn, IMAGES, [None] * 4,              # 3 channels, all within radius 5
     lambda v: v / np.sqrt(1 + (v * v).sum(-1, keepdims=True))),
    ("sparse_xent", lambda x: ds.nn.sparse_softmax_cross_entropy_with_logits(
        labels=ds.constant([0, 3, 1]), logits=x), A3[0], [3],
     lambda v: -np.log(_softmax(v)[np.arange(3), [0, 3, 1]])),
    ("layers_flatten", ds.layers.flatten, A3, [None, None], lambda v: v.reshape(2, 12)),
    ("layers_flatten_vector", ds.layers.flatten, A3[0, 0], [None, None],
     lambda v: v[:, None]),
]


@pytest.mark.parametrize("build, value, static, reference", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_builds_as_tf_and_computes_the_value_fed(build, value, static, reference):
    x = ds.placeholder(ds.float32, None)
    y = build(x)
    assert (None if y.shape.ndims is None else y.shape.as_list()) == static
    with ds.Session() as sess:
        got = sess.run(y, {x: value})
    np.testing.assert_allclose(got, reference(value), rtol=1e-5, atol=1e-6)


# (id, build(x), array fed, TF's static shape of the gradient, numpy's gradient of
# sum(build(x)))
GRADIENTS = [
    ("transpose", lambda x: ds.linalg.matrix_transpose(x) * ds.range(3.0), A3, None,
     lambda v: np.broadcast_to(np.arange(3.0)[:, None], v.shape)),
    ("trace", ds.linalg.trace, SQ, None, lambda v: np.broadcast_to(np.eye(3), v.shape)),
    ("tensordot", lambda x: ds.tensordot(x, ds.constant(W), 1), A3, None,
     lambda v: np.broadcast_to(W.sum(1), v.shape)),
    ("concat", lambda x: ds.concat([x, 3 * x], -1), A3, None,
     lambda v: np.full(v.shape, 4.0)),
    ("tile", lambda x: ds.tile(x, [1, 2, 1]) * ds.range(4.0), A3, [None] * 3,
     lambda v: np.broadcast_to(2 * np.arange(4.0), v.shape)),
]


@pytest.mark.parametrize("build, value, static, reference", [c[1:] for c in GRADIENTS],
                         ids=[c[0] for c in GRADIENTS])
def test_gradients_over_an_unknown_rank(build, value, static, reference):
    x = ds.placeholder(ds.float32, None)
    (grad,) = ds.gradients(ds.reduce_sum(build(x)), [x])
    assert (None if grad.shape.ndims is None else grad.shape.as_list()) == static
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(grad, {x: value}), reference(value), rtol=1e-5)


# (id, build(x), array fed, TF's error text; the node named in it)
RUN_TIME_ERRORS = [
    ("band_part", lambda x: ds.linalg.band_part(x, 0, -1), A3[0, 0],
     r"input must be at least 2-dim, received shape: \[4\]", "MatrixBandPart/check_rank"),
    ("trace", ds.linalg.trace, A3[0, 0],
     r"input must be at least 2-dim, received shape: \[4\]", "Trace/diag_part"),
    ("matrix_transpose", ds.linalg.matrix_transpose, A3[0, 0], "range", "matrix_transpose/range"),
    ("concat", lambda x: ds.concat([x, ds.ones([2, 3, 1])], -1), A3[0], "concatenate", "concat"),
    ("tensordot", lambda x: ds.tensordot(x, ds.constant(W), 1), A3[..., :3],
     "size-incompatible", "Tensordot/MatMul"),
    ("psnr", lambda x: ds.image.psnr(x, x, 1.0), A3[0], "not compatible", "PSNR/Assert"),
    ("flip_left_right", ds.image.flip_left_right, A3[0],
     "'image' must be at least three-dimensional", "flip_left_right/Assert_1"),
    ("per_image_standardization", ds.image.per_image_standardization, A3[0],
     "'image' must be at least three-dimensional", "per_image_standardization/Assert_1"),
]


@pytest.mark.parametrize("build, value, message, node", [c[1:] for c in RUN_TIME_ERRORS],
                         ids=[c[0] for c in RUN_TIME_ERRORS])
def test_what_tf_checks_at_run_time_is_its_invalid_argument(build, value, message, node):
    x = ds.placeholder(ds.float32, None)
    y = build(x)
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match=message) as caught:
            sess.run(y, {x: value})
    assert f"'{node}'" in str(caught.value)


def test_a_perm_only_a_run_knows():
    """TF's Transpose takes its perm as an input: a fed perm works, its rank known from the
    perm's length, a bad one is the kernel's error; the gradient transposes back."""
    x = ds.placeholder(ds.float32, [2, 3, 4])
    perm = ds.placeholder(ds.int32, [3])
    y = ds.transpose(x, perm, name="t")
    (grad,) = ds.gradients(ds.reduce_sum(y * ds.range(3.0)), [x])
    assert y.shape.as_list() == [None, None, None]
    assert ds.transpose(ds.placeholder(ds.float32), perm).shape.as_list() == [None] * 3
    with ds.Session() as sess:
        got, g = sess.run([y, grad], {x: A3, perm: [2, 0, 1]})
        np.testing.assert_array_equal(got, A3.transpose(2, 0, 1))
        np.testing.assert_array_equal(
            g, np.broadcast_to(np.arange(3.0), (4, 2, 3)).transpose(1, 2, 0))
        for bad in ([0, 0, 1], [1, 0, 3]):
            with pytest.raises(ds.errors.InvalidArgumentError, match="'t'"):
                sess.run(y, {x: A3, perm: bad})


def test_a_run_time_perm_exports_as_tfs_transpose():
    from devsession.tf_export import to_tf_graph_def

    x = ds.placeholder(ds.float32, None, name="x")
    ds.identity(ds.linalg.matrix_transpose(x), name="y")
    graph_def = to_tf_graph_def(ds.get_default_graph())
    (node,) = [n for n in graph_def.node if n.name == "matrix_transpose/transpose"]
    assert (node.op, list(node.input)) == ("Transpose", ["x", "matrix_transpose/concat"])
    with ds.Graph().as_default():
        ds.import_graph_def(graph_def, name="")
        with ds.Session() as sess:
            assert sess.run("y:0", {"x:0": A3}).shape == (2, 4, 3)


@pytest.mark.parametrize("flip, axis", [(ds.image.random_flip_left_right, 1),
                                        (ds.image.random_flip_up_down, 0)])
def test_random_flips_of_an_image_or_a_batch_of_unknown_rank(flip, axis):
    """TF's cond on the rank fed: one draw for an image, one per image of a batch."""
    x = ds.placeholder(ds.float32, None)
    y = flip(x, seed=3)
    assert y.shape.ndims is None
    batch = np.concatenate([IMAGES] * 4)
    with ds.Session() as sess:
        flips = []
        for value in (IMAGES[0], batch):
            got = sess.run(y, {x: value})
            for image, out in zip(value[None] if value.ndim == 3 else value,
                                  got[None] if got.ndim == 3 else got):
                flips.append(np.array_equal(out, np.flip(image, axis)))
                assert flips[-1] or np.array_equal(out, image)
    assert any(flips[1:]) and not all(flips[1:])    # the batch's images drawn apart


def test_ssim_of_unknown_rank_equals_ssim_of_the_known_shape():
    x = ds.placeholder(ds.float32, None)
    known = ds.placeholder(ds.float32, IMAGES.shape)
    y, want = (ds.image.ssim(t, t * 0.9 + 0.05, 1.0, filter_size=3) for t in (x, known))
    assert y.shape.ndims is None
    with ds.Session() as sess:
        got, expected = sess.run([y, want], {x: IMAGES, known: IMAGES})
    np.testing.assert_allclose(got, expected, rtol=1e-6)


V = np.array([[1, 5, 5], [2, 0, 1]], np.float32)
W2 = np.array([[1], [2]], np.float32)        # weights of the two rows' results


@pytest.mark.parametrize("build, value, grad", [
    (ds.reduce_sum, V.sum(-1), 2 * V * W2),
    (ds.reduce_mean, V.mean(-1), 2 * V * W2 / 3),
    (ds.reduce_max, V.max(-1), np.float32([[0, 5, 5], [8, 0, 0]])),   # a tie shares
    (ds.reduce_min, V.min(-1), np.float32([[2, 0, 0], [0, 0, 0]])),
], ids=["sum", "mean", "max", "min"])
def test_a_reduction_over_an_axis_only_a_run_knows(build, value, grad):
    """TF's reductions take their axes as an input: a fed axis (negative counted from the
    end of the value fed) builds, reduces and has TF's gradient."""
    x = ds.placeholder(ds.float32, None)
    axis = ds.placeholder(ds.int32, [])
    y = build(x, axis)
    kept = build(x, ds.rank(x) - 1, keepdims=True)
    (g,) = ds.gradients(ds.reduce_sum(build(x * x, axis) * W2[:, 0]), [x])
    assert y.shape.ndims is None and kept.shape.ndims is None
    with ds.Session() as sess:
        got, got_kept, got_grad = sess.run([y, kept, g], {x: V, axis: -1})
    np.testing.assert_allclose(got, value, rtol=1e-6)
    np.testing.assert_allclose(got_kept, value[:, None], rtol=1e-6)
    np.testing.assert_allclose(got_grad, grad, rtol=1e-6)


def test_concat_takes_an_axis_tensor_the_graph_knows():
    x = ds.placeholder(ds.float32, [2, 3])
    by_rank = ds.concat([x, 2 * x], ds.rank(x) - 1)
    assert by_rank.shape.as_list() == [2, 6]
    with ds.Session() as sess:
        got = sess.run(by_rank, {x: A3[0, :, :3].T[:2]})
    np.testing.assert_array_equal(got[:, 3:], 2 * got[:, :3])
    unknown = ds.placeholder(ds.float32, None)
    with pytest.raises(NotImplementedError, match="an axis only a run knows"):
        ds.concat([unknown, unknown], ds.rank(unknown) - 1)      # TF reads it per run
