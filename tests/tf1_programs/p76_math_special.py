"""tf.math.special: the Bessel functions J0, J1, Y0, Y1, K0, K1 and K's scaled forms,
Dawson's integral, Ei, the Fresnel integrals and Spence's function, in float64 and
float32 across each method's ranges, at their edges (0, below 0, infinities, NaN), with
their gradients and their node names; and tf.math.nextafter with its gradient."""

import numpy as np

FUNCTIONS = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e",
             "bessel_k1", "bessel_k1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin",
             "spence")
# positive points on both sides of each method's seams (0.2, 1.5, 2, 10, 25, 40)
POSITIVE = np.array([1e-9, 0.05, 0.1999, 0.2001, 0.5, 1.0, 1.4999, 1.5001, 1.9999, 2.0001,
                     3.7, 7.0, 9.999, 10.001, 17.3, 24.99, 25.01, 33.0, 39.99, 40.01, 64.0,
                     150.0, 700.0])
SIGNED = np.concatenate([-POSITIVE[[1, 4, 5, 10, 16]], [0.0], POSITIVE[:20]])
EDGES = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan])
EVEN_DOMAIN = ("bessel_j0", "bessel_j1", "dawsn", "fresnel_cos", "fresnel_sin")


def main(tf, out):
    special = tf.math.special
    values, grads = {}, {}
    x64 = tf.constant(POSITIVE[:20])
    for name in FUNCTIONS:
        fn = getattr(special, name)
        points = SIGNED if name in EVEN_DOMAIN else POSITIVE
        values[name] = fn(points)
        values[name + "_f32"] = fn(points[points < 40].astype(np.float32))
        values[name + "_edges"] = fn(EDGES)
        grads[name] = tf.gradients(tf.reduce_sum(fn(x64)), [x64])[0]
    at_seams = tf.constant([0.0, 1.0, 0.5])          # J1' at 0 and spence' at 1
    grads["bessel_j1_at_0"] = tf.gradients(special.bessel_j1(at_seams), [at_seams])[0]
    grads["spence_at_1"] = tf.gradients(special.spence(at_seams), [at_seams])[0]
    out["names"] = [getattr(special, name)(x64).name for name in FUNCTIONS]
    out["aliases"] = [special.bessel_i0(x64).name, special.bessel_i1e(x64).name]
    a = tf.constant([[0.0], [2.0], [-3.5]], tf.float32)
    b = tf.constant([1.0, 2.0, -np.inf], tf.float32)
    after = tf.math.nextafter(a, b)
    values["nextafter_f32"] = after
    values["nextafter_f64"] = tf.math.nextafter(np.array([1.0, 0.0, -1e-300, 5.0]),
                                                np.array([2.0, -1.0, 0.0, 5.0]))
    weights = tf.constant([[1.0, 2.0, 3.0]])             # no subnormal products (TF flushes them)
    grads["nextafter"] = tf.gradients(tf.reduce_sum(after * weights), [a, b])
    out["nextafter_name"] = after.name
    with tf.Session() as sess:
        for key, value in sess.run(values).items():
            if key.endswith("_edges"):                   # NaN and infinities as masks
                value = [np.isnan(value).tolist(), np.nan_to_num(value).tolist()]
            out[key] = value
        for key, value in sess.run(grads).items():
            out["grad_" + key] = value
    try:
        tf.math.nextafter(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))
        out["nextafter_shape_error"] = None
    except ValueError:
        out["nextafter_shape_error"] = "ValueError"
    try:
        special.dawsn(tf.constant([1, 2]))
        out["int_error"] = None
    except (TypeError, ValueError):
        out["int_error"] = "TypeError"
    single = {"rtol": 2e-5, "atol": 1e-6}
    double = {"rtol": 1e-10, "atol": 1e-12}
    out["_tol"] = {**{name + "_f32": single for name in FUNCTIONS},
                   **{name: double for name in FUNCTIONS},
                   **{"grad_" + name: double for name in FUNCTIONS}}
