"""Seeded random draws, devsession beside TF1 and numpy (``python -m
devsession.benchmarks.random_draws``): what a model's initializers and dropout cost.

Each draw is a seeded op in a graph run by a session, ours and (where TensorFlow is
installed) TF1's, and numpy's ``Generator`` doing the same kind of draw (its own
values, not TF's: the floor of drawing at all).  devsession's values are checked equal
to TF1's before timing.  Each row: the median of 15 runs, after 3 warm-up runs; ours on
the compiled tier (``kernel_compile="eager"``).
"""

from __future__ import annotations

import argparse

import numpy as np

from .products import median_ms

# (label, builder over a TF1-style module, numpy's draw of the same size)
N = 1 << 20
DRAWS = [
    ("uniform 1M", lambda tf: tf.random_uniform([N], -1.0, 1.0, seed=1),
     lambda rng: rng.uniform(-1.0, 1.0, N).astype(np.float32)),
    ("normal 1M", lambda tf: tf.random_normal([N], stddev=0.1, seed=1),
     lambda rng: rng.standard_normal(N, dtype=np.float32)),
    ("truncated normal 1M", lambda tf: tf.truncated_normal([N], stddev=0.1, seed=1),
     lambda rng: rng.standard_normal(N, dtype=np.float32)),
    ("gamma 1M (alpha 2.5)", lambda tf: tf.random_gamma([N], 2.5, seed=1),
     lambda rng: rng.standard_gamma(2.5, N, dtype=np.float32)),
    ("poisson 1M (rate 30)", lambda tf: tf.random_poisson(30.0, [N], seed=1),
     lambda rng: rng.poisson(30.0, N).astype(np.float32)),
]


def _session_draw(tf, build, **session_options):
    """(a callable running the draw, its session) for a TF1-style module."""
    graph = tf.Graph()
    with graph.as_default():
        draw = build(tf)
    session = tf.Session(graph=graph, **session_options)
    return (lambda: session.run(draw)), session


def main(argv=None) -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    import devsession as ds
    try:
        import tensorflow.compat.v1 as tf1
        tf1.disable_eager_execution()
    except ImportError:
        tf1 = None
    rng = np.random.default_rng(0)
    print(f"{'draw':<24}{'devsession':>12}{'TF1':>10}{'numpy':>10}{'TF1/ours':>10}"
          f"{'numpy/ours':>12}")
    for label, build, numpy_draw in DRAWS:
        ours, session = _session_draw(ds, build, options=ds.SessionOptions(
            kernel_compile="eager"))
        ours_ms = median_ms(ours, 15)
        tf_ms = float("nan")
        if tf1 is not None:
            theirs, tf_session = _session_draw(tf1, build)
            fresh, check_session = _session_draw(ds, build, options=ds.SessionOptions(
                kernel_compile="eager"))
            if not np.array_equal(fresh(), theirs()):      # both on their first run
                raise SystemExit(f"{label}: devsession's values are not TF1's")
            check_session.close()
            tf_ms = median_ms(theirs, 15)
            tf_session.close()
        session.close()
        numpy_ms = median_ms(lambda: numpy_draw(rng), 15)
        print(f"{label:<24}{ours_ms:>10.1f}ms{tf_ms:>8.1f}ms{numpy_ms:>8.1f}ms"
              f"{tf_ms / ours_ms:>9.2f}x{numpy_ms / ours_ms:>11.2f}x")


if __name__ == "__main__":
    main()
