"""The complex-number and ``tf.signal`` computations tests/data/make_tf_signal.py records
from TensorFlow and tests/test_signal.py runs in devsession, written once against the
TF1 module each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``): the
feeds, the placeholders they fill, and {name: tensor} of what is fetched."""

import numpy as np

SAMPLE_RATE = 16000


def feeds() -> dict:
    rng = np.random.default_rng(20261206)
    t = np.arange(1000) / SAMPLE_RATE
    tone = np.sin(2 * np.pi * 440.0 * t) + 0.5 * np.sin(2 * np.pi * 3000.0 * t)
    return {
        "audio": np.stack([tone, rng.normal(size=1000) * 0.3]).astype(np.float32),
        "x": rng.normal(size=(3, 10)).astype(np.float32),
        "y": rng.normal(size=(3, 10)).astype(np.float32),
        "x64": rng.normal(size=(2, 9)),
        "z": (rng.normal(size=(2, 4, 6)) + 1j * rng.normal(size=(2, 4, 6))).astype(
            np.complex64),
    }


def placeholders(tf) -> dict:
    return {
        "audio": tf.placeholder(tf.float32, [2, None], name="audio"),
        "x": tf.placeholder(tf.float32, [3, 10], name="x"),
        "y": tf.placeholder(tf.float32, [3, 10], name="y"),
        "x64": tf.placeholder(tf.float64, [2, 9], name="x64"),
        "z": tf.placeholder(tf.complex64, [2, 4, 6], name="z"),
    }


def complex_ops(tf, p) -> dict:
    x, y, z = p["x"], p["y"], p["z"]
    c = tf.complex(x, y)
    c64 = tf.complex(p["x64"], p["x64"] * 2.0)
    other = tf.constant([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0j, 2j, -1 - 1j, 0.5, 1, -2, 4j],
                        tf.complex64)
    return {
        "complex": c, "complex128": c64, "real": tf.real(c), "imag": tf.imag(c),
        "abs": tf.abs(c), "conj": tf.conj(c), "angle": tf.angle(c),
        "angle128": tf.math.angle(c64), "real_of_real": tf.math.real(x) * 1.0,
        "imag_of_real": tf.math.imag(x), "angle_of_real": tf.angle(x),
        "add": c + other, "sub": c - other, "mul": c * other, "div": c / other,
        "neg": -c, "square": tf.square(c), "exp": tf.exp(c * 0.5),
        "cast_to_complex": tf.cast(x, tf.complex64),
        "cast_to_real": tf.cast(c, tf.float32), "cast_to_128": tf.cast(c, tf.complex128),
        "filled": tf.constant(1 - 1j, tf.complex128, shape=[3]) * 2.0,
        "fed": z * 1.0,
    }


def fft_ops(tf, p) -> dict:
    x, z = p["x"], p["z"]
    sig = tf.signal
    return {
        "fft": sig.fft(z), "ifft": sig.ifft(z), "fft2d": sig.fft2d(z),
        "ifft2d": sig.ifft2d(z), "fft3d": sig.fft3d(z), "ifft3d": sig.ifft3d(z),
        "rfft": sig.rfft(x), "rfft_pad": sig.rfft(x, [16]), "rfft_crop": sig.rfft(x, [7]),
        "rfft64": sig.rfft(p["x64"]),
        "irfft": sig.irfft(sig.rfft(x)), "irfft_odd": sig.irfft(sig.rfft(x, [9]), [9]),
        "irfft_pad": sig.irfft(tf.complex(x, x), [24]),
        "rfft2d": sig.rfft2d(x), "irfft2d": sig.irfft2d(sig.rfft2d(x), [3, 10]),
        "rfft3d": sig.rfft3d(tf.reshape(x, [1, 3, 10])),
        "irfft3d": sig.irfft3d(z, [2, 4, 8]),
        "tf1_fft": tf.fft(z), "spectral_rfft": tf.spectral.rfft(x),
    }


def signal_ops(tf, p) -> dict:
    audio, x = p["audio"], p["x"]
    sig = tf.signal
    stfts = sig.stft(audio, frame_length=256, frame_step=128)
    magnitudes = tf.abs(stfts)
    mel_matrix = sig.linear_to_mel_weight_matrix(20, 129, SAMPLE_RATE, 80.0, 7600.0)
    mel = tf.tensordot(magnitudes, mel_matrix, 1)
    log_mel = tf.log(mel + 0.01)     # a noise floor: float32 FFTs differ below it
    exact = sig.stft(x, 4, 2, fft_length=8, window_fn=None)
    return {
        "hann": sig.hann_window(16), "hann_symmetric": sig.hann_window(9, periodic=False),
        "hamming": sig.hamming_window(10), "hamming64": sig.hamming_window(7, dtype=tf.float64),
        "hann_one": sig.hann_window(1),
        "frame": sig.frame(x, 4, 3), "frame_pad": sig.frame(x, 4, 3, pad_end=True,
                                                             pad_value=-1.0),
        "frame_axis0": sig.frame(x, 2, 1, axis=0),
        "stft": stfts, "stft_pad_end": sig.stft(audio, 200, 80, pad_end=True),
        "stft_hamming": sig.stft(audio, 256, 100, 512, window_fn=sig.hamming_window),
        "stft_exact": exact,
        "inverse_stft": sig.inverse_stft(stfts, 256, 128,
                                         window_fn=sig.inverse_stft_window_fn(128)),
        "inverse_stft_plain": sig.inverse_stft(exact, 4, 2, fft_length=8, window_fn=None),
        "overlap_and_add": sig.overlap_and_add(tf.reshape(x, [3, 5, 2]), 1),
        "mel_matrix": mel_matrix, "mel": mel,
        "mel_matrix_small": sig.linear_to_mel_weight_matrix(8, 33, 8000, 125.0, 3800.0,
                                                            dtype=tf.float64),
        "log_mel": log_mel,
        "mfccs": sig.mfccs_from_log_mel_spectrograms(log_mel)[..., :13],
        "dct1": sig.dct(x, type=1), "dct2": sig.dct(x), "dct2_ortho": sig.dct(x, norm="ortho"),
        "dct3": sig.dct(x, type=3), "dct3_ortho": sig.dct(x, type=3, norm="ortho"),
        "dct4": sig.dct(x, type=4), "dct2_n": sig.dct(x, n=6), "dct2_pad": sig.dct(x, n=12),
        "idct2_ortho": sig.idct(sig.dct(x, norm="ortho"), norm="ortho"),
        "spectral_dct": tf.spectral.dct(x),
    }


def mdct_ops(tf, p) -> dict:
    audio, x, z = p["audio"], p["x"], p["z"]
    sig = tf.signal
    mdcts = sig.mdct(audio, 64)
    kbd = sig.mdct(audio, 32, window_fn=sig.kaiser_bessel_derived_window, norm="ortho")
    return {
        "kaiser": sig.kaiser_window(10), "kaiser_beta": sig.kaiser_window(7, beta=3.0),
        "kaiser64": sig.kaiser_window(6, dtype=tf.float64), "kaiser_one": sig.kaiser_window(1),
        "kbd": sig.kaiser_bessel_derived_window(12), "kbd_odd": sig.kaiser_bessel_derived_window(
            9, beta=4.0), "kbd_one": sig.kaiser_bessel_derived_window(1),
        "vorbis": sig.vorbis_window(8), "vorbis64": sig.vorbis_window(5, dtype=tf.float64),
        "mdct": mdcts, "mdct_kbd_ortho": kbd,
        "mdct_pad_end": sig.mdct(x, 8, pad_end=True, window_fn=None),
        "inverse_mdct": sig.inverse_mdct(mdcts),
        "inverse_mdct_kbd_ortho": sig.inverse_mdct(
            kbd, window_fn=sig.kaiser_bessel_derived_window, norm="ortho"),
        "fftshift": sig.fftshift(x), "ifftshift": sig.ifftshift(x),
        "fftshift_axis": sig.fftshift(z, axes=1), "ifftshift_axes": sig.ifftshift(
            z, axes=[0, -1]),
    }


def all_ops(tf, p) -> dict:
    return {**complex_ops(tf, p), **fft_ops(tf, p), **signal_ops(tf, p), **mdct_ops(tf, p)}
