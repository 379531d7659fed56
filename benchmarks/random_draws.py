"""Seeded random draws, devsession beside TF1 and numpy (``python -m
devsession.benchmarks.random_draws``): what a model's initializers and dropout cost.

Each draw is a seeded op in a graph run by a session, ours and (where TensorFlow is
installed) TF1's, and numpy's ``Generator`` doing the same kind of draw (its own
values, not TF's: the floor of drawing at all).  devsession's values are checked equal
to TF1's before timing.  Each row: the median of 15 runs, after 3 warm-up runs; ours on
the compiled tier (``kernel_compile="eager"``).  The stateless Binomial and
parameterized truncated normal take their seed from a placeholder (a constant one would
be folded).  TF's CPU kernel for the latter splits a big draw into shards by its thread
count, each reading the stream from its own first output, so its values there depend on
the machine; devsession's are TF's one-shard values, checked on a draw of 24.
"""

from __future__ import annotations

import argparse

import numpy as np

from .products import median_ms

def _seeded(draw):
    """A builder of ``draw(tf, seed)`` with its seed fed: (the draw, its feeds)."""
    def build(tf):
        seed = tf.placeholder(tf.int32, [2], name="seed")
        return draw(tf, seed), {seed: [3, 2]}
    return build


def _binomial(size):
    return _seeded(lambda tf, seed: tf.random.stateless_binomial(
        [size], seed, counts=50.0, probs=0.3, output_dtype=tf.float32))


def _truncated(size):
    return _seeded(lambda tf, seed: tf.random.stateless_parameterized_truncated_normal(
        [size], seed, means=0.0, stddevs=1.0, minvals=-1.0, maxvals=1.0))


# (label, builder over a TF1-style module, numpy's draw of the same size[, the builder
# whose values are checked, where TF's big draw's values depend on its machine])
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
    ("binomial 1M (50, 0.3)", _binomial(N),
     lambda rng: rng.binomial(50, 0.3, N).astype(np.float32)),
    ("param. truncated 1M", _truncated(N),
     lambda rng: rng.standard_normal(N, dtype=np.float32), _truncated(24)),
]


def _session_draw(tf, build, **session_options):
    """(a callable running the draw, its session) for a TF1-style module; ``build``
    returns the draw, or (the draw, its feeds)."""
    graph = tf.Graph()
    with graph.as_default():
        built = build(tf)
    draw, feeds = built if isinstance(built, tuple) else (built, {})
    session = tf.Session(graph=graph, **session_options)
    return (lambda: session.run(draw, feeds)), session


def _same_values(ds, tf1, build) -> bool:
    """Whether devsession's first run of ``build`` gives TF1's first run's values."""
    theirs, tf_session = _session_draw(tf1, build)
    ours, session = _session_draw(ds, build, options=ds.SessionOptions(
        kernel_compile="eager"))
    try:
        return np.array_equal(ours(), theirs())
    finally:
        session.close()
        tf_session.close()


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
    for label, build, numpy_draw, *check in DRAWS:
        check = check[0] if check else build
        ours, session = _session_draw(ds, build, options=ds.SessionOptions(
            kernel_compile="eager"))
        ours_ms = median_ms(ours, 15)
        tf_ms = float("nan")
        if tf1 is not None:
            if not _same_values(ds, tf1, check):
                raise SystemExit(f"{label}: devsession's values are not TF1's")
            theirs, tf_session = _session_draw(tf1, build)
            tf_ms = median_ms(theirs, 15)
            tf_session.close()
        session.close()
        numpy_ms = median_ms(lambda: numpy_draw(rng), 15)
        print(f"{label:<24}{ours_ms:>10.1f}ms{tf_ms:>8.1f}ms{numpy_ms:>8.1f}ms"
              f"{tf_ms / ours_ms:>9.2f}x{numpy_ms / ours_ms:>11.2f}x")


if __name__ == "__main__":
    main()
