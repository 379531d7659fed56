"""TF's ``tf.audio``: WAV files to float samples and back (``ops/audio.py``)."""

from .ops.audio import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("audio", name)
