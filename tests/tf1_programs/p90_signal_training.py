"""tf.signal inside a trained speech-enhancement model, as TF1 audio repos wrote it: a noisy
waveform through tf.signal.stft, a dense layer on the log magnitude (tf.abs of the complex
spectrogram) estimating a spectral mask, the masked spectrogram back to a waveform by
tf.signal.inverse_stft with inverse_stft_window_fn, and a few Adam steps on a spectral L1
loss plus a waveform loss (frame / overlap_and_add and rfft / irfft in the path), so
gradients flow through every transform. Beside it the keyword-spotting features (log-mel
by linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms), windows, dct/idct,
fft/ifft on complex64, frame/stft/inverse_stft/windows with lengths and steps only a run
knows (their gradients too), static shapes for known and unknown lengths, and the errors TF
raises for bad arguments."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    length, frame_length, frame_step, fft_length = 256, 64, 16, 64
    t = np.arange(length, dtype=np.float32) / 8000.0
    clean = (0.6 * np.sin(2 * np.pi * 440.0 * t) + 0.3 * np.sin(2 * np.pi * 1250.0 * t))
    clean = clean.astype(np.float32)
    noisy = (clean + 0.2 * rng.standard_normal(length)).astype(np.float32)

    wave = tf.placeholder(tf.float32, [length], name="wave")
    any_length = tf.placeholder(tf.float32, [None, None], name="any_length")
    spectrogram = tf.signal.stft(wave, frame_length, frame_step, fft_length)
    magnitude = tf.abs(spectrogram)
    log_magnitude = tf.log(magnitude + 1e-6)
    w = tf.Variable(rng.normal(0, 0.1, (33, 33)).astype(np.float32), name="mask_w")
    b = tf.Variable(np.zeros(33, np.float32), name="mask_b")
    mask = tf.sigmoid(tf.matmul(log_magnitude, w) + b)
    masked = spectrogram * tf.complex(mask, tf.zeros_like(mask))
    inverse_window = tf.signal.inverse_stft_window_fn(frame_step)
    enhanced = tf.signal.inverse_stft(masked, frame_length, frame_step, fft_length,
                                      window_fn=inverse_window)
    target_magnitude = tf.abs(tf.signal.stft(tf.constant(clean), frame_length, frame_step))
    spectral_loss = tf.reduce_mean(tf.abs(tf.abs(masked) - target_magnitude))
    # a waveform loss on the middle samples, through frame / rfft / irfft / overlap_and_add
    frames = tf.signal.frame(enhanced, 32, 16, pad_end=True)
    filtered = tf.signal.irfft(tf.signal.rfft(frames * tf.signal.hann_window(32)))
    rebuilt = tf.signal.overlap_and_add(filtered, 16)[:length]
    wave_loss = tf.reduce_mean(tf.square(rebuilt[48:-48] - clean[48:-48]))
    loss = spectral_loss + 4.0 * wave_loss
    grads = tf.gradients(loss, [w, b, wave])
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)

    # a round trip with no mask, and the keyword-spotting features
    round_trip = tf.signal.inverse_stft(spectrogram, frame_length, frame_step, fft_length,
                                        window_fn=inverse_window)
    mel_matrix = tf.signal.linear_to_mel_weight_matrix(
        num_mel_bins=10, num_spectrogram_bins=33, sample_rate=8000,
        lower_edge_hertz=80.0, upper_edge_hertz=3800.0)
    log_mel = tf.log(tf.tensordot(magnitude, mel_matrix, 1) + 1e-6)
    mfccs = tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :6]
    any_stft = tf.signal.stft(any_length, 32, 8, window_fn=tf.signal.hamming_window)
    any_mfcc = tf.signal.mfccs_from_log_mel_spectrograms(tf.log(tf.abs(any_stft) + 1e-6))
    out["static_shapes"] = [
        spectrogram.shape.as_list(), enhanced.shape.as_list(), frames.shape.as_list(),
        rebuilt.shape.as_list(), any_stft.shape.as_list(), any_mfcc.shape.as_list(),
        tf.signal.frame(any_length, 5, 2, axis=0).shape.as_list(),
        tf.signal.frame(any_length, 5, 2, pad_end=True, axis=-1).shape.as_list(),
        tf.signal.frame(tf.zeros([7, 3]), 3, 2, pad_end=True, axis=0).shape.as_list(),
        mel_matrix.shape.as_list()]

    x = tf.constant(rng.normal(size=(3, 8)).astype(np.float32))
    z = tf.complex(x, tf.reverse(x, [1]))
    transforms = {
        "hann_periodic": tf.signal.hann_window(8),
        "hann_symmetric": tf.signal.hann_window(8, periodic=False),
        "hamming": tf.signal.hamming_window(7),
        "hamming_symmetric": tf.signal.hamming_window(7, periodic=False),
        "inverse_window": inverse_window(frame_length, tf.float32),
        "dct2_ortho": tf.signal.dct(x, type=2, norm="ortho"),
        "dct3": tf.signal.dct(x, type=3),
        "idct2_ortho_round_trip": tf.signal.idct(tf.signal.dct(x, norm="ortho"),
                                                 norm="ortho"),
        "idct3_of_dct3": tf.signal.idct(tf.signal.dct(x, type=3), type=3),
        "fft_ifft": tf.stack([tf.real(tf.signal.ifft(tf.signal.fft(z))),
                              tf.imag(tf.signal.ifft(tf.signal.fft(z)))]),
        "fft_real_imag": tf.stack([tf.real(tf.signal.fft(z)), tf.imag(tf.signal.fft(z))]),
        "fft_abs": tf.abs(tf.signal.fft(z)),
        "rfft_irfft": tf.signal.irfft(tf.signal.rfft(x)),
        "rfft_of_list": tf.abs(tf.signal.rfft([1, 2, 3, 4])),
        "frame_axis0": tf.signal.frame(tf.reshape(tf.range(14.0), [7, 2]), 3, 2,
                                       pad_end=True, pad_value=-1.0, axis=0),
        "overlap_add": tf.signal.overlap_and_add(tf.reshape(tf.range(12.0), [3, 4]), 2),
    }
    step_in = tf.placeholder(tf.int32, [], name="frame_step")
    fed_step = tf.signal.frame(tf.range(10.0), 4, step_in)
    length_in = tf.placeholder(tf.int32, [], name="frame_length")
    fed_length = tf.signal.frame(tf.reshape(tf.range(22.0), [2, 11]), length_in, 3,
                                 pad_end=True)
    fed_overlap = tf.signal.overlap_and_add(tf.reshape(tf.range(24.0), [2, 3, 4]), step_in)
    negative_step = tf.signal.frame(tf.range(10.0), 4, -2)
    periodic_in = tf.placeholder(tf.bool, [], name="periodic")
    fed_window = tf.signal.hann_window(length_in, periodic=periodic_in)
    fed_stft = tf.abs(tf.signal.stft(wave, length_in, frame_step, fft_length=64))
    fed_stft_grad = tf.gradients(tf.reduce_sum(fed_stft), wave)[0]
    fed_round_trip = tf.signal.inverse_stft(
        tf.signal.stft(wave, length_in, step_in), length_in, step_in,
        window_fn=tf.signal.inverse_stft_window_fn(step_in))
    unknown_bins_mfcc = tf.signal.mfccs_from_log_mel_spectrograms(any_length)
    no_shape = tf.placeholder(tf.float32, name="no_shape")       # rank unknown too
    no_shape_magnitude = tf.abs(tf.signal.stft(no_shape, 32, 16, pad_end=True))
    no_shape_grad = tf.gradients(tf.reduce_sum(no_shape_magnitude), no_shape)[0]
    out["fed_shapes"] = [fed_step.shape.as_list(), fed_length.shape.as_list(),
                         fed_overlap.shape.as_list(), negative_step.shape.as_list(),
                         fed_window.shape.as_list(), fed_stft.shape.as_list(),
                         fed_round_trip.shape.as_list(), unknown_bins_mfcc.shape.as_list(),
                         no_shape_magnitude.shape.ndims, no_shape_grad.shape.ndims]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["fed_steps"] = [sess.run(fed_step, {step_in: step}).tolist() for step in (3, 4, -2)]
        out["negative_step"] = sess.run(negative_step)
        out["fed_length"] = sess.run(fed_length, {length_in: 5})
        out["fed_overlap"] = [sess.run(fed_overlap, {step_in: step}) for step in (1, 4, 6)]
        out["fed_windows"] = [sess.run(fed_window, {length_in: n, periodic_in: p})
                              for n, p in ((1, True), (6, True), (6, False), (7, True))]
        stft_value, stft_grad = sess.run([fed_stft, fed_stft_grad], {wave: noisy,
                                                                     length_in: 48})
        out["fed_stft"] = [list(stft_value.shape), stft_value[3, :6], stft_grad[100:110]]
        round_trip_value = sess.run(fed_round_trip, {wave: noisy, length_in: 40, step_in: 10})
        out["fed_round_trip"] = [list(round_trip_value.shape), float(np.max(np.abs(
            round_trip_value[40:-40] - noisy[40:len(round_trip_value) - 40])))]
        magnitude_value, grad_value = sess.run([no_shape_magnitude, no_shape_grad],
                                               {no_shape: noisy[:100].reshape(2, 1, 50)})
        out["no_shape_stft"] = [list(magnitude_value.shape), magnitude_value[1, 0, :, :4],
                                grad_value[1, 0, 20:30]]
        out["unknown_bins_mfcc"] = sess.run(unknown_bins_mfcc, {any_length: noisy[:24].reshape(
            3, 8)})
        feed = {wave: noisy}
        out["first_grads"] = sess.run(grads, feed)
        history = []
        for _ in range(6):
            _, spec_value, wave_value = sess.run([train_op, spectral_loss, wave_loss], feed)
            history.append([spec_value, wave_value])
        out["losses"] = np.array(history)
        out["mask_row"] = sess.run(mask, feed)[5]
        out["enhanced"] = sess.run(enhanced, feed)[60:80]
        out["round_trip_error"] = float(np.max(np.abs(
            sess.run(round_trip, feed)[64:-64] - noisy[64:-64])))
        out["mel_matrix"] = sess.run(mel_matrix)
        out["log_mel_mfccs"] = sess.run([log_mel[2], mfccs[2]], feed)
        features = sess.run([any_stft, any_mfcc], {any_length: np.stack([noisy[:100],
                                                                          clean[:100]])})
        out["any_length_shapes"] = [list(features[0].shape), list(features[1].shape)]
        out["any_length_mfcc"] = features[1][:, 3, :4]
        out.update(sess.run(transforms))

    errors = {}
    bad_calls = {
        "dct_type_5": lambda: tf.signal.dct(tf.zeros([4]), type=5),
        "dct_norm": lambda: tf.signal.dct(tf.zeros([4]), norm="unit"),
        "dct1_ortho": lambda: tf.signal.dct(tf.zeros([4]), type=1, norm="ortho"),
        "dct_axis": lambda: tf.signal.dct(tf.zeros([4, 4]), axis=0),
        "stft_rank0": lambda: tf.signal.stft(tf.zeros([]), 4, 2),
        "istft_of_real": lambda: tf.signal.inverse_stft(tf.zeros([5, 5]), 8, 4),
        "rfft_of_complex": lambda: tf.signal.rfft(tf.complex(x, x)),
        "frame_float_step": lambda: tf.signal.frame(tf.zeros([10]), 4, 2.0),
        "overlap_float_step": lambda: tf.signal.overlap_and_add(tf.zeros([3, 4]), 2.5),
        "overlap_rank1": lambda: tf.signal.overlap_and_add(tf.zeros([4]), 2),
        "mel_edges": lambda: tf.signal.linear_to_mel_weight_matrix(
            lower_edge_hertz=500.0, upper_edge_hertz=100.0),
        "mel_nyquist": lambda: tf.signal.linear_to_mel_weight_matrix(
            sample_rate=8000, upper_edge_hertz=5000.0),
        "mfcc_zero_bins": lambda: tf.signal.mfccs_from_log_mel_spectrograms(
            tf.zeros([3, 0])),
    }
    for key, call in bad_calls.items():
        try:
            call()
            errors[key] = None
        except (ValueError, TypeError, NotImplementedError,
                tf.errors.InvalidArgumentError) as e:
            errors[key] = type(e).__name__
    out["errors"] = errors
    out["_tol"] = {"first_grads": {"rtol": 1e-3, "atol": 1e-5},
                   "losses": {"rtol": 1e-3, "atol": 1e-6},
                   "mask_row": {"rtol": 1e-3, "atol": 1e-5},
                   "enhanced": {"rtol": 1e-3, "atol": 1e-4},
                   "round_trip_error": {"rtol": 0, "atol": 1e-5},
                   "log_mel_mfccs": {"rtol": 1e-4, "atol": 1e-4},
                   "any_length_mfcc": {"rtol": 1e-4, "atol": 1e-4},
                   "fed_stft": {"rtol": 1e-4, "atol": 1e-5},
                   "fed_round_trip": {"rtol": 0, "atol": 1e-5},
                   "no_shape_stft": {"rtol": 1e-4, "atol": 1e-5},
                   "unknown_bins_mfcc": {"rtol": 1e-4, "atol": 1e-5}}
