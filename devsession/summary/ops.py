"""Summary ops (TF1's ``tf.summary.scalar/histogram/image/audio/text/tensor_summary/merge/
merge_all``): each yields a string scalar, a serialized ``Summary`` protobuf (``proto/summary.proto``, TensorFlow's
wire format), which ``FileWriter.add_summary`` writes for TensorBoard.

Names as TF1 gives them: ``scalar("loss", x)`` inside ``name_scope("train")`` builds an op
named "train/loss" whose tag is "train/loss" (made unique like any name: a second "loss"
is "loss_1"); summaries join the graph's "summaries" collection, which ``merge_all``
merges (None when there is none).  Kernels: ``kernels/reference/summary.py`` (host only:
they make strings).
"""

from __future__ import annotations

import contextlib

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from ..ops.common import make_op
from ..ops.registry import InferError, OpDef, not_differentiable, register_op
from ..tensor_shape import TensorShape

__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge",
           "merge_all", "SUMMARIES"]

SUMMARIES = "summaries"     # TF1's tf.GraphKeys.SUMMARIES


def _string_tag(tag, node):
    if not tag.dtype.is_string:
        raise TypeError(f"Op '{node}': a summary tag must be a string, not {tag.dtype.name}.")


def _scalar_summary(inputs, attrs, node):
    tags, values = inputs
    _string_tag(tags, node)
    if not (values.dtype.is_numeric or values.dtype.is_bool):
        raise TypeError(f"Op '{node}': a scalar summary needs a number, not "
                        f"{values.dtype.name} ('{values.name}').")
    if tags.shape.is_fully_defined() and values.shape.is_fully_defined() and \
            tags.shape != values.shape:
        raise InferError(f"Op '{node}': tags and values must have the same shape, got "
                         f"{tags.shape} and {values.shape} ('{values.name}').")
    return dtypes.string, TensorShape([])


def _histogram_summary(inputs, attrs, node):
    tag, values = inputs
    _string_tag(tag, node)
    if not (values.dtype.is_numeric or values.dtype.is_bool):
        raise TypeError(f"Op '{node}': a histogram needs numbers, not {values.dtype.name}.")
    return dtypes.string, TensorShape([])


def _image_summary(inputs, attrs, node):
    tag, images = inputs
    _string_tag(tag, node)
    if images.dtype not in (dtypes.uint8, dtypes.float16, dtypes.float32, dtypes.float64):
        raise TypeError(f"Op '{node}': images must be uint8 or floating point, not "
                        f"{images.dtype.name}.")
    if images.shape.ndims not in (None, 4) or (
            images.shape.ndims == 4 and images.shape.dims[3] not in (None, 1, 3, 4)):
        raise InferError(f"Op '{node}': images must be [batch, height, width, channels] with "
                         f"1, 3 or 4 channels, got '{images.name}' with shape {images.shape}.")
    return dtypes.string, TensorShape([])


def _audio_summary(inputs, attrs, node):
    tag, audio, sample_rate = inputs
    _string_tag(tag, node)
    if audio.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': audio must be float32, not {audio.dtype.name}.")
    if audio.shape.ndims not in (None, 2, 3):
        raise InferError(f"Op '{node}': audio must be [batch, frames] or [batch, frames, "
                         f"channels], got '{audio.name}' with shape {audio.shape}.")
    if sample_rate.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': sample_rate must be a scalar, got "
                         f"{sample_rate.shape}.")
    return dtypes.string, TensorShape([])


def _merge_summary(inputs, attrs, node):
    for x in inputs:
        if not x.dtype.is_string:
            raise TypeError(f"Op '{node}' merges summaries (strings), but '{x.name}' is "
                            f"{x.dtype.name}.")
    return dtypes.string, TensorShape([])


register_op(OpDef("ScalarSummary", _scalar_summary, 2))
register_op(OpDef("HistogramSummary", _histogram_summary, 2))
register_op(OpDef("ImageSummary", _image_summary, 2,
                  attr_defaults={"max_images": 3, "bad_color": (255, 0, 0, 255)}))
def _tensor_summary(inputs, attrs, node):
    tag, _, metadata = inputs
    _string_tag(tag, node)
    if not metadata.dtype.is_string:
        raise TypeError(f"Op '{node}': serialized_summary_metadata must be a string, not "
                        f"{metadata.dtype.name}.")
    return dtypes.string, TensorShape([])


register_op(OpDef("AudioSummaryV2", _audio_summary, 3, attr_defaults={"max_outputs": 3}))
register_op(OpDef("MergeSummary", _merge_summary, None))
register_op(OpDef("TensorSummaryV2", _tensor_summary, 3))
not_differentiable("ScalarSummary", "HistogramSummary", "ImageSummary", "MergeSummary",
                   "TensorSummaryV2", "AudioSummaryV2")  # index and string outputs: no gradient


def _collect(summary: Tensor, collections) -> Tensor:
    graph = summary.graph
    for key in (collections if collections is not None else [SUMMARIES]):
        graph.add_to_collection(key, summary)
    return summary


def _summary(op_type, name, values, collections, family, attrs=None) -> Tensor:
    """A summary node named by ``name`` in the current name scope; its tag is that name."""
    with _summary_scope(name, family) as (tag, scope):
        tensors = [convert_to_tensor(tag, name="tag"), convert_to_tensor(values)]
    return _collect(make_op(op_type, tensors, attrs, name=scope), collections)


@contextlib.contextmanager
def _summary_scope(name, family):
    """TF1's summary_scope: (tag, scope) for a summary op named ``name`` in the current
    name scope.  With a ``family`` the op's scope is ``family/name`` and the tag is that
    scope prefixed with the family once more (``scalar("loss", family="train")`` is op
    ``train/loss``, tag ``train/train/loss``: TensorBoard's tab is the tag's first part)."""
    name = _clean_tag(name)
    if family:
        family = _clean_tag(family)
        name = f"{family}/{name}"
    with name_scope(name) as scope:
        tag = scope.rstrip("/")
        yield (f"{family}/{tag}" if family else tag), scope


def _clean_tag(name: str) -> str:
    """``name`` with the characters node names cannot hold replaced by "_", as TF1."""
    import re

    cleaned = re.sub(r"[^-/\w\.]", "_", name).lstrip("/")
    return cleaned or "summary"


def scalar(name, tensor, collections=None, family=None) -> Tensor:
    """A summary of the scalar ``tensor`` (TensorBoard's scalars tab)."""
    return _summary("ScalarSummary", name, tensor, collections, family)


def histogram(name, values, collections=None, family=None) -> Tensor:
    """A histogram of ``values`` (every element), bucketed as TF's."""
    return _summary("HistogramSummary", name, values, collections, family)


def image(name, tensor, max_outputs=3, collections=None, family=None) -> Tensor:
    """PNG images of the first ``max_outputs`` of ``tensor`` ([batch, h, w, 1|3|4], uint8
    or floats, which are scaled into 0..255 per image as TF1 scales them)."""
    return _summary("ImageSummary", name, tensor, collections, family,
                    {"max_images": int(max_outputs)})


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None) -> Tensor:
    """16-bit WAV clips of the first ``max_outputs`` of ``tensor`` ([batch, frames] or
    [batch, frames, channels], float32 in [-1, 1]) at ``sample_rate`` Hz, as TF1's."""
    with _summary_scope(name, family) as (tag, scope):
        tensors = [convert_to_tensor(tag, name="tag"), convert_to_tensor(tensor),
                   convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")]
    return _collect(make_op("AudioSummaryV2", tensors, {"max_outputs": int(max_outputs)},
                            name=scope), collections)


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None) -> Tensor:
    """The whole ``tensor`` (a TensorProto) in a summary, with ``summary_metadata`` (a
    ``SummaryMetadata``: which TensorBoard plugin shows it) as TF1's."""
    from ..proto.summary_pb2 import SummaryMetadata

    metadata = SummaryMetadata()
    if summary_metadata is not None:
        metadata.CopyFrom(summary_metadata)
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    with _summary_scope(name, family) as (tag, scope):
        tensors = [convert_to_tensor(tag, name="tag"), convert_to_tensor(tensor),
                   convert_to_tensor(metadata.SerializeToString(), dtype=dtypes.string,
                                     name="serialized_summary_metadata")]
    return _collect(make_op("TensorSummaryV2", tensors, name=scope), collections)


def text(name, tensor, collections=None) -> Tensor:
    """A string ``tensor`` for TensorBoard's text plugin (a tensor summary whose plugin is
    "text"); ValueError for another dtype, as TF1's."""
    from ..proto.summary_pb2 import SummaryMetadata

    tensor = convert_to_tensor(tensor)
    if tensor.dtype != dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got "
                         f"{tensor.dtype.name}")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name, tensor, collections=collections, summary_metadata=metadata)


def merge(inputs, collections=None, name=None) -> Tensor:
    """One summary holding the values of every summary in ``inputs``."""
    tensors = [convert_to_tensor(x) for x in inputs]
    with name_scope(name or "Merge"):
        merged = make_op("MergeSummary", tensors, name="MergeSummary")
    for key in collections or ():
        merged.graph.add_to_collection(key, merged)
    return merged


def merge_all(key=SUMMARIES, scope=None, name=None):
    """``merge`` of every summary in the default graph's ``key`` collection (those whose
    name starts with ``scope``, when given); None when there is none, as TF1."""
    summaries = get_default_graph().get_collection(key)
    if scope is not None:
        summaries = [s for s in summaries if s.name.startswith(scope)]
    if not summaries:
        return None
    return merge(summaries, name=name)
