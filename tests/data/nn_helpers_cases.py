"""The programs tests/data/make_tf_nn_helpers.py records from TensorFlow and
tests/test_nn_helpers.py runs in devsession, written once against the TF1 module each
side passes (``tf``: ``tensorflow.compat.v1`` or ``devsession``): TF's Python helpers
``required_space_to_batch_paddings``, ``nn.with_space_to_batch``,
``nn.collapse_repeated``, ``nn.ctc_unique_labels``, ``nn.compute_average_loss`` and
``nn.scale_regularization_loss``.

Each case builds ``(fetches, feeds)``: a dict of tensors and a list of (placeholder
name, value) pairs, values known when building and fed both.
"""

import numpy as np

IMAGE = np.cos(np.arange(2 * 7 * 6 * 3) * 0.7).reshape(2, 7, 6, 3).astype(np.float32)
FILTER = np.sin(np.arange(3 * 2 * 3 * 2) * 1.3).reshape(3, 2, 3, 2).astype(np.float32)


def paddings(tf):
    shape = tf.placeholder(tf.int32, [2], name="shape")
    out = {}
    for key, (size, block, base) in {
            "plain": ([4, 5], [2, 3], None), "base": ([4, 5], [2, 3], [[1, 0], [2, 2]]),
            "exact": ([6, 9], [2, 3], [[0, 0], [0, 0]]), "one": ([7], [1], [[2, 3]]),
            "zero": ([0, 5], [4, 2], [[0, 1], [1, 0]])}.items():
        p, c = tf.required_space_to_batch_paddings(size, block, base)
        out[key + "_paddings"], out[key + "_crops"] = p, c
    p, c = tf.required_space_to_batch_paddings(shape, [3, 2], [[1, 1], [0, 2]])
    out["fed_paddings"], out["fed_crops"] = p, c
    p, c = tf.required_space_to_batch_paddings(tf.zeros([0], tf.int32),
                                               tf.zeros([0], tf.int32))
    out["none_paddings"], out["none_crops"] = p, c
    return out, [("shape:0", np.array([5, 7], np.int32))]


def _conv(tf, filt):
    return lambda x, n, padding: tf.nn.convolution(x, filt, padding)


def dilated(tf):
    """Convolutions and a pool dilated through with_space_to_batch: static and unknown
    shapes, SAME, VALID and explicit, rates of 1, 2 and 3, and spatial dims with a gap."""
    x = tf.constant(IMAGE)
    fed = tf.placeholder(tf.float32, [None, None, None, 3], name="image")
    filt = tf.constant(FILTER)
    conv = _conv(tf, filt)
    out = {
        "same": tf.nn.with_space_to_batch(x, [2, 2], "SAME", conv, filter_shape=[3, 2]),
        "valid": tf.nn.with_space_to_batch(x, [2, 3], "VALID", conv),
        "rate1": tf.nn.with_space_to_batch(x, [1, 1], "SAME", conv),
        "fed_same": tf.nn.with_space_to_batch(fed, [3, 2], "SAME", conv,
                                              filter_shape=tf.constant([3, 2, 3, 2])),
        "explicit": tf.nn.with_space_to_batch(x, [2, 2], [[0, 0], [1, 2], [2, 0], [0, 0]],
                                              conv),
        "pool": tf.nn.with_space_to_batch(
            x, [2, 2], "SAME",
            lambda v, n, padding: tf.nn.max_pool(v, [1, 2, 2, 1], [1, 1, 1, 1], padding),
            filter_shape=[2, 2]),
        # dims 1 and 3 of [batch, 7, 6, 3]: dimension 2 gets a block of 1.
        "gap": tf.nn.with_space_to_batch(
            x, [2, 2], "VALID",
            lambda v, n, padding: v[:, 1:, :, 1:] - v[:, :-1, :, :-1], spatial_dims=[1, 3]),
        "one_dim": tf.nn.with_space_to_batch(
            tf.reshape(x, [2, 42, 3]), [3], "SAME",
            lambda v, n, padding: tf.nn.conv1d(v, filt[:, 0], 1, padding), filter_shape=[3]),
    }
    return out, [("image:0", IMAGE[:1, :5])]


def ctc_labels(tf):
    labels = tf.placeholder(tf.int32, [None, None], name="labels")
    lengths = tf.placeholder(tf.int64, [None], name="lengths")
    fixed = tf.constant([[1, 1, 2, 2, 1, 3], [4, 4, 4, 4, 0, 0], [5, 6, 6, 7, 7, 7]])
    out = {}
    out["collapsed"], out["collapsed_len"] = tf.nn.collapse_repeated(labels, lengths)
    out["fixed"], out["fixed_len"] = tf.nn.collapse_repeated(fixed, [6, 4, 0])
    out["unique"], out["unique_idx"] = tf.nn.ctc_unique_labels(labels)
    out["fixed_unique"], out["fixed_unique_idx"] = tf.nn.ctc_unique_labels(fixed)
    return out, [("labels:0", np.array([[3, 3, 1, 0, 0], [2, 2, 2, 2, 2]], np.int32)),
                 ("lengths:0", np.array([3, 1], np.int64))]


def losses(tf):
    per_example = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    fed = tf.placeholder(tf.float64, [None], name="per_example")
    out = {
        "plain": tf.nn.compute_average_loss(per_example),
        "global": tf.nn.compute_average_loss(per_example, global_batch_size=8),
        "weights_row": tf.nn.compute_average_loss(per_example, sample_weight=[1.0, 0.5, 2.0]),
        "weights_full": tf.nn.compute_average_loss(
            per_example, sample_weight=[[1.0, 0.0], [2.0, 1.0], [0.5, 0.5]]),
        "weights_scalar": tf.nn.compute_average_loss(per_example, sample_weight=3.0,
                                                     global_batch_size=tf.constant(4)),
        "fed": tf.nn.compute_average_loss(fed),
        "fed_weights": tf.nn.compute_average_loss(fed, sample_weight=tf.constant(
            [[1.0], [2.0], [3.0], [4.0]])),
        "empty": tf.nn.compute_average_loss(tf.zeros([0])),
        "regularization": tf.nn.scale_regularization_loss([tf.constant(2.0),
                                                           tf.constant(1.5)]),
        "regularization_one": tf.nn.scale_regularization_loss(tf.constant([[1.0, 2.0]])),
    }
    return out, [("per_example:0", np.array([1.0, 2.0, 4.0, 8.0]))]


CASES = [paddings, dilated, ctc_labels, losses]


def run(tf, case) -> dict:
    with tf.Graph().as_default() as graph:
        fetches, feeds = case(tf)
        with tf.Session() as sess:
            return sess.run(fetches, {graph.get_tensor_by_name(name): value
                                      for name, value in feeds})


def _error(build) -> list:
    try:
        build()
    except (ValueError, TypeError) as e:
        return [type(e).__name__, str(e)]
    return ["none", ""]


def errors(tf) -> dict:
    """What the builders raise for arguments TF refuses when building."""
    out = {}
    with tf.Graph().as_default():
        x = tf.zeros([1, 4, 4, 1])
        op = lambda v, n, padding: v       # noqa: E731
        out["rate_below_one"] = _error(lambda: tf.nn.with_space_to_batch(x, [0, 1], "VALID",
                                                                         op))
        out["same_without_filter"] = _error(lambda: tf.nn.with_space_to_batch(
            x, [2, 2], "SAME", op))
        out["spatial_dims_order"] = _error(lambda: tf.nn.with_space_to_batch(
            x, [2, 2], "VALID", op, spatial_dims=[2, 1]))
        out["bad_padding"] = _error(lambda: tf.nn.with_space_to_batch(x, [2, 2], "FULL", op))
        out["padding_pairs"] = _error(lambda: tf.nn.with_space_to_batch(
            x, [2, 2], [[0, 0], [1, 1]], op))
        out["block_rank"] = _error(lambda: tf.required_space_to_batch_paddings(
            [4, 4], [[2, 2]]))
        out["loss_rank0"] = _error(lambda: tf.nn.compute_average_loss(tf.constant(1.0)))
        loss = tf.constant([1.0, 2.0])
        out["batch_vector"] = _error(lambda: tf.nn.compute_average_loss(
            loss, global_batch_size=tf.constant([2])))
        out["batch_float"] = _error(lambda: tf.nn.compute_average_loss(
            loss, global_batch_size=tf.constant(2.0)))
    return out
