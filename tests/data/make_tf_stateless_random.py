"""Writes tf_stateless_random.pb (a GraphDef TensorFlow builds with its stateless random
ops: tf.random.stateless_uniform/normal/truncated_normal/categorical in TF 2.x's V2 form,
the raw V1 ops TF1.x wrote, StatelessRandomGetKeyCounterAlg/GetAlg, and variables whose
initializers are TF2's seeded initializers, which draw with them) and
tf_stateless_random.npz (its feeds, TF's fetched values and static shapes, the
variables' values after ``init``, digests of long draws, and the values of
stateless_uniform with alg="philox", whose graph does not import), which
tests/test_stateless_random.py imports and runs.  Run with TensorFlow installed (not a
test):

    /work/peers/bin/python tests/data/make_tf_stateless_random.py
"""

import hashlib
import os
import sys

import numpy as np
import tensorflow as tf
import tensorflow.compat.v1 as v1

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # tests/
import stateless_random_cases  # noqa: E402

v1.disable_eager_execution()
v1.disable_resource_variables()        # TF1's VariableV2 nodes, as a TF1 training graph
HERE = os.path.dirname(os.path.abspath(__file__))
raw = tf.raw_ops
r = tf.random

graph = tf.Graph()
with graph.as_default():
    seed = v1.placeholder(tf.int32, (2,), name="seed")
    seed64 = v1.placeholder(tf.int64, (2,), name="seed64")
    size = v1.placeholder(tf.int32, (None,), name="size")
    logits = v1.placeholder(tf.float32, (None, 4), name="logits")
    outs = {
        # TF 2.x's builders: StatelessRandomGetKeyCounter and the V2 ops
        **stateless_random_cases.draws(tf, seed, seed64, size, logits),
        # the V1 ops TF1.x wrote: (shape, seed)
        "v1_uniform": raw.StatelessRandomUniform(shape=[2, 3], seed=seed),
        "v1_normal": raw.StatelessRandomNormal(shape=[5], seed=seed64, dtype=tf.float64),
        "v1_truncated": raw.StatelessTruncatedNormal(shape=[6], seed=seed),
        "v1_int": raw.StatelessRandomUniformInt(shape=[6], seed=seed, minval=np.int64(-9),
                                                maxval=np.int64(9)),
        "v1_full_int": raw.StatelessRandomUniformFullInt(shape=[3], seed=seed,
                                                         dtype=tf.int64),
        "alg": raw.StatelessRandomGetAlg(),
    }
    key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(seed=seed64)
    outs.update(key=key, counter=counter, key_alg=alg)
    # TF2's seeded initializers, as a TF-written training .meta holds them
    initializers = {"glorot": tf.initializers.GlorotUniform(seed=3),
                    "he_normal": tf.initializers.HeNormal(seed=4),
                    "trunc": tf.initializers.TruncatedNormal(stddev=0.1, seed=5),
                    "normal_init": tf.initializers.RandomNormal(seed=6)}
    variables = {name: v1.get_variable(name, [4, 3], initializer=init)
                 for name, init in initializers.items()}
    outs.update({f"initial_{k}": v.initial_value for k, v in variables.items()})
    init = v1.global_variables_initializer()

feeds = {"seed": np.array([7, -3], np.int32), "seed64": np.array([2**40 + 5, -1], np.int64),
         "size": np.array([2, 4], np.int32),
         "logits": np.array([[0.0, 1.0, -1.0, 2.0], [0.5, 0.5, -np.inf, 0.0]], np.float32)}
with v1.Session(graph=graph) as sess:
    feed = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
    values = sess.run(outs, feed)
    sess.run(init)
    after_init = sess.run({f"variable:{v.op.name}": v for v in variables.values()})
# long streams, as SHA-256 digests of TF's bytes (a truncated normal group that rejects
# many values reads on in its part of the stream; every log/sin/cos of a Box-Muller)
LONG = 100_003
with tf.Graph().as_default(), v1.Session() as sess:
    long_seed = np.array([11, 2**31 - 1], np.int32)
    long_draws = sess.run({
        f"{kind}_{dtype}": draw([LONG], long_seed, dtype=dtype)
        for kind, draw in (("uniform", r.stateless_uniform), ("normal", r.stateless_normal),
                           ("truncated", r.stateless_truncated_normal))
        for dtype in ("float16", "float32", "float64")})
digests = {f"digest:{k}": np.array(hashlib.sha256(v.tobytes()).hexdigest())
           for k, v in long_draws.items()}
# alg="philox" scrambles the seed with uint32/uint64 graph ops (not imported): its values
# only, for ds.random.stateless_uniform(..., alg="philox")
with tf.Graph().as_default(), v1.Session() as sess:
    philox = sess.run(r.stateless_uniform([4], feeds["seed"], alg="philox"))
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_stateless_random.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_stateless_random.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()}, **static,
         **after_init, **digests, philox_uniform=philox, long_size=LONG,
         long_seed=long_seed)
print(f"{len(values)} fetches written; op types:",
      sorted({n.op for n in graph.as_graph_def().node if "Stateless" in n.op}))
