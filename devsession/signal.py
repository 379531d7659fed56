"""TF1's ``tf.signal`` (and its older name ``tf.spectral``): the FFT ops of
``ops/fft.py`` and the audio-feature composites of ``ops/signal_ops.py`` (framing,
windows, STFT, DCT, mel weights, MFCCs).  ``ops/signal_mdct.py`` adds the MDCT and its
windows (Kaiser, Kaiser-Bessel-derived, Vorbis), ``ops/fft_shift.py`` ``fftshift``.
Complex values live on the host.  Other TF1 names (``fftnd``...) raise
``UnsupportedTF1Error`` naming them."""

from .ops.fft import (fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft, irfft2d, irfft3d, rfft,
                      rfft2d, rfft3d)
from .ops.signal_ops import (dct, frame, hamming_window, hann_window, idct, inverse_stft,
                             inverse_stft_window_fn, linear_to_mel_weight_matrix,
                             mfccs_from_log_mel_spectrograms, overlap_and_add, stft)
from .ops.signal_mdct import (inverse_mdct, kaiser_bessel_derived_window, kaiser_window, mdct,
                              vorbis_window)
from .ops.fft_shift import fftshift, ifftshift

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "frame", "overlap_and_add", "hann_window",
           "hamming_window", "stft", "inverse_stft", "inverse_stft_window_fn", "dct", "idct",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms", "kaiser_window",
           "kaiser_bessel_derived_window", "vorbis_window", "mdct", "inverse_mdct", "fftshift",
           "ifftshift"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("signal", name)
