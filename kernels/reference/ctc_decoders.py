"""The CTC decoders' kernels (HOST: the reference's and the CPU's; the GPU runs them
through the host, ``cuda/ctc.py``): CTCGreedyDecoder and CTCBeamSearchDecoder, TF's
``ctc_decoder_ops.cc`` and ``ctc_beam_search.h`` (with its default scorer, no language
model).

Greedy: per step the first largest logit's class, as TF's ``RowMax`` finds it (from
class 0, a class replaces the best so far when its logit is greater: a NaN in class 0 is
the step's largest, a NaN elsewhere never is); a blank is dropped, and with
``merge_repeated`` a class equal to the previous step's; the log probability is the
negative sum of the largest logits.

Beam search, per example (``_BeamSearch``): beams are prefixes of labels in a tree, each
with its log probability of ending in a blank, in its last label, and in total, now
(``new``) and one step back (``old``).  The root (the empty prefix) starts at log 1.  A
step (TF's ``Step``) first extends the beams kept (sorted best first): a beam's label
probability gains its parent's (the parent's blank one if both end in the same label)
when the parent is still a beam, then the step's label probability; its blank one is its
old total times the blank's.  Then every beam whose old total beats the weakest beam (or
while fewer than ``beam_width`` are kept) grows a child per non-blank class not already
a beam: the child enters when it beats the weakest beam, which then leaves.  At the end
the ``top_paths`` best beams are emitted; with ``merge_repeated`` a beam's repeated
labels are emitted once, even when a blank separated them (TF's semantics).  Fewer beams
than ``top_paths`` is TF's InvalidArgumentError.
"""

from __future__ import annotations

import math

import numpy as np

from devsession.errors import FailedPreconditionError

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["check_decoder_inputs", "sparse_outputs"]

_ZERO = -math.inf                                 # log 0


def check_decoder_inputs(node, inputs, lengths) -> None:
    """TF's ``CTCDecodeHelper::ValidateInputsGenerateOutputs``."""
    if inputs.ndim != 3:
        raise invalid_argument(node.name, node.op, "inputs is not a 3-Tensor")
    max_time, batch = inputs.shape[:2]
    if max_time == 0:
        raise invalid_argument(node.name, node.op, "max_time is 0")
    if lengths.ndim != 1:
        raise invalid_argument(node.name, node.op, "sequence_length is not a vector")
    if lengths.shape[0] != batch:
        raise FailedPreconditionError(
            f"{node.op} node '{node.name}': len(sequence_length) != batch_size.  "
            f"len(sequence_length):  {lengths.shape[0]} batch_size: {batch}",
            node_name=node.name)
    for b, length in enumerate(lengths):
        if not length <= max_time:
            raise FailedPreconditionError(
                f"{node.op} node '{node.name}': sequence_length({b}) <= {max_time}",
                node_name=node.name)


def sparse_outputs(paths: list) -> tuple:
    """``(indices [n, 2], values [n], dense_shape [2])`` (int64) of one decoded path per
    example (TF's ``StoreAllDecodedSequences``)."""
    indices = [(b, t) for b, path in enumerate(paths) for t in range(len(path))]
    values = [label for path in paths for label in path]
    longest = max([len(path) for path in paths] + [0])
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, np.int64),
            np.array([len(paths), longest], np.int64))


def _log_sum_exp(a: float, b: float) -> float:
    if a == _ZERO:
        return b
    if b == _ZERO:
        return a
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


def _row_max(inputs: np.ndarray) -> np.ndarray:
    """TF's ``RowMax`` of every step and example: ``[time, batch]`` class indices (see the
    module docstring)."""
    if inputs.shape[2] == 1:
        return np.zeros(inputs.shape[:2], np.int64)
    later = inputs[:, :, 1:]
    later = np.where(np.isnan(later), -np.inf, later)
    return np.where(later.max(axis=2) > inputs[:, :, 0], later.argmax(axis=2) + 1, 0)


@register_kernel("CTCGreedyDecoder", HOST)
def build_greedy_decoder(node):
    merge = node.attrs.get("merge_repeated", False)

    def greedy(inputs, lengths):
        check_decoder_inputs(node, inputs, lengths)
        classes = inputs.shape[2]
        blank = node.attrs.get("blank_index", -1)
        blank = blank + classes if blank < 0 else blank
        if not 0 <= blank < classes:
            raise invalid_argument(node.name, node.op, f"blank_index expected to be between "
                                                       f"{-classes} and {classes - 1}")
        best = _row_max(inputs)                            # [time, batch]
        log_prob = np.zeros((inputs.shape[1], 1), inputs.dtype)
        paths = []
        for b, length in enumerate(lengths):
            path, previous = [], -1
            for t in range(length):
                log_prob[b, 0] -= inputs[t, b, best[t, b]]
                k = int(best[t, b])
                if k != blank and not (merge and k == previous):
                    path.append(k)
                previous = k
            paths.append(path)
        return (*sparse_outputs(paths), log_prob)
    return greedy


class _Beam:
    """A prefix of labels: its last ``label`` (-1 at the root), its ``parent`` and
    children, and its log probabilities ``(blank, label, total)`` now and a step back."""

    __slots__ = ("parent", "label", "children", "new", "old")

    def __init__(self, parent, label: int):
        self.parent, self.label, self.children = parent, label, {}
        self.new = self.old = (_ZERO, _ZERO, _ZERO)

    @property
    def active(self) -> bool:
        return self.new[2] != _ZERO

    def labels(self, merge_repeated: bool) -> list:
        out, beam, previous = [], self, -1
        while beam.parent is not None:
            if not merge_repeated or beam.label != previous:
                out.append(beam.label)
            previous, beam = beam.label, beam.parent
        return out[::-1]


class _BeamSearch:
    """One example's search (TF's ``CTCBeamSearchDecoder`` with its default scorer)."""

    def __init__(self, width: int):
        self.width = width
        root = _Beam(None, -1)
        root.new = (0.0, _ZERO, 0.0)
        self.leaves = [root]

    def _best_first(self) -> list:
        return sorted(self.leaves, key=lambda beam: -beam.new[2])

    def _weakest(self) -> _Beam:
        return min(self.leaves, key=lambda beam: beam.new[2])

    def _candidate(self, total: float) -> bool:
        return total > _ZERO and (len(self.leaves) < self.width
                                  or total > self._weakest().new[2])

    def step(self, logits: np.ndarray) -> None:
        logits = logits.astype(np.float64)
        top = logits.max()
        norm = top + math.log(np.exp(logits - top).sum())
        log_p = (logits - norm).tolist()
        blank = len(log_p) - 1
        branches = self._best_first()
        for beam in branches:
            beam.old = beam.new
        for beam in branches:
            blank_p, label_p, _ = beam.new
            if beam.parent is not None:
                if beam.parent.active:
                    parent = beam.parent.old
                    previous = parent[0] if beam.label == beam.parent.label else parent[2]
                    label_p = _log_sum_exp(label_p, previous)
                label_p += log_p[beam.label]
            blank_p = beam.old[2] + log_p[blank]
            beam.new = (blank_p, label_p, _log_sum_exp(blank_p, label_p))
        for beam in branches:
            if not self._candidate(beam.old[2]):
                continue
            for label in range(blank):
                child = beam.children.get(label)
                if child is None:
                    child = beam.children[label] = _Beam(beam, label)
                if child.active:
                    continue
                previous = beam.old[0] if label == beam.label else beam.old[2]
                total = log_p[label] + previous
                if self._candidate(total):
                    if len(self.leaves) == self.width:
                        weakest = self._weakest()
                        self.leaves.remove(weakest)
                        weakest.new = (_ZERO, _ZERO, _ZERO)
                    child.new = (_ZERO, total, total)
                    self.leaves.append(child)
                else:
                    child.new = child.old = (_ZERO, _ZERO, _ZERO)

    def top_paths(self, node, count: int, merge_repeated: bool) -> list:
        if count > self.width:
            raise invalid_argument(node.name, node.op,
                                   "requested more paths than the beam width.")
        if count > len(self.leaves):
            raise invalid_argument(node.name, node.op,
                                   "Less leaves in the beam search than requested.")
        return self._best_first()[:count]


@register_kernel("CTCBeamSearchDecoder", HOST)
def build_beam_search_decoder(node):
    width, count = node.attrs.get("beam_width", 100), node.attrs.get("top_paths", 1)
    merge = node.attrs.get("merge_repeated", True)

    def beam_search(inputs, lengths):
        check_decoder_inputs(node, inputs, lengths)
        log_prob = np.zeros((inputs.shape[1], count), inputs.dtype)
        paths = [[] for _ in range(count)]
        for b, length in enumerate(lengths):
            search = _BeamSearch(width)
            for t in range(length):
                search.step(inputs[t, b])
            for p, beam in enumerate(search.top_paths(node, count, merge)):
                paths[p].append(beam.labels(merge))
                log_prob[b, p] = beam.new[2]
        outputs = [sparse_outputs(per_example) for per_example in paths]
        return (*(o[0] for o in outputs), *(o[1] for o in outputs), *(o[2] for o in outputs),
                log_prob)
    return beam_search
