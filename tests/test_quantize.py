"""``tf.quantization.quantize`` / ``dequantize`` (ops/quantize.py) and the quantized dtypes:
the integers, ranges and floats TF 2.21's ``tf.compat.v1`` gave for the same inputs
(written out below), fetched as TF's session returns them (qint8 as int8), and TF's
errors."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

COVERED = {"QuantizeV2", "Dequantize"}
q = ds.quantization
W = np.array([-0.6, -0.26, -0.0695, 0.0, 0.0697, 0.2, 0.49, 0.51, 1e-3, -0.3], np.float32)
BASE = {ds.qint8: ds.int8, ds.quint8: ds.uint8, ds.qint16: ds.int16, ds.quint16: ds.uint16}


@pytest.mark.parametrize("dtype, mode, round_mode, narrow, lo, hi, ints, out_range, back", [
    (ds.qint8, "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, -0.5, 0.5,
     [-128, -67, -18, -1, 17, 51, 124, 127, 0, -77], [-0.5, 0.5],
     [-0.5, -0.2607843, -0.06862742, -0.00196075, 0.06862748, 0.2019608, 0.48823535, 0.5,
      0.00196081, -0.3]),
    # a range above 0 is widened to hold it; quint8 truncates (x - lo) * scale + 0.5
    (ds.quint8, "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, 0.1, 0.3,
     [0, 0, 0, 0, 59, 170, 255, 255, 1, 0], [0.0, 0.3],
     [0.0, 0.0, 0.0, 0.0, 0.06941177, 0.2, 0.3, 0.3, 0.00117647, 0.0]),
    # an empty range: ensure_minimum_range (0.01) widens it
    (ds.qint8, "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, 0.0, 0.0,
     [-128, -128, -128, -128, 127, 127, 127, 127, -103, -128], [0.0, 0.01],
     [0.0, 0.0, 0.0, 0.0, 0.01, 0.01, 0.01, 0.01, 0.00098039, 0.0]),
    # SCALED: the binding end stays, the other is q / scale
    (ds.qint8, "SCALED", "HALF_AWAY_FROM_ZERO", False, -0.3, 0.7,
     [-109, -47, -13, 0, 13, 36, 89, 93, 0, -54], [-0.7055118, 0.7],
     [-0.6007874, -0.2590551, -0.07165354, 0.0, 0.07165354, 0.1984252, 0.49055117,
      0.5125984, 0.0, -0.2976378]),
    (ds.qint8, "SCALED", "HALF_AWAY_FROM_ZERO", False, -2.0, -1.0,
     [-38, -17, -4, 0, 4, 13, 31, 33, 0, -19], [-2.0, 1.984375],
     [-0.59375, -0.265625, -0.0625, 0.0, 0.0625, 0.203125, 0.484375, 0.515625, 0.0,
      -0.296875]),
    # half to even (32.5 -> 32) and narrow_range (-127)
    (ds.qint8, "SCALED", "HALF_TO_EVEN", True, -2.0, -1.0,
     [-38, -17, -4, 0, 4, 13, 31, 32, 0, -19], [-2.0, 2.0],
     [-0.5984252, -0.26771653, -0.06299213, 0.0, 0.06299213, 0.2047244, 0.48818898,
      0.503937, 0.0, -0.2992126]),
    (ds.qint16, "SCALED", "HALF_AWAY_FROM_ZERO", False, -0.5, 0.5,
     [-32768, -17039, -4555, 0, 4568, 13107, 32112, 32767, 66, -19660],
     [-0.50001526, 0.5],
     [-0.50001526, -0.26000243, -0.06950591, 0.0, 0.06970428, 0.20000306, 0.4900052, 0.5,
      0.00100711, -0.29999694]),
], ids=lambda v: getattr(v, "name", None) if isinstance(v, ds.DType) else None)
def test_values_as_tf(dtype, mode, round_mode, narrow, lo, hi, ints, out_range, back):
    quantized = q.quantize(W, lo, hi, dtype, mode=mode, round_mode=round_mode,
                           narrow_range=narrow)
    assert (quantized.output.dtype, quantized.output.shape.as_list()) == (dtype, [10])
    assert quantized.output_min.shape.as_list() == [] and quantized.output.op.type == \
        "QuantizeV2"
    floats = q.dequantize(quantized.output, quantized.output_min, quantized.output_max,
                          mode=mode, narrow_range=narrow)
    with ds.Session() as sess:
        got, got_min, got_max, got_back, viewed = sess.run(
            [quantized.output, quantized.output_min, quantized.output_max, floats,
             ds.bitcast(quantized.output, BASE[dtype])])
    assert got.dtype == BASE[dtype].np and got.tolist() == ints     # TF's fetch: integers
    assert viewed.tolist() == ints
    np.testing.assert_allclose([got_min, got_max], out_range, rtol=1e-6)
    np.testing.assert_allclose(got_back, back, rtol=1e-6, atol=1e-7)


def test_one_range_per_slice():
    x = ds.constant(W.reshape(5, 2).T)
    quantized = q.quantize(x, [-0.5, -1.0], [0.5, 0.2], ds.qint8, mode="SCALED", axis=0)
    assert quantized.output_min.shape.as_list() == [2]
    floats = q.dequantize(quantized.output, quantized.output_min, quantized.output_max,
                          mode="SCALED", axis=-2)
    assert floats.op.get_attr("axis") == 0
    with ds.Session() as sess:
        ints, lo, hi, back = sess.run([*quantized, floats])
    assert ints.tolist() == [[-128, -18, 18, 124, 0], [-33, 0, 26, 65, -38]]
    np.testing.assert_allclose(lo, [-0.503937, -1.0], rtol=1e-6)
    np.testing.assert_allclose(hi, [0.5, 0.9921875], rtol=1e-6)
    np.testing.assert_allclose(back, [[-0.503937, -0.07086614, 0.07086614, 0.48818898, 0.0],
                                      [-0.2578125, 0.0, 0.203125, 0.5078125, -0.296875]],
                               rtol=1e-6)


def test_rounding_modes_and_dequantizing_a_given_range():
    """Ties (scale 1): half to even or away from zero; Dequantize's SCALED scale is the
    larger of min / qmin' and max / qmax, MIN_COMBINED spans [min, max]."""
    ties = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 126.5], np.float32)
    ints = ds.bitcast(ds.constant([-128, -64, 0, 127], ds.int8), ds.qint8)
    assert ints.dtype == ds.qint8
    with ds.Session() as sess:
        even, away = sess.run([
            q.quantize(ties, -127.0, 127.0, ds.qint8, mode="SCALED", round_mode=mode).output
            for mode in ("HALF_TO_EVEN", "HALF_AWAY_FROM_ZERO")])
        floats = sess.run([q.dequantize(ints, -2.0, 1.0, mode="SCALED"),
                           q.dequantize(ints, -2.0, 1.0, mode="SCALED", narrow_range=True),
                           q.dequantize(ints, -2.0, 1.0)])
    assert even.tolist() == [0, 2, 2, 0, -2, 126] and away.tolist() == [1, 2, 3, -1, -3, 127]
    np.testing.assert_allclose(floats, [[-2.0, -1.0, 0.0, 1.984375],
                                        [-2.015748, -1.007874, 0.0, 2.0],
                                        [-2.0, -1.2470589, -0.49411762, 1.0]], rtol=1e-6)


def test_the_quantized_dtypes():
    assert ds.qint8.is_quantized and not ds.int8.is_quantized and not ds.qint8.is_integer
    assert ds.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])
    assert ds.as_dtype(np.dtype([("quint8", np.uint8)])) is ds.quint8
    assert (ds.as_dtype("qint32"), ds.as_dtype(15), str(ds.quint16)) == (
        ds.qint32, ds.qint16, "<dtype: 'quint16'>")
    with pytest.raises(TypeError, match="Cannot find minimum value of qint8"):
        ds.qint8.min


def test_errors_as_tf():
    with pytest.raises(ValueError, match="Attr 'mode' of .* passed string 'NOPE' not in"):
        q.quantize(W, -1.0, 1.0, ds.qint8, mode="NOPE")
    with pytest.raises(TypeError, match="has DataType int8 not in list of allowed values"):
        q.quantize(W, -1.0, 1.0, ds.int8)
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        q.quantize(W, [-1.0], [1.0], ds.qint8)
    ints = q.quantize(W, -1.0, 1.0, ds.qint8).output
    with pytest.raises(TypeError, match="does not take qint8 inputs"):
        ints + ints                       # TF's T lists hold no quantized type
    with pytest.raises(TypeError, match="cannot order qint8 inputs"):
        ints < ints
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="Round mode 'HALF_TO_EVEN' only supported for mode "
                                 "'SCALED', but mode is 'MIN_COMBINED'"):
            sess.run(q.quantize(W, -1.0, 1.0, ds.qint8, round_mode="HALF_TO_EVEN"))
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="input_max_range must be larger than input_min_range"):
            sess.run(q.quantize(W, 1.0, -1.0, ds.qint8))
        with pytest.raises(ds.errors.UnimplementedError, match="MIN_FIRST"):
            sess.run(q.quantize(W, -1.0, 1.0, ds.quint8, mode="MIN_FIRST"))


def test_a_quantized_constant_in_a_graph_def_is_unimplemented():
    from devsession.proto import graph_pb2
    from devsession.tensor_codec import proto_to_array

    proto = graph_pb2.TensorProto(dtype=ds.qint8.as_datatype_enum, int_val=[1, -2])
    proto.tensor_shape.dim.add().size = 2
    with pytest.raises(ds.errors.UnimplementedError, match="quantized type qint8"):
        proto_to_array(proto, "q")
