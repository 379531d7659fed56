"""Explicit padding (TF >= 1.14): conv2d with [before, after] pairs in a small convnet
trained a few SGD steps, conv2d_transpose, depthwise and separable convolutions with
explicit padding, an NCHW conv2d, the gradients, and the ValueErrors TF raises."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    images = rng.uniform(0, 1, (4, 7, 6, 2)).astype(np.float32)
    labels = np.array([0, 1, 2, 1], np.int32)
    k1 = (0.4 * rng.standard_normal((3, 3, 2, 4))).astype(np.float32)
    k2 = (0.3 * rng.standard_normal((2, 3, 4, 5))).astype(np.float32)
    wd = (0.2 * rng.standard_normal((5 * 4 * 5, 3))).astype(np.float32)
    kd = (0.5 * rng.standard_normal((3, 2, 2, 2))).astype(np.float32)
    kp = (0.5 * rng.standard_normal((1, 1, 4, 3))).astype(np.float32)
    kt = (0.5 * rng.standard_normal((3, 3, 2, 4))).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 7, 6, 2], name="images")
    y = tf.placeholder(tf.int32, [None])
    K1 = tf.Variable(k1, name="k1")
    K2 = tf.Variable(k2, name="k2")
    WD = tf.Variable(wd, name="wd")
    bd = tf.Variable(tf.zeros([3]), name="bd")

    # uneven pairs: top 1, bottom 2, left 0, right 2 -> 8x7
    c1_conv = tf.nn.conv2d(x, K1, [1, 1, 1, 1], [[0, 0], [1, 2], [0, 2], [0, 0]])
    c1 = tf.nn.relu(c1_conv)
    # strided, padding wider than the window on one side -> 5x4
    c2 = tf.nn.relu(tf.nn.conv2d(c1, K2, strides=[1, 2, 2, 1],
                                 padding=[[0, 0], [2, 1], [0, 3], [0, 0]]))
    pooled = tf.nn.max_pool(c2, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="SAME")
    flat = tf.reshape(pooled, [-1, 5 * 4 * 5])
    logits = tf.matmul(flat, WD) + bd
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    dx, dk1 = tf.gradients(loss, [x, K1])

    # the other builders with explicit padding
    pads = [[0, 0], [2, 0], [1, 1], [0, 0]]
    depthwise = tf.nn.depthwise_conv2d(x, tf.constant(kd), [1, 1, 1, 1], pads)
    native = tf.nn.depthwise_conv2d_native(x, tf.constant(kd), [1, 2, 1, 1], pads)
    separable = tf.nn.separable_conv2d(x, tf.constant(kd), tf.constant(kp), [1, 1, 1, 1],
                                       pads)
    transposed = tf.nn.conv2d_transpose(c1, tf.constant(kt), [4, 7, 6, 2], [1, 1, 1, 1],
                                        [[0, 0], [1, 2], [0, 2], [0, 0]])
    nchw = tf.nn.conv2d(tf.transpose(x, [0, 3, 1, 2]), K1, [1, 1, 1, 1],
                        [[0, 0], [0, 0], [1, 2], [0, 2]], data_format="NCHW")
    d_depthwise = tf.gradients(tf.reduce_sum(tf.square(depthwise)), x)[0]

    out["static_shapes"] = {"c1": c1.shape.as_list(), "c2": c2.shape.as_list(),
                            "depthwise": depthwise.shape.as_list(),
                            "native": native.shape.as_list(),
                            "separable": separable.shape.as_list(),
                            "transposed": transposed.shape.as_list(),
                            "nchw": nchw.shape.as_list()}
    out["conv_attrs"] = {"padding": c1_conv.op.node_def.attr["padding"].s,
                         "explicit_paddings": list(c1_conv.op.get_attr("explicit_paddings"))}

    errors = {}
    bad = {"three_pairs": [[0, 0], [1, 2], [2, 1]],
           "triple": [[0, 0], [1, 2, 3], [2, 1], [0, 0]],
           "flat": [0, 0, 1, 2, 2, 1, 0, 0],
           "explicit_string": "EXPLICIT",
           "negative": [[0, 0], [-1, 2], [2, 1], [0, 0]],
           "batch": [[1, 0], [1, 2], [2, 1], [0, 0]],
           "channels": [[0, 0], [1, 2], [2, 1], [0, 1]]}
    for key, padding in sorted(bad.items()):
        try:
            tf.nn.conv2d(x, K1, [1, 1, 1, 1], padding)
            errors[key] = "no error"
        except ValueError as e:
            errors[key] = type(e).__name__ + (": nonnegative" if "nonnegative" in str(e)
                                              else ": nonzero" if "Nonzero" in str(e)
                                              else "")
    out["errors"] = errors

    feed = {x: images, y: labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run({"c1_conv": c1_conv, "c1": c1, "c2": c2, "dx": dx, "dk1": dk1, "depthwise": depthwise,
                         "native": native, "separable": separable,
                         "transposed": transposed, "nchw": nchw,
                         "d_depthwise": d_depthwise}, feed)
        out["c1_image0_channel0"] = vals["c1"][0, :, :, 0]
        out["c2_sum"] = float(vals["c2"].sum())
        out["c2_image1"] = vals["c2"][1, :, :, 1]
        out["dx_image0_channel1"] = vals["dx"][0, :, :, 1]
        out["dk1"] = vals["dk1"][:, :, 1, 2]
        out["depthwise_image0"] = vals["depthwise"][0, :, :, 3]
        out["native_sum"] = float(vals["native"].sum())
        out["native_image2"] = vals["native"][2, :, :, 0]
        out["separable_image1"] = vals["separable"][1, :, :, 2]
        out["transposed_image3"] = vals["transposed"][3, :, :, 1]
        out["nchw_matches_nhwc"] = bool(np.allclose(vals["nchw"].transpose(0, 2, 3, 1),
                                                    vals["c1_conv"], rtol=1e-5, atol=1e-5))
        out["nchw_image0_channel2"] = vals["nchw"][0, 2]
        out["d_depthwise_image1"] = vals["d_depthwise"][1, :, :, 0]
        curve = []
        for _ in range(6):
            _, lv = sess.run([train, loss], feed)
            curve.append(float(lv))
        out["loss_curve"] = curve
        out["k1_after"] = sess.run(K1)[:, :, 0, 1]
        out["k2_after"] = sess.run(K2)[:, :, 3, 0]
