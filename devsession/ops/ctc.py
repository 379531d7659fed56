"""Connectionist temporal classification: CTCLoss, CTCGreedyDecoder and
CTCBeamSearchDecoder (TF's op types, inputs and attrs, so GraphDefs TensorFlow wrote
import), and TF1's ``tf.nn`` functions that build them.

* **CTCLoss** ``(inputs [max_time, batch, classes], labels_indices int64 [n, 2],
  labels_values int32 [n], sequence_length int32 [batch])`` -> ``(loss [batch],
  gradient)``: each example's negative log likelihood of its labels, and the gradient
  of that loss with respect to the logits (the op computes both in one pass, as TF's; its
  registered gradient scales the second output, ``ctc_grad.py``).  The blank is the last
  class.
* **CTCGreedyDecoder** ``(inputs, sequence_length)`` -> a SparseTensor's three int64
  tensors (the best class per step, blanks dropped, repeats merged when
  ``merge_repeated``) and ``log_probability [batch, 1]``, the negative sum of each
  step's largest logit.
* **CTCBeamSearchDecoder** ``(inputs, sequence_length)`` -> ``top_paths`` SparseTensors
  (their indices, then values, then shapes) and ``log_probability [batch, top_paths]``.

Inputs are float32 or float64.  The algorithms (log-space forward-backward, TF's beam
bookkeeping) are ``kernels/reference/ctc.py``'s and ``ctc_decoders.py``'s; they run on the
host, a GPU node through the host.  Static shape errors are ``ValueError``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor
from ..tensor_shape import TensorShape
from .array import concat, transpose
from .image_operands import dims_of_rank, dtype_in
from .registry import InferError, OpDef, register_op

__all__ = ["ctc_loss", "ctc_loss_v2", "ctc_greedy_decoder", "ctc_beam_search_decoder",
           "ctc_beam_search_decoder_v2", "CTC_OPS"]

CTC_OPS = ("CTCLoss", "CTCGreedyDecoder", "CTCBeamSearchDecoder")
_FLOATS = (dtypes.float32, dtypes.float64)


def _logits_and_lengths(inputs, lengths, node: str):
    """The logits' dims ``[max_time, batch, classes]``, their batch checked against the
    sequence lengths'."""
    dtype_in(inputs, _FLOATS, node, "inputs")
    dtype_in(lengths, (dtypes.int32,), node, "sequence_length")
    time, batch, classes = dims_of_rank(inputs, 3, node, "inputs")
    (count,) = dims_of_rank(lengths, 1, node, "sequence_length")
    if None not in (batch, count) and batch != count:
        raise InferError(f"Op '{node}': sequence_length '{lengths.name}' has {count} "
                         f"lengths but inputs '{inputs.name}' a batch of {batch}.")
    return time, batch if batch is not None else count, classes


def _loss(inputs, attrs, node):
    logits, indices, values, lengths = inputs
    _, batch, _ = _logits_and_lengths(logits, lengths, node)
    dtype_in(indices, (dtypes.int64,), node, "labels_indices")
    dtype_in(values, (dtypes.int32,), node, "labels_values")
    dims_of_rank(indices, 2, node, "labels_indices")
    dims_of_rank(values, 1, node, "labels_values")
    return [(logits.dtype, TensorShape([batch])), (logits.dtype, logits.shape)]


def _sparse_outputs(count: int) -> list:
    return ([(dtypes.int64, TensorShape([None, 2]))] * count
            + [(dtypes.int64, TensorShape([None]))] * count
            + [(dtypes.int64, TensorShape([2]))] * count)


def _greedy(inputs, attrs, node):
    logits, lengths = inputs
    _, batch, _ = _logits_and_lengths(logits, lengths, node)
    return _sparse_outputs(1) + [(logits.dtype, TensorShape([batch, 1]))]


def _beam(inputs, attrs, node):
    logits, lengths = inputs
    _, batch, _ = _logits_and_lengths(logits, lengths, node)
    paths, width = attrs["top_paths"], attrs["beam_width"]
    if paths < 1 or width < 1:
        raise InferError(f"Op '{node}': beam_width ({width}) and top_paths ({paths}) must "
                         f"be at least 1.")
    return _sparse_outputs(paths) + [(logits.dtype, TensorShape([batch, paths]))]


register_op(OpDef("CTCLoss", _loss, 4, attr_defaults={
    "preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
    "ignore_longer_outputs_than_inputs": False}))
register_op(OpDef("CTCGreedyDecoder", _greedy, 2,
                  attr_defaults={"merge_repeated": False, "blank_index": -1}))
register_op(OpDef("CTCBeamSearchDecoder", _beam, 2,
                  attr_defaults={"beam_width": 100, "top_paths": 1, "merge_repeated": True}))


# --- builders ---------------------------------------------------------------------------------

def _time_major_logits(inputs, time_major: bool) -> Tensor:
    # no dtype hint, as TF's: a float64 array stays float64 even when float32 holds it
    inputs = convert_to_tensor(inputs, name="logits")
    return inputs if time_major else transpose(inputs, [1, 0, 2])


def _lengths(sequence_length) -> Tensor:
    return convert_to_tensor(sequence_length, dtype=dtypes.int32, name="sequence_length")


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False,
             time_major=True, logits=None) -> Tensor:
    """Each example's CTC loss (negative log likelihood of ``labels``, a SparseTensor of
    int32 class ids, given the logits ``inputs`` ``[max_time, batch, classes]``, or
    ``[batch, max_time, classes]`` when not ``time_major``) over its first
    ``sequence_length`` steps; the last class is the blank.  TF1's ``tf.nn.ctc_loss``
    (CTCLoss): TypeError for dense labels; a label sequence longer than its input is an
    InvalidArgumentError at run time unless ``ignore_longer_outputs_than_inputs`` (then
    its loss and gradient are zero)."""
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected argument `labels` to be a SparseTensor. Received "
                        f"labels={labels} of type: {type(labels).__name__}")
    if inputs is not None and logits is not None:
        raise ValueError("Cannot specify both 'logits' and 'inputs'")
    inputs = _time_major_logits(logits if inputs is None else inputs, time_major)
    op = inputs.graph.create_op("CTCLoss", [inputs, labels.indices, labels.values,
                                            _lengths(sequence_length)], {
        "preprocess_collapse_repeated": bool(preprocess_collapse_repeated),
        "ctc_merge_repeated": bool(ctc_merge_repeated),
        "ignore_longer_outputs_than_inputs": bool(ignore_longer_outputs_than_inputs)},
        name="CTCLoss")
    return op.outputs[0]


def _dense_to_sparse_labels(labels, label_length) -> SparseTensor:
    """The first ``label_length[b]`` labels of each row of ``labels`` [batch, max_len]
    as a SparseTensor (TF's ``ctc_ops.dense_labels_to_sparse``)."""
    from .array import stack
    from .array_fill import shape
    from .elementwise import cast, where
    from .masking import boolean_mask, sequence_mask

    labels = convert_to_tensor(labels, dtype=dtypes.int32, name="labels")
    mask = sequence_mask(label_length, shape(labels)[1])
    indices = cast(where(mask), dtypes.int64)
    return SparseTensor(indices, boolean_mask(labels, mask),
                        cast(stack([shape(labels)[0], shape(labels)[1]]), dtypes.int64))


def _blank_last(logits, labels: SparseTensor, blank_index: int, classes: int):
    """Logits and labels with the blank ``blank_index`` moved to the last class, as TF's
    ``ctc_loss_v2`` does before it calls CTCLoss."""
    from .elementwise import less, subtract, where

    if blank_index == classes - 1:
        return logits, labels
    logits = concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                     logits[:, :, blank_index:blank_index + 1]], axis=2)
    values = where(less(labels.values, blank_index), labels.values,
                   subtract(labels.values, 1))
    return logits, SparseTensor(labels.indices, values, labels.dense_shape)


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True,
                unique=None, blank_index=None, name=None) -> Tensor:
    """TF1's ``tf.nn.ctc_loss_v2``: the CTC loss of dense ``labels`` [batch, max_len]
    (their first ``label_length`` entries; the blank class ``blank_index``, 0 unless
    given) or of a SparseTensor (``blank_index`` required), the blank anywhere in the
    classes.  Computed by CTCLoss with the blank moved last (TF computes dense labels
    with its own forward-backward ops; the values agree).  ``unique`` (TF's speed hint)
    changes nothing."""
    del unique
    with name_scope(name or "ctc_loss_dense"):
        logits = _time_major_logits(logits, logits_time_major)
        classes = logits.shape.dims[2] if logits.shape.ndims == 3 else None
        if classes is None:
            raise ValueError("ctc_loss_v2 needs the number of classes (the logits' last "
                             "dimension) statically.")
        if isinstance(labels, SparseTensor):
            if blank_index is None:
                raise ValueError("Argument `blank_index` must be provided when labels is a "
                                 "SparseTensor.")
        else:
            labels = _dense_to_sparse_labels(labels, label_length)
            blank_index = 0 if blank_index is None else blank_index
        blank = blank_index + classes if blank_index < 0 else blank_index
        logits, labels = _blank_last(logits, labels, blank, classes)
        return ctc_loss(labels, logits, logit_length)


def _decoded(outputs, count: int) -> list:
    return [SparseTensor(outputs[p], outputs[count + p], outputs[2 * count + p])
            for p in range(count)]


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """``([decoded], log_probabilities)``: the most likely class at each step (repeats
    merged when ``merge_repeated``, blanks dropped) as a SparseTensor of int64 ``[batch,
    longest]``, and ``[batch, 1]`` the negative sum of each step's largest logit.  The
    blank is the last class unless ``blank_index`` (negative counts from the end).  TF1's
    ``tf.nn.ctc_greedy_decoder`` (CTCGreedyDecoder)."""
    inputs = _time_major_logits(inputs, True)
    op = inputs.graph.create_op("CTCGreedyDecoder", [inputs, _lengths(sequence_length)],
                                {"merge_repeated": bool(merge_repeated),
                                 "blank_index": -1 if blank_index is None
                                 else int(blank_index)}, name="CTCGreedyDecoder")
    return _decoded(op.outputs, 1), op.outputs[3]


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1,
                            merge_repeated=True):
    """``(decoded, log_probabilities)``: the ``top_paths`` most likely label sequences
    found by a beam search of ``beam_width`` beams (TF's algorithm), each a SparseTensor
    of int64 ``[batch, longest]``, and their log probabilities ``[batch, top_paths]``.
    With ``merge_repeated`` a beam's repeated labels are emitted once (TF's semantics:
    even when a blank separated them).  TF1's ``tf.nn.ctc_beam_search_decoder``
    (CTCBeamSearchDecoder)."""
    inputs = _time_major_logits(inputs, True)
    op = inputs.graph.create_op("CTCBeamSearchDecoder", [inputs, _lengths(sequence_length)],
                                {"beam_width": int(beam_width), "top_paths": int(top_paths),
                                 "merge_repeated": bool(merge_repeated)},
                                name="CTCBeamSearchDecoder")
    return _decoded(op.outputs, int(top_paths)), op.outputs[-1]


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """``ctc_beam_search_decoder`` without merging repeated labels (TF's v2)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths,
                                   merge_repeated=False)
