"""Writes tf_ctc.npz: fixed inputs and TensorFlow 2.21's outputs for TF1's CTC functions
(``tf.nn.ctc_loss`` and its gradient, ``ctc_loss_v2`` on dense labels,
``ctc_greedy_decoder``, ``ctc_beam_search_decoder``) and the run-time errors of the
CTCLoss and decoder kernels, which tests/test_ctc.py compares devsession with.  Keys are
"in/<case>/<name>" for inputs and "<case>/<output>" for TF's outputs; an error case
stores "<case>/error" (the error class's name) and "<case>/message".  Run with TensorFlow
installed (not a test):

    /work/peers/bin/python tests/data/make_tf_ctc.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261208)
f32 = np.float32
out = {}


def sparse_of(labels):
    """(indices int64 [n, 2], values int32 [n], dense_shape int64 [2]) of a label list."""
    indices = [[b, i] for b, row in enumerate(labels) for i in range(len(row))]
    values = [v for row in labels for v in row]
    width = max([len(row) for row in labels] + [0])
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, np.int32),
            np.array([len(labels), width], np.int64))


# --- ctc_loss: (case, logits shape [T, B, C], labels, sequence lengths, flags) -------------
LOSS_CASES = [
    ("basic", (6, 3, 5), [[0, 1], [2, 2, 1], [3]], [6, 5, 4], {}),
    ("no_merge", (6, 3, 5), [[0, 1], [2, 2, 1], [3]], [6, 5, 4],
     {"ctc_merge_repeated": False}),
    ("collapse", (6, 3, 5), [[0, 1], [2, 2, 1], [3]], [6, 5, 4],
     {"preprocess_collapse_repeated": True}),
    ("collapse_no_merge", (6, 3, 5), [[0, 1], [2, 2, 1], [3]], [6, 5, 4],
     {"preprocess_collapse_repeated": True, "ctc_merge_repeated": False}),
    # a repeat fits with its blank in 3 steps, not in 2 (no path: an infinite loss)
    ("repeats", (4, 3, 3), [[1, 1], [1, 1], [0, 1, 1, 0]], [3, 2, 4], {}),
    # a label of the blank class or above ends the sequence (TF's "null label")
    ("null_label", (5, 3, 4), [[1, 3], [2, 0], [0, 3, 5]], [5, 2, 3], {}),
    # labels longer than the input, and an input of length 0: loss and gradient zero
    ("ignore_longer", (4, 3, 4), [[0, 1, 2, 0, 1], [1], [2]], [4, 3, 0],
     {"ignore_longer_outputs_than_inputs": True}),
    ("batch_major", (7, 2, 6), [[4, 0, 4], [1, 2, 3, 4]], [7, 6], {"time_major": False}),
    ("random", (20, 4, 8), [list(rng.integers(0, 7, n)) for n in (1, 3, 8, 12)],
     [20, 11, 17, 20], {}),
    ("float64", (5, 2, 4), [[0, 2], [1, 1]], [5, 4], {"dtype": np.float64}),
]


def record_loss(case, shape, labels, lengths, flags, draw):
    flags = dict(flags)
    dtype = flags.pop("dtype", f32)
    time_major = flags.get("time_major", True)
    logits = draw.normal(0, 2, shape).astype(dtype)
    if not time_major:
        logits = np.ascontiguousarray(logits.transpose(1, 0, 2))
    weights = draw.uniform(0.5, 2, shape[1]).astype(dtype)
    indices, values, dense_shape = sparse_of(labels)
    for name, value in (("logits", logits), ("indices", indices), ("values", values),
                        ("dense_shape", dense_shape), ("sequence_length",
                                                       np.array(lengths, np.int32)),
                        ("weights", weights)):
        out[f"in/{case}/{name}"] = value
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(logits)
        loss = tf.nn.ctc_loss(tf.SparseTensor(indices, values, dense_shape), x,
                              tf.constant(lengths, tf.int32), **flags)
        grad = tf.gradients(loss * weights, x)[0]
        out[f"{case}/loss"], out[f"{case}/grad"] = sess.run([loss, grad])


for loss_case in LOSS_CASES:
    record_loss(*loss_case, rng)
# labels all null (the blank class or above): TF's loss is not the all-blank path's (its
# backward pass also starts at step T - 2, kernels/reference/ctc.py); its own generator,
# so the cases above and below keep their values
record_loss("all_null", (5, 4, 4), [[3], [3, 3], [0, 3], [5, 3]], [5, 2, 3, 4], {},
            np.random.default_rng(82))

# --- ctc_loss_v2 on dense labels (blank 0 by default, or the last class) -------------------
for case, blank in (("v2_dense", None), ("v2_dense_blank_last", -1)):
    logits = rng.normal(0, 2, (6, 3, 5)).astype(f32)
    labels = np.array([[1, 2, 0], [3, 3, 0], [4, 1, 2]], np.int32)
    if blank == -1:
        labels = labels - 1 + np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], np.int32)
    label_length = np.array([2, 2, 3], np.int32)
    logit_length = np.array([6, 5, 6], np.int32)
    for name, value in (("logits", logits), ("labels", labels),
                        ("label_length", label_length), ("logit_length", logit_length)):
        out[f"in/{case}/{name}"] = value
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(logits)
        loss = tf.nn.ctc_loss_v2(labels, x, label_length, logit_length, blank_index=blank)
        out[f"{case}/loss"], out[f"{case}/grad"] = sess.run([loss, tf.gradients(loss, x)[0]])

# --- decoders -------------------------------------------------------------------------------
# peaked logits (repeats and blanks win often), a tie in one step, a shorter sequence
DECODE = rng.normal(0, 1, (8, 3, 5)).astype(f32)
DECODE[np.arange(8)[:, None], np.arange(3), rng.integers(0, 5, (8, 3))] += 2.5
DECODE[2, 0, 1] = DECODE[2, 0, 3] = DECODE[2, 0].max() + 1
DECODE_LENGTHS = np.array([8, 5, 7], np.int32)
out["in/decode/logits"], out["in/decode/sequence_length"] = DECODE, DECODE_LENGTHS
# the beams without the tie: beams of equal probability are ordered by TF's heap
BEAM = DECODE.copy()
BEAM[2, 0, 3] -= 0.5
out["in/beam/logits"] = BEAM


def record_sparse(key, sp):
    out[f"{key}/indices"], out[f"{key}/values"], out[f"{key}/dense_shape"] = sp


with tf.Graph().as_default(), tf.Session() as sess:
    for merge in (True, False):
        for blank in (None, 0):
            (decoded,), log_prob = tf.nn.ctc_greedy_decoder(DECODE, DECODE_LENGTHS, merge,
                                                            blank_index=blank)
            key = f"greedy_{merge}_{blank}"
            got = sess.run([decoded, log_prob])
            record_sparse(key, got[0])
            out[f"{key}/log_prob"] = got[1]
    for beam, paths, merge in ((1, 1, True), (3, 2, True), (10, 3, True), (10, 3, False),
                               (100, 1, True), (4, 4, False)):
        decoded, log_prob = tf.nn.ctc_beam_search_decoder(BEAM, DECODE_LENGTHS, beam,
                                                          paths, merge)
        key = f"beam_{beam}_{paths}_{merge}"
        got = sess.run([decoded, log_prob])
        for p, sp in enumerate(got[0]):
            record_sparse(f"{key}/{p}", sp)
        out[f"{key}/log_prob"] = got[1]
    # NaN logits: TF's RowMax keeps a NaN in class 0 as the step's max, skips one elsewhere
    NAN = DECODE.copy()
    NAN[0, 0, 0] = NAN[1, 1, 2] = NAN[3, 2, 4] = NAN[5, 0, 1] = NAN[6, 1, 0] = np.nan
    out["in/greedy_nan/logits"] = NAN
    for merge in (True, False):
        (decoded,), log_prob = tf.nn.ctc_greedy_decoder(NAN, DECODE_LENGTHS, merge)
        got = sess.run([decoded, log_prob])
        record_sparse(f"greedy_nan_{merge}", got[0])
        out[f"greedy_nan_{merge}/log_prob"] = got[1]
    # "1, blank, 1": a beam of two 1s, which TF emits as one 1 when merging repeats
    REPEAT = np.log(np.array([[[0.1, 0.8, 0.1]], [[0.1, 0.1, 0.8]], [[0.1, 0.8, 0.1]]], f32))
    out["in/repeat/logits"] = REPEAT
    for merge in (True, False):
        (decoded,), log_prob = tf.nn.ctc_beam_search_decoder(REPEAT, [3], 3, 1, merge)
        got = sess.run([decoded, log_prob])
        record_sparse(f"repeat_{merge}", got[0])
        out[f"repeat_{merge}/log_prob"] = got[1]

# --- run-time errors ------------------------------------------------------------------------


def record_error(case, build):
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            sess.run(build())
        except tf.errors.OpError as e:
            # the kernel's own words: after the "Node: 'name'" line, before the node list
            message = e.message.split("Node: ", 1)[1].split("\n", 1)[1]
            out[f"{case}/error"] = type(e).__name__
            out[f"{case}/message"] = message.rsplit("\n\t [[", 1)[0]
        else:
            raise AssertionError(f"{case}: no error")


def loss_of(labels, lengths, T=3, C=4, **flags):
    logits = np.zeros((T, len(lengths), C), f32)
    return lambda: tf.nn.ctc_loss(tf.SparseTensor(*sparse_of(labels)), logits, lengths, **flags)


record_error("error_too_long", loss_of([[0, 1], [0, 1, 2, 0]], [3, 3]))
record_error("error_length_beyond", loss_of([[0], [1]], [3, 4]))
record_error("error_empty_label", loss_of([[0], []], [3, 3]))
record_error("error_label_after_null", loss_of([[0], [3, 1]], [3, 3]))
record_error("error_batch_index", lambda: tf.nn.ctc_loss(
    tf.SparseTensor(np.array([[0, 0], [2, 0]], np.int64), np.array([1, 2], np.int32),
                    np.array([3, 1], np.int64)), np.zeros((3, 2, 4), f32), [3, 3]))
record_error("error_negative_label", loss_of([[0], [-1]], [3, 3]))
record_error("error_unsorted", lambda: tf.nn.ctc_loss(
    tf.SparseTensor(np.array([[0, 1], [0, 0]], np.int64), np.array([1, 2], np.int32),
                    np.array([1, 2], np.int64)), np.zeros((3, 1, 4), f32), [3]))
record_error("error_greedy_length", lambda: tf.nn.ctc_greedy_decoder(
    np.zeros((3, 2, 4), f32), [3, 5])[1])
record_error("error_beam_leaves", lambda: tf.nn.ctc_beam_search_decoder(
    np.zeros((1, 1, 2), f32), [1], 3, 3)[1])
record_error("error_beam_paths", lambda: tf.nn.ctc_beam_search_decoder(
    np.zeros((1, 1, 2), f32), [1], 2, 3)[1])

np.savez_compressed(os.path.join(HERE, "tf_ctc.npz"), **out)
print(len(out), "arrays")
