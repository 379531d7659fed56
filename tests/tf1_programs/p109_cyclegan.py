"""A tiny CycleGAN as the TF1 CycleGAN repos wrote it, on two domains of synthetic 8x8x3
images fed from numpy: generators of reflection padding (tf.pad "REFLECT", once "SYMMETRIC"
and once mode="reflect" lower-case) before VALID convs, instance normalization by hand
(tf.nn.moments over [1, 2] with keep_dims, scale/offset variables, tf.rsqrt), residual
blocks, upsampling by tf.nn.conv2d_transpose (gen_A) or tf.image.resize_nearest_neighbor and
a conv (gen_B), a tanh output; PatchGAN discriminators (strided convs, tf.nn.leaky_relu
alpha=0.2, no sigmoid); LSGAN losses by tf.squared_difference, the cycle L1 loss with lambda
10 and the identity loss; four var_lists by scope name, Adam(beta1=0.5) with the learning
rate a placeholder fed a linear decay, alternating G and D steps with an image pool in
Python feeding past fakes through placeholders; the fakes saved as uint8
(convert_image_dtype saturate=True) and as an image summary; a pix2pix
tf.layers.conv2d_transpose. Also the pads and their gradients (folded back onto the border;
a second order through SYMMETRIC), moments with a shift, resize_nearest_neighbor with
align_corners and its gradient, and what a user hits: mirror padding too large (built, an
InvalidArgumentError at run; SYMMETRIC allows the size itself), negative paddings, an unknown
mode, constant_values with REFLECT (ignored), moments with keep_dims and keepdims, and
conv2d_transpose with Dimensions in a list output_shape (known: fine; None: TypeError) or
an int64 one (TypeError; a numpy array of int64 is fine), leaky_relu's alpha a tensor."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, side, steps, lam = 2, 8, 4, 10.0
    base_a = rng.uniform(-0.8, 0.8, (steps, batch, side, side, 1))
    data_a = np.tanh(base_a * np.array([1.0, 0.5, -0.7]) + 0.1).astype(np.float32)
    data_b = np.tanh(rng.normal(0.0, 0.6, (steps, batch, side, side, 3))
                     + np.linspace(-0.5, 0.5, side)[:, None, None]).astype(np.float32)

    def weight(name, shape):
        return tf.get_variable(name, initializer=rng.normal(0, 0.25, shape).astype(np.float32))

    def instance_norm(x, name):
        with tf.variable_scope(name):
            depth = x.shape.as_list()[-1]
            scale = tf.get_variable("scale", initializer=1.0 + rng.normal(
                0, 0.02, depth).astype(np.float32))
            offset = tf.get_variable("offset", [depth], initializer=tf.zeros_initializer())
            mean, variance = tf.nn.moments(x, [1, 2], keep_dims=True)
            return scale * (x - mean) * tf.rsqrt(variance + 1e-5) + offset

    def conv(x, name, depth, k=3, stride=1, padding="VALID"):
        w = weight(name + "_w", (k, k, x.shape.as_list()[-1], depth))
        return tf.nn.conv2d(x, w, [1, stride, stride, 1], padding)

    def residual(x, name, mode):
        with tf.variable_scope(name):
            h = tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], "REFLECT")
            h = tf.nn.relu(instance_norm(conv(h, "c1", 8), "in1"))
            h = tf.pad(h, [[0, 0], [1, 1], [1, 1], [0, 0]], mode=mode)
            return x + instance_norm(conv(h, "c2", 8), "in2")

    def generator(x, name, upsample):
        with tf.variable_scope(name, reuse=tf.AUTO_REUSE):
            h = tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], "REFLECT")
            h = tf.nn.relu(instance_norm(conv(h, "c7", 4), "in_c7"))
            h = tf.nn.relu(instance_norm(conv(h, "d1", 8, stride=2, padding="SAME"), "in_d1"))
            h = residual(h, "r1", "SYMMETRIC")
            h = residual(h, "r2", "reflect")
            if upsample == "deconv":
                w = weight("u1_w", (3, 3, 4, 8))
                shape = tf.stack([tf.shape(x)[0], side, side, 4])
                h = tf.nn.conv2d_transpose(h, w, shape, [1, 2, 2, 1], "SAME")
            else:
                h = tf.image.resize_nearest_neighbor(h, [side, side])
                h = conv(h, "u1", 4, padding="SAME")
            h = tf.nn.relu(instance_norm(h, "in_u1"))
            h = tf.pad(h, [[0, 0], [1, 1], [1, 1], [0, 0]], "REFLECT")
            return tf.nn.tanh(conv(h, "out", 3))

    def discriminator(x, name):
        with tf.variable_scope(name, reuse=tf.AUTO_REUSE):
            h = tf.nn.leaky_relu(conv(x, "c1", 8, 4, 2, "SAME"), alpha=0.2)
            h = tf.nn.leaky_relu(instance_norm(conv(h, "c2", 16, 4, 2, "SAME"), "in2"), 0.2)
            return conv(h, "patch", 1, 3, 1, "SAME")

    def mse(x, target):
        return tf.reduce_mean(tf.squared_difference(x, target))

    def l1(x, y):
        return tf.reduce_mean(tf.abs(x - y))

    real_a = tf.placeholder(tf.float32, [None, side, side, 3], name="real_A")
    real_b = tf.placeholder(tf.float32, [None, side, side, 3], name="real_B")
    pool_a = tf.placeholder(tf.float32, [None, side, side, 3], name="pool_A")
    pool_b = tf.placeholder(tf.float32, [None, side, side, 3], name="pool_B")
    lr = tf.placeholder(tf.float32, [], name="learning_rate")
    fake_b = generator(real_a, "gen_A", "deconv")
    fake_a = generator(real_b, "gen_B", "resize")
    cycle_a, cycle_b = generator(fake_b, "gen_B", "resize"), generator(fake_a, "gen_A", "deconv")
    same_b, same_a = generator(real_b, "gen_A", "deconv"), generator(real_a, "gen_B", "resize")
    d_fake_b, d_fake_a = discriminator(fake_b, "dis_B"), discriminator(fake_a, "dis_A")
    cycle_loss = lam * (l1(cycle_a, real_a) + l1(cycle_b, real_b))
    identity_loss = 0.5 * lam * (l1(same_b, real_b) + l1(same_a, real_a))
    g_loss = mse(d_fake_b, 1) + mse(d_fake_a, 1) + cycle_loss + identity_loss
    d_loss_a = 0.5 * (mse(discriminator(real_a, "dis_A"), 1)
                      + tf.reduce_mean(tf.square(discriminator(pool_a, "dis_A"))))
    d_loss_b = 0.5 * (mse(discriminator(real_b, "dis_B"), 1)
                      + tf.reduce_mean(tf.square(discriminator(pool_b, "dis_B"))))
    var_lists = {k: [v for v in tf.trainable_variables() if k in v.name]
                 for k in ("gen_A", "gen_B", "dis_A", "dis_B")}
    g_train = tf.train.AdamOptimizer(lr, beta1=0.5).minimize(
        g_loss, var_list=var_lists["gen_A"] + var_lists["gen_B"])
    d_train = [tf.train.AdamOptimizer(lr, beta1=0.5).minimize(loss, var_list=var_lists[k])
               for loss, k in ((d_loss_a, "dis_A"), (d_loss_b, "dis_B"))]
    grads = tf.gradients(g_loss, [var_lists["gen_A"][0], var_lists["gen_B"][1],
                                  var_lists["gen_A"][-1]])
    d_grads = tf.gradients(d_loss_b, [var_lists["dis_B"][0], pool_b])
    out["var_counts"] = {k: len(v) for k, v in var_lists.items()}
    out["gen_A_vars"] = [v.name for v in var_lists["gen_A"][:6]]
    out["shapes"] = [t.shape.as_list() for t in (fake_b, fake_a, d_fake_b)]
    saved = tf.image.convert_image_dtype(fake_b * 0.5 + 0.5, tf.uint8, saturate=True)
    image_summary = tf.summary.image("fake_B", fake_b * 0.5 + 0.5, max_outputs=1)

    pool_rng, pools = np.random.RandomState(1), {"A": [], "B": []}

    def query(pool, images):    # the CycleGAN history of 3 fakes, half the time an old one
        result = []
        for image in images:
            if len(pool) < 3:
                pool.append(image)
                result.append(image)
            elif pool_rng.uniform() > 0.5:
                i = pool_rng.randint(3)
                result.append(pool[i].copy())
                pool[i] = image
            else:
                result.append(image)
        return np.stack(result)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {real_a: data_a[0], real_b: data_b[0], pool_a: data_a[1], pool_b: data_b[1]}
        out["initial"] = sess.run({"g_loss": g_loss, "cycle": cycle_loss,
                                   "identity": identity_loss, "d_a": d_loss_a, "d_b": d_loss_b,
                                   "g_grads": grads, "d_grads": d_grads}, feed)
        history = []
        for step in range(steps):
            rate = 2e-3 * (1.0 - step / steps)
            feed = {real_a: data_a[step], real_b: data_b[step], lr: rate}
            _, gl, fa, fb = sess.run([g_train, g_loss, fake_a, fake_b], feed)
            feed.update({pool_a: query(pools["A"], fa), pool_b: query(pools["B"], fb)})
            _, dla, dlb = sess.run([d_train, d_loss_a, d_loss_b], feed)
            history.append([rate, gl, dla, dlb])
        out["history"] = np.array(history)
        out["pool_sizes"] = [len(pools["A"]), len(pools["B"])]
        out["images"] = sess.run([fake_b, cycle_a], {real_a: data_a[0]})
        pixels, summary = sess.run([saved, image_summary], {real_a: data_a[0]})
        out["saved_dtype"] = str(pixels.dtype)
        out["saved_uint8"] = pixels.astype(np.float32)     # compared within one step
        value = tf.Summary.FromString(summary).value[0]
        out["image_summary"] = [value.tag, value.image.height, value.image.width,
                                value.image.colorspace]
        out["patches"] = sess.run(d_fake_a, {real_b: data_b[0]})

    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the class is what the program records
            return type(e).__name__
        return None

    x = tf.constant(np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1))
    w = tf.constant(rng.normal(size=(1, 7, 6, 1)).astype(np.float32))
    pads = {"reflect": tf.pad(x, [[0, 0], [2, 2], [1, 2], [0, 0]], "REFLECT"),
            "symmetric": tf.pad(x, [[0, 0], [3, 3], [1, 2], [0, 0]], "SYMMETRIC"),
            "lower": tf.pad(x, [[0, 0], [2, 2], [1, 2], [0, 0]], mode="reflect"),
            "constant_ignored": tf.pad(x, [[0, 0], [2, 2], [1, 2], [0, 0]], "REFLECT",
                                       constant_values=5)}
    out["pad_shapes"] = {k: v.shape.as_list() for k, v in pads.items()}
    z = tf.placeholder(tf.float32, [1, None, 3, 1])
    dynamic = tf.pad(z, [[0, 0], [2, 2], [0, 0], [0, 0]], "REFLECT")
    out["dynamic_shape"] = dynamic.shape.as_list()
    pad_grads = {k: tf.gradients(tf.reduce_sum(v[:, :7, :6] * w), x)[0]
                 for k, v in pads.items() if k != "symmetric"}
    pad_grads["symmetric"] = tf.gradients(tf.reduce_sum(pads["symmetric"][:, 1:8] * w), x)[0]
    too_large = {   # built without complaint: the sizes are checked when the pad runs
        "reflect_equal": tf.pad(x, [[0, 0], [3, 0], [0, 0], [0, 0]], "REFLECT"),
        "symmetric_equal": tf.pad(x, [[0, 0], [3, 3], [0, 0], [0, 0]], "SYMMETRIC"),
        "symmetric_over": tf.pad(x, [[0, 0], [0, 4], [0, 0], [0, 0]], "SYMMETRIC")}
    out["too_large_shapes"] = {k: v.shape.as_list() for k, v in too_large.items()}
    errors = {
        "unknown_mode": error(lambda: tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], "WRAP")),
        "moments_both": error(lambda: tf.nn.moments(x, [1, 2], keep_dims=True,
                                                    keepdims=True))}
    errors["leaky_alpha_tensor"] = error(lambda: tf.nn.leaky_relu(x, alpha=tf.constant(0.2)))
    errors["negative_padding"] = error(lambda: tf.pad(x, [[0, 0], [-1, 1], [0, 0], [0, 0]],
                                                      "REFLECT"))
    mean, variance = tf.nn.moments(x, [1, 2], keepdims=True)
    shifted = tf.nn.moments(x, [1, 2], shift=4.0)
    second = tf.gradients(tf.gradients(tf.reduce_sum(pads["symmetric"] ** 3), x)[0], x)[0]
    h = tf.constant(rng.normal(size=(2, 4, 4, 8)).astype(np.float32))
    kernel = tf.constant(rng.normal(0, 0.3, (3, 3, 4, 8)).astype(np.float32))
    upsampled = tf.nn.conv2d_transpose(h, kernel, [h.shape[0], h.shape[1] * 2, 8, 4],
                                       [1, 2, 2, 1], "SAME")
    unknown = tf.placeholder(tf.float32, [None, 4, 4, 8])
    errors["unknown_batch_output_shape"] = error(lambda: tf.nn.conv2d_transpose(
        unknown, kernel, [unknown.shape[0], 8, 8, 4], [1, 2, 2, 1], "SAME"))
    errors["int64_output_shape"] = error(lambda: tf.nn.conv2d_transpose(
        unknown, kernel, tf.stack([tf.shape(unknown, out_type=tf.int64)[0], 8, 8, 4]),
        [1, 2, 2, 1], "SAME"))
    from_numpy = tf.nn.conv2d_transpose(h, kernel, np.array([2, 8, 8, 4]), [1, 2, 2, 1])
    nearest = tf.image.resize_nearest_neighbor(h, [7, 7], align_corners=True)
    nearest_grad = tf.gradients(tf.reduce_sum(nearest ** 2), h)[0]
    with tf.variable_scope("pix2pix"):
        decoded = tf.layers.conv2d_transpose(
            h, 3, 4, strides=2, padding="same",
            kernel_initializer=tf.constant_initializer(rng.normal(0, 0.2, (4, 4, 3, 8))))
    decoded_grad = tf.gradients(tf.reduce_sum(tf.tanh(decoded)), h)[0]
    out["upsampled_shapes"] = [upsampled.shape.as_list(), decoded.shape.as_list()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["pads"] = sess.run(pads)
        out["pad_grads"] = sess.run(pad_grads)
        out["moments"] = sess.run([mean, variance, shifted, second])
        out["nearest"] = sess.run([nearest, nearest_grad])
        out["upsampled"] = sess.run([upsampled, decoded, decoded_grad])
        out["upsampled_from_numpy_shape"] = bool(np.array_equal(sess.run(from_numpy),
                                                                out["upsampled"][0]))
        out["dynamic"] = sess.run(dynamic, {z: np.ones((1, 3, 3, 1), np.float32)})
        for name, t, feed in [(k, v, None) for k, v in sorted(too_large.items())] + [
                ("reflect_at_run", dynamic, {z: np.ones((1, 2, 3, 1), np.float32)})]:
            try:
                errors[name] = sess.run(t, feed).shape
            except tf.errors.OpError as e:
                errors[name] = type(e).__name__
    out["errors"] = errors
    out["_tol"] = {k: {"rtol": 2e-3, "atol": 2e-4}
                   for k in ("initial", "history", "images", "patches")}
    out["_tol"]["saved_uint8"] = {"rtol": 0, "atol": 1}
