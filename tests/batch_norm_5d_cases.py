"""The 5-D batch normalization models tests/test_batch_norm_5d.py checks against
TensorFlow 2.21 (recorded by tests/data/make_tf_batch_norm_5d.py), built with the TF1
module they are given (``tf`` or ``ds``).

``LAYER_CASES``: ``tf.layers.batch_normalization`` over 5-D inputs, trained a few steps as
tests/batch_renorm_cases.py trains its cases (the same ``built`` and ``run``).  TF takes
the fused op (FusedBatchNormV3, "NDHWC" or "NCDHW") for axis 4 or 1 and the non-fused
path for any other axis; ``FUSED`` says which each case takes.

``op_graph(tf)``: FusedBatchNormV3 and FusedBatchNormGradV3 over 5-D inputs in both
formats (training, inference, ``exponential_avg_factor``, float16, a 4-D input to a 5-D
format, an empty batch), TF's gradients of them, and a 3-D CNN (Conv3D, then the layer
over axis 4 and, transposed, over axis 1) whose variables are frozen into constants.
"""

import numpy as np

from tests.batch_renorm_cases import built as _built
from tests.batch_renorm_cases import inputs as _inputs
from tests.batch_renorm_cases import (LAYOUT, RECORDED_INPUTS, layout,  # noqa: F401
                                      run)                               # (the tests' API)

# name: (input shape, axis, the layer's options), as in batch_renorm_cases
LAYER_CASES = {
    "ndhwc": ((4, 3, 2, 2, 3), -1, dict(momentum=0.7)),
    "ncdhw": ((3, 4, 2, 3, 2), 1, dict(momentum=0.5, center=False)),
    "ndhwc_axis4": ((2, 2, 3, 2, 4), 4, dict(epsilon=0.01, scale=False, mean0=0.5,
                                            var0=2.0)),
    "momentum0": ((4, 2, 2, 2, 3), -1, dict(momentum=0.0)),
    "fused_ncdhw_negative_axis": ((3, 3, 2, 2, 2), -4, dict(fused=True, momentum=0.6)),
    "axis3_not_fused": ((3, 2, 2, 3, 2), 3, dict(momentum=0.8)),
    "fused_axis2_not_fused": ((3, 2, 3, 2, 2), 2, dict(fused=True)),
}
# name -> the fused op's data_format, or None where TF takes the non-fused path
FUSED = {"ndhwc": "NDHWC", "ncdhw": "NCDHW", "ndhwc_axis4": "NDHWC", "momentum0": "NDHWC",
         "fused_ncdhw_negative_axis": "NCDHW", "axis3_not_fused": None,
         "fused_axis2_not_fused": None}


def layer_inputs():
    """The fixed arrays of the layer cases (``<case>:x``, ``:target``, ``:w0``, ``:b0``)."""
    return _inputs(LAYER_CASES)


def built(tf, name, d):
    """The layer case ``name`` built in the default graph (batch_renorm_cases.built)."""
    return _built(tf, name, d, LAYER_CASES)


def fused_formats(graph) -> list:
    """The data_format of each FusedBatchNormV3 in ``graph``, in creation order."""
    formats = [op.get_attr("data_format") for op in graph.get_operations()
               if op.type == "FusedBatchNormV3"]
    return [f.decode() if isinstance(f, bytes) else f for f in formats]


# --- the op graph ----------------------------------------------------------------------------

EPSILON = 0.01


def op_feeds():
    """The feeds of ``op_graph``: placeholder name -> value."""
    rng = np.random.default_rng(5)

    def normal(*shape, dtype=np.float32):
        return (rng.standard_normal(shape) * 1.5 + 0.5).astype(dtype)
    return {"x_ndhwc": normal(2, 3, 4, 2, 5), "x_ncdhw": normal(2, 5, 3, 2, 4),
            "x_half": normal(3, 2, 2, 3, 5, dtype=np.float16), "x_any": normal(3, 5, 2, 4),
            "x_empty": normal(0, 2, 2, 3, 5), "dy_ndhwc": normal(2, 3, 4, 2, 5),
            "dy_ncdhw": normal(2, 5, 3, 2, 4), "x_model": normal(2, 4, 5, 6, 2)}


def _params(channels, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.5, 1.5, channels).astype(np.float32),     # scale
            rng.uniform(-0.5, 0.5, channels).astype(np.float32),    # offset
            rng.uniform(-0.5, 0.5, channels).astype(np.float32),    # mean
            rng.uniform(0.5, 2.0, channels).astype(np.float32))     # variance


def op_graph(tf):
    """The op cases built in the default graph: {fetch key: tensor}."""
    feeds = op_feeds()
    x = {k: tf.placeholder(tf.as_dtype(v.dtype), None if k == "x_any" else
                           (None,) + v.shape[1:], name=k) for k, v in feeds.items()}
    scale, offset, mean, variance = (tf.constant(p) for p in _params(5, 7))
    out = {}

    def norm(key, x_, fmt, training, factor=1.0, stats=True):
        y, m, v = tf.nn.fused_batch_norm(
            x_, scale, offset, mean=mean if stats else None,
            variance=variance if stats else None, epsilon=EPSILON, data_format=fmt,
            is_training=training, exponential_avg_factor=factor, name=key)
        out.update({f"{key}:y": y, f"{key}:mean": m, f"{key}:variance": v})
        return y

    grads_of = {
        "ndhwc_train": norm("ndhwc_train", x["x_ndhwc"], "NDHWC", True, stats=False),
        "ndhwc_infer": norm("ndhwc_infer", x["x_ndhwc"], "NDHWC", False),
        "ncdhw_train_avg": norm("ncdhw_train_avg", x["x_ncdhw"], "NCDHW", True, 0.25),
        "ncdhw_infer": norm("ncdhw_infer", x["x_ncdhw"], "NCDHW", False),
    }
    norm("ndhwc_avg", x["x_ndhwc"], "NDHWC", True, 0.6)
    norm("ncdhw_train", x["x_ncdhw"], "NCDHW", True, stats=False)
    norm("half_ndhwc", x["x_half"], "NDHWC", True, stats=False)
    norm("any_rank_ncdhw", x["x_any"], "NCDHW", True, stats=False)   # fed 4-D
    norm("empty_ndhwc", x["x_empty"], "NDHWC", True, stats=False)
    for key, y in grads_of.items():
        dy = x["dy_ndhwc"] if key.startswith("ndhwc") else x["dy_ncdhw"]
        source = x["x_ndhwc"] if key.startswith("ndhwc") else x["x_ncdhw"]
        grads = tf.gradients(tf.reduce_sum(y * dy), [source, scale, offset])
        out.update({f"{key}:grad_{n}": g for n, g in zip(("x", "scale", "offset"), grads)})
    r_mean, r_var = out["ncdhw_train:mean"].op.outputs[3:5]     # the reserve spaces
    empty = tf.constant(np.zeros(0, np.float32))
    for key, dy, x_, stats, fmt, training in (
            ("raw_grad_ncdhw", x["dy_ncdhw"], x["x_ncdhw"], (r_mean, r_var), "NCDHW", True),
            ("raw_grad_ndhwc_infer", x["dy_ndhwc"], x["x_ndhwc"], (mean, variance), "NDHWC",
             False)):
        raw = tf.raw_ops.FusedBatchNormGradV3(
            y_backprop=dy, x=x_, scale=scale, reserve_space_1=stats[0],
            reserve_space_2=stats[1], reserve_space_3=empty, epsilon=EPSILON,
            data_format=fmt, is_training=training, name=key)
        out.update({f"{key}:{n}": t for n, t in zip(("x", "scale", "offset"), raw)})
    out["model"] = _model(tf, x["x_model"])
    return out


def _model(tf, x):
    """A 3-D CNN's inference: Conv3D, the layer over axis 4, ReLU, then the layer over
    axis 1 of the NCDHW transpose; moving statistics from fixed initializers."""
    rng = np.random.default_rng(11)
    kernel = tf.constant(rng.standard_normal((3, 3, 3, 2, 4)).astype(np.float32) * 0.3)
    h = tf.nn.conv3d(x, kernel, [1, 1, 1, 1, 1], "SAME")
    for axis, seed in ((-1, 12), (1, 13)):
        if axis == 1:
            h = tf.nn.relu(tf.transpose(h, [0, 4, 1, 2, 3]))
        gamma, beta, mean, variance = _params(4, seed)
        h = tf.layers.batch_normalization(
            h, axis=axis, training=False, epsilon=0.001,
            gamma_initializer=tf.constant_initializer(gamma),
            beta_initializer=tf.constant_initializer(beta),
            moving_mean_initializer=tf.constant_initializer(mean),
            moving_variance_initializer=tf.constant_initializer(variance))
    return tf.identity(h, name="model_out")
