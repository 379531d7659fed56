"""TF1's ``tf.signal`` (and its older name ``tf.spectral``): the FFT ops of
``ops/fft.py`` and the audio-feature composites of ``ops/signal_ops.py`` (framing,
windows, STFT, DCT, mel weights, MFCCs).  Complex values live on the host.  Other TF1
names (``kaiser_window``, ``vorbis_window``, ``mdct``...) raise ``UnsupportedTF1Error``
naming them."""

from .ops.fft import (fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft, irfft2d, irfft3d, rfft,
                      rfft2d, rfft3d)
from .ops.signal_ops import (dct, frame, hamming_window, hann_window, idct, inverse_stft,
                             inverse_stft_window_fn, linear_to_mel_weight_matrix,
                             mfccs_from_log_mel_spectrograms, overlap_and_add, stft)

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "frame", "overlap_and_add", "hann_window",
           "hamming_window", "stft", "inverse_stft", "inverse_stft_window_fn", "dct", "idct",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("signal", name)
