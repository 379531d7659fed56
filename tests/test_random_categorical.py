"""``ds.random.categorical`` and ``ds.multinomial`` (TF's ``Multinomial`` op): the
distribution of the draws (class frequencies against the softmax of the logits, a
chi-square bound a broken sampler fails), non-finite logits never drawn, shapes and
dtypes, seeding (op and graph seeds, the same draws in a new session, new draws each
run), build-time and run-time errors, the draws a cond or while_loop records for its
gradient, the stand-in GPU, and a GraphDef TensorFlow wrote holding one."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
import test_gpu_cupy_standin

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU

LOGITS = np.array([[1.0, 0.0, -1.0, 2.0, -np.inf, 0.5],
                   [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                   [-3.0, np.nan, 4.0, np.inf, -np.inf, 3.0]], np.float32)
# chi-square with up to 5 degrees of freedom exceeds 30 with probability below 2e-5
CHI_SQUARE_BOUND = 30.0


def softmax_of_finite(row):
    weights = np.where(np.isfinite(row), np.exp(np.where(np.isfinite(row), row, 0) -
                                                np.max(row[np.isfinite(row)])), 0.0)
    return weights / weights.sum()


def chi_square(counts, p):
    """Pearson's statistic over the classes of non-zero probability."""
    live = p > 0
    expected = counts.sum() * p[live]
    return float(((counts[live] - expected) ** 2 / expected).sum())


def test_frequencies_follow_the_softmax_of_the_finite_logits(graph):
    samples = ds.random.categorical(LOGITS, 30000, seed=3)
    with ds.Session() as sess:
        drawn = sess.run(samples)
    assert drawn.shape == (3, 30000) and drawn.dtype == np.int64
    for row, classes in zip(LOGITS, drawn):
        counts = np.bincount(classes, minlength=6)
        p = softmax_of_finite(row.astype(np.float64))
        assert not counts[p == 0].any(), (row, counts)       # -inf, +inf, NaN: never
        assert chi_square(counts, p) < CHI_SQUARE_BOUND, (row, counts, p)


def test_a_row_without_a_finite_logit_gives_the_class_count_as_tf(graph):
    samples = ds.multinomial([[-np.inf, -np.inf, np.nan]], 4, seed=1)
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(samples), [[3, 3, 3, 3]])


def test_one_class_and_float64_and_integer_logits(graph):
    outs = [ds.random.categorical(np.zeros((2, 1), np.float64), 5, seed=1),
            ds.random.categorical(np.array([[0, 50]], np.int32), 7, seed=2),
            ds.random.categorical(np.array([[0.0, 8.0, 0.0]], np.float16), 7, seed=2)]
    with ds.Session() as sess:
        one, ints, halves = sess.run(outs)
    np.testing.assert_array_equal(one, np.zeros((2, 5)))
    np.testing.assert_array_equal(ints, np.ones((1, 7)))      # e^-50: never drawn in 7
    np.testing.assert_array_equal(halves, np.ones((1, 7)))


def test_shapes_dtypes_and_names(graph):
    logits = ds.placeholder(ds.float32, (None, 5), name="logits")
    n = ds.placeholder(ds.int32, (), name="n")
    a = ds.random.categorical(logits, 4)
    b = ds.random.categorical(logits, n, dtype=ds.int32, name="draw")
    c = ds.multinomial(logits, 2, output_dtype=ds.int64)
    d = ds.random.multinomial(logits, 0)
    assert (a.op.type, a.name, a.dtype, a.shape.as_list()) == \
        ("Multinomial", "categorical/Multinomial:0", ds.int64, [None, 4])
    assert (b.name, b.dtype, b.shape.as_list()) == ("draw/Multinomial:0", ds.int32, [None, None])
    assert (c.name, c.shape.as_list()) == ("multinomial/Multinomial:0", [None, 2])
    assert d.op.get_attr("output_dtype") == ds.int64
    with ds.Session() as sess:
        got_a, got_b, got_d = sess.run([a, b, d], {logits: np.zeros((3, 5)), n: 6})
        assert got_a.shape == (3, 4) and (got_b.shape, got_b.dtype) == ((3, 6), np.int32)
        assert got_d.shape == (3, 0)
        assert sess.run(a, {logits: np.zeros((0, 5))}).shape == (0, 4)
        assert set(np.unique(sess.run(b, {logits: np.zeros((2, 5)), n: 500}))) == \
            set(range(5))


def test_seeds_repeat_per_session_and_differ_per_run():
    def draws(op_seed, graph_seed=None):
        with ds.Graph().as_default() as g:
            if graph_seed is not None:
                ds.set_random_seed(graph_seed)
            samples = ds.random.categorical(np.zeros((2, 50), np.float32), 20, seed=op_seed)
        with ds.Session(graph=g) as sess:
            return [sess.run(samples) for _ in range(2)]
    first, second = draws(5)
    np.testing.assert_array_equal(first, draws(5)[0])            # a new session: again
    assert not np.array_equal(first, second)                     # each run: new draws
    assert not np.array_equal(first, draws(6)[0])                # another seed
    graph_seeded = draws(None, graph_seed=11)
    np.testing.assert_array_equal(graph_seeded[0], draws(None, graph_seed=11)[0])
    assert not np.array_equal(graph_seeded[0], draws(None, graph_seed=12)[0])
    assert not np.array_equal(draws(None)[0], draws(None)[0])    # unseeded


@pytest.mark.parametrize("build,error,message", [
    (lambda: ds.random.categorical(np.zeros((2, 3, 4), np.float32), 2), ValueError,
     "Shape must be rank 2 but is rank 3"),
    (lambda: ds.random.categorical(np.zeros(3, np.float32), 2), ValueError,
     "Shape must be rank 2 but is rank 1"),
    (lambda: ds.random.categorical(np.zeros((2, 3), np.float32), -1), ValueError,
     "must be non-negative but is -1"),
    (lambda: ds.random.categorical(np.zeros((2, 3), np.float32), [2, 3]), ValueError,
     "Shape must be rank 0 but is rank 1"),
    (lambda: ds.random.categorical(np.zeros((2, 3), np.float32), ds.constant(2, ds.int64)),
     TypeError, "int32 is required"),
    (lambda: ds.random.categorical(np.zeros((2, 3), bool), 2), TypeError, "real number"),
    (lambda: ds.random.categorical(np.zeros((2, 3), np.float32), 2, dtype=ds.float32),
     TypeError, "output_dtype must be int32 or int64"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors(graph, build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_run_time_errors_name_the_node(graph):
    logits = ds.placeholder(ds.float32, name="logits")
    n = ds.placeholder(ds.int32, (), name="n")
    samples = ds.random.categorical(logits, n, name="draw")
    with ds.Session() as sess:
        for feed, message in [({logits: np.zeros((2, 3)), n: -2},
                               "num_samples should be nonnegative, got -2"),
                              ({logits: np.zeros(3), n: 2}, r"logits should be a matrix, got "
                                                            r"shape \[3\]"),
                              ({logits: np.zeros((2, 0)), n: 2},
                               "num_classes should be positive, got 0")]:
            with pytest.raises(ds.errors.InvalidArgumentError, match=message) as e:
                sess.run(samples, feed)
            assert e.value.node_name == "draw/Multinomial"


def test_not_differentiable(graph):
    logits = ds.placeholder(ds.float32, (2, 3))
    drawn = ds.cast(ds.random.categorical(logits, 4), ds.float32)
    assert ds.gradients(ds.reduce_sum(drawn * logits[:, :1]), [logits])[0] is not None
    assert ds.gradients(ds.reduce_sum(drawn), [logits]) == [None]


def test_a_cond_records_its_draws_for_the_gradient(graph):
    """The gradient replays the branch with the classes the forward run drew: d/dw of
    sum(w * classes) is the sum of those very classes, seen in the same run."""
    w = ds.placeholder(ds.float64, (), name="w")
    flag = ds.placeholder(ds.bool, (), name="flag")

    def drawn():
        classes = ds.cast(ds.random.categorical(np.zeros((1, 100), np.float32), 50),
                          ds.float64)
        return ds.reduce_sum(w * classes), ds.reduce_sum(classes)

    y, total = ds.cond(flag, drawn, lambda: (w * 0.0, ds.constant(0.0, ds.float64)))
    (dw,) = ds.gradients(y, [w])
    with ds.Session() as sess:
        for _ in range(3):
            got_total, got_dw = sess.run([total, dw], {w: 2.0, flag: True})
            assert got_total > 0 and got_dw == got_total
        assert sess.run(dw, {w: 2.0, flag: False}) == 0.0


def test_a_while_loop_records_every_iterations_draws(graph):
    w = ds.placeholder(ds.float64, (), name="w")

    def body(i, y, drawn):
        c = ds.cast(ds.random.categorical(np.zeros((1, 1000), np.float32), 1)[0, 0],
                    ds.float64)
        return i + 1, y * w + c, ds.concat([drawn, ds.reshape(c, [1])], 0)

    _, y, drawn = ds.while_loop(
        lambda i, y, d: i < 3, body,
        [ds.constant(0), ds.constant(0.0, ds.float64), ds.zeros([0], ds.float64)],
        shape_invariants=[ds.TensorShape([]), ds.TensorShape([]), ds.TensorShape([None])])
    (dw,) = ds.gradients(y, [w])
    with ds.Session() as sess:
        for _ in range(3):
            got_dw, c = sess.run([dw, drawn], {w: 2.0})
            # y = ((c0) w + c1) w + c2: dy/dw = 2 c0 w + c1
            assert got_dw == 2 * c[0] * 2.0 + c[1]


def test_on_the_stand_in_gpu_the_cpus_sequence(standin):
    def draws(device):
        with ds.Graph().as_default() as g:
            with ds.device(device):
                samples = ds.random.categorical(ds.constant(LOGITS) * 1.0, 64, seed=9)
        with ds.Session(graph=g, options=ds.SessionOptions(device=device)) as sess:
            return sess.run(samples), samples.op
    on_gpu, _ = draws("gpu:0")
    on_cpu, _ = draws("cpu:0")
    np.testing.assert_array_equal(on_gpu, on_cpu)
    assert on_gpu.shape == (3, 64) and not np.isin(on_gpu[2], [1, 3, 4]).any()
