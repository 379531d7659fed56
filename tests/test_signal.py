"""Complex numbers and ``tf.signal`` (ops/complex_math.py, ops/fft.py, ops/signal_ops.py):
the computations of tests/data/signal_cases.py equal what TensorFlow 2.21's
``tf.compat.v1`` computed for them (tests/data/make_tf_signal.py), built through
devsession's own API and imported from TF's GraphDef (an STFT, mel spectrogram and MFCC
pipeline among them); complex dtypes through constants, feeds, TensorProtos and the
wire; TF's dtype errors; gradients against finite differences in float64."""

from __future__ import annotations

import os

import numpy as np
import pytest

import cuda_host
import cupy_standin
import devsession as ds
import signal_cases
from devsession.distributed.transport import wire
from devsession.errors import InvalidArgumentError
from devsession.ops.complex_math import complex_abs
from devsession.proto import graph_pb2, worker_pb2
from devsession.tensor_codec import array_to_proto, proto_to_array
from gradient_check import numeric_gradient
from kernel_cases import make_node, run_on
from tf_recorded import DATA, run_recorded, tf_static_shape


COVERED = {"Complex", "Real", "Imag", "ComplexAbs", "Conj", "Angle", "FFT", "IFFT", "FFT2D",
           "IFFT2D", "FFT3D", "IFFT3D", "RFFT", "IRFFT", "RFFT2D", "IRFFT2D", "RFFT3D",
           "IRFFT3D"}
# float32 FFTs round differently in TF's and numpy's pocketfft: errors scale with the
# largest magnitude in a transform, so absolute tolerances are relative to O(1)-O(100) data
TOLERANCE = {"rtol": 2e-4, "atol": 2e-4}
LOUD = {"stft", "stft_pad_end", "stft_hamming", "mel", "inverse_stft"}   # magnitudes ~100


def _recorded():
    data = np.load(os.path.join(DATA, "tf_signal.npz"))
    return data, {k[4:]: str(data[k]) for k in data if k.startswith("key:")}


def _assert_as_tf(key, got, want):
    tolerance = {"rtol": 2e-4, "atol": 2e-3} if key in LOUD else TOLERANCE
    assert got.dtype == want.dtype, key
    assert got.shape == want.shape, key
    np.testing.assert_allclose(got, want, err_msg=key, **tolerance)


def test_devsession_signal_equals_tf():
    data, keys = _recorded()
    with ds.Graph().as_default():
        placeholders = signal_cases.placeholders(ds)
        outs = signal_cases.all_ops(ds, placeholders)
        with ds.Session() as sess:
            values = sess.run(outs, {placeholders[k]: data[f"feed:{k}"] for k in placeholders})
    assert set(outs) == set(keys) and len(outs) == 90
    for key, tensor in outs.items():
        _assert_as_tf(key, values[key], data[f"fetch:{keys[key]}"])
        assert tensor.shape == tf_static_shape(data, keys[key]), key


def test_tf_graph_def_imports_and_runs_as_tf():
    """TF's own graph: its RFFT/ComplexAbs/Complex/Exp/Real nodes, the STFT's framing and
    the mel matrix's linspace (a ConcatV2 whose axis TF computes with a SelectV2)."""
    graph, names, values, data = run_recorded("tf_signal")
    _, keys = _recorded()
    by_name = {v: k for k, v in keys.items()}
    types = {op.type for op in graph.get_operations()}
    assert {"RFFT", "ComplexAbs", "Complex", "Exp", "Real", "IRFFT3D", "Angle"} <= types
    for name, got in zip(names, values):
        _assert_as_tf(by_name[name], got, data[f"fetch:{name}"])
    mfccs = graph.get_tensor_by_name(keys["mfccs"])
    assert mfccs.dtype == ds.float32 and mfccs.shape.as_list()[1:] == [None, 13]


# --- dtypes, constants, feeds, protos, the wire -------------------------------------------

def test_complex_dtypes_are_tfs():
    assert (ds.complex64.enum, ds.complex128.enum) == (8, 18)
    assert ds.as_dtype(8) is ds.complex64 and ds.as_dtype("complex128") is ds.complex128
    assert ds.as_dtype(np.complex64) is ds.complex64
    assert ds.complex64.is_complex and not ds.complex64.is_floating
    assert not ds.complex64.is_numeric and not ds.float32.is_complex
    assert ds.complex64.real_dtype is ds.float32 and ds.complex128.real_dtype is ds.float64
    assert ds.float32.real_dtype is ds.float32
    with pytest.raises(TypeError, match="Cannot find maximum value of complex64"):
        ds.complex64.max
    assert ds.constant([1 + 2j, 3]).dtype == ds.complex128       # as TF: Python complex
    assert ds.constant(1.5, ds.complex64).dtype == ds.complex64
    with pytest.raises(TypeError, match="without losing information"):
        ds.constant(1j, ds.float32)


def test_complex_feeds_and_fetches():
    z = ds.placeholder(ds.complex64, [None])
    doubled = z * 2
    with ds.Session() as sess:
        got = sess.run(doubled, {z: [1j, 2 - 1j]})
        assert got.dtype == np.complex64
        np.testing.assert_array_equal(got, [2j, 4 - 2j])
        np.testing.assert_array_equal(sess.run(z, {z: np.array([1.5])}), [1.5 + 0j])
        x = ds.placeholder(ds.float32, [1])
        with pytest.raises(ValueError, match="without losing information"):
            sess.run(x, {x: np.array([1j])})


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_tensor_proto_round_trip_and_typed_fields(dtype):
    a = np.array([[1 + 2j, -3.5 - 4j], [0, 1e-3j]], dtype)
    proto = array_to_proto(a)
    assert proto.dtype == ds.as_dtype(dtype).enum and len(proto.tensor_content) == a.nbytes
    back = proto_to_array(proto)
    assert back.dtype == dtype
    np.testing.assert_array_equal(back, a)
    field = "scomplex_val" if dtype == np.complex64 else "dcomplex_val"
    typed = graph_pb2.TensorProto(dtype=proto.dtype)
    typed.tensor_shape.dim.add(size=3)
    getattr(typed, field).extend([1, 2, -3, 4])      # two values; the last fills
    np.testing.assert_array_equal(proto_to_array(typed), np.array([1 + 2j, -3 + 4j, -3 + 4j],
                                                                  dtype))
    getattr(typed, field).append(5)                  # an odd count is no pair
    with pytest.raises(InvalidArgumentError, match="real, imaginary"):
        proto_to_array(typed, "c")


def test_complex_tensors_cross_the_wire():
    z = np.array([[1 + 2j, 3 - 4j]], np.complex128)
    data = wire.encode_tensors(worker_pb2.PushTensorRequest(step_id=1), ["z", "f"],
                               [z, z.astype(np.complex64)])
    _, (a, b) = wire.decode_tensors(worker_pb2.PushTensorRequest, data)
    assert (a.dtype, b.dtype) == (np.complex128, np.complex64)
    np.testing.assert_array_equal(a, z)
    np.testing.assert_array_equal(b, z)


# --- TF's errors ----------------------------------------------------------------------------

def test_dtype_errors_as_tf():
    f, i = ds.constant([1.0, -2.0]), ds.constant([1, 2])
    assert ds.real(i) is i and ds.conj(i) is i                  # TF1: real values as they are
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(ds.imag(i)), [0, 0])
        np.testing.assert_allclose(sess.run(ds.angle(f)), [0, np.pi])
    with pytest.raises(TypeError, match="input must be a numeric tensor, but got tensor "
                                        "with dtype string"):
        ds.real(ds.constant(["a"]))
    with pytest.raises(TypeError, match="numeric tensor, but got tensor with dtype bool"):
        ds.math.real(ds.constant(True))
    with pytest.raises(TypeError, match="incorrect types: int32 int32"):
        ds.complex(i, i)
    with pytest.raises(TypeError, match="incorrect types: float32 float64"):
        ds.complex(f, ds.constant([1.0], ds.float64))
    with pytest.raises(TypeError, match="float32 not in list of allowed values: complex64, "
                                        "complex128"):
        ds.signal.fft(f)
    # the real FFTs' Python wrappers raise ValueError (the raw ops a TypeError), as TF's
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs, "
                                         "got: .*complex64"):
        ds.signal.rfft(ds.complex(f, f))
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 .*int32"):
        ds.signal.rfft2d(ds.constant([[1, 2]]))
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128 "
                                         "inputs, got: .*float32"):
        ds.signal.irfft(f)
    with pytest.raises(ValueError, match="IRFFT requires .*float32"):
        ds.signal.inverse_stft(ds.zeros([5, 5]), 8, 4)
    with pytest.raises(TypeError, match="complex64 not in list of allowed values: float32"):
        ds.raw_ops.RFFT(input=ds.complex(f, f), fft_length=[2])
    with pytest.raises(ValueError, match="must be at least rank 1"):
        ds.signal.rfft(ds.constant(1.0))
    with pytest.raises(ValueError, match="must be at least rank 1"):   # IRFFT: rank first
        ds.signal.irfft(ds.constant(1.0))
    z = ds.complex(f, f)
    with pytest.raises(TypeError, match="DataType complex64"):
        ds.maximum(z, z)
    with pytest.raises(TypeError, match="cannot order complex64"):
        ds.less(z, z)
    with pytest.raises(TypeError, match="complex_abs takes a complex tensor"):
        complex_abs(f)


def test_run_time_errors_name_the_node():
    n = ds.placeholder(ds.int32, [1])
    y = ds.signal.irfft(ds.complex(ds.ones([4]), ds.ones([4])), n, name="inverse")
    assert y.shape.as_list() == [None]
    with ds.Session() as sess:
        assert sess.run(y, {n: [6]}).shape == (6,)
        with pytest.raises(InvalidArgumentError, match="non-negative") as info:
            sess.run(y, {n: [-2]})
    assert info.value.node_name == "inverse"


# --- kernels: REF and the CPU's (GPU sessions place these ops on the host) -----------------

@pytest.mark.skipif(bool(cuda_host.compiler_missing()),
                    reason=cuda_host.compiler_missing() or "-")
def test_a_gpu_session_runs_them_on_the_host_as_tf():
    """On the cupy stand-in (the real CUDA kernel modules): the complex and FFT ops are
    placed on the CPU, complex arithmetic on the GPU goes through the host's kernels."""
    data, keys = _recorded()
    with cupy_standin.installed(), ds.Graph().as_default():
        placeholders = signal_cases.placeholders(ds)
        outs = signal_cases.all_ops(ds, placeholders)
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            values = sess.run(outs, {placeholders[k]: data[f"feed:{k}"] for k in placeholders})
    for key in outs:
        _assert_as_tf(key, values[key], data[f"fetch:{keys[key]}"])


def test_kernels_equal_numpy_formulas():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 8)).astype(np.float32)
    z = (x + 1j * x[:, ::-1]).astype(np.complex64)
    for op, inputs, want, out in [
            ("FFT", [z], np.fft.fft(z), np.complex64),
            ("IFFT2D", [z], np.fft.ifft2(z), np.complex64),
            ("FFT3D", [z], np.fft.fftn(z, axes=(0, 1, 2)), np.complex64),
            ("RFFT", [x, np.array([10], np.int32)], np.fft.rfft(x, 10), np.complex64),
            ("IRFFT", [z, np.array([6], np.int32)], np.fft.irfft(z[..., :4], 6), np.float32),
            ("RFFT2D", [x, np.array([2, 4], np.int32)], np.fft.rfft2(x[:, :2, :4]),
             np.complex64),
            ("Real", [z], z.real, np.float32), ("Imag", [z], z.imag, np.float32),
            ("ComplexAbs", [z], np.abs(z), np.float32), ("Angle", [z], np.angle(z), np.float32),
            ("Conj", [z], np.conj(z), np.complex64)]:
        attrs = {"Treal": np.dtype(np.float32), "Tcomplex": np.dtype(np.complex64)}
        node = make_node(op, [a.dtype for a in inputs], out, attrs)
        got = run_on("CPU", node, *inputs)
        np.testing.assert_array_equal(got, run_on("REF", node, *inputs))
        assert got.dtype == out, op
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=op)
    node = make_node("Complex", [np.float64, np.float64], np.complex128)
    got = run_on("CPU", node, np.ones((2, 1)), np.arange(3.0))
    np.testing.assert_array_equal(got, 1 + 1j * np.arange(3.0)[None].repeat(2, 0))


def test_complex_reductions():
    z = ds.constant([[1 + 2j, 3 - 1j], [0.5j, -2]], ds.complex64)
    with ds.Session() as sess:
        total, mean, prod = sess.run([ds.reduce_sum(z, 0), ds.reduce_mean(z),
                                      ds.reduce_prod(z, 1)])
    assert total.dtype == np.complex64
    np.testing.assert_allclose(total, [1 + 2.5j, 1 - 1j])
    np.testing.assert_allclose(mean, (2 + 1.5j) / 4)
    np.testing.assert_allclose(prod, [5 + 5j, -1j])
    with pytest.raises(TypeError, match="numeric input"):
        ds.reduce_max(z)


def test_complex_division_by_zero_is_nan_as_tf():
    z = ds.constant([1 + 1j, 2j], ds.complex64)
    with ds.Session() as sess:
        got = sess.run(z / ds.constant([0j, 1], ds.complex64))
    assert np.isnan(got[0].real) and np.isnan(got[0].imag) and got[1] == 2j


# --- gradients (TF's formulas) against finite differences, in float64 ----------------------

def _check_gradient(build, *inputs, rtol=1e-5, atol=1e-7):
    """d sum(build(*xs)) / d each x, where build maps real tensors to a real one."""
    with ds.Graph().as_default():
        xs = [ds.placeholder(ds.float64, a.shape) for a in inputs]
        y = build(*xs)
        grads = ds.gradients(ds.reduce_sum(y), xs)
        with ds.Session() as sess:
            got = sess.run(grads, dict(zip(xs, inputs)))
            for k, a in enumerate(inputs):
                def f(v, k=k):
                    values = list(inputs)
                    values[k] = v
                    return sess.run(y, dict(zip(xs, values)))
                np.testing.assert_allclose(got[k], numeric_gradient(f, a), rtol=rtol,
                                           atol=atol, err_msg=f"input {k}")


X = np.random.default_rng(5).uniform(-2, 2, (3, 8))
Y = np.random.default_rng(6).uniform(-2, 2, (3, 8))


@pytest.mark.parametrize("name, build", [
    ("abs_of_complex", lambda x, y: ds.abs(ds.complex(x, y))),
    ("complex_broadcast", lambda x, y: ds.abs(ds.complex(x, y[:1] * 1.0)) * x),
    ("real_imag", lambda x, y: ds.real(ds.complex(x, y) * ds.complex(y, x)) * ds.imag(
        ds.complex(x, y) * ds.complex(y, y))),
    ("conj", lambda x, y: ds.imag(ds.conj(ds.complex(x, y)) * ds.complex(y, x * y))),
    ("angle", lambda x, y: ds.angle(ds.complex(x, y)) * y),
    ("fft", lambda x, y: ds.abs(ds.signal.fft(ds.complex(x, y)))),
    ("ifft2d", lambda x, y: ds.real(ds.signal.ifft2d(ds.complex(x, y)) * ds.complex(y, x))),
    ("fft3d", lambda x, y: ds.imag(ds.signal.fft3d(ds.complex(x, y)[None])) * x),
    ("rfft", lambda x, y: ds.abs(ds.signal.rfft(x * y))),
    ("rfft_padded", lambda x, y: ds.real(ds.signal.rfft(x, [11]) * ds.complex(
        y[:, :6], y[:, 2:]))),
    ("rfft_cropped", lambda x, y: ds.imag(ds.signal.rfft(x, [5])) * y[:, :3]),
    ("irfft", lambda x, y: ds.signal.irfft(ds.complex(x, y)) * ds.concat([x, y], 1)[:, :14]),
    ("irfft_odd", lambda x, y: ds.square(ds.signal.irfft(ds.complex(x, y), [9]))),
    ("rfft2d", lambda x, y: ds.abs(ds.signal.rfft2d(x * y))),
    ("rfft2d_rows_padded", lambda x, y: ds.real(ds.signal.rfft2d(x, [4, 6]) * ds.complex(
        ds.concat([y, x[:1]], 0)[:, :4], ds.concat([y, x[:1]], 0)[:, 4:]))),
    ("rfft2d_rows_cropped", lambda x, y: ds.imag(ds.signal.rfft2d(y * x, [2, 11])) * x[:2, :6]),
    ("irfft2d", lambda x, y: ds.signal.irfft2d(ds.complex(x, y)) * ds.concat([x, y], 1)[:, :14]),
    ("irfft2d_lengths", lambda x, y: ds.square(ds.signal.irfft2d(ds.complex(x, y), [5, 9]))),
    ("stft_magnitude", lambda x, y: ds.abs(ds.signal.stft(ds.reshape(x * y, [24]), 8, 4))),
    ("mfccs", lambda x, y: ds.signal.mfccs_from_log_mel_spectrograms(x * y)),
    ("complex_pow_exp_log_sqrt", lambda x, y: ds.abs(ds.pow(ds.complex(x, y), ds.complex(
        y, x * 0.1)) + ds.exp(ds.complex(x, y) * 0.3) * ds.log(ds.sqrt(ds.complex(x, y))))),
], ids=lambda v: v if isinstance(v, str) else "")
def test_gradients_against_finite_differences(name, build):
    _check_gradient(build, X, Y)


def test_complex_gradients_are_tfs_convention():
    """A complex tensor's gradient is dL/dre + 1j dL/dim (TF's convention)."""
    with ds.Graph().as_default():
        z = ds.placeholder(ds.complex128, [2])
        loss = ds.reduce_sum(ds.real(z) * 3.0 + ds.imag(z) * 5.0)
        (grad,) = ds.gradients(loss, [z])
        with ds.Session() as sess:
            np.testing.assert_array_equal(sess.run(grad, {z: [1j, 2]}), [3 + 5j, 3 + 5j])


def _np_frames(x, length, step, pad_end=False, pad_value=0.0):
    """``x``'s last axis in frames, as TF's ``tf.signal.frame`` defines them."""
    size = x.shape[-1]
    count = -(-size // step) if pad_end else max(0, 1 + (size - length) // step)
    if pad_end:
        extra = max(0, length + step * (count - 1) - size)
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, extra)], constant_values=pad_value)
    return np.stack([x[..., i * step:i * step + length] for i in range(count)], axis=-2)


def _np_overlap_and_add(frames, step):
    count, length = frames.shape[-2:]
    out = np.zeros(frames.shape[:-2] + (length + step * (count - 1),), frames.dtype)
    for i in range(count):
        out[..., i * step:i * step + length] += frames[..., i, :]
    return out


def test_frame_takes_a_length_and_step_only_a_run_knows():
    signal = np.arange(22.0, dtype=np.float32).reshape(2, 11)
    with ds.Graph().as_default():
        length = ds.placeholder(ds.int32, [])
        step = ds.placeholder(ds.int32, [])
        by_step = ds.signal.frame(signal, 4, step)
        by_length = ds.signal.frame(signal, length, 3, pad_end=True, pad_value=-1.0)
        by_both = ds.signal.frame(signal, length, step, pad_end=True)
        down_rows = ds.signal.frame(signal.T, 4, step, axis=0)
        # TF's static shapes: frames unknown where the step is; with pad_end and a known
        # step, ceil(11 / 3) frames of a length only the run knows
        assert by_step.shape.as_list() == [2, None, 4]
        assert by_length.shape.as_list() == [2, 4, None]
        assert by_both.shape.as_list() == [2, None, None]
        assert down_rows.shape.as_list() == [None, 4, 2]
        with ds.Session() as sess:
            for n, s in ((4, 3), (5, 2), (3, 1), (11, 4), (12, 5)):
                got = sess.run([by_step, by_length, by_both, down_rows], {length: n, step: s})
                np.testing.assert_array_equal(got[0], _np_frames(signal, 4, s))
                np.testing.assert_array_equal(got[1], _np_frames(signal, n, 3, True, -1.0))
                np.testing.assert_array_equal(got[2], _np_frames(signal, n, s, True))
                np.testing.assert_array_equal(got[3], np.moveaxis(
                    _np_frames(signal, 4, s), -2, 0).swapaxes(1, 2))
            # a negative step makes no frames, as TF's run
            assert sess.run(by_step, {step: -2}).shape == (2, 0, 4)


def test_overlap_and_add_takes_a_step_only_a_run_knows():
    frames = np.random.default_rng(3).normal(size=(2, 3, 4)).astype(np.float32)
    with ds.Graph().as_default():
        step = ds.placeholder(ds.int32, [])
        summed = ds.signal.overlap_and_add(frames, step)
        assert summed.shape.as_list() == [2, None]
        with ds.Session() as sess:
            for s in (1, 2, 4, 6):
                np.testing.assert_allclose(sess.run(summed, {step: s}),
                                           _np_overlap_and_add(frames, s), rtol=1e-6)


def test_frame_steps_it_cannot_take():
    with ds.Graph().as_default():
        signal = ds.zeros([10])
        with pytest.raises(ValueError, match="frame_step must not be 0"):
            ds.signal.frame(signal, 4, 0)
        with pytest.raises(ValueError, match="must have rank 0"):
            ds.signal.frame(signal, 4, ds.placeholder(ds.int32, [1]))
        with pytest.raises(TypeError, match="frame_step must be an integer tensor"):
            ds.signal.frame(signal, 4, ds.placeholder(ds.float32, []))
        with pytest.raises(TypeError, match="frame_length must be an integer tensor"):
            ds.signal.frame(signal, ds.placeholder(ds.float32, []), 2)


def test_real_ffts_take_python_lists_as_tf():
    """TF's wrappers convert a list to float32 (IRFFT: complex64) where it can be."""
    with ds.Graph().as_default():
        forward = ds.signal.rfft([1, 2, 3])
        backward = ds.signal.irfft([1.0, 2.0, 0.5])
        assert (forward.dtype, backward.dtype) == (ds.complex64, ds.float32)
        with ds.Session() as sess:
            got = sess.run([forward, backward])
    np.testing.assert_allclose(got[0], np.fft.rfft([1.0, 2.0, 3.0]), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.fft.irfft([1.0, 2.0, 0.5]), rtol=1e-6)


def _np_raised_cosine(length, periodic, a, b):
    if length == 1:
        return np.ones(1)
    # TF's N: the length for an even periodic window, else the length - 1
    denominator = length if periodic and length % 2 == 0 else length - 1
    return a - b * np.cos(2 * np.pi * np.arange(length) / denominator)


def test_windows_take_a_length_and_periodic_only_a_run_knows():
    with ds.Graph().as_default():
        length = ds.placeholder(ds.int32, [])
        periodic = ds.placeholder(ds.bool, [])
        hann = ds.signal.hann_window(length, periodic=periodic)
        hamming = ds.signal.hamming_window(length, periodic=periodic, dtype=ds.float64)
        fixed = ds.signal.hann_window(6, periodic=periodic)
        assert hann.shape.as_list() == [None] and fixed.shape.as_list() == [6]
        assert hamming.dtype == ds.float64
        with ds.Session() as sess:
            for n in (1, 2, 5, 8):
                for p in (True, False):
                    got = sess.run([hann, hamming, fixed], {length: n, periodic: p})
                    np.testing.assert_allclose(got[0], _np_raised_cosine(n, p, 0.5, 0.5),
                                               atol=1e-6)
                    np.testing.assert_allclose(got[1], _np_raised_cosine(n, p, 0.54, 0.46),
                                               atol=1e-12)
                    np.testing.assert_allclose(got[2], _np_raised_cosine(6, p, 0.5, 0.5),
                                               atol=1e-6)


def test_stft_takes_a_frame_length_only_a_run_knows():
    signal = np.sin(np.arange(40.0) * 0.3).astype(np.float32)
    with ds.Graph().as_default():
        length = ds.placeholder(ds.int32, [])
        fed = ds.abs(ds.signal.stft(signal, length, 4, fft_length=16))
        fed_default = ds.abs(ds.signal.stft(signal, length, 4))   # fft_length found at run
        assert fed.shape.as_list() == [None, 9]          # TF pads the frames at run time
        assert fed_default.shape.as_list() == [None, None]
        with ds.Session() as sess:
            for n, bins in ((5, 5), (8, 5), (9, 9), (16, 9)):
                want = sess.run(ds.abs(ds.signal.stft(signal, n, 4, fft_length=16)))
                np.testing.assert_allclose(sess.run(fed, {length: n}), want, atol=1e-5)
                got = sess.run(fed_default, {length: n})
                assert got.shape[-1] == bins
                np.testing.assert_allclose(got, sess.run(ds.abs(ds.signal.stft(signal, n, 4))),
                                           atol=1e-5)


def test_real_ffts_pad_at_run_time_as_tf():
    """Where the fft_length or the inner dims are known only at run time, TF's wrappers
    pad in the graph, and their static shapes lose the outer dimensions too."""
    x = np.random.default_rng(4).normal(size=(2, 6))
    with ds.Graph().as_default():
        real = ds.placeholder(ds.float32, [2, None])
        spectrum = ds.placeholder(ds.complex64, [2, None])
        n = ds.placeholder(ds.int32, [1])
        outs = {"rfft": ds.signal.rfft(real), "rfft_8": ds.signal.rfft(real, [8]),
                "rfft_fed": ds.signal.rfft(ds.constant(x, ds.float32), n),
                "irfft": ds.signal.irfft(spectrum), "irfft_fed": ds.signal.irfft(spectrum, n),
                "rfft_known": ds.signal.rfft(ds.constant(x, ds.float32), [4])}
        shapes = {k: v.shape.as_list() for k, v in outs.items()}
        assert shapes == {"rfft": [None, None], "rfft_8": [None, 5], "rfft_fed": [None, None],
                          "irfft": [None, None], "irfft_fed": [None, None],
                          "rfft_known": [2, 3]}
        z = np.fft.rfft(x)
        with ds.Session() as sess:
            got = sess.run(outs, {real: x, spectrum: z, n: [11]})
    np.testing.assert_allclose(got["rfft"], np.fft.rfft(x), atol=1e-5)
    np.testing.assert_allclose(got["rfft_8"], np.fft.rfft(x, 8), atol=1e-5)
    np.testing.assert_allclose(got["rfft_fed"], np.fft.rfft(x, 11), atol=1e-5)
    np.testing.assert_allclose(got["irfft"], np.fft.irfft(z), atol=1e-5)
    np.testing.assert_allclose(got["irfft_fed"], np.fft.irfft(z, 11), atol=1e-5)
    np.testing.assert_allclose(got["rfft_known"], np.fft.rfft(x[:, :4]), atol=1e-5)


def _weighted_loss(y):
    """A loss whose gradient tells every element of ``y`` (real or complex) apart."""
    bins = ds.cast(ds.range(ds.shape(y)[-1]), ds.float32) + 1.0
    if y.dtype.is_complex:
        return ds.reduce_sum(ds.square(ds.real(y)) * bins + ds.imag(y) * bins)
    return ds.reduce_sum(ds.square(y) * bins)


def test_real_fft_gradients_with_lengths_only_a_run_knows():
    """RFFT's and IRFFT's gradients where the fft_length or the inner length is fed equal
    the static gradients (themselves checked against finite differences above)."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 6)).astype(np.float32)
    z = (rng.normal(size=(2, 4)) + 1j * rng.normal(size=(2, 4))).astype(np.complex64)
    with ds.Graph().as_default():
        n = ds.placeholder(ds.int32, [1])
        real = ds.placeholder(ds.float32, [2, None])
        spectrum = ds.placeholder(ds.complex64, [2, None])
        fed = {"rfft": ds.gradients(_weighted_loss(ds.signal.rfft(real, n)), real)[0],
               "irfft": ds.gradients(_weighted_loss(ds.signal.irfft(spectrum, n)),
                                     spectrum)[0]}
        with ds.Session() as sess:
            for length in (4, 6, 7, 10):
                constant_x, constant_z = ds.constant(x), ds.constant(z)
                want = sess.run({
                    "rfft": ds.gradients(_weighted_loss(ds.signal.rfft(constant_x, [length])),
                                         constant_x)[0],
                    "irfft": ds.gradients(_weighted_loss(
                        ds.signal.irfft(constant_z, [length])), constant_z)[0]})
                got = sess.run(fed, {n: [length], real: x, spectrum: z})
                for key in want:
                    assert got[key].shape == want[key].shape, (key, length)
                    np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-4,
                                               err_msg=f"{key} {length}")


def test_inverse_stft_takes_lengths_only_a_run_knows():
    """A fed frame_length (and the inverse window's frame_step) round-trips a signal as the
    constant ones do; the static shape is TF's (unknown: it crops and pads at run time)."""
    signal = np.random.default_rng(8).normal(size=(2, 80)).astype(np.float32)
    with ds.Graph().as_default():
        length = ds.placeholder(ds.int32, [])
        step = ds.placeholder(ds.int32, [])
        window = ds.signal.inverse_stft_window_fn(step)
        for fft_length in (None, 16, 32):
            spectrum = ds.signal.stft(signal, length, step, fft_length=fft_length)
            back = ds.signal.inverse_stft(spectrum, length, step, fft_length=fft_length,
                                          window_fn=window)
            assert back.shape.as_list() == [None, None]
            constant = ds.signal.inverse_stft(
                ds.signal.stft(signal, 16, 4, fft_length=fft_length), 16, 4,
                fft_length=fft_length, window_fn=ds.signal.inverse_stft_window_fn(4))
            with ds.Session() as sess:
                got = sess.run(back, {length: 16, step: 4})
                np.testing.assert_allclose(got, sess.run(constant), atol=1e-5)
                np.testing.assert_allclose(got[:, 16:-16], signal[:, 16:-16], atol=1e-5)
                window_value = sess.run(window(16, ds.float32), {step: 4})
                uneven = sess.run([window(15, ds.float32),
                                   ds.signal.inverse_stft_window_fn(4)(15, ds.float32)],
                                  {step: 4})
        np.testing.assert_allclose(window_value, _np_raised_cosine(16, True, 0.5, 0.5) / 1.5,
                                   atol=1e-6)
        np.testing.assert_allclose(uneven[0], uneven[1], atol=1e-6)   # ceil(15 / 4) overlaps


def test_dct_and_mfccs_of_a_last_dimension_only_a_run_knows():
    """TF's DCTs take the length of the last axis from the run where the graph does not
    know it; each type, norm and ``n`` gives what the static graph gives."""
    x = np.random.default_rng(9).normal(size=(3, 7)).astype(np.float32)
    with ds.Graph().as_default():
        fed = ds.placeholder(ds.float32, [3, None])
        known = ds.constant(x)
        pairs = {}
        for kind in (1, 2, 3, 4):
            for norm in ((None,) if kind == 1 else (None, "ortho")):
                for n in (None, 5, 9):
                    for fn in (ds.signal.dct, ds.signal.idct):
                        key = f"{fn.__name__}{kind} {norm} {n}"
                        pairs[key] = (fn(fed, type=kind, n=n, norm=norm),
                                      fn(known, type=kind, n=n, norm=norm))
        pairs["mfccs"] = (ds.signal.mfccs_from_log_mel_spectrograms(fed),
                          ds.signal.mfccs_from_log_mel_spectrograms(known))
        assert pairs["dct2 ortho None"][0].shape.as_list() == [None, None]   # as TF's
        with ds.Session() as sess:
            got, want = sess.run([{k: v[0] for k, v in pairs.items()},
                                  {k: v[1] for k, v in pairs.items()}], {fed: x})
    for key in pairs:
        assert got[key].shape == want[key].shape, key
        np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-4, err_msg=key)


def test_lengths_that_are_not_integers_are_tfs_errors():
    with ds.Graph().as_default():
        signal = ds.zeros([20])
        for build in (lambda: ds.signal.frame(signal, 4, 2.0),
                      lambda: ds.signal.frame(signal, 4.5, 2),
                      lambda: ds.signal.hann_window(4.0),
                      lambda: ds.signal.stft(signal, 8, 4.0)):
            with pytest.raises(TypeError, match="must be an integer, got float32"):
                build()
        with pytest.raises(ValueError, match="frame_step must be an integer. Got"):
            ds.signal.overlap_and_add(ds.zeros([3, 4]), 2.5)


def test_signals_of_unknown_rank_as_tf():
    """TF frames, overlap-adds and (inverse) STFTs a signal whose rank only the run
    knows: every static shape is unknown, the values those of the known rank."""
    x = np.random.default_rng(10).normal(size=(2, 3, 24)).astype(np.float32)
    with ds.Graph().as_default():
        fed = ds.placeholder(ds.float32)
        known = ds.constant(x)

        def build(signal):
            spectrum = ds.signal.stft(signal, 8, 4, pad_end=True)
            outs = {"stft": ds.abs(spectrum),
                    "inverse_stft": ds.signal.inverse_stft(spectrum, 8, 4),
                    "overlap_and_add": ds.signal.overlap_and_add(signal, 3)}
            for i, options in enumerate((dict(), dict(pad_end=True), dict(axis=-2),
                                         dict(axis=0), dict(axis=1, pad_end=True),
                                         dict(axis=-2, pad_end=True, pad_value=5.0))):
                outs[f"frame {options}"] = ds.signal.frame(signal, 2, 1, **options)
            return outs

        got, want = build(fed), build(known)
        assert all(t.shape.ndims is None for t in got.values())
        complex_in = ds.placeholder(ds.complex64)
        spectrum = np.fft.rfft(x).astype(np.complex64)
        grads = [ds.gradients(ds.reduce_sum(ds.square(ds.signal.irfft(z, [16]))), z)[0]
                 for z in (complex_in, ds.constant(spectrum))]
        with ds.Session() as sess:
            got, want = sess.run([got, want], {fed: x})
            grads = sess.run(grads, {complex_in: spectrum})
    for key in want:
        assert got[key].shape == want[key].shape, key
        np.testing.assert_allclose(got[key], want[key], atol=1e-5, err_msg=key)
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-5)


def test_gradient_through_frames_of_a_signal_of_unknown_rank():
    x = np.random.default_rng(12).normal(size=(2, 3, 24)).astype(np.float32)
    with ds.Graph().as_default():
        fed = ds.placeholder(ds.float32)
        grads = []
        for signal in (fed, ds.constant(x)):
            rebuilt = ds.signal.inverse_stft(ds.signal.stft(signal, 8, 4, pad_end=True), 8, 4)
            framed = ds.signal.frame(signal, 5, 2, axis=1, pad_end=True)
            loss = ds.reduce_sum(ds.abs(rebuilt)) + ds.reduce_sum(framed * framed)
            grads.append(ds.gradients(loss, signal)[0])
        with ds.Session() as sess:
            got, want = sess.run(grads, {fed: x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
