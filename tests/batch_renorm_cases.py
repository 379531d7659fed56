"""The batch normalization models tests/test_batch_renorm.py checks (renorm, virtual
batches, adjustment), built with the TF1 module they are given (``tf``: TensorFlow in
tests/data/make_tf_batch_renorm.py, which records TF's values, ``ds`` in the test), so
both build exactly the same graphs.

Each case: a trainable per-channel scale and shift of fixed inputs, then the layer with
``training=True`` (named "bn"), a loss weighing its output with fixed weights, and plain
gradient descent run with the layer's ``UPDATE_OPS``; then the layer again, reusing its
variables, with ``training=False`` and with a bool placeholder.
"""

import numpy as np

STEPS = 4


def _adjust(tf):
    """An ``adjustment``: a scale and a bias depending on the shape it is given."""
    def adjustment(shape):
        channels = tf.cast(shape[-1], tf.float32)
        scale = 1.0 + 0.25 * tf.cast(tf.range(shape[-1]), tf.float32) / channels
        return scale, 0.1 * tf.ones([shape[-1]]) - 0.05
    return adjustment


CLIPPED = {"rmax": 1.25, "rmin": 0.8, "dmax": 0.3}

# name: (input shape, axis, the layer's options; "adjust": an adjustment is made,
# "mean0"/"var0": constant initial moving mean/variance)
CASES = {
    "renorm": ((8, 3), -1, dict(renorm=True, renorm_clipping=CLIPPED,
                                renorm_momentum=0.6, momentum=0.7)),
    "renorm_unclipped": ((8, 3), -1, dict(renorm=True, renorm_momentum=0.5, momentum=0.8,
                                          epsilon=0.01)),
    "renorm_nhwc_fused": ((6, 2, 2, 3), -1, dict(renorm=True, fused=True,
                                                 renorm_clipping={"rmax": 1.1})),
    "renorm_nchw": ((4, 3, 2, 2), 1, dict(renorm=True, renorm_clipping={"dmax": 0.05},
                                          renorm_momentum=0.7, center=False)),
    "renorm_bare": ((8, 3), -1, dict(renorm=True, scale=False, center=False, mean0=1.5,
                                     var0=2.25, renorm_clipping={"rmin": 0.9, "dmax": 0.2})),
    "renorm_3d": ((4, 3, 5), 1, dict(renorm=True, renorm_clipping=CLIPPED, momentum=0.5)),
    "virtual": ((8, 3), -1, dict(virtual_batch_size=2, momentum=0.6)),
    "virtual_nhwc": ((8, 2, 2, 3), -1, dict(virtual_batch_size=4, momentum=0.5)),
    "virtual_nchw": ((4, 3, 2, 2), 1, dict(virtual_batch_size=2, scale=False)),
    "virtual_renorm": ((8, 3), -1, dict(virtual_batch_size=4, renorm=True,
                                        renorm_clipping=CLIPPED, renorm_momentum=0.5)),
    "adjustment": ((8, 3), -1, dict(adjust=True, momentum=0.6)),
    "adjustment_renorm_nhwc": ((6, 2, 2, 3), -1, dict(adjust=True, renorm=True,
                                                      renorm_clipping=CLIPPED)),
    "adjustment_bare": ((8, 3), -1, dict(adjust=True, center=False, scale=False)),
    # axis as a list: one axis (the fused op), several (statistics of the inputs' rank)
    "axis_list_fused": ((4, 2, 2, 3), [3], dict(momentum=0.6)),
    "axes_1_3": ((4, 3, 2, 2), [1, 3], dict(momentum=0.6)),
    "axes_virtual": ((8, 3, 5), [2, 1], dict(virtual_batch_size=4, momentum=0.5)),
    "axes_renorm": ((6, 2, 3), [-1, 1], dict(renorm=True, renorm_clipping=CLIPPED)),
}


def _along(shape, axis) -> list:
    """The shape of a per-channel value over ``axis`` (an int or a list) of ``shape``."""
    axes = [a % len(shape) for a in (axis if isinstance(axis, list) else [axis])]
    return [shape[a] if a in axes else 1 for a in range(len(shape))]


def inputs(cases=None):
    """The fixed arrays of every case (of ``cases``, by default ``CASES``): ``<case>:x``
    its inputs, ``<case>:target`` the weights of its loss."""
    rng = np.random.default_rng(21)
    d = {}
    for name, (shape, axis, _) in (cases or CASES).items():
        d[f"{name}:x"] = (rng.standard_normal(shape) * 1.5 + 0.5).astype(np.float32)
        d[f"{name}:target"] = rng.standard_normal(shape).astype(np.float32)
        channels = int(np.prod(_along(shape, axis)))
        d[f"{name}:w0"] = rng.uniform(0.5, 1.5, channels).astype(np.float32)
        d[f"{name}:b0"] = rng.uniform(-0.5, 0.5, channels).astype(np.float32)
    return d


def built(tf, name, d, cases=None):
    """The case's graph in the default graph (the case ``name`` of ``cases``, by default
    ``CASES``): a dict of its tensors and ops ("h" the layer's inputs, "y" its training
    output, "loss", "train", "updates" the training layer's UPDATE_OPS, "y_infer", "flag"
    (a bool placeholder), "y_flag", "flag_updates")."""
    shape, axis, options = (cases or CASES)[name]
    options = dict(options)
    if options.pop("adjust", False):
        options["adjustment"] = _adjust(tf)
    if "mean0" in options:
        options["moving_mean_initializer"] = tf.constant_initializer(options.pop("mean0"))
    if "var0" in options:
        options["moving_variance_initializer"] = tf.constant_initializer(options.pop("var0"))
    along = _along(shape, axis)
    w = tf.get_variable("w", initializer=d[f"{name}:w0"].reshape(along))
    b = tf.get_variable("b", initializer=d[f"{name}:b0"].reshape(along))
    h = tf.constant(d[f"{name}:x"]) * w + b
    y = tf.layers.batch_normalization(h, axis=axis, training=True, name="bn", **options)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    loss = tf.reduce_sum(y * tf.constant(d[f"{name}:target"]))
    with tf.control_dependencies(updates):
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    y_infer = tf.layers.batch_normalization(h, axis=axis, training=False, name="bn",
                                            reuse=True, **options)
    flag = tf.placeholder(tf.bool, ())
    y_flag = tf.layers.batch_normalization(h, axis=axis, training=flag, name="bn",
                                           reuse=True, **options)
    flag_updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)[len(updates):]
    return {"h": h, "y": y, "loss": loss, "train": train, "updates": updates,
            "y_infer": y_infer, "flag": flag, "y_flag": y_flag,
            "flag_updates": flag_updates}


def layer_variables(tf):
    """The layer's variables, in the order made."""
    return [v for v in tf.global_variables() if v.op.name.startswith("bn/")]


# what ``layout`` records, and the recorded inputs, beside each case's values
LAYOUT = ("variables", "shapes", "trainable", "updates", "y_shape")
RECORDED_INPUTS = ("x", "target", "w0", "b0")


def layout(tf, t) -> dict:
    """What a built case's graph holds besides values: the layer's variables (names,
    shapes, trainable or not), its update ops and its output's static shape (-1:
    unknown), as lists keyed as ``LAYOUT``."""
    variables = layer_variables(tf)
    trainable = set(tf.trainable_variables())
    return {"variables": [v.op.name for v in variables],
            "shapes": [str(v.shape.as_list()) for v in variables],
            "trainable": [v in trainable for v in variables],
            "updates": [op.name for op in t["updates"]],
            "y_shape": [-1 if s is None else s for s in t["y"].shape.as_list()]}


def run(tf, sess, name, t):
    """Runs the case (its graph ``t`` from ``built``) in ``sess`` and returns what is
    compared, keyed ``<name>:<what>``."""
    out = {}
    variables = layer_variables(tf)
    sess.run(tf.global_variables_initializer())
    grad_h, = tf.gradients(t["loss"], [t["h"]])
    out[f"{name}:grad_h"] = sess.run(grad_h)
    for step in range(STEPS):
        y, _ = sess.run([t["y"], t["train"]])
        out[f"{name}:y{step}"] = y
        for v in variables + [tf.trainable_variables()[0]]:
            out[f"{name}:step{step}:{v.op.name}"] = sess.run(v)
    out[f"{name}:y_infer"] = sess.run(t["y_infer"])
    for value in (False, True):
        y, _ = sess.run([t["y_flag"], t["flag_updates"]], {t["flag"]: value})
        out[f"{name}:y_flag_{value}"] = y
        for v in variables:
            out[f"{name}:flag_{value}:{v.op.name}"] = sess.run(v)
    return out
