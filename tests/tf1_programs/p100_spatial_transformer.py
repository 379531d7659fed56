"""A spatial transformer network (Jaderberg et al.) as TF1 users wrote it after the TF models
repo's transformer(): a localization net (dense + tanh) whose last layer starts at the
identity transform predicts theta [B, 2, 3]; an affine grid from tf.linspace / tf.meshgrid /
tf.ones_like / tf.concat, tiled over the batch and moved by a batched tf.matmul; the classic
bilinear sampler (pixel coordinates, tf.floor, int32 casts, tf.clip_by_value, flat indices
from tf.range(batch) * h * w repeated by a matmul of ones, tf.gather, four corner weights,
tf.add_n) and a tf.gather_nd / tf.stack variant with align-corners scaling; a classifier on
the warped images trained with Momentum; gradients for theta and the image; the sampler
against tf.image.resize_bilinear / resize_images (align_corners) and crop_and_resize (and
its box gradients, extrapolation_value outside the image); the static shapes that
tf.shape / tf.stack give the warped images, also of an image of any size; and the edges a
user hits: out-of-range gather / gather_nd indices (the error's op), no gradient through
floor, border pixels repeated by the clip, the classic sampler's zero last row and column,
"_interpolate" valid as a nested scope name and not as a root one."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, height, width, channels = 3, 10, 10, 2
    out_h, out_w = 8, 8
    images = rng.uniform(0, 1, (batch, height, width, channels)).astype(np.float32)
    labels = np.array([0, 2, 1], np.int32)
    boxes_data = np.array([[0.1, 0.2, 0.7, 0.9], [0.3, 0.05, 0.8, 0.5],
                           [0.0, 0.15, 1.0, 0.65]], np.float32)
    theta_data = np.array([[[0.8, -0.25, 0.1], [0.3, 0.9, -0.05]],
                           [[1.1, 0.1, -0.2], [-0.15, 0.7, 0.12]],
                           [[0.6, 0.2, 0.07], [0.05, 1.2, 0.2]]], np.float32)

    def affine_grid(theta, size):
        x_t, y_t = tf.meshgrid(tf.linspace(-1.0, 1.0, size[1]), tf.linspace(-1.0, 1.0, size[0]))
        flat_x, flat_y = tf.reshape(x_t, [1, -1]), tf.reshape(y_t, [1, -1])
        grid = tf.concat([flat_x, flat_y, tf.ones_like(flat_x)], 0)
        num_batch = tf.shape(theta)[0]
        grid = tf.reshape(tf.tile(tf.reshape(grid, [-1]), tf.stack([num_batch])),
                          tf.stack([num_batch, 3, -1]))
        moved = tf.matmul(theta, grid)
        x_s, y_s = tf.slice(moved, [0, 0, 0], [-1, 1, -1]), tf.slice(moved, [0, 1, 0], [-1, 1, -1])
        return tf.reshape(x_s, [-1]), tf.reshape(y_s, [-1])

    def repeat(x, n):
        ones = tf.cast(tf.transpose(tf.expand_dims(tf.ones(tf.stack([n])), 1), [1, 0]), tf.int32)
        return tf.reshape(tf.matmul(tf.reshape(x, (-1, 1)), ones), [-1])

    def transformer(im, theta, size):
        """The classic sampler: weights from the clipped corners, (x + 1) * w / 2."""
        with tf.variable_scope("SpatialTransformer"), tf.variable_scope("_interpolate"):
            shape = tf.shape(im)
            x, y = affine_grid(theta, size)
            x = (x + 1.0) * tf.cast(shape[2], "float32") / 2.0
            y = (y + 1.0) * tf.cast(shape[1], "float32") / 2.0
            x0, y0 = tf.cast(tf.floor(x), "int32"), tf.cast(tf.floor(y), "int32")
            zero, max_x, max_y = tf.zeros([], dtype="int32"), shape[2] - 1, shape[1] - 1
            x0, x1 = tf.clip_by_value(x0, zero, max_x), tf.clip_by_value(x0 + 1, zero, max_x)
            y0, y1 = tf.clip_by_value(y0, zero, max_y), tf.clip_by_value(y0 + 1, zero, max_y)
            base = repeat(tf.range(shape[0]) * shape[1] * shape[2], size[0] * size[1])
            im_flat = tf.reshape(im, tf.stack([-1, shape[3]]))
            corners = [tf.gather(im_flat, base + yy * shape[2] + xx, name="corner")
                       for yy in (y0, y1) for xx in (x0, x1)]
            x0f, x1f, y0f, y1f = [tf.cast(v, "float32") for v in (x0, x1, y0, y1)]
            weights = [(y1f - y) * (x1f - x), (y1f - y) * (x - x0f),
                       (y - y0f) * (x1f - x), (y - y0f) * (x - x0f)]
            mixed = tf.add_n([tf.expand_dims(w, 1) * c for w, c in zip(weights, corners)])
            return tf.reshape(mixed, tf.stack([shape[0], size[0], size[1], shape[3]]))

    def transformer_nd(im, theta, size):
        """gather_nd with stacked [b, y, x] indices, align-corners scaling, weights from the
        unclipped corners (so the last row and column sample the border)."""
        shape = tf.shape(im)
        x, y = affine_grid(theta, size)
        x = tf.reshape((x + 1.0) * tf.cast(shape[2] - 1, tf.float32) / 2.0, [-1, size[0], size[1]])
        y = tf.reshape((y + 1.0) * tf.cast(shape[1] - 1, tf.float32) / 2.0, [-1, size[0], size[1]])
        x0, y0 = tf.floor(x), tf.floor(y)
        b = tf.tile(tf.reshape(tf.range(shape[0]), [-1, 1, 1]), [1, size[0], size[1]])
        total = 0.0
        for yy, wy in ((y0, 1.0 - (y - y0)), (y0 + 1.0, y - y0)):
            for xx, wx in ((x0, 1.0 - (x - x0)), (x0 + 1.0, x - x0)):
                xi = tf.clip_by_value(tf.to_int32(xx), 0, shape[2] - 1)
                yi = tf.clip_by_value(tf.to_int32(yy), 0, shape[1] - 1)
                pixels = tf.gather_nd(im, tf.stack([b, yi, xi], axis=3))
                total += tf.expand_dims(wy * wx, 3) * pixels
        return total

    image = tf.placeholder(tf.float32, [None, height, width, channels], name="image")
    label = tf.placeholder(tf.int32, [None], name="label")
    flat = tf.reshape(image, [-1, height * width * channels])
    w_loc = tf.Variable(rng.normal(0, 0.1, (height * width * channels, 8)).astype(np.float32))
    hidden = tf.tanh(tf.matmul(flat, w_loc) + tf.Variable(tf.zeros([8])))
    w_theta = tf.Variable(tf.zeros([8, 6]), name="w_theta")
    b_theta = tf.Variable(np.array([1, 0, 0, 0, 1, 0], np.float32), name="b_theta")
    theta = tf.reshape(tf.matmul(hidden, w_theta) + b_theta, [-1, 2, 3])
    warped = transformer(image, theta, [out_h, out_w])
    w_cls = tf.Variable(rng.normal(0, 0.1, (out_h * out_w * channels, 3)).astype(np.float32))
    logits = tf.matmul(tf.reshape(warped, [-1, out_h * out_w * channels]), w_cls)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label,
                                                                         logits=logits))
    theta_grad, image_grad = tf.gradients(loss, [theta, image])
    train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)

    fixed_theta = tf.placeholder(tf.float32, [None, 2, 3], name="fixed_theta")
    nd_out = transformer_nd(image, fixed_theta, [7, 9])
    nd_grads = tf.gradients(tf.reduce_sum(nd_out * np.linspace(-1, 1, 7 * 9 * 2).reshape(
        7, 9, 2).astype(np.float32)), [fixed_theta, image])
    identity = tf.tile(tf.constant([[[1.0, 0, 0], [0, 1, 0]]]), [batch, 1, 1])
    resize_pairs = [(transformer_nd(image, identity, [8, 8]), tf.image.resize_bilinear(
        image, [8, 8], align_corners=True)), (transformer_nd(image, identity, [13, 13]),
        tf.image.resize_images(image, [13, 13], tf.image.ResizeMethod.BILINEAR, True))]
    resize_diffs = [d for warp, resized in resize_pairs for d in (warp - resized, tf.gradients(
        tf.reduce_sum(tf.sin(warp)), image)[0] - tf.gradients(tf.reduce_sum(tf.sin(resized)),
                                                              image)[0])]
    boxes = tf.constant(boxes_data)
    crops = tf.image.crop_and_resize(image, boxes, tf.range(batch), [5, 6])
    y1, x1, y2, x2 = tf.unstack(boxes, axis=1)
    zeros = tf.zeros_like(y1)
    box_theta = tf.reshape(tf.stack([x2 - x1, zeros, x1 + x2 - 1.0,
                                     zeros, y2 - y1, y1 + y2 - 1.0], 1), [-1, 2, 3])
    box_warp = transformer_nd(image, box_theta, [5, 6])
    probe = np.linspace(0.5, -1.5, 5 * 6 * 2).reshape(5, 6, 2).astype(np.float32)
    crop_grads = tf.gradients(tf.reduce_sum(crops * probe), [image, boxes])
    box_warp_grads = tf.gradients(tf.reduce_sum(box_warp * probe), [image, boxes])

    any_size = tf.placeholder(tf.float32, [None, None, None, channels], name="any_size")
    any_warp = transformer(any_size, fixed_theta, [4, 5])
    outside = tf.image.crop_and_resize(image, [[-0.2, 0.5, 0.4, 1.3]], [1], [3, 4],
                                       extrapolation_value=-1.0)
    out["static_shapes"] = [t.shape.as_list() for t in (warped, nd_out, any_warp, crops)]
    try:
        with tf.variable_scope("_interpolate"):
            out["root_scope_error"] = None
    except ValueError as error:
        out["root_scope_error"] = "not a valid root scope name" in str(error)
    out["corner_names"] = sorted({op.name.split("/")[0] for op in tf.get_default_graph(
        ).get_operations() if op.type in ("GatherV2", "Gather")})[:2]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["any_size_warp"] = sess.run(any_warp, {any_size: images[:2, 1:8, :9],
                                                   fixed_theta: theta_data[:2]})
        out["extrapolated"] = sess.run(outside, {image: images})
        feed = {image: images, label: labels}
        out["first_warped"] = sess.run(warped, feed)
        out["first_theta_grad"], out["first_image_grad"] = sess.run([theta_grad, image_grad], feed)
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(6)])
        out["theta_after"], out["warped_after"] = sess.run([theta, warped], feed)
        edges = np.concatenate([out["first_warped"][:, -1], out["first_warped"][:, :, -1]])
        out["last_row_col_zero"] = bool(np.abs(edges).max() < 1e-6)
        nd_feed = {image: images, fixed_theta: theta_data}
        out["nd_warped"] = sess.run(nd_out, nd_feed)
        out["nd_theta_grad"], out["nd_image_grad"] = sess.run(nd_grads, nd_feed)
        out["resize_max_diff"] = [float(np.abs(d).max()) for d in sess.run(resize_diffs, feed)]
        out["crops"], out["crop_vs_warp"] = sess.run([crops, tf.reduce_max(tf.abs(
            crops - box_warp))], feed)
        out["crop_grads"], out["box_warp_grads"] = sess.run([crop_grads, box_warp_grads], feed)
        zoom_out = np.tile(np.array([[[2.5, 0, 0.3], [0, 2.5, 0]]], np.float32), [batch, 1, 1])
        far = sess.run(nd_out, {image: images, fixed_theta: zoom_out})
        out["zoomed_out_corners"] = far[:, [0, 0, -1, -1], [0, -1, 0, -1]]
        out["border_repeated"] = bool(np.allclose(far[:, 0, 0], images[:, 0, 0]) and
                                      np.allclose(far[:, -1, -1], images[:, -1, -1]))
        out["floor_gradients"] = [g is None for g in tf.gradients(
            tf.cast(tf.cast(tf.floor(theta), tf.int32), tf.float32) + tf.floor(theta), theta)]
        index = tf.placeholder(tf.int32, [None], name="index")
        flat_pixels = tf.reshape(image, [-1, channels])
        try:
            sess.run(tf.gather(flat_pixels, index, validate_indices=True, name="bad_corner"),
                     {image: images, index: [0, 5, batch * height * width]})
        except tf.errors.OpError as error:
            out["gather_error"] = [type(error).__name__, error.op.name, error.op.type,
                                   "indices[2] = 300 is not in [0, 300)" in error.message]
        nd_index = tf.placeholder(tf.int32, [None, 3], name="nd_index")
        try:
            sess.run(tf.gather_nd(image, nd_index, name="bad_nd"),
                     {image: images, nd_index: [[0, 1, 2], [2, 10, 0]]})
        except tf.errors.OpError as error:
            out["gather_nd_error"] = [type(error).__name__, "bad_nd" in error.message,
                                      "does not index into param shape" in error.message]
    out["_tol"] = {"losses": {"rtol": 1e-4, "atol": 1e-5},
                   "theta_after": {"rtol": 1e-4, "atol": 1e-5},
                   "warped_after": {"rtol": 1e-4, "atol": 1e-5},
                   "resize_max_diff": {"rtol": 0, "atol": 5e-6},
                   "crop_vs_warp": {"rtol": 0, "atol": 5e-6},
                   "crop_grads": {"rtol": 1e-4, "atol": 1e-4},
                   "box_warp_grads": {"rtol": 1e-4, "atol": 1e-4}}
