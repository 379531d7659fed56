"""TF1's ``tf.spectral``, the older name of ``tf.signal``'s transforms: the FFTs and the
DCTs (``devsession/signal.py``).  Other names raise ``UnsupportedTF1Error``."""

from .signal import (dct, fft, fft2d, fft3d, idct, ifft, ifft2d, ifft3d, irfft, irfft2d,
                     irfft3d, rfft, rfft2d, rfft3d)

__all__ = ["dct", "fft", "fft2d", "fft3d", "idct", "ifft", "ifft2d", "ifft3d", "irfft",
           "irfft2d", "irfft3d", "rfft", "rfft2d", "rfft3d"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("spectral", name)
