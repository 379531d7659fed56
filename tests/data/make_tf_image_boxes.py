"""Writes tf_image_boxes.npz: fixed inputs and TensorFlow 2.21's outputs for the
``tf.image`` box and resampling ops (non-max suppression in its five forms,
crop_and_resize and its gradients, resize_bicubic and its gradient, resize_area,
resize_image_with_pad, draw_bounding_boxes), which tests/test_image_boxes.py and
tests/test_image_resample.py compare devsession with.  Keys are "in/<name>" for
inputs and "<case>" for TF's outputs.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_image_boxes.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261207)
f32 = np.float32

# NMS: ties in score (0 and 6, 1 and 9), a flipped copy of box 0 (6), an IoU of exactly
# 0.5 with box 0 (7), a box of zero area (8), far-apart boxes
BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                  [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0], [0, 0, 1, 0.5],
                  [0, 0, 0, 1], [0.5, 0.5, 1.5, 1.5]], f32)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.8, 0.99, 0.75], f32)
corner = rng.uniform(0, 10, (40, 2)).astype(f32)
RANDOM_BOXES = np.concatenate([corner, corner + rng.uniform(1, 4, (40, 2))], 1).astype(f32)
RANDOM_SCORES = rng.uniform(0, 1, 40).astype(f32)
half = rng.uniform(0, 1, (8, 8)).astype(f32)
OVERLAPS = ((half + half.T) / 2).astype(f32)
OVERLAP_SCORES = rng.uniform(0, 1, 8).astype(f32)
c = rng.uniform(-0.2, 0.9, (2, 6, 3, 2)).astype(f32)
COMBINED_BOXES = np.concatenate([c, c + rng.uniform(0.05, 0.4, (2, 6, 3, 2))], -1).astype(f32)
COMBINED_SCORES = rng.uniform(0, 1, (2, 6, 3)).astype(f32)

IMAGE = rng.uniform(-2, 2, (2, 5, 6, 3)).astype(f32)
CROP_BOXES = np.array([[0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], [-0.2, -0.1, 1.3, 1.2],
                       [0.9, 0.8, 0.1, 0.2], [0.5, 0.4, 0.5, 0.4]], f32)
CROP_IND = np.array([0, 1, 1, 0, 1], np.int32)
GRAD_BOXES = np.array([[0.05, 0.1, 0.83, 0.91], [0.31, 0.22, 0.67, 0.58],
                       [-0.12, 0.05, 0.9, 1.17]], f32)
GRAD_IND = np.array([1, 0, 1], np.int32)

SMALL = rng.uniform(0, 1, (1, 4, 5, 2)).astype(f32)
AREA_IN = rng.uniform(0, 1, (1, 5, 7, 2)).astype(f32)
U8 = rng.integers(0, 256, (1, 5, 7, 2)).astype(np.uint8)
PAD_IN = rng.uniform(0, 1, (4, 6, 1)).astype(f32)
DRAW_IN = rng.uniform(0, 1, (2, 6, 7, 3)).astype(f32)
DRAW_BOXES = np.array([[[0.1, 0.1, 0.6, 0.7], [0.0, 0.5, 1.2, 0.9]],
                       [[0.8, 0.8, 0.2, 0.3], [0.4, 0.4, 0.4, 0.5]]], f32)
COLORS = np.array([[1, 0, 0, 1], [0, 0.5, 1, 1]], f32)

inputs = {"nms/boxes": BOXES, "nms/scores": SCORES, "nms/random_boxes": RANDOM_BOXES,
          "nms/random_scores": RANDOM_SCORES, "nms/overlaps": OVERLAPS,
          "nms/overlap_scores": OVERLAP_SCORES, "combined/boxes": COMBINED_BOXES,
          "combined/scores": COMBINED_SCORES, "crop/image": IMAGE, "crop/boxes": CROP_BOXES,
          "crop/box_ind": CROP_IND, "crop/grad_boxes": GRAD_BOXES, "crop/grad_ind": GRAD_IND,
          "resize/small": SMALL, "resize/area_in": AREA_IN, "resize/u8": U8,
          "pad/in": PAD_IN, "draw/in": DRAW_IN, "draw/boxes": DRAW_BOXES,
          "draw/colors": COLORS}

graph = tf.Graph()
outs = {}
with graph.as_default():
    im = tf.image
    b, s = tf.constant(BOXES), tf.constant(SCORES)
    for m, iou, thr in [(10, 0.5, -np.inf), (3, 0.5, -np.inf), (10, 0.5, 0.75),
                        (10, 0.0, -np.inf), (10, 1.0, -np.inf), (0, 0.5, -np.inf)]:
        outs[f"nms/v3_{m}_{iou}_{thr}"] = im.non_max_suppression(b, s, m, iou, thr)
    outs["nms/v3_f16"] = im.non_max_suppression(tf.cast(b, tf.float16), tf.cast(s, tf.float16),
                                                10, 0.5)
    outs["nms/v3_random"] = im.non_max_suppression(RANDOM_BOXES, RANDOM_SCORES, 30, 0.4, 0.2)
    outs["nms/v3_random_flipped"] = im.non_max_suppression(RANDOM_BOXES[:, [2, 3, 0, 1]],
                                                           RANDOM_SCORES, 30, 0.3)
    idx, valid = tf.raw_ops.NonMaxSuppressionV4(boxes=b, scores=s, max_output_size=12,
                                                iou_threshold=0.5, score_threshold=0.55,
                                                pad_to_max_output_size=True)
    outs["nms/v4_padded"], outs["nms/v4_padded_valid"] = idx, valid
    idx, valid = tf.raw_ops.NonMaxSuppressionV4(boxes=b, scores=s, max_output_size=12,
                                                iou_threshold=0.5, score_threshold=0.55)
    outs["nms/v4"], outs["nms/v4_valid"] = idx, valid
    for sigma, iou, thr in [(0.5, 1.0, 0.1), (0.5, 0.5, 0.0), (0.0, 0.5, -np.inf),
                            (1.0, 0.3, 0.2)]:
        i, sc = im.non_max_suppression_with_scores(RANDOM_BOXES, RANDOM_SCORES, 25, iou, thr,
                                                   sigma)
        outs[f"nms/v5_{sigma}_{iou}_{thr}"], outs[f"nms/v5_{sigma}_{iou}_{thr}_scores"] = i, sc
    i, sc = im.non_max_suppression_with_scores(b, s, 10, 0.5, soft_nms_sigma=0.3)
    outs["nms/v5_ties"], outs["nms/v5_ties_scores"] = i, sc
    outs["nms/overlaps"] = im.non_max_suppression_overlaps(OVERLAPS, OVERLAP_SCORES, 8, 0.5,
                                                           0.2)
    outs["nms/overlaps_all"] = im.non_max_suppression_overlaps(OVERLAPS, OVERLAP_SCORES, 5)
    for q in (1, 3):
        for per_class, total, pad, clip in [(3, 5, False, True), (2, 20, False, False),
                                            (2, 20, True, True), (4, 3, True, False)]:
            key = f"combined/q{q}_{per_class}_{total}_{pad}_{clip}"
            r = im.combined_non_max_suppression(COMBINED_BOXES[:, :, :q], COMBINED_SCORES,
                                                per_class, total, 0.4, 0.15, pad, clip)
            for name, t in zip(("boxes", "scores", "classes", "valid"), r):
                outs[f"{key}/{name}"] = t

    image = tf.constant(IMAGE)
    for method in ("bilinear", "nearest"):
        for size in ((3, 4), (1, 1), (7, 5)):
            for extra in (0.0, -1.5):
                key = f"crop/{method}_{size[0]}x{size[1]}_{extra}"
                outs[key] = im.crop_and_resize(image, CROP_BOXES, CROP_IND, size, method,
                                               extra)
    outs["crop/u8"] = im.crop_and_resize(tf.constant((IMAGE * 50 + 100).astype(np.uint8)),
                                         CROP_BOXES, CROP_IND, (3, 4))
    outs["crop/f64"] = im.crop_and_resize(tf.constant(IMAGE.astype(np.float64)), CROP_BOXES,
                                          CROP_IND, (4, 3), "nearest")
    gb = tf.constant(GRAD_BOXES)
    weights = tf.constant(rng.uniform(-1, 1, (3, 4, 5, 3)).astype(f32))
    inputs["crop/grad_weights"] = graph.get_tensor_by_name(weights.name)  # placeholder
    crops = im.crop_and_resize(image, gb, GRAD_IND, (4, 5))
    outs["crop/grad_image"], outs["crop/grad_boxes_out"] = tf.gradients(
        tf.reduce_sum(crops * weights), [image, gb])
    one = im.crop_and_resize(image, gb, GRAD_IND, (1, 1))
    outs["crop/grad_image_1x1"], outs["crop/grad_boxes_1x1"] = tf.gradients(
        tf.reduce_sum(one * weights[:, :1, :1]), [image, gb])

    small = tf.constant(SMALL)
    weights_b = {}
    for flags in ((False, False), (True, False), (False, True)):
        tag = ["legacy", "align", "half"][[(False, False), (True, False),
                                           (False, True)].index(flags)]
        for size in ((7, 9), (3, 2), (4, 5), (1, 1), (2, 8)):
            up = tf.raw_ops.ResizeBicubic(images=small, size=size, align_corners=flags[0],
                                          half_pixel_centers=flags[1])
            outs[f"bicubic/{tag}_{size[0]}x{size[1]}"] = up
            w = rng.uniform(-1, 1, (1, *size, 2)).astype(f32)
            inputs[f"bicubic/{tag}_{size[0]}x{size[1]}/w"] = w
            outs[f"bicubic/{tag}_{size[0]}x{size[1]}/grad"] = tf.gradients(
                tf.reduce_sum(up * w), small)[0]
        outs[f"bicubic/{tag}_u8"] = tf.raw_ops.ResizeBicubic(
            images=tf.constant(U8), size=(3, 10), align_corners=flags[0],
            half_pixel_centers=flags[1])
    area_in = tf.constant(AREA_IN)
    for align in (False, True):
        for size in ((3, 4), (7, 9), (2, 3), (5, 7), (1, 1), (10, 3)):
            outs[f"area/{align}_{size[0]}x{size[1]}"] = tf.raw_ops.ResizeArea(
                images=area_in, size=size, align_corners=align)
        outs[f"area/{align}_u8"] = tf.raw_ops.ResizeArea(images=tf.constant(U8), size=(3, 4),
                                                         align_corners=align)
        outs[f"area/{align}_f64"] = tf.raw_ops.ResizeArea(
            images=tf.constant(AREA_IN.astype(np.float64)), size=(4, 6), align_corners=align)
    rm = tf.image.ResizeMethod
    outs["resize_images/bicubic"] = im.resize_images(small, (7, 3), rm.BICUBIC)
    outs["resize_images/area"] = im.resize_images(small, (3, 3), rm.AREA)
    outs["resize_images/bicubic_3d_align"] = im.resize_images(small[0], (6, 6), rm.BICUBIC,
                                                              align_corners=True)
    pad_in = tf.constant(PAD_IN)
    for h, w in ((5, 5), (8, 3), (4, 6), (9, 13), (2, 2)):
        outs[f"pad/{h}x{w}"] = im.resize_image_with_pad(pad_in, h, w)
    outs["pad/nearest_4d"] = im.resize_image_with_pad(pad_in[None], 7, 7,
                                                      rm.NEAREST_NEIGHBOR)
    draw_in = tf.constant(DRAW_IN)
    outs["draw/default"] = im.draw_bounding_boxes(draw_in, DRAW_BOXES)
    outs["draw/colors"] = im.draw_bounding_boxes(draw_in, DRAW_BOXES, colors=COLORS)
    outs["draw/gray"] = im.draw_bounding_boxes(draw_in[..., :1], DRAW_BOXES)
    outs["draw/rgba"] = im.draw_bounding_boxes(tf.concat([draw_in, draw_in[..., :1]], -1),
                                               DRAW_BOXES, colors=COLORS[:1])

with tf.Session(graph=graph) as sess:
    inputs = {k: (sess.run(v) if isinstance(v, tf.Tensor) else v) for k, v in inputs.items()}
    values = sess.run(outs)
np.savez_compressed(os.path.join(HERE, "tf_image_boxes.npz"),
                    **{f"in/{k}": v for k, v in inputs.items()}, **values)
print(len(values), "outputs")
