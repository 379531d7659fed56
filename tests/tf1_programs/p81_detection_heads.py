"""The pieces of a TF1 detection / super-resolution training script without contrib: a
small conv backbone, ROI pooling by tf.image.crop_and_resize (and its gradients for the
image and the boxes), an IoU matrix with tf.argmax matching, Faster R-CNN box encoding and
decoding, one-argument tf.where / tf.gather_nd / tf.boolean_mask, a smooth-L1
(tf.losses.huber_loss) box loss and a focal classification loss trained with Momentum,
non_max_suppression (plain, _with_scores, _padded also batched, combined) and tf.nn.top_k
on the decoded boxes, the resize ops with align_corners / half_pixel_centers and their
gradients, ESPCN sub-pixel upsampling by tf.depth_to_space / tf.space_to_depth with
tf.image.psnr / ssim, a tf.nn.conv3d layer trained one step, and the errors a user hits
(box_ind out of range, both sampling flags, an NMS threshold above 1, top_k past the end,
box_ind with box_indices, no gradient for resize_area)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    images = rng.uniform(0, 1, (2, 16, 16, 3)).astype(np.float32)
    gt_boxes = np.array([[0.12, 0.08, 0.55, 0.61], [0.41, 0.33, 0.93, 0.86]], np.float32)
    gt_classes = np.array([1, 2], np.int32)
    centers = rng.uniform(0.25, 0.75, (8, 2))
    sizes = rng.uniform(0.2, 0.5, (8, 2))
    proposals = np.concatenate([centers - sizes / 2, centers + sizes / 2], 1).astype(np.float32)
    proposals[:2] = gt_boxes + rng.uniform(-0.04, 0.04, (2, 4)).astype(np.float32)
    box_ind = np.array([0, 1, 0, 1, 0, 1, 0, 1], np.int32)

    def weight(name, shape, std=0.3):
        return tf.get_variable(name, initializer=rng.normal(0, std, shape).astype(np.float32))

    image = tf.placeholder(tf.float32, [None, 16, 16, 3], name="image")
    boxes = tf.placeholder(tf.float32, [None, 4], name="proposals")
    ind = tf.placeholder(tf.int32, [None], name="box_ind")
    net = tf.nn.relu(tf.nn.conv2d(image, weight("conv1", (3, 3, 3, 8)), [1, 1, 1, 1], "SAME"))
    features = tf.nn.relu(tf.nn.conv2d(net, weight("conv2", (3, 3, 8, 8)), [1, 2, 2, 1], "SAME"))
    rois = tf.image.crop_and_resize(features, boxes, ind, [4, 4])
    pooled = tf.reshape(tf.nn.max_pool(rois, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [-1, 32])
    class_logits = tf.matmul(pooled, weight("cls", (32, 3)))
    deltas = tf.matmul(pooled, weight("box", (32, 4), 0.1))

    def iou(a, b):
        low = tf.maximum(a[:, None, :2], b[None, :, :2])
        high = tf.minimum(a[:, None, 2:], b[None, :, 2:])
        inter = tf.reduce_prod(tf.maximum(high - low, 0.0), axis=2)
        area_a = tf.reduce_prod(a[:, 2:] - a[:, :2], axis=1)
        area_b = tf.reduce_prod(b[:, 2:] - b[:, :2], axis=1)
        return inter / (area_a[:, None] + area_b[None, :] - inter)

    def to_center(t):
        center, size = (t[:, :2] + t[:, 2:]) / 2, t[:, 2:] - t[:, :2]
        return center[:, 0], center[:, 1], size[:, 0], size[:, 1]

    def encode(gt, anchors):
        (gy, gx, gh, gw), (ay, ax, ah, aw) = to_center(gt), to_center(anchors)
        return tf.stack([10 * (gy - ay) / ah, 10 * (gx - ax) / aw,
                         5 * tf.log(gh / ah), 5 * tf.log(gw / aw)], 1)

    def decode(codes, anchors):
        ay, ax, ah, aw = to_center(anchors)
        cy, cx = codes[:, 0] / 10 * ah + ay, codes[:, 1] / 10 * aw + ax
        h, w = tf.exp(codes[:, 2] / 5) * ah, tf.exp(codes[:, 3] / 5) * aw
        return tf.stack([cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2], 1)

    overlaps = iou(boxes, tf.constant(gt_boxes))
    matched = tf.argmax(overlaps, axis=1, output_type=tf.int32)
    best = tf.reduce_max(overlaps, axis=1)
    positive = best >= 0.5
    labels = tf.where(positive, tf.gather(gt_classes, matched), tf.zeros_like(matched))
    targets = encode(tf.gather(gt_boxes, matched), boxes)
    positive_rows = tf.where(positive)
    box_loss = tf.losses.huber_loss(tf.gather_nd(targets, positive_rows),
                                    tf.boolean_mask(deltas, positive), delta=1.0)
    probs = tf.nn.sigmoid(class_logits)
    onehot = tf.one_hot(labels, 3)
    p_t = onehot * probs + (1 - onehot) * (1 - probs)
    focal = tf.reduce_sum(-0.25 * tf.pow(1 - p_t, 2.0) * tf.log(tf.clip_by_value(p_t, 1e-7, 1.0)))
    loss = box_loss + focal / tf.maximum(tf.reduce_sum(tf.cast(positive, tf.float32)), 1.0)
    train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)

    decoded = decode(deltas, boxes)
    scores = tf.reduce_max(tf.nn.softmax(class_logits)[:, 1:], axis=1)
    keep = tf.image.non_max_suppression(decoded, scores, 4, iou_threshold=0.3)
    soft_keep, soft_scores = tf.image.non_max_suppression_with_scores(
        decoded, scores, 5, iou_threshold=1.0, soft_nms_sigma=0.5)
    padded_keep, num_valid = tf.image.non_max_suppression_padded(
        decoded, scores, 6, iou_threshold=0.3, score_threshold=0.3, pad_to_max_output_size=True)
    top_scores, top_index = tf.nn.top_k(scores, k=3)
    per_class = tf.reshape(tf.nn.softmax(class_logits)[:, 1:], [2, 4, 2])   # 2 images x 4 anchors
    batched_keep, batched_valid = tf.image.non_max_suppression_padded(
        tf.reshape(decoded, [2, 4, 4]), tf.reshape(scores, [2, 4]), 3, iou_threshold=0.2,
        score_threshold=0.3, pad_to_max_output_size=True)
    combined = tf.image.combined_non_max_suppression(
        tf.reshape(decoded, [2, 4, 1, 4]), per_class, 2, 3, iou_threshold=0.4,
        score_threshold=0.2)
    roi_grads = tf.gradients(tf.reduce_sum(rois * tf.range(8, dtype=tf.float32)), [features, boxes])

    small = tf.constant(images[:1, :5, :6])
    resized = {"bilinear_ac": tf.image.resize_bilinear(small, [9, 7], align_corners=True),
               "bilinear_hp": tf.image.resize_bilinear(small, [9, 7], half_pixel_centers=True),
               "nearest_ac": tf.image.resize_nearest_neighbor(small, [8, 9], align_corners=True),
               "nearest_hp": tf.image.resize_nearest_neighbor(small, [3, 4],
                                                              half_pixel_centers=True),
               "bicubic_hp": tf.image.resize_bicubic(small, [7, 8], half_pixel_centers=True),
               "area": tf.image.resize(small, [3, 4], method=tf.image.ResizeMethod.AREA),
               "bicubic": tf.image.resize(small, [7, 9], method=tf.image.ResizeMethod.BICUBIC),
               "resize_ac": tf.image.resize(small, [8, 8], align_corners=True,
                                            method=tf.image.ResizeMethod.BILINEAR),
               "crop_nearest": tf.image.crop_and_resize(
                   small, [[-0.2, 0.1, 0.7, 1.3], [0.9, 0.8, 0.1, 0.2]], crop_size=[3, 5],
                   box_indices=[0, 0], method="nearest", extrapolation_value=-1.0)}
    check = tf.constant(rng.normal(size=(9, 9)).astype(np.float32))
    resize_grads = {k: tf.gradients(tf.reduce_sum(v * check[:v.shape[1], :v.shape[2], None]),
                                    small)[0]
                    for k, v in sorted(resized.items()) if k not in ("area", "crop_nearest")}

    low = tf.placeholder(tf.float32, [None, 8, 8, 3], name="low_res")
    high = tf.placeholder(tf.float32, [None, 16, 16, 3], name="high_res")
    hidden = tf.nn.tanh(tf.nn.conv2d(low, weight("espcn1", (3, 3, 3, 8)), [1] * 4, "SAME"))
    sub_pixel = tf.nn.conv2d(hidden, weight("espcn2", (3, 3, 8, 12), 0.1), [1] * 4, "SAME")
    upscaled = tf.depth_to_space(sub_pixel, 2)
    sr_loss = tf.reduce_mean(tf.square(upscaled - high))
    sr_train = tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True).minimize(sr_loss)
    unshuffled = tf.space_to_depth(high, 2)
    s2d_grad = tf.gradients(tf.reduce_sum(unshuffled * tf.range(12, dtype=tf.float32)), high)[0]
    clipped = tf.clip_by_value(upscaled, 0.0, 1.0)
    psnr, ssim = tf.image.psnr(clipped, high, 1.0), tf.image.ssim(clipped, high, max_val=1.0)

    volume = tf.constant(rng.normal(size=(1, 4, 5, 5, 2)).astype(np.float32))
    kernel3d = weight("conv3d", (3, 3, 3, 2, 3))
    vol_out = tf.nn.conv3d(volume, kernel3d, [1, 1, 2, 2, 1], "SAME")
    vol_loss = tf.reduce_mean(tf.square(vol_out - 0.5))
    vol_train = tf.train.GradientDescentOptimizer(0.1).minimize(vol_loss, var_list=[kernel3d])

    low_res = images.reshape(2, 8, 2, 8, 2, 3).mean(axis=(2, 4))
    feed = {image: images, boxes: proposals, ind: box_ind}
    out["static_shapes"] = [t.shape.as_list() for t in (rois, upscaled, unshuffled, vol_out,
                                                         padded_keep, batched_keep,
                                                         resized["bicubic"])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["overlaps"], out["matched"], out["labels"], out["targets"], out["positive_rows"] = \
            sess.run([overlaps, matched, labels, targets, positive_rows], feed)
        out["roi_grad_image"], out["roi_grad_boxes"] = sess.run(roi_grads, feed)
        out["detection_losses"] = np.array([sess.run([train_op, box_loss, focal, loss], feed)[1:]
                                            for _ in range(6)])
        out["decoded"], out["scores"] = sess.run([decoded, scores], feed)
        out["nms"] = sess.run([keep, soft_keep, soft_scores, padded_keep, num_valid], feed)
        out["top_k"] = sess.run([top_scores, top_index], feed)
        out["combined_nms"] = sess.run(list(combined), feed)
        out["batched_nms"] = sess.run([batched_keep, batched_valid], feed)
        out["resized"] = sess.run(resized)
        out["resize_grads"] = sess.run(resize_grads)
        sr_feed = {low: low_res, high: images}
        out["sr_losses"] = np.array([sess.run([sr_train, sr_loss], sr_feed)[1] for _ in range(5)])
        out["sr_metrics"] = sess.run([psnr, ssim], sr_feed)
        out["space_to_depth"] = sess.run([unshuffled[0, :2, :2], s2d_grad[0, :4, :4, 0]], sr_feed)
        out["conv3d"] = [sess.run([vol_train, vol_loss])[1], sess.run(vol_loss),
                         sess.run(vol_out)[0, 1]]
        try:
            sess.run(rois, {image: images, boxes: proposals[:2], ind: [0, 2]})
        except tf.errors.OpError as error:
            out["box_ind_error"] = [type(error).__name__, "box_ind" in error.message]
    bad_runs = {
        "resize_both_centers": lambda: tf.image.resize_bilinear(
            small, [4, 4], align_corners=True, half_pixel_centers=True),
        "nms_iou_threshold": lambda: tf.image.non_max_suppression(gt_boxes, [0.5, 0.6], 2, 1.5),
        "top_k_too_large": lambda: tf.nn.top_k(tf.placeholder_with_default(gt_boxes, [2, None]), 5),
        "space_to_depth_size": lambda: tf.space_to_depth(tf.placeholder_with_default(
            images[:, :15], [None, None, None, 3]), 2)}
    with tf.Session() as sess:
        for name, build in sorted(bad_runs.items()):
            try:
                sess.run(build())
                out[name + "_error"] = None
            except (ValueError, tf.errors.OpError) as error:
                out[name + "_error"] = type(error).__name__
    for name, build in [("nms_rank", lambda: tf.image.non_max_suppression(
                            gt_boxes[None], [0.5, 0.6], 2)),
                        ("depth_to_space", lambda: tf.depth_to_space(tf.zeros([1, 2, 2, 6]), 2)),
                        ("crop_rank", lambda: tf.image.crop_and_resize(
                            images[0], gt_boxes, [0, 0], [2, 2])),
                        ("both_box_ind", lambda: tf.image.crop_and_resize(
                            images, gt_boxes, [0, 0], [2, 2], box_indices=[0, 0])),
                        ("area_gradient", lambda: tf.gradients(resized["area"], small))]:
        try:
            build()
            out[name + "_error"] = None
        except (ValueError, LookupError, tf.errors.OpError) as error:
            out[name + "_error"] = type(error).__name__
    out["_tol"] = {"detection_losses": {"rtol": 1e-3, "atol": 1e-5},
                   "sr_losses": {"rtol": 1e-3, "atol": 1e-6},
                   "roi_grad_boxes": {"rtol": 1e-3, "atol": 1e-4},
                   "sr_metrics": {"rtol": 1e-3, "atol": 1e-4}}
