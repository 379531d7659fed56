"""Smaller TF1 names training scripts and their tests reach for: stateless and
caller-sampled dropout (tf.nn.experimental), approx_max_k/approx_min_k, tf.test's
StubOutForTesting and disable_with_predicate, and tf.resource_loader's paths."""

import os

import numpy as np


class _Clock:
    """Something a test stubs out."""

    @staticmethod
    def now():
        return 1.0

    def tick(self):
        return "tick"


def main(tf, out):
    rng = np.random.RandomState(0)
    x = tf.constant(rng.uniform(1, 2, (4, 6)).astype(np.float32))
    rate = tf.placeholder(tf.float32, [])
    dropped = {
        "stateless": tf.nn.experimental.stateless_dropout(x, 0.5, seed=[3, 7]),
        "stateless_noise_shape": tf.nn.experimental.stateless_dropout(
            x, 0.25, seed=tf.constant([1, 2], tf.int64), noise_shape=[4, 1]),
        "stateless_philox": tf.nn.experimental.stateless_dropout(
            x, 0.3, seed=[5, 5], rng_alg="philox"),
        "stateless_fed_rate": tf.nn.experimental.stateless_dropout(x, rate, seed=[9, 9]),
        "general": tf.nn.experimental.general_dropout(
            x, 0.4, lambda shape, dtype: tf.random.stateless_uniform(shape, [4, 4],
                                                                      dtype=dtype)),
    }
    out["dropout_dtypes"] = [t.dtype.name for t in dropped.values()]
    out["rate_zero_is_x"] = tf.nn.experimental.stateless_dropout(x, 0.0, seed=[1, 1]) is x
    errors = []
    for call in (lambda: tf.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 1]),
                 lambda: tf.nn.experimental.stateless_dropout(tf.constant([1, 2]), 0.5,
                                                              seed=[1, 1])):
        try:
            call()
            errors.append(None)
        except ValueError:
            errors.append("ValueError")
    out["dropout_errors"] = errors

    values = tf.constant(np.array([[3., 1., 4., 1., 5., 9., 2., 6.],
                                   [5., 3., 5., 8., 9., 7., 9., 3.]], np.float32))
    top = tf.math.approx_max_k(values, 3)
    out["approx_kind"] = [type(top).__name__, list(top._fields)]
    cube = tf.constant(rng.standard_normal((2, 3, 5)).astype(np.float32))
    ragged = tf.ragged.constant([[1, 2], [3]])
    with tf.Session() as sess:
        for key, value in sess.run(dropped, {rate: 0.6}).items():
            out[key] = value
        out["approx_max_k"] = list(sess.run(top))
        out["approx_max_k_3d"] = list(sess.run(tf.nn.approx_max_k(cube, 2)))
        out["approx_top_k"] = list(sess.run(tf.approx_top_k(values, 2)))
        out["ragged_stack"] = sess.run(tf.ragged.stack([ragged, ragged])).to_list()
    # TF has no CPU kernels for these (a GPU's only; a session of a graph holding one
    # fails): their static shapes, in a graph of their own
    with tf.Graph().as_default():
        fed = tf.placeholder(tf.float32, [1, 5, 5, 2])
        weights = tf.placeholder(tf.float32, [3, 3, 2, 4])
        backprop = tf.placeholder(tf.float32, [1, 3, 3, 4])
        out["conv_grads_v2"] = [
            tf.conv2d_backprop_filter_v2(fed, weights, backprop, [1, 2, 2, 1],
                                         "SAME").shape.as_list(),
            tf.conv2d_backprop_input_v2(fed, weights, backprop, [1, 2, 2, 1],
                                        "SAME").shape.as_list()]
    out["v2_summaries"] = tf.summary.all_v2_summary_ops()
    try:
        tf.test.experimental.sync_devices()
        out["sync_devices"] = None
    except RuntimeError:
        out["sync_devices"] = "RuntimeError"         # eager only
    schemes = tf.io.gfile.get_registered_schemes()
    out["schemes"] = ["file" in schemes, "" in schemes]

    # tf.test's stubs
    clock = _Clock()
    stubs = tf.test.StubOutForTesting()
    stubs.Set(os.path, "exists", lambda path: "stubbed")
    stubs.SmartSet(clock, "tick", lambda self: "tock")
    stubs.Set(_Clock, "now", staticmethod(lambda: 2.0))
    during = [os.path.exists("/nowhere"), clock.tick(), _Clock().tick(), _Clock.now()]
    stubs.CleanUp()
    after = [os.path.exists("/nowhere"), clock.tick(), _Clock.now(),
             isinstance(vars(_Clock)["now"], staticmethod)]
    with tf.test.StubOutForTesting() as scoped:
        scoped.SmartSet(os.path, "isdir", lambda path: "scoped")
        inside = os.path.isdir("/nowhere")
    out["stubs"] = [during, after, inside, os.path.isdir("/nowhere")]

    ran = []

    class Checks(tf.test.TestCase):
        @tf.test.disable_with_predicate(lambda: True, "always off")
        def test_off(self):
            ran.append("off")

        @tf.test.disable_with_predicate(lambda: False, "never off")
        def test_on(self):
            ran.append("on")

    outcomes = []
    for name in ("test_off", "test_on"):
        result = Checks(name).run()                     # as unittest runs a case
        outcomes.append([name, [m for _, m in result.skipped], result.testsRun])
    out["predicate"] = [sorted(ran), outcomes]
    out["eager_op_as_function"] = tf.test.with_eager_op_as_function(Checks) is Checks

    here = os.path.dirname(os.path.abspath(__file__))
    out["resource_paths"] = [tf.resource_loader.get_data_files_path() == here,
                             tf.resource_loader.get_path_to_datafile("data/x.csv") ==
                             os.path.join(here, "data/x.csv"),
                             tf.resource_loader.readahead_file_path("/tmp/a")]
