"""Records what TensorFlow 2.21 does with 5-D fused batch norms, into tf_batch_norm_5d.pb
and tf_batch_norm_5d.npz, read by tests/test_batch_norm_5d.py (the models are those of
tests/batch_norm_5d_cases.py).  Run once, with TensorFlow (not a test):

    TF_USE_LEGACY_KERAS=1 TF_CPP_MIN_LOG_LEVEL=3 /work/peers/bin/python \
        tests/data/make_tf_batch_norm_5d.py

tf_batch_norm_5d.pb: ``op_graph`` (FusedBatchNormV3 and FusedBatchNormGradV3 in "NDHWC"
and "NCDHW", TF's gradients, a 3-D CNN) with its variables frozen into constants
(``convert_variables_to_constants``).  In the npz, as tests/tf_recorded.py reads them:
``feed:<placeholder>``, ``fetch:<tensor>`` TF's value of each fetch (the frozen graph run
with grappler off, so each value is its kernel's), ``static:<tensor>`` its static shape
in the imported graph (-1 unknown, [-2] unknown rank), ``key:<case key>`` the tensor's
name.  Then for each layer case, as tests/data/make_tf_batch_renorm.py records them:
``<case>:y<k>``, ``:step<k>:<variable>``, ``:grad_h``, ``:y_infer``, ``:y_flag_*``,
``:flag_*:<variable>``, ``:variables``, ``:shapes``, ``:trainable``, ``:updates``,
``:y_shape``, and ``<case>:fused`` the data_format of each FusedBatchNormV3 the layer
made (none where TF takes the non-fused path).
"""

import os
import sys

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))      # the repository root
from tests.batch_norm_5d_cases import (LAYER_CASES, built, fused_formats,  # noqa: E402
                                       layer_inputs, layout, op_feeds, op_graph, run)


def _config():
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    return config


def record_ops() -> dict:
    """The op graph frozen, written to tf_batch_norm_5d.pb, and run as imported."""
    with tf.Graph().as_default() as graph:
        tensors = op_graph(tf)
        with tf.Session(config=_config()) as sess:
            sess.run(tf.global_variables_initializer())
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), sorted({t.op.name for t in tensors.values()}))
    with open(os.path.join(HERE, "tf_batch_norm_5d.pb"), "wb") as f:
        f.write(frozen.SerializeToString())
    feeds = op_feeds()
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(frozen, name="")
        names = {key: t.name for key, t in tensors.items()}
        with tf.Session(config=_config()) as sess:
            values = sess.run(names, {f"{k}:0": v for k, v in feeds.items()})
        out = {f"feed:{k}": v for k, v in feeds.items()}
        for key, name in names.items():
            shape = graph.get_tensor_by_name(name).shape
            out[f"key:{key}"] = np.array(name)
            out[f"fetch:{name}"] = values[key]
            out[f"static:{name}"] = np.array(
                [-2] if shape.rank is None else [-1 if d is None else d
                                                 for d in shape.as_list()], np.int64)
    return out


def record_layers() -> dict:
    d = layer_inputs()
    out = dict(d)
    for name in LAYER_CASES:
        with tf.Graph().as_default() as graph, tf.Session() as sess:
            t = built(tf, name, d)
            out[f"{name}:fused"] = np.array(fused_formats(graph), dtype=str)
            out.update({f"{name}:{k}": np.array(v) for k, v in layout(tf, t).items()})
            out.update(run(tf, sess, name, t))
    return out


def main():
    out = {**record_ops(), **record_layers()}
    np.savez(os.path.join(HERE, "tf_batch_norm_5d.npz"), **out)
    print(len(out), "arrays;", {n: list(out[f"{n}:fused"]) for n in LAYER_CASES})


if __name__ == "__main__":
    main()
