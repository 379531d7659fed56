"""tf.quantization.quantize_and_dequantize / _v2 (ops/quantize_dequantize.py): a GraphDef
TensorFlow wrote (QuantizeAndDequantizeV2/V3/V4 over given and own ranges, signed and
unsigned, narrow, HALF_UP, per channel, float64, and their gradients, V4Grad among them:
tests/data/make_tf_quantize_dequantize.py) imports and gives TF's values exactly; ds
builds the same; TF's errors; the kernels on every device."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
import quantize_dequantize_cases as cases
from kernel_cases import DEVICES, F32, check_against_ref, make_node
from tf_recorded import run_recorded, tf_static_shape

COVERED = {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3", "QuantizeAndDequantizeV4",
           "QuantizeAndDequantizeV4Grad"}
q = ds.quantization


@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_quantize_dequantize")


def test_a_graph_tf_wrote_gives_tfs_values(recorded):
    graph, names, values, data = recorded
    assert COVERED <= {op.type for op in graph.get_operations()}
    for name, value in zip(names, values):
        np.testing.assert_array_equal(value, data[f"fetch:{name}"], err_msg=name)
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name


def test_ds_builds_tfs_ops_and_gradients(recorded):
    _, _, _, data = recorded
    keys = {k[4:]: str(data[k]) for k in data if k.startswith("key:")}
    with ds.Graph().as_default():
        placeholders = cases.placeholders(ds)
        outs = cases.all_ops(ds, placeholders)
        with ds.Session() as sess:
            got = sess.run(outs, {placeholders[k]: data[f"feed:{k}"] for k in placeholders})
    assert set(outs) == set(keys) and len(outs) == 17
    assert outs["grad_v2"].op.type == "QuantizeAndDequantizeV4Grad"
    for key in outs:
        want = data[f"fetch:{keys[key]}"]
        assert got[key].dtype == want.dtype, key
        np.testing.assert_array_equal(got[key], want, err_msg=key)


def test_given_ranges_per_channel_quantize_each_slice_by_its_own():
    """TF 2.21's kernels reject given per-channel ranges ("input_min must be a scalar")
    where its documentation takes them; ds quantizes each slice as the one-range op does
    with that slice's range (that op's values are TF's, above)."""
    x = cases.feeds()["x"]
    lo = np.array([-1.0, -0.2, 0.0, -0.5, -2.0], np.float32)
    hi = np.array([1.0, 0.3, 0.8, 0.0, 2.0], np.float32)
    with ds.Graph().as_default(), ds.Session() as sess:
        both = sess.run(q.quantize_and_dequantize_v2(x, lo, hi, range_given=True, num_bits=3,
                                                     axis=-1))
        each = sess.run([q.quantize_and_dequantize_v2(x[:, i], lo[i], hi[i], range_given=True,
                                                      num_bits=3) for i in range(5)])
    np.testing.assert_array_equal(both, np.stack(each, axis=1))


def test_errors_as_tf():
    x = ds.constant([[0.3, -0.2]])
    with ds.Session() as sess:
        for fetch, message in [
                (q.quantize_and_dequantize(x, 0.0, 1.0, num_bits=70, range_given=True),
                 "num_bits is out of range: 70 with signed_input_ 1"),
                (q.quantize_and_dequantize(x, 0.0, 1.0, num_bits=63, signed_input=False),
                 "num_bits is out of range: 63 with signed_input_ 0"),
                (q.quantize_and_dequantize(x, 2.0, 1.0, range_given=True, name="clip"),
                 "clip.*Invalid range: input_min 2 > input_max 1"),
                (ds.get_default_graph().create_op(
                     "QuantizeAndDequantizeV2", [x, ds.placeholder_with_default(
                         [0.0, 0.0, 0.0], [None]), ds.constant([1.0, 1.0])],
                     {"range_given": True, "axis": 1}).outputs[0],
                 "input_min_tensor has incorrect size, was 3 expected 2")]:
            with pytest.raises(ds.errors.InvalidArgumentError, match=message):
                sess.run(fetch)
    with pytest.raises(ValueError, match="not in: \"HALF_TO_EVEN\", \"HALF_UP\""):
        q.quantize_and_dequantize(x, 0.0, 1.0, round_mode="X")
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        q.quantize_and_dequantize(x, [0.0], [1.0], axis=2)
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        q.quantize_and_dequantize(x, [0.0], [1.0])
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        q.quantize_and_dequantize(ds.constant([1, 2]), 0, 1)
    with pytest.raises(ValueError, match="known rank to use negative axis"):
        q.quantize_and_dequantize(ds.placeholder(ds.float32), 0.0, 1.0, axis=-1)


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_on_every_device(device):
    x = np.linspace(-3, 3, 48, dtype=F32).reshape(8, 6)
    g = np.linspace(1, 2, 48, dtype=F32).reshape(8, 6)
    lo, hi = np.float32(-0.7), np.float32(1.9)
    lo_c, hi_c = np.linspace(-2, -0.1, 6, dtype=F32), np.linspace(0.2, 2.5, 6, dtype=F32)
    for attrs in ({"num_bits": 5, "range_given": True}, {"num_bits": 4},
                  {"num_bits": 3, "signed_input": False, "round_mode": "HALF_UP"}):
        for op in ("QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"):
            check_against_ref(device, make_node(op, [F32] * 3, F32, attrs), x, lo, hi)
    per_channel = {"num_bits": 4, "range_given": True, "axis": 1}
    check_against_ref(device, make_node("QuantizeAndDequantizeV2", [F32] * 3, F32,
                                        per_channel), x, lo_c, hi_c)
    check_against_ref(device, make_node("QuantizeAndDequantizeV3", [F32, F32, F32, np.int32],
                                        F32, {"range_given": True}), x, lo, hi,
                      np.int32(6))
    for axis, ranges in ((-1, (lo, hi)), (1, (lo_c, hi_c))):
        node = make_node("QuantizeAndDequantizeV4Grad", [F32] * 4, F32, {"axis": axis})
        node = node.__class__(**{**node.__dict__, "output_dtypes": (F32, F32, F32)})
        check_against_ref(device, node, g, x, *ranges)
