"""``ds.image``'s box ops: non-max suppression in its five forms (NonMaxSuppressionV3,
V4, V5, WithOverlaps, CombinedNonMaxSuppression) against values TensorFlow 2.21
computed (``tests/data/make_tf_image_boxes.py`` wrote ``tf_image_boxes.npz``: ties in
score, an IoU equal to the threshold, a flipped box, a box of zero area, soft NMS);
static shapes and build-time errors; run-time errors naming the node; GPU sessions
placing them on the CPU; GraphDefs in TF's form.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from graph_building import ph
from kernel_cases import F32, I32, make_node, run_on
import test_gpu_cupy_standin

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU

BOX_OPS = {"NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
           "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression"}
TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_boxes.npz"))
BOXES, SCORES = TF["in/nms/boxes"], TF["in/nms/scores"]
RANDOM_BOXES, RANDOM_SCORES = TF["in/nms/random_boxes"], TF["in/nms/random_scores"]


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def assert_tf(got, key, **tolerances):
    want = TF[key]
    assert got.dtype == want.dtype and got.shape == want.shape, key
    if tolerances:
        np.testing.assert_allclose(got, want, err_msg=key, **tolerances)
    else:
        np.testing.assert_array_equal(got, want, err_msg=key)


# --- values against TF 2.21 -------------------------------------------------------------------

@pytest.mark.parametrize("m,iou,thr", [(10, 0.5, -np.inf), (3, 0.5, -np.inf),
                                       (10, 0.5, 0.75), (10, 0.0, -np.inf),
                                       (10, 1.0, -np.inf), (0, 0.5, -np.inf)], ids=str)
def test_nms_as_tf(m, iou, thr):
    # ties go to the lower index, the flipped copy of box 0 is box 0, an IoU of exactly
    # 0.5 is kept, a score equal to the threshold is dropped, an empty box overlaps nothing
    got = run(ds.image.non_max_suppression(BOXES, SCORES, m, iou, thr))
    assert_tf(got, f"nms/v3_{m}_{iou}_{thr}")


def test_nms_of_random_flipped_and_half_precision_boxes_as_tf():
    got = run([ds.image.non_max_suppression(RANDOM_BOXES, RANDOM_SCORES, 30, 0.4, 0.2),
               ds.image.non_max_suppression(RANDOM_BOXES[:, [2, 3, 0, 1]], RANDOM_SCORES, 30,
                                            0.3),
               ds.image.non_max_suppression(BOXES.astype(np.float16),
                                            SCORES.astype(np.float16), 10, 0.5)])
    for value, key in zip(got, ["nms/v3_random", "nms/v3_random_flipped", "nms/v3_f16"]):
        assert_tf(value, key)


def test_padded_nms_as_tf():
    padded = ds.image.non_max_suppression_padded(BOXES, SCORES, 12, 0.5, 0.55, True)
    plain = ds.image.non_max_suppression_padded(BOXES, SCORES, 12, 0.5, 0.55)
    assert padded[0].shape.as_list() == [12] and plain[0].shape.as_list() == [None]
    assert padded[0].op.type == "NonMaxSuppressionV4"
    (indices, valid), (plain_indices, plain_valid) = run([padded, plain])
    assert_tf(indices, "nms/v4_padded")
    assert_tf(valid, "nms/v4_padded_valid")
    assert_tf(plain_indices, "nms/v4")
    assert_tf(plain_valid, "nms/v4_valid")


@pytest.mark.parametrize("sigma,iou,thr", [(0.5, 1.0, 0.1), (0.5, 0.5, 0.0),
                                           (0.0, 0.5, -np.inf), (1.0, 0.3, 0.2)], ids=str)
def test_soft_nms_as_tf(sigma, iou, thr):
    indices, scores = run(ds.image.non_max_suppression_with_scores(
        RANDOM_BOXES, RANDOM_SCORES, 25, iou, thr, sigma))
    key = f"nms/v5_{sigma}_{iou}_{thr}"
    assert_tf(indices, key)
    assert_tf(scores, key + "_scores", rtol=1e-6)     # exp differs from Eigen's in an ulp


def test_soft_nms_of_tied_scores_as_tf():
    indices, scores = run(ds.image.non_max_suppression_with_scores(BOXES, SCORES, 10, 0.5,
                                                                   soft_nms_sigma=0.3))
    assert_tf(indices, "nms/v5_ties")
    assert_tf(scores, "nms/v5_ties_scores", rtol=1e-6)


def test_nms_with_overlaps_as_tf():
    overlaps, scores = TF["in/nms/overlaps"], TF["in/nms/overlap_scores"]
    got = run([ds.image.non_max_suppression_overlaps(overlaps, scores, 8, 0.5, 0.2),
               ds.image.non_max_suppression_overlaps(overlaps, scores, 5)])
    assert_tf(got[0], "nms/overlaps")
    assert_tf(got[1], "nms/overlaps_all")


@pytest.mark.parametrize("q", [1, 3])
@pytest.mark.parametrize("per_class,total,pad,clip", [(3, 5, False, True),
                                                      (2, 20, False, False),
                                                      (2, 20, True, True),
                                                      (4, 3, True, False)], ids=str)
def test_combined_nms_as_tf(q, per_class, total, pad, clip):
    boxes, scores = TF["in/combined/boxes"][:, :, :q], TF["in/combined/scores"]
    out = ds.image.combined_non_max_suppression(boxes, scores, per_class, total, 0.4, 0.15,
                                                pad, clip)
    rows = min(total, per_class * 3) if pad else total
    assert out[0].shape.as_list() == [2, rows, 4] and out[3].shape.as_list() == [2]
    key = f"combined/q{q}_{per_class}_{total}_{pad}_{clip}"
    for value, name in zip(run(out), ("boxes", "scores", "classes", "valid")):
        assert_tf(value, f"{key}/{name}")


# --- shapes and errors ------------------------------------------------------------------------

# TF 2.21: tf.compat.v1.image.non_max_suppression_padded(random boxes [2, 4, 5, 4], their
# scores [2, 4, 5], 3, iou_threshold=0.1, score_threshold=0.3, pad_to_max_output_size=True)
TF_BATCHED_PADDED = [[[3, 1, 0], [0, 1, 3], [1, 0, 2], [3, 2, 1]],
                     [[4, 3, 2], [3, 2, 0], [0, 1, 3], [4, 2, 0]]]
TF_BATCHED_VALID = [[3, 3, 3, 3], [3, 2, 3, 2]]


def test_batched_padded_nms_as_tf():
    """Boxes [..., n, 4]: each image suppressed alone, the indices [..., max_output_size]
    and counts [...] in the batch dimensions (static where the graph knows them)."""
    boxes, scores = RANDOM_BOXES.reshape(2, 4, 5, 4), RANDOM_SCORES.reshape(2, 4, 5)
    indices, valid = ds.image.non_max_suppression_padded(boxes, scores, 3, 0.1, 0.3, True)
    assert indices.shape.as_list() == [2, 4, 3] and valid.shape.as_list() == [2, 4]
    fed_boxes, fed_scores = ph((None, 5, 4)), ph((None, 5))
    size = ph((), ds.int32)
    fed = ds.image.non_max_suppression_padded(fed_boxes, fed_scores, size, 0.1, 0.3, True)
    assert fed[0].shape.as_list() == [None, None] and fed[1].shape.as_list() == [None]
    got, got_valid = run([indices, valid])
    np.testing.assert_array_equal(got, TF_BATCHED_PADDED)
    np.testing.assert_array_equal(got_valid, TF_BATCHED_VALID)
    assert got.dtype == got_valid.dtype == np.int32
    with ds.Session() as sess:
        one, one_valid = sess.run(fed, {fed_boxes: boxes[1], fed_scores: scores[1], size: 3})
    np.testing.assert_array_equal(one, TF_BATCHED_PADDED[1])
    np.testing.assert_array_equal(one_valid, TF_BATCHED_VALID[1])


def test_static_shapes_and_op_types(graph):
    boxes, scores = ph((None, 4)), ph((None,))
    v3 = ds.image.non_max_suppression(boxes, scores, 5)
    assert v3.op.type == "NonMaxSuppressionV3" and v3.shape.as_list() == [None]
    assert v3.op.inputs[3].op.type == "Const" and v3.op.name.startswith("non_max_suppression")
    indices, kept = ds.image.non_max_suppression_with_scores(boxes, scores, 5)
    assert indices.op.type == "NonMaxSuppressionV5" and kept.dtype == ds.float32
    assert not indices.op.get_attr("pad_to_max_output_size")
    fed = ds.image.non_max_suppression_padded(boxes, scores, ph((), ds.int32), 0.5, 0.0, True)
    assert fed[0].shape.as_list() == [None] and fed[1].shape.as_list() == []
    combined = ds.image.combined_non_max_suppression(ph((None, 7, 1, 4)), ph((None, 7, 4)),
                                                     ph((), ds.int32), 9)
    assert [t.shape.as_list() for t in combined] == [[None, 9, 4], [None, 9], [None, 9],
                                                     [None]]


@pytest.mark.parametrize("call,error,message", [
    (lambda: ds.image.non_max_suppression(ph((3, 5)), ph((3,)), 2), ValueError, "4 columns"),
    (lambda: ds.image.non_max_suppression(ph((3, 4, 1)), ph((3,)), 2), ValueError, "2-D"),
    (lambda: ds.image.non_max_suppression(ph((3, 4)), ph((2,)), 2), ValueError,
     "one score per box"),
    (lambda: ds.image.non_max_suppression(ph((3, 4)), ph((3,)), [2]), ValueError, "0-D"),
    (lambda: ds.image.non_max_suppression(ph((3, 4), ds.float64), ph((3,), ds.float64), 2),
     TypeError, "not one of float16, float32"),
    (lambda: ds.image.non_max_suppression_overlaps(ph((3, 4)), ph((3,)), 2), ValueError,
     "square"),
    (lambda: ds.image.combined_non_max_suppression(ph((1, 3, 2, 4)), ph((1, 3, 4)), 2, 3),
     ValueError, "third dimension"),
    (lambda: ds.image.non_max_suppression_padded(ph((2, 3, 4)), ph((2, 3)), 2), ValueError,
     r"'pad_to_max_output_size' \(value False\) must be True for batched input"),
    (lambda: ds.image.non_max_suppression_padded(ph((2, 3, 4)), ph((2, 3, 1)), 2,
                                                 pad_to_max_output_size=True), ValueError,
     "without their last dimension"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors(graph, call, error, message):
    with pytest.raises(error, match=message):
        call()


def nms_node(op, name="nms", **attrs):
    ins = {"NonMaxSuppressionV5": [F32, F32, I32, F32, F32, F32],
           "CombinedNonMaxSuppression": [F32, F32, I32, I32, F32, F32]}.get(
        op, [F32, F32, I32, F32, F32])
    return make_node(op, ins, I32, attrs, name=name)


def f(*values):
    return np.array(values, np.float32)


@pytest.mark.parametrize("node,inputs,message", [
    (nms_node("NonMaxSuppressionV3"), (BOXES, SCORES, np.int32(-1), f(0.5)[0], f(0)[0]),
     "output size must be non-negative"),
    (nms_node("NonMaxSuppressionV3"), (BOXES, SCORES, np.int32(2), f(1.5)[0], f(0)[0]),
     r"iou_threshold must be in \[0, 1\]"),
    (nms_node("NonMaxSuppressionV3"), (BOXES, SCORES, np.array([2], np.int32), f(0.5)[0],
                                       f(0)[0]), r"max_output_size must be 0-D, got shape \[1\]"),
    (nms_node("NonMaxSuppressionV4"), (BOXES[:, :3], SCORES, np.int32(2), f(0.5)[0], f(0)[0]),
     r"boxes must have 4 columns \(Dimension must be 4 but is 3\)"),
    (nms_node("NonMaxSuppressionV4"), (BOXES, SCORES[:4], np.int32(2), f(0.5)[0], f(0)[0]),
     "scores has incompatible shape"),
    (nms_node("NonMaxSuppressionV5"), (BOXES, SCORES, np.int32(2), f(0.5)[0], f(0)[0],
                                       f(-1)[0]), "soft_nms_sigma_val must be >= 0"),
    (nms_node("NonMaxSuppressionWithOverlaps"), (np.ones((3, 2), F32), f(1, 2, 3),
                                                 np.int32(2), f(0.5)[0], f(0)[0]),
     r"overlaps must be square\[3,2\]"),
    (nms_node("CombinedNonMaxSuppression"), (np.ones((1, 3, 1, 4), F32), np.ones((1, 3, 2), F32),
                                             np.int32(0), np.int32(3), f(0.5)[0], f(0)[0]),
     "max_size_per_class must be positive"),
    (nms_node("CombinedNonMaxSuppression"), (np.ones((1, 3, 1, 4), F32), np.ones((2, 3, 2), F32),
                                             np.int32(2), np.int32(3), f(0.5)[0], f(0)[0]),
     "boxes and scores must have same batch size"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(node, inputs, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on("REF", node, *inputs)
    assert info.value.node_name == "nms" and "'nms'" in str(info.value)


def test_fed_inputs_check_at_run_time_and_the_gradient_is_none(graph):
    boxes, scores, size = ph(None), ph(None), ph(None, ds.int32)
    selected = ds.image.non_max_suppression(boxes, scores, size, name="nms")
    with ds.Session() as sess:
        got = sess.run(selected, {boxes: BOXES, scores: SCORES, size: 2})
        np.testing.assert_array_equal(got, [8, 3])
        with pytest.raises(ds.errors.InvalidArgumentError, match="boxes must be 2-D") as info:
            sess.run(selected, {boxes: BOXES[None], scores: SCORES, size: 2})
        assert info.value.node_name.startswith("nms")
    assert ds.gradients(ds.cast(selected, ds.float32), [boxes, scores]) == [None, None]


def test_a_gpu_session_runs_nms_through_the_host(standin):
    with ds.device("gpu:0"):
        selected = ds.image.non_max_suppression(ds.constant(BOXES) * 1.0, SCORES, 10)
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        np.testing.assert_array_equal(sess.run(selected), TF["nms/v3_10_0.5_-inf"])


def test_nms_round_trips_through_a_graph_def():
    graph = ds.Graph()
    with graph.as_default():
        boxes = ds.placeholder(ds.float32, (None, 4), name="boxes")
        ds.image.non_max_suppression_with_scores(boxes, SCORES, 10, 0.5, soft_nms_sigma=0.3,
                                                 name="soft")
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
        indices = imported.get_tensor_by_name("soft/NonMaxSuppressionV5:0")
        with ds.Session() as sess:
            got = sess.run(indices, {"boxes:0": BOXES})
    np.testing.assert_array_equal(got, TF["nms/v5_ties"])
