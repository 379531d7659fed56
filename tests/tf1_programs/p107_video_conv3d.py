"""A small 3-D convolutional video classifier (C3D / I3D-lite) and a 3-D U-Net decoder step,
the TF1 way, on clips of 2 x 4 frames x 8x8 x 3 (NDHWC) fed from numpy: tf.nn.conv3d SAME
and VALID with strides [1, 1, 2, 2, 1], C3D's first pool with a temporal size of 1
(tf.nn.max_pool3d), a (2+1)-D factorized block (a 1x3x3 spatial tf.layers.conv3d, then a
3x1x1 temporal one with dilation_rate), tf.layers.batch_normalization over 5-D with its
UPDATE_OPS, tf.layers.max_pooling3d, tf.nn.avg_pool3d, global average pooling by
tf.reduce_mean(axis=[1, 2, 3]), a decoder with tf.nn.conv3d_transpose and
tf.layers.conv3d_transpose and a tf.concat skip, softmax cross entropy plus a reconstruction
loss, Nesterov momentum for a few steps; gradients through max_pool3d and conv3d_transpose,
tf.nn.convolution and tf.nn.pool (AVG, dilated) on 5-D inputs, tf.nn.fused_batch_norm on
5-D, and the errors a user hits (NCDHW on CPU, a filter deeper than the clip, batch or
channel strides, a pool window larger than the input)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, frames, side, channels, classes, steps = 2, 4, 8, 3, 5, 4
    clips = rng.normal(size=(steps, batch, frames, side, side, channels)).astype(np.float32)
    labels = rng.randint(0, classes, (steps, batch)).astype(np.int32)

    def weight(name, shape):
        return tf.get_variable(name, initializer=rng.normal(0, 0.3, shape).astype(np.float32))

    def init(*shape):
        return tf.constant_initializer(rng.normal(0, 0.3, shape))

    x = tf.placeholder(tf.float32, [None, frames, side, side, channels], name="clips")
    y = tf.placeholder(tf.int32, [None], name="labels")
    training = tf.placeholder_with_default(True, [], name="training")

    w1 = weight("conv1_w", (3, 3, 3, channels, 6))
    conv1 = tf.nn.relu(tf.nn.conv3d(x, w1, [1, 1, 1, 1, 1], "SAME"))            # 4x8x8x6
    pool1 = tf.nn.max_pool3d(conv1, [1, 1, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")    # 4x4x4x6
    spatial = tf.layers.conv3d(pool1, 8, (1, 3, 3), padding="same", activation=tf.nn.relu,
                               kernel_initializer=init(1, 3, 3, 6, 8), name="spatial")
    temporal = tf.layers.conv3d(spatial, 8, (3, 1, 1), padding="same", dilation_rate=(2, 1, 1),
                                kernel_initializer=init(3, 1, 1, 8, 8), name="temporal")
    normed = tf.nn.relu(tf.layers.batch_normalization(temporal, axis=-1, training=training,
                                                      momentum=0.9, name="bn"))
    pool2 = tf.layers.max_pooling3d(normed, 2, 2, name="pool2")                   # 2x2x2x8
    w3 = weight("conv3_w", (2, 3, 3, 8, 10))
    conv3 = tf.nn.relu(tf.nn.conv3d(normed, w3, [1, 1, 2, 2, 1], "VALID"))        # 3x1x1x10
    features = tf.concat([tf.reduce_mean(pool2, axis=[1, 2, 3]),
                          tf.reduce_mean(tf.nn.avg_pool3d(conv3, [1, 3, 1, 1, 1],
                                                          [1, 1, 1, 1, 1], "VALID"),
                                         axis=[1, 2, 3])], axis=1)
    w_fc = weight("fc_w", (18, classes))
    logits = tf.matmul(features, w_fc)
    xent = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.one_hot(y, classes), logits=logits))

    # the decoder: 2x2x2x8 -> 4x4x4x6 (with pool1's skip) -> 4x8x8x3
    w_up = weight("up1_w", (2, 2, 2, 6, 8))
    up_shape = tf.stack([tf.shape(x)[0], frames, side // 2, side // 2, 6])
    up1 = tf.nn.conv3d_transpose(pool2, w_up, up_shape, [1, 2, 2, 2, 1], "SAME")
    merged = tf.concat([tf.nn.relu(up1), pool1], axis=-1)
    decoded = tf.layers.conv3d_transpose(merged, channels, (1, 3, 3), strides=(1, 2, 2),
                                         padding="same", kernel_initializer=init(1, 3, 3, 3, 12),
                                         name="up2")
    recon = tf.reduce_mean(tf.square(decoded - x))
    loss = xent + 0.1 * recon

    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(loss)
    grads = tf.gradients(loss, [w1, w_up, pool1, x])
    # a gradient penalty (as video GANs add): second derivatives through max_pool3d, conv3d
    input_grad = tf.gradients(tf.reduce_sum(tf.square(pool1)), x)[0]
    penalty_grad = tf.gradients(tf.reduce_sum(tf.square(input_grad)), w1)[0]

    out["shapes"] = [t.shape.as_list() for t in (conv1, pool1, spatial, temporal, pool2, conv3,
                                                  features, up1, merged, decoded)]
    out["update_ops"] = len(update_ops)
    out["trainable"] = [v.name for v in tf.trainable_variables()]
    out["_tol"] = {"first_grads": {"rtol": 1e-3, "atol": 1e-5},
                   "penalty_grad": {"rtol": 1e-3, "atol": 1e-4},
                   "history": {"rtol": 1e-4, "atol": 1e-5}}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: clips[0], y: labels[0]}
        out["first_grads"] = sess.run(grads, feed)
        out["first_features"] = sess.run(features, feed)
        out["penalty_grad"] = sess.run(penalty_grad[:, 1, 1], feed)
        history = []
        for step in range(steps):
            _, xl, rl = sess.run([train_op, xent, recon], {x: clips[step], y: labels[step]})
            history.append([xl, rl])
        out["history"] = np.array(history)
        out["moving_stats"] = sess.run([v for v in tf.global_variables() if "moving" in v.name])
        out["eval"] = sess.run({"features": features, "decoded": decoded[0, 1, :, :, 0],
                                "probs": tf.nn.softmax(logits)},
                               {x: clips[0], training: False})

        # the same convolution and pool through the generic entry points
        w_dilated = tf.constant(rng.normal(0, 0.3, (2, 2, 2, channels, 4)).astype(np.float32))
        generic = tf.nn.convolution(x, w_dilated, padding="VALID", dilation_rate=[1, 2, 2])
        strided = tf.nn.convolution(x, w_dilated, padding="SAME", strides=[1, 2, 2])
        direct = tf.nn.conv3d(x, w_dilated, [1, 1, 2, 2, 1], "SAME")
        pooled = tf.nn.pool(x, [2, 2, 2], "AVG", "VALID", dilation_rate=[1, 2, 2])
        g_pool = tf.gradients(tf.reduce_sum(pooled * pooled), x)[0]
        out["generic"] = sess.run({"dilated": generic, "strided": strided, "conv3d": direct,
                                   "pool": pooled,
                                   "pool_grad": g_pool[0, :2, :3, :3, 0]}, {x: clips[1]})
        out["generic_shapes"] = [t.shape.as_list() for t in (generic, strided, pooled)]
        channels_first = tf.nn.bias_add(tf.transpose(direct, [0, 4, 1, 2, 3]),
                                        [1.0, 2.0, 3.0, 4.0], data_format="NCDHW")
        out["bias_ncdhw"] = [channels_first.op.get_attr("data_format"),
                             sess.run(channels_first[0, :, 0, 0, 0], {x: clips[1]})]

        scale = tf.constant(rng.uniform(0.5, 1.5, channels).astype(np.float32))
        offset = tf.constant(rng.normal(0, 0.1, channels).astype(np.float32))
        fused = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3, data_format="NDHWC")
        out["fused_5d"] = sess.run(list(fused[1:]) + [fused[0][1, 2, 3]], {x: clips[2]})

    def error(fn, feed):
        try:
            t = fn()
        except Exception as e:  # noqa: BLE001 - the class is what the program records
            return ["build", type(e).__name__]
        try:
            with tf.Session() as s:
                got = s.run(t, feed)
        except Exception as e:  # noqa: BLE001
            return ["run", type(e).__name__, t.shape.as_list()]
        return ["ok", t.shape.as_list(), list(got.shape)]

    # sizing a decoder before building it, as Keras-minded TF1 code did
    planned = [tf.layers.Conv3D(8, (3, 1, 1), padding="same", dilation_rate=(2, 1, 1)),
               tf.layers.MaxPooling3D(2, 2), tf.layers.Conv3DTranspose(3, (1, 3, 3), (1, 2, 2),
                                                                     padding="same")]
    out["planned_shapes"] = [layer.compute_output_shape(shape).as_list() for layer, shape in
                             zip(planned, [[None, 4, 4, 4, 8]] * 2 + [(None, 4, 4, 4, 12)])]
    data = {x: clips[0]}
    short = tf.placeholder(tf.float32, [None, None, side, side, channels], name="short")
    deep = tf.constant(np.ones((5, 3, 3, channels, 2), np.float32))
    out["errors"] = {
        "ncdhw": error(lambda: tf.nn.conv3d(tf.transpose(x, [0, 4, 1, 2, 3]), w1,
                                            [1, 1, 1, 1, 1], "SAME", data_format="NCDHW"), data),
        "deep_filter": error(lambda: tf.nn.conv3d(x, deep, [1, 1, 1, 1, 1], "VALID"), data),
        "deep_filter_unknown": error(lambda: tf.nn.conv3d(short, deep, [1, 1, 1, 1, 1], "VALID"),
                                     {short: clips[0][:, :3]}),
        "batch_stride": error(lambda: tf.nn.conv3d(x, w1, [2, 1, 1, 1, 1], "SAME"), data),
        "channel_stride": error(lambda: tf.nn.conv3d(x, w1, [1, 1, 1, 1, 2], "SAME"), data),
        "pool_too_large": error(lambda: tf.nn.max_pool3d(x, [1, 5, 2, 2, 1], [1, 1, 1, 1, 1],
                                                         "VALID"), data),
        "pool_too_large_same": error(lambda: tf.nn.avg_pool3d(x, [1, 5, 2, 2, 1],
                                                              [1, 1, 1, 1, 1], "SAME"), data),
        "fused_5d_nhwc": error(lambda: tf.nn.fused_batch_norm(x, scale, offset)[0], data),
        "lowercase_padding": error(lambda: tf.nn.conv3d(x, w1, [1, 1, 1, 1, 1], "same"), data),
        "int_strides": error(lambda: tf.nn.conv3d(x, w1, 1, "SAME"), data),
        "dilated_pool_same": error(lambda: tf.nn.pool(x, [2, 2, 2], "AVG", "SAME",
                                                      dilation_rate=[1, 2, 2]), data),
    }
