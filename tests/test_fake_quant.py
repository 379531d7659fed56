"""``tf.quantization``'s fake quantization (ops/fake_quant.py): a GraphDef TensorFlow
wrote (FakeQuantWithMinMaxArgs/Vars/VarsPerChannel over six ranges and bit widths, and
their gradient ops through tf.gradients: tests/data/make_tf_fake_quant.py) imports and
gives TF's values exactly; ds builds the same ops and gradients; TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from kernel_cases import DEVICES, F32, check_against_ref, make_node
from tf_recorded import run_recorded, tf_static_shape

COVERED = {"FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars",
           "FakeQuantWithMinMaxVarsPerChannel", "FakeQuantWithMinMaxArgsGradient",
           "FakeQuantWithMinMaxVarsGradient", "FakeQuantWithMinMaxVarsPerChannelGradient"}
q = ds.quantization


@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_fake_quant")


def test_a_graph_tf_wrote_gives_tfs_values(recorded):
    graph, names, values, data = recorded
    types = {op.type for op in graph.get_operations()}
    assert COVERED <= types
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        if name.endswith((":1", ":2")):           # a min's or max's gradient: a sum
            np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-6, err_msg=name)
        else:                                     # the quantized values: TF's exactly
            np.testing.assert_array_equal(value, want, err_msg=name)
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name


def test_ds_builds_tfs_ops_and_gradients(recorded):
    _, _, _, data = recorded
    x = data["feed:x"]
    weights = np.linspace(-1.0, 2.0, 6, dtype=np.float32)
    with ds.Graph().as_default():
        xt = ds.placeholder(ds.float32, (None, 6))
        lo, hi = ds.constant(data["feed:lo"]), ds.constant(data["feed:hi"])
        args = q.fake_quant_with_min_max_args(xt, min=-1.3, max=2.1, num_bits=5)
        (args_grad,) = ds.gradients(ds.reduce_sum(args * weights), [xt])
        vs = ds.fake_quant_with_min_max_vars(xt, lo, hi, num_bits=4, narrow_range=True)
        vars_grads = ds.gradients(ds.reduce_sum(vs * weights), [xt, lo, hi])
        lo_c, hi_c = ds.constant(data["feed:lo_c"]), ds.constant(data["feed:hi_c"])
        ch = q.fake_quant_with_min_max_vars_per_channel(xt, lo_c, hi_c, num_bits=2)
        ch_grads = ds.gradients(ds.reduce_sum(ch * weights), [xt, lo_c, hi_c])
        assert (args.op.type, args.op.get_attr("num_bits"), args.shape.as_list()) == (
            "FakeQuantWithMinMaxArgs", 5, [None, 6])
        assert args_grad.op.type == "FakeQuantWithMinMaxArgsGradient"
        assert {g.op.type for g in vars_grads} == {"FakeQuantWithMinMaxVarsGradient"}
        with ds.Session() as sess:
            got = sess.run([args, args_grad, vs, *vars_grads, ch, *ch_grads], {xt: x})
    by_name = {k[6:]: data[k] for k in data if k.startswith("fetch:")}
    grad_of = {k.split("/")[1]: v for k, v in by_name.items() if "_grad/" in k}
    np.testing.assert_array_equal(got[0], by_name["args1:0"])
    np.testing.assert_array_equal(got[1], grad_of["args1_grad"])
    np.testing.assert_array_equal(got[2], by_name["vars1:0"])
    vars1 = [v for k, v in sorted(by_name.items()) if "vars1_grad" in k]
    for mine, theirs in zip(got[3:6], vars1):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got[6], by_name["channels2:0"])
    channels2 = [v for k, v in sorted(by_name.items()) if "channels2_grad" in k]
    for mine, theirs in zip(got[7:10], channels2):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-6)


def test_levels_and_the_nudged_zero():
    """0.0 is a level; 8 bits over [-1, 1]: 255 steps of 2/255, the zero point
    1/scale = 127.49999 in float32 rounding to 127, so the range is nudged to
    [-127, 128] steps; outside it: its ends."""
    x = np.array([0.0, 1e-3, -5.0, 5.0, 0.5], np.float32)
    with ds.Graph().as_default(), ds.Session() as sess:
        y = sess.run(q.fake_quant_with_min_max_args(x, min=-1.0, max=1.0))
    scale = np.float32(2.0 / 255)
    assert y[0] == 0.0 and y[1] == 0.0
    assert y[2] == pytest.approx(-127 * scale) and y[3] == pytest.approx(128 * scale)
    assert y[4] == pytest.approx(64 * scale)


def test_errors_as_tf():
    x = ds.constant([[0.3, -0.2]])
    cases = [(q.fake_quant_with_min_max_args(x, min=1.0, max=0.0),
              "min has to be smaller than max, was: 1 >= 0"),
             (q.fake_quant_with_min_max_args(x, num_bits=1),
              "num_bits must be between 2 and 16, inclusive"),
             (q.fake_quant_with_min_max_vars(x, 0.0, 1.0, num_bits=17),
              "num_bits must be between 2 and 16, inclusive")]
    with ds.Session() as sess:
        for fetch, message in cases:
            with pytest.raises(ds.errors.InvalidArgumentError, match=message):
                sess.run(fetch)
        # TF's kernel takes a reversed Vars range as it is, and an empty one gives NaN
        assert sess.run(q.fake_quant_with_min_max_vars(x, 1.0, 0.0)).tolist() == [[1.0, 1.0]]
        assert np.isnan(sess.run(q.fake_quant_with_min_max_vars(x, 0.5, 0.5))).all()
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        q.fake_quant_with_min_max_vars_per_channel(x, [0.0, 1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="float32"):
        q.fake_quant_with_min_max_args(ds.constant([1.0], ds.float64))
    with pytest.raises(ds.unsupported.UnsupportedTF1Error,
                       match="tf.quantization.quantized_concat"):
        q.quantized_concat


def test_a_zero_range_quantizes_to_zeros_and_passes_the_whole_gradient():
    """TF's functors: ``min == max == 0`` (also -0.0) gives zeros, the incoming gradient
    to the inputs and none to min and max, per channel for PerChannel (values TF 2.21
    printed); ``min == max == 1`` nudges as usual (NaN, the gradient only at 0)."""
    x = ds.constant([-0.5, 0.0, 0.4, 1.0, 2.5, 9.0])
    lo, hi = ds.constant(0.0), ds.constant(-0.0)
    vs = q.fake_quant_with_min_max_vars(x, lo, hi)
    vars_grads = ds.gradients(ds.reduce_sum(vs * ds.range(6.0)), [x, lo, hi])
    cx, clo, chi = ds.reshape(x, [3, 2]), ds.constant([0.0, -1.0]), ds.constant([0.0, 1.0])
    ch = q.fake_quant_with_min_max_vars_per_channel(cx, clo, chi)
    ch_grads = ds.gradients(ds.reduce_sum(ch * ds.reshape(ds.range(6.0), [3, 2])),
                            [cx, clo, chi])
    ones = q.fake_quant_with_min_max_vars(x, 1.0, 1.0)
    with ds.Session() as sess:
        got_vs, got_vg, got_ch, got_cg, got_ones, got_ones_grad = sess.run(
            [vs, vars_grads, ch, ch_grads, ones,
             ds.gradients(ds.reduce_sum(ones * ds.range(6.0)), x)[0]])
    assert got_vs.tolist() == [0.0] * 6
    assert [g.tolist() for g in got_vg] == [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 0.0, 0.0]
    np.testing.assert_allclose(got_ch, [[0.0, 0.0], [0.0, 1.0039216], [0.0, 1.0039216]],
                               rtol=1e-6)
    assert [g.tolist() for g in got_cg] == [[[0.0, 1.0], [2.0, 3.0], [4.0, 0.0]],
                                            [0.0, 0.0], [0.0, 5.0]]
    assert np.isnan(got_ones).all()
    assert got_ones_grad.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_on_every_device(device):
    x = np.linspace(-3, 3, 48, dtype=F32).reshape(8, 6)
    g = np.linspace(1, 2, 48, dtype=F32).reshape(8, 6)
    lo, hi = np.float32(-0.7), np.float32(1.9)
    lo_c, hi_c = np.linspace(-2, -0.1, 6, dtype=F32), np.linspace(0.2, 2.5, 6, dtype=F32)
    lo_c[2] = hi_c[2] = 0.0               # a channel of zero range: zeros, the whole gradient
    attrs = {"min": -1.3, "max": 2.1, "num_bits": 5, "narrow_range": False}
    check_against_ref(device, make_node("FakeQuantWithMinMaxArgs", [F32], F32, attrs), x)
    check_against_ref(device, make_node("FakeQuantWithMinMaxArgsGradient", [F32, F32], F32,
                                        attrs), g, x)
    bits = {"num_bits": 4, "narrow_range": True}
    for op, ranges in (("FakeQuantWithMinMaxVars", (lo, hi)),
                       ("FakeQuantWithMinMaxVarsPerChannel", (lo_c, hi_c))):
        check_against_ref(device, make_node(op, [F32] * 3, F32, bits), x, *ranges)
        node = make_node(f"{op}Gradient", [F32] * 4, F32, bits)
        node = node.__class__(**{**node.__dict__, "output_dtypes": (F32, F32, F32)})
        check_against_ref(device, node, g, x, *ranges, rtol=1e-6, atol=1e-6)
