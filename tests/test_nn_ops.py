"""The nn ops other than convolution and pooling (test_nn_conv.py): Softmax and
LogSoftmax, both softmax cross entropies, L2Loss, BiasAdd(Grad), LeakyRelu/Elu/Softplus
and the math ops they need (SquaredDifference, Rsqrt), the composites (dropout,
moments, batch_normalization), static shape errors at build time, label errors at run
time, and a small convnet through every session type.

Kernels on every device are compared with the reference; the reference with numpy
formulas and with TensorFlow's values (``tests/data/nn_tf/tf_values.npz``).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.kernels.codegen import cuda as cuda_codegen
from devsession.kernels.codegen.expressions import expression_for
from devsession.kernels.registry import lookup_kernel
from kernel_cases import (BIG, DEVICES, F16, F32, F64, I32, I64, assert_same, check_against_ref,
                          make_node, random_array, rng_for, run_on)

TF_VALUES = os.path.join(os.path.dirname(__file__), "data", "nn_tf", "tf_values.npz")
FLOATS = [F16, F32, F64]
ROWS = [(0, 5), (1, 1), (7, 1), (3, 7), (7, 1000), (300, 600)]   # the last runs in parallel


def ref(node, *inputs):
    return run_on("REF", node, *inputs)


def logits_of(shape, dtype, key):
    return (rng_for(key, shape, dtype).standard_normal(shape) * 5).astype(dtype)


# ------------------------------------------------------------------ softmax family

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", ROWS + [(7,), (2, 3, 7)], ids=str)
def test_log_softmax_and_softmax(device, shape, dtype):
    x = logits_of(shape, dtype, "lsm")
    check_against_ref(device, make_node("LogSoftmax", [dtype], dtype), x)
    check_against_ref(device, make_node("Softmax", [dtype], dtype), x)   # TF's: no axis attr


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", ROWS, ids=str)
def test_cross_entropies(device, shape, dtype):
    x = logits_of(shape, dtype, "xent")
    rng = rng_for("labels", shape, dtype)
    labels = rng.dirichlet(np.ones(shape[1]), shape[0]).astype(dtype) if shape[1] else \
        np.zeros(shape, dtype)
    node = make_node("SoftmaxCrossEntropyWithLogits", [dtype, dtype], dtype)
    tolerance = {"rtol": 1e-4, "atol": 1e-4} if dtype == F32 else {}
    check_against_ref(device, node, x, labels, **tolerance)
    check_against_ref(device, node, x, labels[:1], **tolerance)       # labels broadcast
    for label_dtype in (I32, I64):
        sparse = rng.integers(0, max(shape[1], 1), shape[0]).astype(label_dtype)
        node = make_node("SparseSoftmaxCrossEntropyWithLogits", [dtype, label_dtype], dtype)
        check_against_ref(device, node, x, sparse, **tolerance)


def test_reference_losses_against_numpy_formulas():
    x = logits_of((5, 6), F64, "formula")
    y = rng_for("formula y").dirichlet(np.ones(6), 5)
    log_probs = x - np.log(np.sum(np.exp(x), axis=1, keepdims=True))
    loss, backprop = ref(make_node("SoftmaxCrossEntropyWithLogits", [F64, F64], F64), x, y)
    np.testing.assert_allclose(loss, -np.sum(y * log_probs, axis=1), rtol=1e-12)
    np.testing.assert_allclose(backprop, np.exp(log_probs) - y, rtol=1e-12, atol=1e-15)
    labels = np.array([0, 5, 2, 2, 1])
    loss, backprop = ref(make_node("SparseSoftmaxCrossEntropyWithLogits", [F64, I64], F64),
                         x, labels)
    np.testing.assert_allclose(loss, -log_probs[np.arange(5), labels], rtol=1e-12)
    np.testing.assert_allclose(backprop, np.exp(log_probs) - np.eye(6)[labels], atol=1e-15)
    np.testing.assert_allclose(ref(make_node("LogSoftmax", [F64], F64), x), log_probs,
                               rtol=1e-12)
    # Huge logits stay finite (the max is subtracted first).
    big = np.array([[1e30, 0.0, -1e30]], F32)
    loss, backprop = ref(make_node("SoftmaxCrossEntropyWithLogits", [F32, F32], F32), big,
                         np.array([[0.0, 1.0, 0.0]], F32))
    np.testing.assert_allclose(loss, [1e30])
    np.testing.assert_array_equal(backprop, [[1.0, -1.0, 0.0]])


@pytest.fixture(scope="module")
def tf_values():
    with np.load(TF_VALUES) as data:
        return dict(data)


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
def test_losses_and_activations_match_tensorflow(tf_values, device):
    t = {k.split("/", 1)[1]: v for k, v in tf_values.items() if k.startswith("other/")}
    logits, labels = tf_values["xent/logits"], tf_values["xent/labels"]
    sparse = tf_values["xent/sparse_labels"]
    close = {"rtol": 1e-5, "atol": 1e-6}
    loss, backprop = run_on(device, make_node("SoftmaxCrossEntropyWithLogits", [F32, F32], F32),
                            logits, labels)
    np.testing.assert_allclose(loss, t["xent_loss"], **close)
    np.testing.assert_allclose(backprop, t["xent_backprop"], **close)
    loss, backprop = run_on(device, make_node("SparseSoftmaxCrossEntropyWithLogits", [F32, I32],
                                              F32), logits, sparse)
    np.testing.assert_allclose(loss, t["sparse_loss"], **close)
    np.testing.assert_allclose(backprop, t["sparse_backprop"], **close)
    np.testing.assert_allclose(run_on(device, make_node("LogSoftmax", [F32], F32), logits),
                               t["log_softmax"], **close)
    np.testing.assert_allclose(run_on(device, make_node("L2Loss", [F32], F32), logits),
                               t["l2_loss"], **close)
    a = tf_values["act/x"]
    for op, attrs, key in [("LeakyRelu", {"alpha": 0.2}, "leaky_relu"),
                           ("LeakyRelu", {"alpha": 0.1}, "leaky_relu_01"),
                           ("Elu", {}, "elu"), ("Softplus", {}, "softplus")]:
        got = run_on(device, make_node(op, [F32], F32, attrs), a)
        np.testing.assert_allclose(got, t[key], rtol=2e-6, atol=1e-7, err_msg=key)


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
def test_sparse_label_out_of_range_names_the_node(device):
    node = make_node("SparseSoftmaxCrossEntropyWithLogits", [F32, I32], F32, name="my_xent")
    x = np.zeros((3, 4), F32)
    for bad in (4, -1):
        with pytest.raises(InvalidArgumentError, match=rf"my_xent.*label value of {bad}.*"
                           r"\[0, 4\)") as info:
            run_on(device, node, x, np.array([0, bad, 1], np.int32))
        assert info.value.node_name == "my_xent"


# ------------------------------------------------------------------ L2Loss, BiasAdd

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 7), (BIG,)], ids=str)
def test_l2_loss(device, shape, dtype):
    x = random_array(rng_for("l2", shape, dtype), shape, dtype)
    got = check_against_ref(device, make_node("L2Loss", [dtype], dtype), x,
                            **({"rtol": 1e-5} if dtype == F32 else {}))
    if dtype != F16:            # (float16 overflows to inf on the big case, as the REF does)
        np.testing.assert_allclose(got, np.sum(x.astype(F64) ** 2) / 2, rtol=1e-6)


BIAS_CASES = [((3, 7), (7,), "NHWC"), ((2, 3, 4, 5), (5,), "NHWC"), ((0, 5), (5,), "NHWC"),
              ((2, 3, 4, 5), (3,), "NCHW"), ((1, 1), (1,), "NHWC"), ((300, 1000), (1000,), "NHWC")]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + [I32], ids=str)
@pytest.mark.parametrize("value_shape,bias_shape,data_format", BIAS_CASES, ids=str)
def test_bias_add_and_its_gradient(device, value_shape, bias_shape, data_format, dtype):
    rng = rng_for("bias", value_shape, dtype)
    value = random_array(rng, value_shape, dtype)
    bias = random_array(rng, bias_shape, dtype)
    attrs = {"data_format": data_format}
    got = check_against_ref(device, make_node("BiasAdd", [dtype, dtype], dtype, attrs),
                            value, bias)
    axis = 1 if data_format == "NCHW" else len(value_shape) - 1
    shape = [1] * len(value_shape)
    shape[axis] = -1
    np.testing.assert_array_equal(got, (value + bias.reshape(shape)).astype(dtype))
    if dtype != I32:
        summed = check_against_ref(device, make_node("BiasAddGrad", [dtype], dtype, attrs), value,
                                   **({"rtol": 1e-5, "atol": 1e-4} if dtype == F32 else {}))
        others = tuple(a for a in range(len(value_shape)) if a != axis)
        np.testing.assert_allclose(summed, value.astype(F64).sum(axis=others),
                                   rtol=2e-3 if dtype == F16 else 1e-5, atol=0.1)


def test_cpu_l2_loss_is_serial_below_the_parallel_threshold(monkeypatch):
    """A small input is one chunk: the CPU's L2Loss sums it serially, and takes the
    parallel kernel only from ``PARALLEL_MIN_SIZE`` elements (with more than one
    numba thread), as the other CPU kernels do."""
    from devsession.kernels.cpu import nn
    from devsession.kernels.cpu.elementwise import PARALLEL_MIN_SIZE
    from devsession.kernels.cpu.numba_setup import num_threads

    parallel_sizes = []
    real_parallel = nn.sum_squares_parallel

    def watched(x, nchunks):
        parallel_sizes.append(x.size)
        return real_parallel(x, nchunks)

    monkeypatch.setattr(nn, "sum_squares_parallel", watched)
    kernel = lookup_kernel("L2Loss", "CPU")(make_node("L2Loss", [F32], F32))
    for size in (0, 7, PARALLEL_MIN_SIZE - 1, PARALLEL_MIN_SIZE):
        x = random_array(rng_for("l2 serial", size), (size,), F32)
        np.testing.assert_allclose(kernel(x), np.sum(x.astype(F64) ** 2) / 2, rtol=1e-6)
    assert parallel_sizes == ([PARALLEL_MIN_SIZE] if num_threads() > 1 else [])


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("value_shape,data_format", [((40, 3, 17), "NHWC"),
                                                     ((4, 17, 2, 3), "NCHW"),
                                                     ((3, 0), "NHWC"), ((0, 0), "NHWC")],
                         ids=str)
def test_cpu_bias_add_grad_is_the_reduce_modules_column_sum(monkeypatch, value_shape,
                                                            data_format, dtype):
    """BiasAddGrad on the CPU sums through ``reduce.sum_columns`` (one column loop for a
    bias gradient and a Sum over the batch), keeping the output dtype; zero channels
    give an empty gradient, as the reference."""
    from devsession.kernels.cpu import reduce

    calls = []
    real_sum_columns = reduce.sum_columns

    def watched(x, n, acc):
        calls.append((n, acc.size))
        return real_sum_columns(x, n, acc)

    monkeypatch.setattr(reduce, "sum_columns", watched)
    value = random_array(rng_for("bias grad columns", value_shape, dtype), value_shape, dtype)
    node = make_node("BiasAddGrad", [dtype], dtype, {"data_format": data_format})
    got = check_against_ref("CPU", node, value, **({"rtol": 1e-5, "atol": 1e-4}
                                                   if dtype == F32 else {}))
    assert got.dtype == dtype
    channels = value_shape[1 if data_format == "NCHW" else -1]
    assert calls == ([(value.size // channels, channels)] if channels else [])


def test_bias_add_takes_tfs_n_c_spellings_of_data_format(make_session):
    """TF's builder: "NC..." (NCDHW, NCW) is NCHW and "N...C" (NDHWC) NHWC, as Keras's
    Conv3D(channels_first) passes it; another form is ValueError, and NCHW needs rank >= 3
    (TF's BiasAdd shape function)."""
    rng = np.random.RandomState(0)
    value, bias = rng.normal(size=(2, 3, 2, 2, 4)).astype(F32), np.arange(3, dtype=F32)
    first = ds.nn.bias_add(value, bias, data_format="NCDHW")
    last = ds.nn.bias_add(value.transpose(0, 2, 3, 4, 1), bias, data_format="NDHWC")
    ncw = ds.nn.bias_add(value[:, :, 0, 0], bias, data_format="NCW")
    assert [t.op.get_attr("data_format") for t in (first, last, ncw)] == [b"NCHW", b"NHWC",
                                                                          b"NCHW"]
    got = make_session().run([first, last, ncw])
    np.testing.assert_array_equal(got[0], value + bias[:, None, None, None])
    np.testing.assert_array_equal(got[1], value.transpose(0, 2, 3, 4, 1) + bias)
    np.testing.assert_array_equal(got[2], value[:, :, 0, 0] + bias[:, None])
    with pytest.raises(ValueError, match=r"must be of the form `N\.\.\.C` or `NC\.\.\.`"):
        ds.nn.bias_add(value, bias, data_format="CDHWN")
    with pytest.raises(ValueError, match="rank >= 3"):
        ds.nn.bias_add(np.ones((2, 3), F32), bias, data_format="NCHW")


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
def test_bias_add_checks_the_bias(device):
    node = make_node("BiasAdd", [F32, F32], F32, {"data_format": "NHWC"}, name="ba")
    with pytest.raises(InvalidArgumentError, match=r"ba.*value \[2,3\], bias \[1\]"):
        run_on(device, node, np.ones((2, 3), F32), np.ones(1, F32))   # must not broadcast


# -------------------------------------------------------------- elementwise activations

ACTIVATIONS = [("LeakyRelu", {"alpha": 0.2}), ("LeakyRelu", {"alpha": 1.5}), ("Elu", {}),
               ("Softplus", {}), ("Rsqrt", {}), ("Relu6", {}), ("Selu", {}), ("Softsign", {})]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op,attrs", ACTIVATIONS, ids=str)
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (3, 7), (BIG,)], ids=str)
def test_activations(device, op, attrs, dtype, shape):
    x = random_array(rng_for(op, dtype, shape), shape, dtype, specials=True)
    if op == "Rsqrt":
        x = np.abs(x)
    check_against_ref(device, make_node(op, [dtype], dtype, attrs), x)


def test_activation_references_against_formulas():
    x = np.array([-1000.0, -40.0, -20.0, -1.0, -1e-6, 0.0, 1e-6, 1.0, 20.0, 40.0, 1000.0])
    run = {op: lookup_kernel(op, "REF")(make_node(op, [F64], F64, {"alpha": 0.3}))
           for op in ("LeakyRelu", "Elu", "Softplus", "Relu6", "Selu", "Softsign")}
    np.testing.assert_array_equal(run["Relu6"](x), np.clip(x, 0, 6))
    np.testing.assert_array_equal(run["Softsign"](x), x / (1 + np.abs(x)))
    scale, alpha = 1.0507009873554804934, 1.6732632423543772848   # TF's, to 20 digits
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(run["Selu"](x), np.where(x > 0, scale * x,
                                                            scale * alpha * np.expm1(x)),
                                   rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(run["LeakyRelu"](x), np.where(x > 0, x, 0.3 * x))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(run["Elu"](x), np.where(x < 0, np.exp(x) - 1, x))
    np.testing.assert_allclose(run["Softplus"](x), np.log1p(np.exp(-np.abs(x))) +
                               np.maximum(x, 0), rtol=1e-15)
    sd = lookup_kernel("SquaredDifference", "REF")(make_node("SquaredDifference", [F64, F64],
                                                             F64))
    np.testing.assert_array_equal(sd(x, x[:1]), (x - x[0]) ** 2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F64, I32], ids=str)
def test_squared_difference_broadcasts(device, dtype):
    rng = rng_for("sqdiff", dtype)
    x, y = random_array(rng, (3, 1, 5), dtype), random_array(rng, (4, 1), dtype)
    check_against_ref(device, make_node("SquaredDifference", [dtype, dtype], dtype), x, y)


@pytest.mark.parametrize("op,attrs", ACTIVATIONS + [("SquaredDifference", {})], ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_gpu_programs_match_reference(op, attrs, dtype):
    """The CUDA codegen's typed program (what the GPU kernel is rendered from), run
    with numpy, against the reference kernel: checks the GPU's typing without a GPU."""
    names, expr = expression_for(op, attrs)
    rng = rng_for("program", op, dtype)
    xs = [random_array(rng, (3, 7), dtype, specials=True) for _ in names]
    if op == "Rsqrt":
        xs = [np.abs(x) for x in xs]
    program = cuda_codegen.compile_expression(expr, [(n, dtype) for n in names], dtype)
    want = lookup_kernel(op, "REF")(make_node(op, [dtype] * len(names), dtype, attrs))(*xs)
    assert_same(cuda_codegen.evaluate(program, *xs), want)
    cuda_codegen.render_cuda(program)          # renders (NVRTC compiles it on a GPU machine)


# ------------------------------------------------------------------ building graphs

def test_static_shapes_and_build_errors():
    x = ds.placeholder(ds.float32, (None, 28, 28, 1))
    w = ds.placeholder(ds.float32, (5, 5, 1, 32))
    conv = ds.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    assert conv.shape == (None, 28, 28, 32) and conv.op.type == "Conv2D"
    assert conv.op.get_attr("strides") == [1, 1, 1, 1] and conv.op.get_attr("padding") == b"SAME"
    assert ds.nn.conv2d(x, w, strides=2, padding="VALID").shape == (None, 12, 12, 32)
    pooled = ds.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    assert pooled.shape == (None, 14, 14, 32)
    assert ds.nn.avg_pool(pooled, 3, 2, "VALID").shape == (None, 6, 6, 32)
    with pytest.raises(ValueError, match=r"Depth of input \(1\) is not a multiple of input "
                       r"depth of filter \(2\)"):
        ds.nn.conv2d(x, ds.placeholder(ds.float32, (3, 3, 2, 4)), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="negative dimension"):
        ds.nn.conv2d(ds.placeholder(ds.float32, (1, 3, 3, 1)),
                     ds.placeholder(ds.float32, (5, 5, 1, 1)), 1, "VALID")
    with pytest.raises(ValueError, match="batch and channel"):
        ds.nn.max_pool(x, [2, 2, 2, 1], [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="padding"):
        ds.nn.conv2d(x, w, 1, "FULL")
    with pytest.raises(ValueError, match="NHWC"):
        ds.nn.conv2d(x, w, 1, "SAME", data_format="NCDHW")    # NCHW: test_channels_first
    with pytest.raises(TypeError, match="float"):
        ds.nn.conv2d(ds.placeholder(ds.int32, (1, 4, 4, 1)), ds.placeholder(ds.int32, (1, 1, 1, 1)),
                     1, "SAME")


def test_leaky_relu_casts_integers_and_wants_a_number_alpha_as_tf():
    with ds.Graph().as_default():
        x = ds.constant([1.0])
        for alpha in (ds.constant(0.3), "a"):
            with pytest.raises(TypeError, match="Expected float for argument 'alpha'"):
                ds.nn.leaky_relu(x, alpha=alpha)
        y = ds.nn.leaky_relu(ds.constant([-3, 2]))     # TF's names: the failed scopes count
        assert (y.name, y.dtype, y.op.inputs[0].name) == ("LeakyRelu_2:0", ds.float32,
                                                          "LeakyRelu_2/Cast:0")
        half = ds.nn.leaky_relu(x, alpha=np.array(0.5), name="half")
        assert half.name == "half:0" and half.op.attrs["alpha"] == 0.5
        with ds.Session() as sess:
            np.testing.assert_array_equal(sess.run(y), np.float32([-0.6, 2.0]))


def test_loss_builders_check_labels_at_build_time():
    logits = ds.placeholder(ds.float32, (None, 10))
    with pytest.raises(TypeError, match="int32 or int64"):
        ds.nn.sparse_softmax_cross_entropy_with_logits(
            labels=ds.placeholder(ds.float32, (None,)), logits=logits)
    with pytest.raises(ValueError, match="labels"):
        ds.nn.sparse_softmax_cross_entropy_with_logits(
            labels=ds.placeholder(ds.int32, (None, 10)), logits=logits)
    # TF 2.21's compat.v1 takes labels and logits by position too
    positional = ds.nn.softmax_cross_entropy_with_logits_v2(ds.nn.softmax(logits), logits)
    assert positional.shape.as_list() == [None]
    with pytest.raises(ValueError, match="bias"):
        ds.nn.bias_add(logits, ds.placeholder(ds.float32, (9,)))
    loss = ds.nn.sparse_softmax_cross_entropy_with_logits(
        labels=ds.placeholder(ds.int64, (None,)), logits=logits)
    assert loss.shape == (None,) and loss.op.type == "SparseSoftmaxCrossEntropyWithLogits"
    assert [t.shape for t in loss.op.outputs] == [(None,), (None, 10)]
    flat = ds.nn.softmax_cross_entropy_with_logits_v2(
        labels=ds.placeholder(ds.float32, (4, 3, 10)),
        logits=ds.placeholder(ds.float32, (4, 3, 10)))
    assert flat.shape == (4, 3)


def test_dropout_builds_as_tensorflow_does():
    x = ds.placeholder(ds.float32, (4, 5))
    assert ds.nn.dropout(x, rate=0.0) is x
    assert ds.nn.dropout(x, keep_prob=1.0) is x
    dropped = ds.nn.dropout(x, rate=0.25, seed=3)
    types = {op.type for op in ds.get_default_graph().get_operations()}
    assert {"RandomUniform", "GreaterEqual", "SelectV2", "Mul"} <= types
    assert dropped.shape == (4, 5)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        ds.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="floating"):
        ds.nn.dropout(ds.placeholder(ds.int32, (3,)), rate=0.5)


# ------------------------------------------------------------------ through sessions

def test_dropout_keeps_or_zeroes_and_scales(make_session):
    x = np.arange(1, 2001, dtype=np.float32).reshape(40, 50)
    t = ds.constant(x)
    dropped = ds.nn.dropout(t, rate=0.25, seed=7)
    sess = make_session()
    a, b = sess.run(dropped), sess.run(dropped)
    for out in (a, b):
        kept = out != 0
        np.testing.assert_allclose(out[kept], x[kept] / 0.75, rtol=1e-6)
        assert 0.65 < kept.mean() < 0.85
    assert not np.array_equal(a, b)                       # a new mask every run
    again = make_session().run(dropped)
    np.testing.assert_array_equal(again, a)                # the same sequence per session


def test_dropout_with_a_keep_prob_of_no_shape_keeps_its_input_shape(make_session):
    # the TF1 tutorials' `keep_prob = tf.placeholder(tf.float32)`
    x = ds.placeholder(ds.float32, (None, 6))
    keep = ds.placeholder(ds.float32, name="keep_prob")
    dropped = ds.nn.dropout(x, keep)
    assert dropped.shape.as_list() == [None, 6]
    sess = make_session()
    ones = np.ones((4, 6), np.float32)
    out = sess.run(dropped, {x: ones, keep: 0.5})
    assert out.shape == (4, 6) and set(np.unique(out)) <= {0.0, 2.0}
    np.testing.assert_array_equal(sess.run(dropped, {x: ones, keep: 1.0}), ones)
    with pytest.raises(ds.errors.InvalidArgumentError, match="shape \\[\\]"):
        sess.run(dropped, {x: ones, keep: [0.5, 0.5]})
    with pytest.raises(ValueError, match="'keep_vector:0' with shape \\(2,\\)"):
        ds.nn.dropout(x, ds.placeholder(ds.float32, (2,), name="keep_vector"))
    with pytest.raises(ValueError, match="must be a scalar"):
        ds.nn.dropout(x, rate=ds.placeholder(ds.float32, (1, 1)))


def test_cross_entropies_take_logits_of_unknown_rank(make_session):
    """Flattened to rows of their run-time last dimension, as TF1 flattens them."""
    rng = rng_for("xent of unknown rank")
    logits = rng.standard_normal((2, 3, 5)).astype(np.float32)
    labels = rng.integers(0, 5, (2, 3)).astype(np.int32)
    onehot = np.eye(5, dtype=np.float32)[labels]
    lg, lb, sl = (ds.placeholder(ds.float32), ds.placeholder(ds.float32),
                  ds.placeholder(ds.int32))
    dense = ds.nn.softmax_cross_entropy_with_logits_v2(labels=lb, logits=lg)
    sparse = ds.nn.sparse_softmax_cross_entropy_with_logits(labels=sl, logits=lg)
    grad, = ds.gradients(ds.reduce_sum(dense) + ds.reduce_sum(sparse), [lg])
    shifted = logits.astype(np.float64) - logits.max(-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    got_dense, got_sparse, got_grad = make_session().run(
        [dense, sparse, grad], {lg: logits, lb: onehot, sl: labels})
    assert got_dense.shape == got_sparse.shape == (2, 3)
    np.testing.assert_allclose(got_dense, -(onehot * log_p).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(got_sparse, -(onehot * log_p).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(got_grad, 2 * (np.exp(log_p) - onehot), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="axis=0 needs logits .* of known rank"):
        ds.nn.softmax_cross_entropy_with_logits_v2(labels=lb, logits=lg, axis=0)


def test_moments_and_batch_normalization(make_session):
    rng = rng_for("moments")
    x = rng.standard_normal((6, 3, 4)).astype(np.float32) * 2 + 1
    t = ds.placeholder(ds.float32, (None, 3, 4))
    mean, variance = ds.nn.moments(t, axes=[0, 1])
    mean_k, variance_k = ds.nn.moments(t, axes=[0, 1], keep_dims=True)
    normed = ds.nn.batch_normalization(t, mean, variance, offset=0.5, scale=2.0,
                                       variance_epsilon=1e-3)
    plain = ds.nn.batch_normalization(t, mean_k, variance_k, None, None, 1e-3)
    assert mean.shape == (4,) and mean_k.shape == (1, 1, 4)
    got = make_session().run([mean, variance, mean_k, normed, plain], {t: x})
    m, v = x.mean(axis=(0, 1)), x.var(axis=(0, 1))
    np.testing.assert_allclose(got[0], m, rtol=1e-5)
    np.testing.assert_allclose(got[1], v, rtol=1e-5)
    np.testing.assert_allclose(got[2], m.reshape(1, 1, 4), rtol=1e-5)
    np.testing.assert_allclose(got[3], (x - m) / np.sqrt(v + 1e-3) * 2.0 + 0.5, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(got[4], (x - m) / np.sqrt(v + 1e-3), rtol=1e-4, atol=1e-5)


def test_small_convnet_forward(make_session):
    rng = rng_for("convnet")
    images = rng.uniform(0, 1, (3, 9, 9, 1)).astype(np.float32)
    labels = np.array([0, 2, 1], np.int32)
    k1 = (rng.standard_normal((3, 3, 1, 4)) * 0.3).astype(np.float32)
    k2 = (rng.standard_normal((3, 3, 4, 6)) * 0.3).astype(np.float32)
    b1 = np.linspace(-0.1, 0.1, 4).astype(np.float32)
    wd = (rng.standard_normal((24, 3)) * 0.3).astype(np.float32)
    x = ds.placeholder(ds.float32, (None, 9, 9, 1), name="images")
    y = ds.placeholder(ds.int32, (None,), name="labels")
    c1 = ds.nn.leaky_relu(ds.nn.bias_add(ds.nn.conv2d(x, k1, [1, 1, 1, 1], "SAME"), b1))
    p1 = ds.nn.max_pool(c1, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")                  # 5x5x4
    c2 = ds.nn.elu(ds.nn.conv2d(p1, k2, strides=[1, 2, 2, 1], padding="VALID"))  # 2x2x6
    avg = ds.nn.avg_pool(c1, 3, 2, "SAME")
    logits = ds.matmul(ds.reshape(c2, (-1, 24)), wd)
    loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    total = loss + 1e-3 * ds.nn.l2_loss(k1)
    got = make_session().run([c1, p1, c2, avg, logits, total], {x: images, y: labels})

    def r(op, *inputs, **attrs):
        dtypes = [a.dtype for a in inputs]
        return lookup_kernel(op, "REF")(make_node(op, dtypes, np.float32, attrs))(*inputs)

    e1 = r("LeakyRelu", r("BiasAdd", r("Conv2D", images, k1, strides=(1, 1, 1, 1),
                                        padding="SAME"), b1), alpha=0.2)
    e_p1 = r("MaxPool", e1, ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="SAME")
    e2 = r("Elu", r("Conv2D", e_p1, k2, strides=(1, 2, 2, 1), padding="VALID"))
    e_avg = r("AvgPool", e1, ksize=(1, 3, 3, 1), strides=(1, 2, 2, 1), padding="SAME")
    e_logits = e2.reshape(3, 24) @ wd
    e_loss = r("SparseSoftmaxCrossEntropyWithLogits", e_logits, labels)[0].mean()
    e_total = e_loss + 1e-3 * np.sum(k1 ** 2) / 2
    for g, e in zip(got, [e1, e_p1, e2, e_avg, e_logits, e_total]):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_label_out_of_range_in_a_session_names_the_node(make_session):
    logits = ds.placeholder(ds.float32, (None, 3))
    labels = ds.placeholder(ds.int64, (None,))
    loss = ds.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                          name="xent")
    with pytest.raises(InvalidArgumentError, match=r"label value of 3 .*\[0, 3\)") as info:
        make_session().run(loss, {logits: np.zeros((2, 3), np.float32), labels: [1, 3]})
    assert info.value.node_name == "xent"


def test_graphdef_round_trip_keeps_tensorflow_attrs():
    x = ds.placeholder(ds.float32, (None, 8, 8, 2), name="x")
    ds.nn.conv2d(x, np.ones((3, 3, 2, 2), np.float32), [1, 2, 2, 1], "SAME", name="conv")
    ds.nn.leaky_relu(x, alpha=0.1, name="lrelu")
    graph_def = ds.get_default_graph().as_graph_def()
    nodes = {n.name: n for n in graph_def.node}
    conv = nodes["conv"]
    assert conv.op == "Conv2D"
    assert list(conv.attr["strides"].list.i) == [1, 2, 2, 1]
    assert conv.attr["padding"].s == b"SAME" and conv.attr["data_format"].s == b"NHWC"
    assert list(conv.attr["dilations"].list.i) == [1, 1, 1, 1]
    assert nodes["lrelu"].attr["alpha"].f == pytest.approx(0.1)      # TF's float field
    g = ds.Graph()
    with g.as_default():
        ds.import_graph_def(graph_def, name="")
    assert g.get_tensor_by_name("conv:0").shape == (None, 4, 4, 2)
    assert g.get_operation_by_name("lrelu").get_attr("alpha") == float(np.float32(0.1))


def test_cross_entropies_of_batch_by_time_logits_with_both_dims_unknown(make_session):
    """A seq2seq loss: logits [None, None, classes] (batch and time unknown) keep their
    leading shape, read at run time; values and the gradient against numpy."""
    logits = ds.placeholder(ds.float32, [None, None, 5])
    labels = ds.placeholder(ds.int32, [None, None])
    sparse = ds.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    dense = ds.nn.softmax_cross_entropy_with_logits_v2(labels=ds.one_hot(labels, 5),
                                                       logits=logits)
    mean = ds.losses.sparse_softmax_cross_entropy(labels, logits)
    (grad,) = ds.gradients(ds.reduce_sum(sparse), [logits])
    assert sparse.shape.as_list() == dense.shape.as_list() == [None, None]
    x = np.random.default_rng(0).standard_normal((2, 3, 5)).astype(np.float32)
    y = np.array([[0, 1, 2], [3, 4, 0]], np.int32)
    got = make_session().run([sparse, dense, mean, grad], {logits: x, labels: y})
    e = np.exp(x - x.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    want = -np.log(np.take_along_axis(p, y[..., None], -1)[..., 0])
    for value in got[:2]:
        np.testing.assert_allclose(value, want, rtol=1e-5)
    np.testing.assert_allclose(got[2], want.mean(), rtol=1e-5)
    np.testing.assert_allclose(got[3], p - np.eye(5)[y], rtol=1e-5, atol=1e-6)


def test_moments_are_named_as_tfs():
    """TF 2.21's names (an EMA of the batch statistics, checkpointed, is named after
    them): the squeezed mean and variance are moments/Squeeze and moments/Squeeze_1."""
    x = ds.constant(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    mean, variance = ds.nn.moments(x, [0])
    kept = ds.nn.moments(x, [0], keep_dims=True)
    assert [mean.name, variance.name] == ["moments/Squeeze:0", "moments/Squeeze_1:0"]
    assert [t.name for t in kept] == ["moments_1/mean:0", "moments_1/variance:0"]
    with ds.Session() as sess:
        got = sess.run([mean, variance])
    np.testing.assert_allclose(got, [np.arange(12.0).reshape(4, 3).mean(0),
                                     np.arange(12.0).reshape(4, 3).var(0)], rtol=1e-6)


def test_softmax_along_an_axis_given_as_a_tensor():
    """TF's _wrap_2d_function: an axis tensor of a known value is that axis (out of range:
    InvalidArgumentError when built); one only a run knows swaps itself with the last by
    a computed Transpose, for logits of known rank (the gradient flows back through it).
    log_softmax's axis of logits of unknown rank is ValueError, not the last axis."""
    x = np.random.RandomState(0).normal(size=(2, 3, 4)).astype(np.float32)
    logits, axis = ds.constant(x), ds.placeholder(ds.int32, [])

    def numpy_softmax(v, a):
        e = np.exp(v - v.max(a, keepdims=True))
        return e / e.sum(a, keepdims=True)
    fed = ds.nn.softmax(logits, axis=axis)
    (grad,) = ds.gradients(ds.reduce_sum(fed * logits), [logits])
    fetches = [ds.nn.softmax(logits, axis=ds.constant(0)), fed,
               ds.nn.log_softmax(logits, dim=axis), grad]
    assert fed.shape == (2, 3, 4)
    with ds.Session() as sess:
        for a in (1, -3):
            const_axis, got, log_got, got_grad = sess.run(fetches, {axis: a})
            np.testing.assert_allclose(const_axis, numpy_softmax(x, 0), rtol=1e-6)
            np.testing.assert_allclose(got, numpy_softmax(x, a), rtol=1e-6)
            np.testing.assert_allclose(log_got, np.log(numpy_softmax(x, a)), rtol=1e-5)
            p = numpy_softmax(x, a)       # d/dx sum(softmax(x) * x) = p * (1 + x - sum(p * x))
            np.testing.assert_allclose(got_grad, p * (1 + x - (p * x).sum(a, keepdims=True)),
                                       rtol=1e-5, atol=1e-6)
    with pytest.raises(InvalidArgumentError, match="Received: dim=3"):
        ds.nn.softmax(logits, axis=ds.constant(3))
    unknown = ds.placeholder(ds.float32)
    for build in (lambda: ds.nn.softmax(unknown, axis=axis),
                  lambda: ds.nn.log_softmax(unknown, axis=0)):
        with pytest.raises(ValueError, match="of known rank"):
            build()
