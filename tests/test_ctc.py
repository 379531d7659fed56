"""TF1's CTC functions (``ds.nn.ctc_loss``, ``ctc_loss_v2``, ``ctc_greedy_decoder``,
``ctc_beam_search_decoder``) against values TensorFlow 2.21 computed
(``tests/data/make_tf_ctc.py`` wrote ``tf_ctc.npz``): losses and gradients over
several batches, lengths, repeated and null labels and both preprocess/merge flags;
decodings (TF's "merge repeated" beam semantics); TF's run-time errors; the gradient
against finite differences; the kernels on every device; GraphDefs; and a small model
whose CTC loss goes down as it trains.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from kernel_cases import DEVICES, F32, F64, I32, I64, check_against_ref, make_node
import test_gpu_cupy_standin

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU

CTC_OPS = {"CTCLoss", "CTCGreedyDecoder", "CTCBeamSearchDecoder"}
TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_ctc.npz"))
LOSS_FLAGS = {"basic": {}, "no_merge": {"ctc_merge_repeated": False},
              "collapse": {"preprocess_collapse_repeated": True},
              "collapse_no_merge": {"preprocess_collapse_repeated": True,
                                    "ctc_merge_repeated": False},
              "repeats": {}, "null_label": {},
              "ignore_longer": {"ignore_longer_outputs_than_inputs": True},
              "batch_major": {"time_major": False}, "random": {}, "float64": {},
              "all_null": {}}
BEAMS = [(1, 1, True), (3, 2, True), (10, 3, True), (10, 3, False), (100, 1, True),
         (4, 4, False)]


def recorded(case: str, name: str) -> np.ndarray:
    return TF[f"in/{case}/{name}"]


def labels_of(case: str) -> ds.SparseTensor:
    return ds.SparseTensor(recorded(case, "indices"), recorded(case, "values"),
                           recorded(case, "dense_shape"))


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def assert_sparse_as_tf(value, key: str) -> None:
    for part, got in zip(("indices", "values", "dense_shape"), value):
        want = TF[f"{key}/{part}"]
        assert got.dtype == want.dtype == np.int64, (key, part)
        np.testing.assert_array_equal(got, want, err_msg=f"{key}/{part}")


# --- the loss against TF 2.21 ------------------------------------------------------------------

@pytest.mark.parametrize("case", sorted(LOSS_FLAGS))
def test_ctc_loss_and_its_gradient_as_tf(case):
    logits = recorded(case, "logits")
    x = ds.constant(logits)
    loss = ds.nn.ctc_loss(labels_of(case), x, recorded(case, "sequence_length"),
                          **LOSS_FLAGS[case])
    assert loss.op.type == "CTCLoss" and loss.shape.as_list() == [logits.shape[1 if
                                                                   case != "batch_major"
                                                                   else 0]]
    grad = ds.gradients(loss * recorded(case, "weights"), x)[0]
    got_loss, got_grad = run([loss, grad])
    tolerance = {"rtol": 2e-6, "atol": 1e-6} if logits.dtype == F64 else {"rtol": 2e-5,
                                                                          "atol": 2e-5}
    assert got_loss.dtype == got_grad.dtype == logits.dtype
    np.testing.assert_allclose(got_loss, TF[f"{case}/loss"], **tolerance)
    np.testing.assert_allclose(got_grad, TF[f"{case}/grad"], **tolerance)


def test_labels_all_null_have_tfs_loss_not_the_all_blank_paths():
    # TF's backward pass also starts at step T - 2 when l' is [blank] alone
    logits, lengths = recorded("all_null", "logits"), recorded("all_null", "sequence_length")
    log_y = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    blank = log_y[:, :, -1]
    want = [-blank[:steps - 1, b].sum() - np.log1p(np.exp(blank[steps - 1, b]))
            for b, steps in enumerate(lengths)]
    np.testing.assert_allclose(TF["all_null/loss"][[0, 1, 3]], np.array(want)[[0, 1, 3]],
                               rtol=1e-5)
    got = run(ds.nn.ctc_loss(labels_of("all_null"), logits, lengths))
    np.testing.assert_allclose(got, TF["all_null/loss"], rtol=2e-5, atol=2e-5)
    assert got[0] < -blank[:lengths[0], 0].sum() - 0.1


def test_a_label_sequence_without_a_path_has_an_infinite_loss_and_the_softmax_gradient():
    # [1, 1] needs a blank between its repeats: 3 steps, not 2
    loss = TF["repeats/loss"]
    assert np.isfinite(loss[0]) and np.isinf(loss[1:]).all()
    logits = recorded("repeats", "logits")
    x = ds.constant(logits)
    got = run(ds.gradients(ds.nn.ctc_loss(labels_of("repeats"), x, [3, 2, 4]), x)[0])
    softmax = np.exp(logits[:2, 1]) / np.exp(logits[:2, 1]).sum(-1, keepdims=True)
    np.testing.assert_allclose(got[:2, 1], softmax, rtol=1e-6)
    assert not got[2:, 1].any()                   # steps past the example's length


@pytest.mark.parametrize("case,blank", [("v2_dense", None), ("v2_dense_blank_last", -1)])
def test_ctc_loss_v2_on_dense_labels_as_tf(case, blank):
    x = ds.constant(recorded(case, "logits"))
    loss = ds.nn.ctc_loss_v2(recorded(case, "labels"), x, recorded(case, "label_length"),
                             recorded(case, "logit_length"), blank_index=blank)
    got_loss, got_grad = run([loss, ds.gradients(loss, x)[0]])
    np.testing.assert_allclose(got_loss, TF[f"{case}/loss"], rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(got_grad, TF[f"{case}/grad"], rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("flags", [{}, {"ctc_merge_repeated": False},
                                   {"preprocess_collapse_repeated": True}], ids=str)
def test_the_gradient_against_finite_differences(flags):
    rng = np.random.default_rng(11)
    logits = rng.standard_normal((6, 3, 4))                  # float64
    weights = rng.uniform(0.5, 2.0, 3)
    labels = ds.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]],
                             np.array([0, 1, 2, 2, 0, 1], np.int32), [3, 3])
    x = ds.placeholder(ds.float64, logits.shape)
    objective = ds.reduce_sum(weights * ds.nn.ctc_loss(labels, x, [6, 6, 4], **flags))
    grad = ds.gradients(objective, x)[0]
    eps = 1e-6
    with ds.Session() as sess:
        analytic = sess.run(grad, {x: logits})
        numeric = np.zeros_like(logits)
        for i in np.ndindex(logits.shape):
            up, down = logits.copy(), logits.copy()
            up[i] += eps
            down[i] -= eps
            numeric[i] = (sess.run(objective, {x: up}) - sess.run(objective, {x: down})) / (
                2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_a_second_derivative_raises_lookup_error_as_tf():
    x = ds.constant(np.zeros((3, 1, 3), np.float32))
    loss = ds.nn.ctc_loss(ds.SparseTensor([[0, 0]], np.array([1], np.int32), [1, 1]), x, [3])
    (first,) = ds.gradients(loss, x)
    with pytest.raises(LookupError, match="second derivative of ctc_loss"):
        ds.gradients(first, x)


# --- the decoders against TF 2.21 --------------------------------------------------------------

@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("blank", [None, 0])
def test_greedy_decoder_as_tf(merge, blank):
    (decoded,), log_prob = ds.nn.ctc_greedy_decoder(
        recorded("decode", "logits"), recorded("decode", "sequence_length"), merge,
        blank_index=blank)
    assert decoded.indices.op.type == "CTCGreedyDecoder"
    assert log_prob.shape.as_list() == [3, 1]
    value, got = run([decoded, log_prob])
    key = f"greedy_{merge}_{blank}"
    assert_sparse_as_tf(value, key)
    assert got.dtype == F32
    np.testing.assert_allclose(got, TF[f"{key}/log_prob"], rtol=1e-6)


@pytest.mark.parametrize("merge", [True, False])
def test_greedy_decoder_takes_tfs_max_over_nan_logits(merge):
    # a NaN in class 0 is the step's max (its log probability NaN), one elsewhere is skipped
    logits = recorded("greedy_nan", "logits")
    (decoded,), log_prob = ds.nn.ctc_greedy_decoder(
        logits, recorded("decode", "sequence_length"), merge)
    value, got = run([decoded, log_prob])
    assert_sparse_as_tf(value, f"greedy_nan_{merge}")
    want = TF[f"greedy_nan_{merge}/log_prob"]
    assert np.isnan(want[0, 0]) and np.isfinite(want[1:]).all()
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("width,paths,merge", BEAMS, ids=str)
def test_beam_search_decoder_as_tf(width, paths, merge):
    decoded, log_prob = ds.nn.ctc_beam_search_decoder(
        recorded("beam", "logits"), recorded("decode", "sequence_length"), width, paths,
        merge)
    assert len(decoded) == paths and log_prob.shape.as_list() == [3, paths]
    values, got = run([decoded, log_prob])
    key = f"beam_{width}_{paths}_{merge}"
    for p, value in enumerate(values):
        assert_sparse_as_tf(value, f"{key}/{p}")
    np.testing.assert_allclose(got, TF[f"{key}/log_prob"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("merge", [True, False])
def test_beam_search_merges_blank_separated_repeats_as_tf(merge):
    # the beam "1, 1" (1, blank, 1) is emitted as [1] when merging repeats (TF's semantics)
    logits = recorded("repeat", "logits")
    if merge:
        decoded, log_prob = ds.nn.ctc_beam_search_decoder(logits, [3], 3, 1)
    else:
        decoded, log_prob = ds.nn.ctc_beam_search_decoder_v2(logits, [3], 3, 1)
    value, got = run([decoded[0], log_prob])
    assert_sparse_as_tf(value, f"repeat_{merge}")
    np.testing.assert_allclose(got, TF[f"repeat_{merge}/log_prob"], rtol=1e-6)


def test_the_decoders_are_not_differentiable():
    x = ds.constant(recorded("beam", "logits"))
    (greedy,), greedy_prob = ds.nn.ctc_greedy_decoder(x, [8, 5, 7])
    beams, beam_prob = ds.nn.ctc_beam_search_decoder(x, [8, 5, 7], 3)
    assert ds.gradients([greedy_prob, beam_prob], x) == [None]


# --- errors ------------------------------------------------------------------------------------

def _loss_of(labels, lengths, classes=4, steps=3):
    indices = [[b, i] for b, row in enumerate(labels) for i in range(len(row))]
    values = np.array([v for row in labels for v in row], np.int32)
    sparse = ds.SparseTensor(np.array(indices, np.int64).reshape(-1, 2), values,
                             [len(labels), max(len(row) for row in labels)])
    return ds.nn.ctc_loss(sparse, np.zeros((steps, len(labels), classes), np.float32), lengths)


ERRORS = {
    "error_too_long": lambda: _loss_of([[0, 1], [0, 1, 2, 0]], [3, 3]),
    "error_length_beyond": lambda: _loss_of([[0], [1]], [3, 4]),
    "error_empty_label": lambda: ds.nn.ctc_loss(
        ds.SparseTensor([[0, 0]], np.array([0], np.int32), [2, 1]),
        np.zeros((3, 2, 4), np.float32), [3, 3]),
    "error_label_after_null": lambda: _loss_of([[0], [3, 1]], [3, 3]),
    "error_negative_label": lambda: _loss_of([[0], [-1]], [3, 3]),
    "error_batch_index": lambda: ds.nn.ctc_loss(
        ds.SparseTensor([[0, 0], [2, 0]], np.array([1, 2], np.int32), [3, 1]),
        np.zeros((3, 2, 4), np.float32), [3, 3]),
    "error_unsorted": lambda: ds.nn.ctc_loss(
        ds.SparseTensor([[0, 1], [0, 0]], np.array([1, 2], np.int32), [1, 2]),
        np.zeros((3, 1, 4), np.float32), [3]),
    "error_greedy_length": lambda: ds.nn.ctc_greedy_decoder(np.zeros((3, 2, 4), np.float32),
                                                            [3, 5])[1],
    "error_beam_leaves": lambda: ds.nn.ctc_beam_search_decoder(
        np.zeros((1, 1, 2), np.float32), [1], 3, 3)[1],
    "error_beam_paths": lambda: ds.nn.ctc_beam_search_decoder(
        np.zeros((1, 1, 2), np.float32), [1], 2, 3)[1],
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_run_time_errors_as_tf(case):
    fetch = ERRORS[case]()
    error = getattr(ds.errors, str(TF[f"{case}/error"]))
    with pytest.raises(error) as info:
        run(fetch)
    assert str(TF[f"{case}/message"]) in str(info.value)
    assert info.value.node_name == fetch.op.name


def test_static_shape_errors_and_dense_labels():
    labels = ds.SparseTensor([[0, 0]], np.array([1], np.int32), [1, 1])
    with pytest.raises(ValueError, match="3-D"):
        ds.nn.ctc_loss(labels, np.zeros((3, 4), np.float32), [3])
    with pytest.raises(ValueError, match="batch"):
        ds.nn.ctc_loss(labels, np.zeros((3, 2, 4), np.float32), [3])
    with pytest.raises(ValueError, match="batch"):
        ds.nn.ctc_greedy_decoder(np.zeros((3, 2, 4), np.float32), [3, 3, 3])
    with pytest.raises(TypeError, match="SparseTensor"):
        ds.nn.ctc_loss(np.array([[1]], np.int32), np.zeros((3, 1, 4), np.float32), [3])
    with pytest.raises(TypeError):
        ds.nn.ctc_loss(labels, ds.constant(np.zeros((3, 1, 4), np.int32)), [3])


def test_float64_arrays_stay_float64_and_python_lists_are_float32_as_tf():
    # TF converts the logits with no dtype hint: float32-exact float64 values stay float64
    logits = recorded("basic", "logits").astype(F64)
    lengths = recorded("basic", "sequence_length")
    loss = ds.nn.ctc_loss(labels_of("basic"), logits, lengths)
    (greedy,), greedy_prob = ds.nn.ctc_greedy_decoder(logits, lengths)
    _, beam_prob = ds.nn.ctc_beam_search_decoder(logits, lengths, beam_width=3)
    from_list = ds.nn.ctc_loss(labels_of("basic"), logits.tolist(), lengths)
    assert [t.dtype for t in (loss, greedy_prob, beam_prob, from_list)] == \
        [ds.float64, ds.float64, ds.float64, ds.float32]
    got, got_list = run([loss, from_list])
    assert got.dtype == F64 and got_list.dtype == F32
    np.testing.assert_allclose(got, TF["basic/loss"], rtol=1e-5)
    np.testing.assert_allclose(got_list, TF["basic/loss"], rtol=1e-5)


# --- devices, GraphDefs ------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_the_kernels_on_every_device_agree_with_the_reference(device):
    case = "random"
    loss = make_node("CTCLoss", [F32, I64, I32, I32], F32)
    check_against_ref(device, loss, recorded(case, "logits"), recorded(case, "indices"),
                      recorded(case, "values"), recorded(case, "sequence_length"))
    logits, lengths = recorded("beam", "logits"), recorded("decode", "sequence_length")
    greedy = make_node("CTCGreedyDecoder", [F32, I32], I64, {"merge_repeated": True})
    check_against_ref(device, greedy, logits, lengths)
    beam = make_node("CTCBeamSearchDecoder", [F32, I32], I64,
                     {"beam_width": 4, "top_paths": 2, "merge_repeated": True})
    check_against_ref(device, beam, logits, lengths)


def test_a_gpu_session_runs_ctc_through_the_host(standin):
    with ds.device("gpu:0"):
        x = ds.constant(recorded("basic", "logits")) * 1.0
        loss = ds.nn.ctc_loss(labels_of("basic"), x, recorded("basic", "sequence_length"))
        decoded, _ = ds.nn.ctc_beam_search_decoder(ds.constant(recorded("beam", "logits")),
                                                   recorded("decode", "sequence_length"), 3, 2)
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        got_loss, got_decoded = sess.run([loss, decoded[1]])
    np.testing.assert_allclose(got_loss, TF["basic/loss"], rtol=2e-5)
    assert_sparse_as_tf(got_decoded, "beam_3_2_True/1")


def test_ctc_round_trips_through_a_graph_def():
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, (None, None, 5), name="logits")
        ds.nn.ctc_loss(labels_of("basic"), x, recorded("basic", "sequence_length"),
                       ctc_merge_repeated=False)
        ds.nn.ctc_beam_search_decoder(x, [8, 5, 7], 3, 2)
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    loss = imported.get_operation_by_name("CTCLoss")
    beam = imported.get_operation_by_name("CTCBeamSearchDecoder")
    assert loss.attrs["ctc_merge_repeated"] is False and len(beam.outputs) == 7
    with ds.Session(graph=imported) as sess:
        got = sess.run(loss.outputs[0], {"logits:0": recorded("no_merge", "logits")})
    np.testing.assert_allclose(got, TF["no_merge/loss"], rtol=2e-5)


# --- training ----------------------------------------------------------------------------------

def test_a_small_model_trained_with_ctc_loss_learns_its_labels():
    rng = np.random.default_rng(5)
    steps, batch, features, classes = 12, 4, 6, 5
    frames = rng.standard_normal((steps, batch, features)).astype(np.float32)
    targets = [[0, 1, 2], [3, 3], [1, 0, 1, 2], [2]]
    labels = ds.SparseTensor([[b, i] for b, row in enumerate(targets) for i in range(len(row))],
                             np.array([v for row in targets for v in row], np.int32),
                             [batch, 4])
    with ds.variable_scope("ctc_model"):
        w = ds.get_variable("w", [steps * features, steps * classes],
                            initializer=ds.zeros_initializer())
    flat = ds.reshape(ds.transpose(frames, [1, 0, 2]), [batch, steps * features])
    logits = ds.transpose(ds.reshape(ds.matmul(flat, w), [batch, steps, classes]), [1, 0, 2])
    lengths = [12, 10, 12, 8]
    loss = ds.reduce_mean(ds.nn.ctc_loss(labels, logits, lengths))
    train = ds.train.AdamOptimizer(0.05).minimize(loss)
    (decoded,), _ = ds.nn.ctc_greedy_decoder(logits, lengths)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(60):
            sess.run(train)
        last, value = sess.run([loss, decoded])
    assert last < first / 10
    got = [list(value.values[value.indices[:, 0] == b]) for b in range(batch)]
    assert got == targets
