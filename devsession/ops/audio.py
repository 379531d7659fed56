"""TF's WAV ops (``tf.audio``, TF1's speech-commands input pipeline: ``read_file`` ->
``decode_wav`` -> spectrograms), with TF's op types and attrs so GraphDefs TensorFlow
wrote import:

* **DecodeWav** ``(contents)`` -> ``(audio float32 [samples, channels], sample_rate
  int32)``: 16-bit PCM only, each sample divided by 32768; ``desired_channels`` (-1: the
  file's) repeats the file's last channel where it asks for more and drops channels
  where fewer; ``desired_samples`` (-1: the file's) pads with zeros or truncates.
* **EncodeWav** ``(audio float32 [samples, channels], sample_rate int32)`` -> a 16-bit
  PCM WAV file: each sample times 32768, rounded, clipped to int16.

The kernels (``kernels/reference/audio.py``) run on the host; a malformed file is
``InvalidArgumentError`` with TF's message.  Neither op is differentiable, as in TF.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["decode_wav", "encode_wav"]


def _rank(spec, rank: int, node: str, what: str) -> None:
    if spec.shape.rank not in (None, rank):
        raise InferError(f"Shape must be rank {rank} but is rank {spec.shape.rank} for "
                         f"'{node}' ({what}) with input shapes: {spec.shape}.")


def _size(attrs, key: str, node: str):
    value = int(attrs[key])
    if value < -1:
        raise InferError(f"{key.split('_')[1]} must be non-negative, got {value} for "
                         f"'{node}'.")
    return None if value == -1 else value


def _infer_decode(inputs, attrs, node):
    (contents,) = inputs
    if contents.dtype != dtypes.string:
        raise InferError(f"Op '{node}': contents must be a string, got "
                         f"{contents.dtype.name}.")
    _rank(contents, 0, node, "contents")
    shape = TensorShape([_size(attrs, "desired_samples", node),
                         _size(attrs, "desired_channels", node)])
    return [(dtypes.float32, shape), (dtypes.int32, TensorShape([]))]


def _infer_encode(inputs, attrs, node):
    audio, rate = inputs
    if audio.dtype != dtypes.float32 or rate.dtype != dtypes.int32:
        raise InferError(f"Op '{node}': audio must be float32 and sample_rate int32, got "
                         f"{audio.dtype.name} and {rate.dtype.name}.")
    _rank(audio, 2, node, "audio")
    _rank(rate, 0, node, "sample_rate")
    return dtypes.string, TensorShape([])


register_op(OpDef("DecodeWav", _infer_decode, 1,
                  attr_defaults={"desired_channels": -1, "desired_samples": -1}))
register_op(OpDef("EncodeWav", _infer_encode, 2, host_inputs=(1,)))
not_differentiable("DecodeWav", "EncodeWav")


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """``(audio, sample_rate)`` of a 16-bit PCM WAV file's bytes (TF's
    ``tf.audio.decode_wav``)."""
    graph = get_default_graph()
    op = graph.create_op("DecodeWav", [convert_to_tensor(contents, dtype=dtypes.string,
                                                         graph=graph)],
                         {"desired_channels": int(desired_channels),
                          "desired_samples": int(desired_samples)}, name=name or "DecodeWav")
    return op.outputs[0], op.outputs[1]


def encode_wav(audio, sample_rate, name=None):
    """The bytes of a 16-bit PCM WAV file of ``audio`` float32 [samples, channels] in
    [-1, 1] (TF's ``tf.audio.encode_wav``)."""
    graph = get_default_graph()
    inputs = [convert_to_tensor(audio, dtype=dtypes.float32, graph=graph),
              convert_to_tensor(sample_rate, dtype=dtypes.int32, graph=graph)]
    return graph.create_op("EncodeWav", inputs, name=name or "EncodeWav").outputs[0]
