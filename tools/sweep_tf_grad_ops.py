"""Sweep: which op types TensorFlow's ``tf.gradients`` writes into training graphs that
devsession cannot import.  For every differentiable op a small graph is built in TF
twice (placeholders of fully known shape, and with a None batch), differentiated with
``tf.gradients``, and its GraphDef checked with devsession: op types its registry lacks,
and graphs whose import fails for another reason (an axis or shape computed at run
time...).  Not a test.  Run from the repository root with TensorFlow installed:

    /work/peers/bin/python tools/sweep_tf_grad_ops.py [OUT_DIR]

It writes ``OUT_DIR/<case>_{known,none}.pb`` with TF, then reruns itself with
devsession's venv (``--check OUT_DIR``) to report.
"""

import os
import subprocess
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cases(tf):
    """case name -> (input shapes, build(*placeholders) -> output).  The first dim of
    every input is the batch (None in the ``none`` variant)."""
    nn = tf.nn
    v = (4, 3)
    img = (2, 6, 6, 3)
    return {
        # activations and unary math
        "relu": ((v,), nn.relu), "relu6": ((v,), nn.relu6), "elu": ((v,), nn.elu),
        "selu": ((v,), nn.selu), "leaky_relu": ((v,), lambda x: nn.leaky_relu(x, 0.1)),
        "softplus": ((v,), nn.softplus), "softsign": ((v,), nn.softsign),
        "sigmoid": ((v,), tf.sigmoid), "tanh": ((v,), tf.tanh), "rsqrt": ((v,), tf.math.rsqrt),
        "sqrt": ((v,), tf.sqrt), "reciprocal": ((v,), tf.math.reciprocal),
        "exp": ((v,), tf.exp), "log": ((v,), tf.math.log), "square": ((v,), tf.square),
        "abs": ((v,), tf.abs), "neg": ((v,), tf.negative), "log1p": ((v,), tf.math.log1p),
        "expm1": ((v,), tf.math.expm1), "erf": ((v,), tf.math.erf), "sin": ((v,), tf.sin),
        "cos": ((v,), tf.cos), "tan": ((v,), tf.tan), "asin": ((v,), tf.asin),
        "acos": ((v,), tf.acos), "atan": ((v,), tf.atan), "sinh": ((v,), tf.sinh),
        "cosh": ((v,), tf.cosh), "lgamma": ((v,), tf.math.lgamma),
        "digamma": ((v,), tf.math.digamma), "asinh": ((v,), tf.math.asinh),
        "acosh": ((v,), tf.math.acosh), "atanh": ((v,), tf.math.atanh),
        "erfinv": ((v,), tf.math.erfinv), "softmax": ((v,), nn.softmax),
        "log_softmax": ((v,), nn.log_softmax), "l2_loss": ((v,), nn.l2_loss),
        # binary math with broadcasting
        "add": ((v, (3,)), tf.add), "sub": ((v, (3,)), tf.subtract),
        "mul": ((v, (3,)), tf.multiply), "div": ((v, (3,)), tf.divide),
        "pow": ((v, (3,)), tf.pow), "maximum": ((v, (3,)), tf.maximum),
        "minimum": ((v, (3,)), tf.minimum),
        "squared_difference": ((v, (3,)), tf.math.squared_difference),
        "atan2": ((v, (3,)), tf.atan2), "xlogy": ((v, (3,)), tf.math.xlogy),
        "div_no_nan": ((v, (3,)), tf.math.divide_no_nan),
        "floordiv": ((v, (3,)), tf.math.floordiv), "floormod": ((v, (3,)), tf.math.floormod),
        "where": ((v, v), lambda x, y: tf.where(x > 0, x, y)),
        "add_n": ((v, v), lambda x, y: tf.add_n([x, y, x])),
        # reductions
        "sum": ((v,), lambda x: tf.reduce_sum(x, 1)), "mean": ((v,), lambda x: tf.reduce_mean(x, 0)),
        "max": ((v,), lambda x: tf.reduce_max(x, 1)), "min": ((v,), lambda x: tf.reduce_min(x, 1)),
        "prod": ((v,), lambda x: tf.reduce_prod(x, 1)),
        "logsumexp": ((v,), lambda x: tf.reduce_logsumexp(x, 1)),
        "euclidean_norm": ((v,), lambda x: tf.math.reduce_euclidean_norm(x, 1)),
        "cumsum": ((v,), lambda x: tf.cumsum(x, 1)), "cumprod": ((v,), lambda x: tf.math.cumprod(x, 1)),
        "cumulative_logsumexp": ((v,), lambda x: tf.math.cumulative_logsumexp(x, 1)),
        # array ops
        "reshape": ((v,), lambda x: tf.reshape(x, [-1])),
        "transpose": ((v,), tf.transpose),
        "concat": ((v, v), lambda x, y: tf.concat([x, y], 1)),
        "concat0": ((v, v), lambda x, y: tf.concat([x, y], 0)),
        "stack": ((v, v), lambda x, y: tf.stack([x, y], 1)),
        "unstack": ((v,), lambda x: tf.unstack(x, axis=1)[1]),
        "split": ((v,), lambda x: tf.split(x, 3, axis=1)[1]),
        "split_v": ((v,), lambda x: tf.split(x, [1, 2], axis=1)[1]),
        "slice": ((v,), lambda x: tf.slice(x, [0, 1], [-1, 2])),
        "strided_slice": ((v,), lambda x: x[:, 1:]),
        "gather": (((4, 3),), lambda x: tf.gather(x, [0, 2], axis=1)),
        "gather_rows": (((4, 3),), lambda x: tf.gather(tf.transpose(x), [0, 2])),
        "gather_nd": ((v,), lambda x: tf.gather_nd(x, [[0, 1], [1, 2]])),
        "tile": ((v,), lambda x: tf.tile(x, [2, 3])), "pad": ((v,), lambda x: tf.pad(x, [[1, 1], [2, 0]])),
        "mirror_pad": ((v,), lambda x: tf.pad(x, [[1, 1], [2, 0]], mode="REFLECT")),
        "expand_dims": ((v,), lambda x: tf.expand_dims(x, 1)),
        "squeeze": (((4, 1, 3),), lambda x: tf.squeeze(x, 1)),
        "broadcast_to": (((4, 1),), lambda x: tf.broadcast_to(x, tf.stack([tf.shape(x)[0], 3]))),
        "reverse": ((v,), lambda x: tf.reverse(x, [1])), "roll": ((v,), lambda x: tf.roll(x, 1, 1)),
        "identity_n": ((v,), lambda x: tf.identity_n([x, x])[0]),
        "one_hot_matmul": ((v,), lambda x: tf.matmul(x, tf.one_hot([0, 1, 2], 3))),
        "matmul": ((v, (3, 5)), tf.matmul),
        "batch_matmul": (((2, 4, 3), (2, 3, 5)), tf.matmul),
        "batch_matmul_bcast": (((2, 4, 3), (3, 5)), tf.matmul),
        "einsum": (((2, 4, 3), (3, 5)), lambda x, y: tf.einsum("bij,jk->bik", x, y)),
        "cast": ((v,), lambda x: tf.cast(tf.cast(x, tf.float64), tf.float32)),
        "clip": ((v,), lambda x: tf.clip_by_value(x, -0.5, 0.5)),
        "clip_norm": ((v,), lambda x: tf.clip_by_norm(x, 1.0)),
        "unsorted_segment_sum": ((v,), lambda x: tf.math.unsorted_segment_sum(x, [0, 1, 0, 1], 2)),
        "segment_sum": (((4, 3),), lambda x: tf.math.segment_sum(x, [0, 0, 1, 1])),
        "top_k": ((v,), lambda x: tf.nn.top_k(x, 2).values),
        "dynamic_stitch": (((4, 3),), lambda x: tf.dynamic_stitch([[0, 1], [2, 3]], [x[:2], x[2:]])),
        # nn
        "bias_add": ((v, (3,)), nn.bias_add),
        "xent": ((v, v), lambda x, y: nn.softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(y), logits=x)),
        "sparse_xent": ((v,), lambda x: nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros(tf.shape(x)[:1], tf.int32), logits=x)),
        "sigmoid_xent": ((v, v), lambda x, y: nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(y), logits=x)),
        "l2_normalize": ((v,), lambda x: nn.l2_normalize(x, 1)),
        "moments": ((v,), lambda x: tf.add_n(nn.moments(x, [0]))),
        "dropout": ((v,), lambda x: nn.dropout(x, rate=0.5, seed=1)),
        "conv2d": ((img, (3, 3, 3, 4)), lambda x, f: nn.conv2d(x, f, [1, 1, 1, 1], "SAME")),
        "conv2d_stride": ((img, (3, 3, 3, 4)), lambda x, f: nn.conv2d(x, f, [1, 2, 2, 1], "VALID")),
        "depthwise": ((img, (3, 3, 3, 2)), lambda x, f: nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME")),
        "conv2d_transpose": ((img, (3, 3, 2, 3)), lambda x, f: nn.conv2d_transpose(
            x, f, tf.stack([tf.shape(x)[0], 6, 6, 2]), [1, 1, 1, 1], "SAME")),
        "max_pool": ((img,), lambda x: nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")),
        "avg_pool": ((img,), lambda x: nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")),
        "lrn": ((img,), lambda x: nn.lrn(x, 2)),
        "resize_bilinear": ((img,), lambda x: tf.image.resize_bilinear(x, [8, 8])),
        "resize_nearest": ((img,), lambda x: tf.image.resize_nearest_neighbor(x, [8, 8])),
        "fused_bn_train": ((img, (3,), (3,)), lambda x, s, o: nn.fused_batch_norm(x, s, o)[0]),
        "fused_bn_infer": ((img, (3,), (3,)), lambda x, s, o: nn.fused_batch_norm(
            x, s, o, mean=tf.zeros([3]), variance=tf.ones([3]), is_training=False)[0]),
        "batch_norm": ((img, (3,), (3,)), lambda x, s, o: nn.batch_normalization(
            x, *nn.moments(x, [0, 1, 2]), o, s, 1e-3)),
        "space_to_depth": ((img,), lambda x: tf.nn.space_to_depth(x, 2)),
        "depth_to_space": (((2, 3, 3, 4),), lambda x: tf.nn.depth_to_space(x, 2)),
        "space_to_batch": ((img,), lambda x: tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])),
        "mlp": ((v,), lambda x: _mlp(tf, x)),
        "convnet": ((img,), lambda x: _convnet(tf, x)),
        "matrix_inverse": (((2, 3, 3),), lambda x: tf.linalg.inv(x + 3 * tf.eye(3))),
        "cholesky": (((2, 3, 3),), lambda x: tf.linalg.cholesky(tf.matmul(x, x, transpose_b=True) + tf.eye(3))),
        "determinant": (((2, 3, 3),), tf.linalg.det),
        "select_v2": ((v, (3,)), lambda x, y: tf.where_v2(x > 0, x, y)),
    }


def _mlp(tf, x):
    """Two dense layers (variables, MatMul, BiasAdd, Relu) and a cross entropy."""
    w1 = tf.Variable(tf.ones([3, 8]) * 0.1, name="w1")
    b1 = tf.Variable(tf.zeros([8]), name="b1")
    w2 = tf.Variable(tf.ones([8, 2]) * 0.1, name="w2")
    logits = tf.matmul(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1)), w2)
    labels = tf.one_hot(tf.zeros(tf.shape(x)[:1], tf.int32), 2)
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                     logits=logits))


def _convnet(tf, x):
    """Conv2D, FusedBatchNormV3 (training), Relu, MaxPool, a dense layer, a loss."""
    f = tf.Variable(tf.ones([3, 3, 3, 4]) * 0.1, name="f")
    gamma, beta = tf.Variable(tf.ones([4]), name="gamma"), tf.Variable(tf.zeros([4]), name="beta")
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
    y = tf.nn.relu(tf.nn.fused_batch_norm(y, gamma, beta)[0])
    y = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    w = tf.Variable(tf.ones([36, 2]) * 0.1, name="w")
    logits = tf.matmul(tf.reshape(y, [-1, 36]), w)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.zeros(tf.shape(x)[:1], tf.int32), logits=logits))


def record(out: str) -> None:
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    tf.disable_resource_variables()   # TF1's VariableV2 (resource variables: elsewhere)
    for name, (shapes, build) in cases(tf).items():
        for variant in ("known", "none"):
            graph = tf.Graph()
            try:
                with graph.as_default():
                    xs = [tf.placeholder(tf.float32, (s if variant == "known" or i else
                                                      (None,) + tuple(s[1:])), name=f"x{i}")
                          for i, s in enumerate(shapes)]
                    y = build(*xs)
                    params = xs + tf.trainable_variables()
                    grads = [g for g in tf.gradients(tf.reduce_sum(y), params) if g is not None]
                    tf.group(*grads, name="train")
            except Exception as e:  # noqa: BLE001 - a report, not a test
                print(f"TF cannot build {name}/{variant}: {e}")
                continue
            with open(os.path.join(out, f"{name}_{variant}.pb"), "wb") as f:
                f.write(graph.as_graph_def().SerializeToString())
    subprocess.run([os.path.join(ROOT, ".venv/bin/python"), os.path.abspath(__file__),
                    "--check", out], check=True, cwd=ROOT)


def check(out: str) -> None:
    sys.path.insert(0, ROOT)
    import devsession as ds
    from devsession.errors import NotFoundError
    from devsession.ops.registry import get_op_def
    from devsession.tf_graph import _COMPOSITES, _REWRITES   # the op types it maps

    missing, failures = Counter(), {}
    for file in sorted(os.listdir(out)):
        graph_def = ds.read_graph_def(os.path.join(out, file))
        lacking = set()
        for node in graph_def.node:
            try:
                get_op_def(node.op)
            except NotFoundError:
                if node.op not in _COMPOSITES and node.op not in _REWRITES:
                    lacking.add(node.op)
        missing.update(lacking)
        with ds.Graph().as_default():
            try:
                ds.import_graph_def(graph_def, name="")
            except Exception as e:  # noqa: BLE001 - a report, not a test
                failures[file[:-3]] = f"{type(e).__name__}: {str(e)[:160]}"
    print("op types devsession lacks (graphs holding them):")
    for op, count in missing.most_common():
        print(f"  {op}: {count}")
    print(f"\n{len(failures)} graphs fail to import:")
    for name, error in failures.items():
        print(f"  {name}: {error}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--check"]:
        check(sys.argv[2])
    else:
        target = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tf_grad_sweep"
        os.makedirs(target, exist_ok=True)
        record(target)
