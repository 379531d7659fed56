"""Writes tf_special_functions.pb (a GraphDef TensorFlow builds with the special
functions: Lgamma, Digamma, Polygamma, Zeta, Igamma, Igammac, IgammaGradA, BesselI0e,
BesselI1e, Erfinv, Ndtri, and the lbeta, bessel_i0/i1 composites) and
tf_special_functions.npz (its feeds: grids of arguments with the edges, poles,
infinities and NaN; TF's values in float64 and float32; static shapes), which
tests/test_special_functions.py imports and runs.  Run with TensorFlow installed (not a
test):

    /work/peers/bin/python tests/data/make_tf_special_functions.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_math_ops

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 1e-8, 1e-5, 0.1, 0.5, 1.0, 1.5, 2.0,
         3.7, 9.99, 10.0, 25.0, 25.5, 50.0, 100.5, 171.7, 1e3, 1e10, 1e20, -0.5, -1.0,
         -1.5, -2.0, -2.5, -9.99, -10.5, -25.5, -100.5, -170.3, -1e-8, 1e300]
real_line = np.concatenate([np.linspace(-12, 12, 193), edges])
unit = np.concatenate([np.linspace(-1, 1, 81), [np.nan, 1.5, -1.5],
                       [s * (1 - 10.0 ** -k) for k in range(2, 17) for s in (1, -1)],
                       [s * 10.0 ** -k for k in (3, 10, 300) for s in (1, -1)]])
probability = np.concatenate([np.linspace(0, 1, 81), [np.nan, -0.5, 1.5],
                              [10.0 ** -k for k in (3, 5, 10, 20, 50, 100, 200, 300)],
                              [1 - 10.0 ** -k for k in (3, 5, 10, 15)],
                              [0.2499, 0.2501, 0.7499, 0.7501]])
orders = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 1.5, -1.0])
poly_x = np.array([0.0, -1.0, -1.5, 1e-5, 0.25, 0.5, 1.0, 2.5, 10.0, 37.5, 1e6, np.inf])
zeta_x = np.array([1.0, 1.5, 2.0, 3.0, 4.0, 4.5, 10.0, 30.0, 0.5])
zeta_q = np.array([-2.5, -2.0, -1.0, 0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 7.5, 30.0, 1e3])
gamma_a = np.array([1e-3, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 100.0, 1e3, 0.0, -1.0,
                    np.inf, np.nan])
gamma_x = np.array([0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 9.5, 10.5, 30.0, 100.0, 990.0,
                    1010.0, 1e4, np.inf, -1.0])


def grid(*axes):
    return [a.ravel() for a in np.meshgrid(*axes, indexing="ij")]


n_grid, poly_grid = grid(orders, poly_x)
zx_grid, zq_grid = grid(zeta_x, zeta_q)
a_grid, x_grid = grid(gamma_a, gamma_x)
feeds64 = {"x": real_line, "u": unit, "p": probability, "n": n_grid, "px": poly_grid,
           "zx": zx_grid, "zq": zq_grid, "a": a_grid, "ax": x_grid,
           "beta": np.array([[1.0, 2.0], [0.5, 0.5], [3.0, 4.0], [1e-3, 10.0]])}
feeds = {**{k: v.astype(np.float64) for k, v in feeds64.items()},
         **{f"{k}32": v.astype(np.float32) for k, v in feeds64.items()}}

graph = tf.Graph()
with graph.as_default():
    ph = {k: tf.placeholder(tf.as_dtype(v.dtype), (None,) * v.ndim, name=k)
          for k, v in feeds.items()}
    outs = {}
    for suffix in ("", "32"):
        x, u, p = ph["x" + suffix], ph["u" + suffix], ph["p" + suffix]
        outs.update({
            f"lgamma{suffix}": tf.lgamma(x), f"digamma{suffix}": tf.digamma(x),
            f"bessel_i0e{suffix}": tf.math.bessel_i0e(x),
            f"bessel_i1e{suffix}": tf.math.bessel_i1e(x),
            f"erfinv{suffix}": tf.math.erfinv(u), f"ndtri{suffix}": tf.math.ndtri(p),
            f"polygamma{suffix}": tf.polygamma(ph["n" + suffix], ph["px" + suffix]),
            f"zeta{suffix}": tf.zeta(ph["zx" + suffix], ph["zq" + suffix]),
            f"igamma{suffix}": tf.igamma(ph["a" + suffix], ph["ax" + suffix]),
            f"igammac{suffix}": tf.igammac(ph["a" + suffix], ph["ax" + suffix]),
            f"igamma_grad_a{suffix}": gen_math_ops.igamma_grad_a(ph["a" + suffix],
                                                                 ph["ax" + suffix]),
            f"lbeta{suffix}": tf.lbeta(ph["beta" + suffix]),
        })
    outs["bessel_i0"] = tf.math.bessel_i0(ph["x"][:200])
    outs["bessel_i1"] = tf.math.bessel_i1(ph["x"][:200])

with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {ph[k]: v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_special_functions.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_special_functions.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()}, **static)
print(f"{len(outs)} fetches written")
