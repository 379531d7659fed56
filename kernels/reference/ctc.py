"""The CTCLoss kernel (HOST: the reference's and the CPU's; the GPU runs it through the
host, ``cuda/ctc.py``): TF's ``ctc_loss_op.cc`` and ``ctc_loss_calculator.h``, in log
space, in the logits' dtype.

Per example ``b`` with ``T = sequence_length[b]`` steps and labels ``l`` (its values in
index order):

* ``l`` is cut at its first *null* label (the blank class or above), after dropping
  repeats when ``preprocess_collapse_repeated``; ``l' = [blank, l0, blank, l1, ...,
  blank]`` (``U = 2 len(l) + 1`` states).
* ``y`` is the softmax of the logits over the classes; ``alpha[u, t]`` the log
  probability of the paths of ``t + 1`` steps ending in state ``u`` (including step
  ``t``), ``beta[u, t]`` that of finishing from ``u`` after step ``t`` (excluding it).  A
  state may stay (a blank always; a label only when ``ctc_merge_repeated``: without it
  each label lasts one step), advance one state, or skip a blank between two different
  labels (between equal ones too when not ``ctc_merge_repeated``).  States that can no
  longer reach the end, or not yet be reached, stay ``-inf`` (TF's window).
* The loss is ``-log p``, ``p = sum_u exp(alpha[u, 0] + beta[u, 0])``; the gradient with
  respect to the logits ``y[k, t] - sum_{u: l'[u] = k} exp(alpha + beta - log p)``.  With
  no path (``p = 0``: repeats needing more steps than there are) the loss is ``inf`` and
  the gradient ``y``.  Steps past ``T`` get a zero gradient; an example of length 0, or
  (with ``ignore_longer_outputs_than_inputs``) with more labels than steps, a zero loss.
* Labels that are all null (``l' = [blank]``, one state) get TF's loss, not the blank
  path's ``-sum_t log y[blank, t]``: TF's backward pass sets ``beta`` to log 1 on rows
  ``U - 2`` and ``U - 1`` of the last step, and for ``U = 1`` row ``-1`` of its
  column-major ``[1, T]`` matrix is row 0 of step ``T - 2``, which the recursion then
  adds to; so (``T >= 2``) ``beta[0, T - 2] = log(1 + y[blank, T - 1])``, the loss is
  ``-sum_{t < T-1} log y[blank, t] - log(1 + y[blank, T - 1])`` and the gradient is
  that ``alpha``/``beta``'s.

Run-time errors are TF's InvalidArgumentErrors, in TF's order and words (an example
without labels, a label after a null label, a negative label, more labels than steps,
unsorted or out-of-range label indices, a length beyond ``max_time``).  TF computes the
gradient's last exponential in float32 even for float64 logits; this kernel in the
logits' dtype.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["check_ctc_loss_inputs", "label_sequences", "example_loss"]


def _labels_valid(node, indices: np.ndarray, shape: tuple) -> None:
    """TF's ``SparseTensor::IndicesValid`` for the labels (in bounds, sorted, unique)."""
    def fail(i, what):
        point = ",".join(str(v) for v in indices[i])
        raise invalid_argument(node.name, node.op, f"label SparseTensor is not valid: "
                                                   f"indices[{i}] = [{point}] {what}")
    for i, index in enumerate(indices):
        if (index < 0).any() or (index >= np.array(shape)).any():
            fail(i, f"is out of bounds: need 0 <= index < {fmt_shape(shape)}")
        if i:
            previous = tuple(indices[i - 1])
            if tuple(index) == previous:
                fail(i, "is repeated")
            if tuple(index) < previous:
                fail(i, "is out of order. Many sparse ops require sorted indices.\n    Use "
                        "`tf.sparse.reorder` to create a correctly ordered copy.\n\n")


def check_ctc_loss_inputs(node, inputs, indices, values, lengths) -> None:
    """CTCLossOp::Compute's checks of its four inputs, in TF's order."""
    def require(ok, message):
        if not ok:
            raise invalid_argument(node.name, node.op, message)
    require(inputs.ndim == 3, "inputs is not a 3-Tensor")
    require(lengths.ndim == 1, "sequence_length is not a vector")
    require(indices.ndim == 2, "labels_indices is not a matrix")
    require(indices.shape[1] > 1, f"labels_indices second dimension must be >= 1. Received "
                                  f"{indices.shape[1]}")
    require(values.ndim == 1, "labels_values is not a vector")
    max_time, batch = inputs.shape[:2]
    require(max_time != 0, "Max time or first dimension of input cannot be 0.")
    require(batch == lengths.shape[0], f"len(sequence_length) != batch_size.  "
                                       f"len(sequence_length):  {lengths.shape[0]} "
                                       f"batch_size: {batch}")
    require(indices.shape[0] == values.shape[0],
            f"labels_indices and labels_values must contain the same number of rows, but "
            f"saw shapes: {fmt_shape(indices.shape)} vs. {fmt_shape(values.shape)}")
    require(batch != 0, "batch_size must not be 0")
    require(indices.shape[1] == 2, f"labels_indices must be [n, 2] (batch, position), not "
                                   f"{fmt_shape(indices.shape)}")
    longest = int(indices[:, 1].max()) + 1 if len(indices) else 0
    _labels_valid(node, indices, (batch, longest))
    for b, length in enumerate(lengths):
        require(length <= max_time, f"sequence_length({b}) <= {max_time}")
    for b, length in enumerate(lengths):
        require(length >= 0, f"seq_len({b}) < 0")


def label_sequences(node, indices, values, lengths, classes: int) -> list:
    """Each example's label sequence as CTC sees it (TF's ``PopulateLPrimes``: repeats
    collapsed when asked, cut at the first null label), checked in TF's order."""
    collapse = node.attrs.get("preprocess_collapse_repeated", False)
    ignore_longer = node.attrs.get("ignore_longer_outputs_than_inputs", False)
    sequences = []
    for b, length in enumerate(lengths):
        label = [int(v) for v in values[indices[:, 0] == b]]
        if not label:
            raise invalid_argument(node.name, node.op, f"Labels length is zero in batch {b}")
        kept, finished = [], False
        for i, value in enumerate(label):
            if i and collapse and value == label[i - 1]:
                continue
            if value >= classes - 1:
                finished = True
            elif finished:
                raise invalid_argument(
                    node.name, node.op, f"Saw a non-null label (index >= num_classes - 1) "
                    f"following a null label, batch: {b} num_classes: {classes} labels: "
                    f"{','.join(map(str, label))} labels seen so far: "
                    f"{','.join(map(str, kept))}")
            else:
                kept.append(value)
        if any(value < 0 for value in kept):
            raise invalid_argument(node.name, node.op, f"All labels must be nonnegative "
                                                       f"integers, batch: {b} labels: "
                                                       f"{','.join(map(str, kept))}")
        if not ignore_longer and len(label) > length:
            raise invalid_argument(
                node.name, node.op, f"Not enough time for target transition sequence "
                f"(required: {len(label)}, available: {length}){b}You can turn this error "
                f"into a warning by using the flag ignore_longer_outputs_than_inputs")
        skipped = length == 0 or (ignore_longer and len(label) > length)
        sequences.append(None if skipped else kept)
    return sequences


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _window(column: np.ndarray, t: int, steps: int) -> None:
    """-inf outside the states that can be reached by step ``t`` and still finish."""
    states = len(column)
    column[:max(0, states - 2 * (steps - t))] = -np.inf
    column[min(states, 2 * (t + 1)):] = -np.inf


def _moves(l_prime: np.ndarray, blank: int, merge: bool):
    """Which states may stay, and which may be entered from two states back."""
    stay = np.full(len(l_prime), merge) | (l_prime == blank)
    skip = np.zeros(len(l_prime), bool)
    skip[2:] = (l_prime[2:] != blank) & ~(merge & (l_prime[2:] == l_prime[:-2]))
    return stay, skip


def _forward(log_y: np.ndarray, stay, skip) -> np.ndarray:
    states, steps = log_y.shape
    alpha = np.full((states, steps), -np.inf, log_y.dtype)
    alpha[:2, 0] = log_y[:2, 0]
    for t in range(1, steps):
        previous = alpha[:, t - 1]
        total = np.where(stay, previous, -np.inf)
        total[1:] = np.logaddexp(total[1:], previous[:-1])
        total[2:] = np.where(skip[2:], np.logaddexp(total[2:], previous[:-2]), total[2:])
        alpha[:, t] = log_y[:, t] + total
        _window(alpha[:, t], t, steps)
    return alpha


def _backward(log_y: np.ndarray, stay, skip) -> np.ndarray:
    states, steps = log_y.shape
    beta = np.full((states, steps), -np.inf, log_y.dtype)
    beta[max(0, states - 2):, steps - 1] = 0
    if states == 1 and steps > 1:
        # TF sets log 1 at rows U - 2 and U - 1 of the last step; with one state (labels
        # all null) row -1 of its column-major [1, T] matrix is row 0 of step T - 2,
        # which the recursion then adds to (the module docstring)
        beta[0, steps - 2] = 0
    for t in range(steps - 2, -1, -1):
        after = beta[:, t + 1] + log_y[:, t + 1]
        total = np.where(stay, after, -np.inf)
        total[:-1] = np.logaddexp(total[:-1], after[1:])
        total[:-2] = np.where(skip[2:], np.logaddexp(total[:-2], after[2:]), total[:-2])
        beta[:, t] = np.logaddexp(beta[:, t], total)
        _window(beta[:, t], t, steps)
    return beta


def example_loss(logits: np.ndarray, labels: list, merge: bool) -> tuple:
    """``(loss, gradient)`` of one example: ``logits`` ``[steps, classes]``, ``labels``
    its label sequence (no nulls), the blank the last class."""
    classes = logits.shape[1]
    blank = classes - 1
    l_prime = np.full(2 * len(labels) + 1, blank)
    l_prime[1::2] = labels
    y = _softmax(logits)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_y = np.log(y.T[l_prime])                      # [states, steps]
        stay, skip = _moves(l_prime, blank, merge)
        alpha, beta = _forward(log_y, stay, skip), _backward(log_y, stay, skip)
        log_p = np.logaddexp.reduce(alpha[:, 0] + beta[:, 0])
        if log_p == -np.inf:
            return np.inf, y
        occupancy = alpha + beta                          # [states, steps]
        gradient = y.copy()
        for k in np.unique(l_prime):
            gradient[:, k] -= np.exp(np.logaddexp.reduce(occupancy[l_prime == k], axis=0)
                                     - log_p)
    return -log_p, gradient


@register_kernel("CTCLoss", HOST)
def build_ctc_loss(node):
    merge = node.attrs.get("ctc_merge_repeated", True)

    def ctc_loss(inputs, indices, values, lengths):
        check_ctc_loss_inputs(node, inputs, indices, values, lengths)
        sequences = label_sequences(node, indices, values, lengths, inputs.shape[2])
        loss = np.zeros(inputs.shape[1], inputs.dtype)
        gradient = np.zeros_like(inputs)
        for b, labels in enumerate(sequences):
            if labels is not None:
                steps = int(lengths[b])
                loss[b], gradient[:steps, b] = example_loss(inputs[:steps, b], labels, merge)
        return loss, gradient
    return ctc_loss
