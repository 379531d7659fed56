"""Builds small TF1 graphs with real TensorFlow, freezes them, and records TF's outputs.

Run with the peers interpreter (TensorFlow is only needed to regenerate these files):

    /work/peers/bin/python tests/data/tf_frozen/make_frozen.py

For each model NAME it writes, next to this script:
  NAME.pb                      binary GraphDef, variables folded into Const nodes
  NAME_input.npy               the input fed (NAME_input_K.npy when there are several)
  NAME_expected.npy            TF's output for it (NAME_expected_K.npy when several)
and one manifest.json describing every model (see README.md).
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from google.protobuf import text_format
from tensorflow.core.framework import attr_value_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 1234


def _session():
    cfg = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1,
                         device_count={"GPU": 0})
    return tf.Session(config=cfg)


# ---------------------------------------------------------------- describing GraphDefs

def _dtype_name(enum_value):
    return types_pb2.DataType.Name(enum_value)


def _shape_repr(shape_proto):
    if shape_proto.unknown_rank:
        return "unknown_rank"
    return [d.size for d in shape_proto.dim]


def tensor_fields(tp):
    """Which TensorProto fields a constant uses, e.g. ['float_val'] or ['tensor_content']."""
    used = []
    for field, _ in tp.ListFields():
        if field.name in ("dtype", "tensor_shape", "version_number"):
            continue
        used.append(field.name)
    return sorted(used)


def _tensor_summary(tp):
    return {"dtype": _dtype_name(tp.dtype), "shape": _shape_repr(tp.tensor_shape),
            "fields": tensor_fields(tp)}


def attr_repr(av):
    """A JSON-friendly rendering of one AttrValue."""
    which = av.WhichOneof("value")
    if which == "type":
        return _dtype_name(av.type)
    if which == "s":
        return av.s.decode("utf-8", "replace")
    if which in ("i", "f", "b"):
        return getattr(av, which)
    if which == "shape":
        return {"shape": _shape_repr(av.shape)}
    if which == "tensor":
        return {"tensor": _tensor_summary(av.tensor)}
    if which == "list":
        out = {}
        lst = av.list
        for field, values in lst.ListFields():
            if field.name == "type":
                out["type"] = [_dtype_name(v) for v in values]
            elif field.name == "s":
                out["s"] = [v.decode("utf-8", "replace") for v in values]
            elif field.name == "shape":
                out["shape"] = [_shape_repr(v) for v in values]
            elif field.name == "tensor":
                out["tensor"] = [_tensor_summary(v) for v in values]
            else:
                out[field.name] = list(values)
        return {"list": out}
    if which == "func":
        return {"func": av.func.name}
    if which == "placeholder":
        return {"placeholder": av.placeholder}
    return {"empty_list": True} if which is None else {which: str(getattr(av, which))}


def describe_graph(gd):
    """Sorted op types, with every attr each carries and the distinct values seen."""
    ops = {}
    for node in gd.node:
        entry = ops.setdefault(node.op, {})
        for name, av in node.attr.items():
            rendered = json.dumps(attr_repr(av), sort_keys=True)
            entry.setdefault(name, set()).add(rendered)
    return {op: {a: [json.loads(v) for v in sorted(vals)] for a, vals in sorted(attrs.items())}
            for op, attrs in sorted(ops.items())}


def const_forms(gd):
    """Per Const node: dtype, shape and the TensorProto fields its value uses."""
    forms = {}
    for node in gd.node:
        if node.op == "Const":
            forms[node.name] = _tensor_summary(node.attr["value"].tensor)
    return forms


def const_form_counts(gd):
    counts = {}
    for summary in const_forms(gd).values():
        key = "+".join(summary["fields"]) or "(no value fields)"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


# ---------------------------------------------------------------- freezing and recording

def freeze(sess, graph, output_names):
    gd = graph.as_graph_def()
    frozen = tf.graph_util.convert_variables_to_constants(sess, gd, output_names)
    return frozen


def run_frozen(gd, feeds, fetch_names):
    """Re-imports the frozen GraphDef into a fresh graph and runs it: the recorded
    expectation is what TF computes from the .pb itself, not from the live graph."""
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    with tf.Session(graph=g, config=tf.ConfigProto(intra_op_parallelism_threads=1,
                                                   inter_op_parallelism_threads=1)) as s:
        return s.run(list(fetch_names), feed_dict=dict(feeds))


def _tensor_meta(graph_or_gd_tensor_name, value, file_name, static_shape):
    return {"name": graph_or_gd_tensor_name, "dtype": str(value.dtype),
            "shape": list(value.shape), "static_shape": static_shape, "file": file_name}


def _static_shape(t):
    if t.shape.dims is None:
        return None
    return [d if d is None else int(d) for d in t.shape.as_list()]


def record(name, sess, graph, inputs, outputs, manifest, note, live_values=None):
    """inputs: list of (placeholder tensor, numpy value); outputs: list of tensors."""
    out_ops = [t.op.name for t in outputs]
    gd = freeze(sess, graph, out_ops)
    feeds = [(t.name, v) for t, v in inputs]
    got = run_frozen(gd, feeds, [t.name for t in outputs])
    live = sess.run(outputs, feed_dict={t: v for t, v in inputs})
    for a, b in zip(got, live):  # the frozen graph must compute what the live graph did
        if np.asarray(a).dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, b)
    # TF fetches strings as object arrays of bytes; store them as fixed-width bytes ('S')
    # so np.load needs no pickle.
    got = [np.array(v.tolist(), dtype=bytes) if np.asarray(v).dtype == object else v
           for v in got]

    pb = gd.SerializeToString(deterministic=True)  # attr maps in a stable order
    with open(os.path.join(HERE, name + ".pb"), "wb") as f:
        f.write(pb)
    multi_in, multi_out = len(inputs) > 1, len(outputs) > 1
    in_meta, out_meta = [], []
    for k, (t, v) in enumerate(inputs):
        fn = f"{name}_input_{k}.npy" if multi_in else f"{name}_input.npy"
        np.save(os.path.join(HERE, fn), v)
        in_meta.append(_tensor_meta(t.name, np.asarray(v), fn, _static_shape(t)))
    for k, (t, v) in enumerate(zip(outputs, got)):
        fn = f"{name}_expected_{k}.npy" if multi_out else f"{name}_expected.npy"
        np.save(os.path.join(HERE, fn), v)
        out_meta.append(_tensor_meta(t.name, np.asarray(v), fn, _static_shape(t)))
    manifest["models"][name] = {
        "description": note,
        "pb": name + ".pb",
        "pb_bytes": len(pb),
        "node_count": len(gd.node),
        "inputs": in_meta,
        "outputs": out_meta,
        "op_types": sorted({n.op for n in gd.node}),
        "op_attrs": describe_graph(gd),
        "const_form_counts": const_form_counts(gd),
    }
    return gd


# ---------------------------------------------------------------- the models

def dense_params(rng, n_in, n_out, scale):
    return (rng.standard_normal((n_in, n_out)) * scale).astype(np.float32), \
        (rng.standard_normal(n_out) * 0.1).astype(np.float32)


def build_mlp(manifest):
    rng = np.random.RandomState(SEED)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        w1, b1 = dense_params(rng, 784, 64, 0.05)
        w2, b2 = dense_params(rng, 64, 10, 0.2)
        with tf.name_scope("hidden"):
            W1 = tf.Variable(w1, name="weights")
            B1 = tf.Variable(b1, name="biases")
            h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, W1), B1))
        with tf.name_scope("logits"):
            W2 = tf.Variable(w2, name="weights")
            B2 = tf.Variable(b2, name="biases")
            logits = tf.matmul(h, W2) + B2  # `+` on tensors: AddV2
        probs = tf.nn.softmax(logits, name="probs")
        with _session() as sess:
            sess.run(tf.global_variables_initializer())
            xin = rng.uniform(0, 1, (4, 784)).astype(np.float32)
            record("mlp", sess, g, [(x, xin)], [probs], manifest,
                   "x[None,784] -> MatMul+BiasAdd+Relu (64) -> MatMul+AddV2 (10) -> Softmax")


def build_convnet(manifest):
    rng = np.random.RandomState(SEED + 1)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
        k1 = (rng.standard_normal((5, 5, 1, 8)) * 0.2).astype(np.float32)
        c1 = (rng.standard_normal(8) * 0.1).astype(np.float32)
        k2 = (rng.standard_normal((3, 3, 8, 16)) * 0.15).astype(np.float32)
        c2 = (rng.standard_normal(16) * 0.1).astype(np.float32)
        wd, bd = dense_params(rng, 6 * 6 * 16, 10, 0.05)
        with tf.name_scope("conv1"):
            K1 = tf.Variable(k1, name="kernel")
            C1 = tf.Variable(c1, name="bias")
            h1 = tf.nn.relu(tf.nn.bias_add(
                tf.nn.conv2d(x, K1, strides=[1, 1, 1, 1], padding="SAME"), C1))
            p1 = tf.nn.max_pool(h1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        with tf.name_scope("conv2"):
            K2 = tf.Variable(k2, name="kernel")
            C2 = tf.Variable(c2, name="bias")
            h2 = tf.nn.relu(tf.nn.conv2d(p1, K2, strides=[1, 1, 1, 1], padding="VALID") + C2)
            p2 = tf.nn.avg_pool(h2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        flat = tf.reshape(p2, [-1, 6 * 6 * 16])
        with tf.name_scope("dense"):
            WD = tf.Variable(wd, name="weights")
            BD = tf.Variable(bd, name="biases")
            logits = tf.nn.bias_add(tf.matmul(flat, WD), BD)
        probs = tf.nn.softmax(logits, name="probs")
        with _session() as sess:
            sess.run(tf.global_variables_initializer())
            xin = rng.uniform(0, 1, (3, 28, 28, 1)).astype(np.float32)
            record("convnet", sess, g, [(x, xin)], [probs], manifest,
                   "conv5x5x8 SAME + BiasAdd + Relu -> MaxPool 2x2 SAME -> conv3x3x16 VALID -> "
                   "Relu -> AvgPool 2x2 VALID -> Reshape [-1,576] -> dense 10 -> Softmax")


def build_ops_mix(manifest):
    rng = np.random.RandomState(SEED + 2)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 6], name="x")
        ids = tf.placeholder(tf.int32, [5], name="ids")
        table = tf.Variable(rng.standard_normal((10, 3)).astype(np.float32), name="embedding")
        scale = tf.Variable(np.float32(1.5), name="bn_scale")
        offset = tf.Variable(np.float32(0.25), name="bn_offset")

        emb = tf.gather(table, ids)                                   # GatherV2 [5,3]
        s_cols = x[:, 1:5:2]                                          # StridedSlice [N,2]
        s_first = x[..., 0]                                           # StridedSlice [N]
        s_row = x[1]                                                  # StridedSlice [6]
        col = tf.expand_dims(s_first, 1)                              # ExpandDims [N,1]
        back = tf.squeeze(col, axis=[1])                              # Squeeze [N]
        shp = tf.shape(x)                                             # Shape int32 [2]
        cat = tf.concat([s_cols, col, x[:, 4:]], axis=1)              # ConcatV2 [N,5]
        row_mean = tf.reduce_mean(x, reduction_indices=[1])           # Mean [N]
        col_sum = tf.reduce_sum(x, reduction_indices=0, keep_dims=True)  # Sum [1,6]
        stacked = tf.stack([back, row_mean], axis=1)                  # Pack [N,2]
        tiled = tf.tile(emb, [2, 1])                                  # Tile [10,3]
        padded = tf.pad(emb, [[1, 0], [0, 2]])                        # Pad [6,5]
        xt = tf.transpose(x)                                          # Transpose [6,N]
        idf = tf.cast(ids, tf.float32)                                # Cast
        a = tf.maximum(x, 0.0) - 0.5 * x                              # Maximum, Mul, Sub
        b = tf.square(x) / (1.0 + tf.exp(-x))                         # Square, Exp, Neg, RealDiv
        c = tf.tanh(x) * tf.sigmoid(x) + tf.rsqrt(1.0 + tf.square(x))  # Tanh Sigmoid Rsqrt
        onehot = tf.one_hot(ids, depth=10)                            # OneHot [5,10]
        filled = tf.fill(tf.shape(x), 2.0)                            # Fill
        zeros = tf.zeros_like(x)                                      # ZerosLike
        logsm = tf.nn.log_softmax(x)                                  # LogSoftmax
        mean, var = tf.nn.moments(x, axes=[0])                        # Mean SquaredDifference
        bn = tf.nn.batch_normalization(x, mean, var, offset, scale, 1e-3)

        outs = {
            "emb_tiled_padded": tf.concat([tf.reshape(tiled, [-1]), tf.reshape(padded, [-1])], 0),
            "slices": tf.concat([tf.reshape(s_cols, [-1]), back, s_row, tf.reshape(cat, [-1])], 0),
            "shape": shp,
            "reductions": tf.concat([row_mean, tf.reshape(col_sum, [-1]),
                                     tf.reshape(stacked, [-1])], 0),
            "transposed": xt,
            "elementwise": a + b * c + filled + zeros,
            "onehot_weighted": onehot * tf.expand_dims(idf, 1),
            "log_softmax": logsm,
            "moments_bn": tf.concat([tf.expand_dims(mean, 0), tf.expand_dims(var, 0), bn], 0),
        }
        fetches = [tf.identity(t, name="out_" + k) for k, t in outs.items()]
        with _session() as sess:
            sess.run(tf.global_variables_initializer())
            xin = rng.standard_normal((4, 6)).astype(np.float32)
            idsin = np.array([3, 0, 9, 3, 7], dtype=np.int32)
            record("ops_mix", sess, g, [(x, xin), (ids, idsin)], fetches, manifest,
                   "a mix of array, reduction, elementwise and nn ops; two inputs (x float32 "
                   "[None,6], ids int32 [5]) and one Identity per output (out_*)")


def _const_node(name, dtype, shape, **fields):
    """A Const NodeDef written by hand, for TensorProto forms Python's make_tensor_proto
    never emits (TF's C++ side writes them, e.g. after Grappler's constant folding)."""
    tp = tensor_pb2.TensorProto(dtype=dtype)
    tp.tensor_shape.CopyFrom(tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in shape]))
    for field, values in fields.items():
        getattr(tp, field).extend(values)
    node = tf.NodeDef(name=name, op="Const")
    node.attr["dtype"].CopyFrom(attr_value_pb2.AttrValue(type=dtype))
    node.attr["value"].CopyFrom(attr_value_pb2.AttrValue(tensor=tp))
    return node


def build_typed_consts(manifest):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 4], name="x")
        # Written by TF's own Python (make_tensor_proto):
        scalar = tf.constant(2.5, name="scalar_f32")                        # float_val, shape []
        filled = tf.constant(1.5, shape=[3, 4], name="filled_f32")          # float_val [1.5], [3,4]
        content = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 4,
                              name="content_f32")                            # tensor_content
        shape_vec = tf.constant([4, 3], dtype=tf.int32, name="shape_i32")   # int32 vector
        one_i32 = tf.constant([12], dtype=tf.int32, name="one_elem_i32")    # int_val, shape [1]
        i64 = tf.constant(7, dtype=tf.int64, name="scalar_i64")             # int64_val
        i64_vec = tf.constant([1, 2, 3], dtype=tf.int64, name="vec_i64")    # tensor_content
        flag = tf.constant(True, name="scalar_bool")                        # bool_val
        flags = tf.constant([True, False, True, True], name="vec_bool")     # bool_val x4
        f64 = tf.constant(0.125, dtype=tf.float64, name="scalar_f64")       # double_val
        f64_fill = tf.constant(-2.0, dtype=tf.float64, shape=[2, 2], name="filled_f64")
        half = tf.constant(1.5, dtype=tf.float16, name="scalar_f16")        # half_val (bits)
        text = tf.constant([b"ab", b"cde"], name="vec_string")              # string_val

        outs = {
            "float": x * scalar + filled + content,
            "reshaped": tf.reshape(x, shape_vec),
            "flat": tf.reshape(x, one_i32),
            "int64": i64 * i64_vec,
            "bool": tf.logical_and(flags, flag),
            "float64": f64 + f64_fill,
            "float16": half * tf.constant(2.0, dtype=tf.float16, name="two_f16"),
            "string": text,
        }
        fetches = [tf.identity(t, name="out_" + k) for k, t in outs.items()]

    gd = g.as_graph_def()
    # Hand-written nodes for the forms TF's C++ writes: several typed values (int_val
    # [5,6,7]), and a truncated list whose last value repeats to fill the shape
    # (int_val [1,2,3] with shape [5] reads as [1,2,3,3,3]; TF's MakeNdarray and its C++
    # Tensor::FromProto both pad with the last value).
    extra = [
        _const_node("typed_int_val_i32", types_pb2.DT_INT32, [3], int_val=[5, 6, 7]),
        _const_node("truncated_int_val_i32", types_pb2.DT_INT32, [5], int_val=[1, 2, 3]),
        _const_node("truncated_float_val_f32", types_pb2.DT_FLOAT, [2, 3],
                    float_val=[0.5, -1.0]),
        _const_node("typed_float_val_f32", types_pb2.DT_FLOAT, [4],
                    float_val=[1.0, 2.0, 3.0, 4.0]),
    ]
    gd.node.extend(extra)
    for n in ("typed_int_val_i32", "truncated_int_val_i32", "truncated_float_val_f32",
              "typed_float_val_f32"):
        ident = tf.NodeDef(name="out_" + n, op="Identity", input=[n])
        ident.attr["T"].CopyFrom(gd.node[[m.name for m in gd.node].index(n)].attr["dtype"])
        gd.node.append(ident)

    # Import the whole thing into a graph so record() sees real tensors, then run it in TF.
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
        x2 = g2.get_tensor_by_name("x:0")
        names = [t.op.name for t in fetches] + ["out_" + n.name for n in extra]
        outs2 = [g2.get_tensor_by_name(n + ":0") for n in names]
        with _session() as sess:
            xin = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0
            final = record("typed_consts", sess, g2, [(x2, xin)], outs2, manifest,
                           "constants stored in each TensorProto form (typed value fields, one "
                           "value broadcast over the shape, truncated lists padded with their "
                           "last value, tensor_content); one Identity per output")
    forms = const_forms(final)
    manifest["models"]["typed_consts"]["const_forms"] = forms
    manifest["models"]["typed_consts"]["hand_written_consts"] = [n.name for n in extra]
    with open(os.path.join(HERE, "typed_consts.pbtxt"), "w") as f:
        f.write("# text_format dump of typed_consts.pb (for reading; the .pb is the data)\n")
        f.write(text_format.MessageToString(final))
    # The brief asks for these forms; fail loudly if TF ever writes them differently.
    want = {"scalar_f32": ["float_val"], "filled_f32": ["float_val"],
            "content_f32": ["tensor_content"], "one_elem_i32": ["int_val"],
            "scalar_i64": ["int64_val"], "scalar_bool": ["bool_val"],
            "scalar_f64": ["double_val"], "filled_f64": ["double_val"],
            "scalar_f16": ["half_val"], "vec_string": ["string_val"],
            "typed_int_val_i32": ["int_val"]}
    for node, fields in want.items():
        assert forms[node]["fields"] == fields, (node, forms[node])


def build_convnet_bn(manifest):
    """Conv + fused batch norm in inference mode (FusedBatchNormV3, as Keras and
    tf.layers freeze it) and a dense layer with tf.nn.batch_normalization (Rsqrt...)."""
    rng = np.random.RandomState(SEED + 3)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 12, 12, 3], name="x")
        k = (rng.standard_normal((3, 3, 3, 8)) * 0.3).astype(np.float32)
        wd, bd = dense_params(rng, 6 * 6 * 8, 10, 0.1)

        def stats(n):
            return [tf.Variable(v.astype(np.float32), name=name) for v, name in (
                (rng.standard_normal(n) * 0.5 + 1, "gamma"), (rng.standard_normal(n) * 0.2, "beta"),
                (rng.standard_normal(n) * 0.3, "moving_mean"),
                (rng.uniform(0.5, 2.0, n), "moving_variance"))]
        with tf.variable_scope("conv"):
            K = tf.Variable(k, name="kernel")
            gamma, beta, mean, variance = stats(8)
            h, _, _ = tf.nn.fused_batch_norm(
                tf.nn.conv2d(x, K, strides=[1, 1, 1, 1], padding="SAME"), gamma, beta,
                mean=mean, variance=variance, epsilon=0.001, is_training=False)
            p = tf.nn.max_pool(tf.nn.relu(h), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                               padding="VALID")
        with tf.variable_scope("dense"):
            WD = tf.Variable(wd, name="weights")
            gamma, beta, mean, variance = stats(10)
            z = tf.matmul(tf.reshape(p, [-1, 6 * 6 * 8]), WD)
            logits = tf.nn.batch_normalization(z, mean, variance, beta, gamma, 1e-3)
        probs = tf.nn.softmax(logits, name="probs")
        with _session() as sess:
            sess.run(tf.global_variables_initializer())
            xin = rng.standard_normal((3, 12, 12, 3)).astype(np.float32)
            record("convnet_bn", sess, g, [(x, xin)], [probs], manifest,
                   "x[None,12,12,3] -> Conv2D -> FusedBatchNormV3 (inference) -> Relu -> "
                   "MaxPool -> MatMul -> batch_normalization (Rsqrt) -> Softmax")


def build_scans_and_nd(manifest):
    """Cumsum/Cumprod with every exclusive/reverse form, GatherNd, ScatterNd and the
    TensorScatter ops (unique coordinates, so Update's result is defined)."""
    rng = np.random.RandomState(SEED + 4)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 4, 2], name="x")
        coords = tf.placeholder(tf.int32, [4, 2], name="coords")
        scans = [tf.cumsum(x, axis=1, exclusive=e, reverse=r) for e in (False, True)
                 for r in (False, True)]
        scans += [tf.cumprod(x, axis=-1, exclusive=True), tf.cumprod(x, axis=0, reverse=True)]
        picked = tf.gather_nd(x, coords)                                  # [4,2]
        scattered = tf.scatter_nd(coords, picked * 2.0, [3, 4, 2])
        dense = tf.tensor_scatter_nd_add(x, coords, picked)
        dense = tf.tensor_scatter_nd_sub(dense, coords[:2], picked[:2] * 0.5)
        dense = tf.tensor_scatter_nd_update(dense, coords[2:], -picked[2:])
        outs = {"scans": tf.stack(scans), "gather_nd": picked,
                "scatter_nd": scattered, "tensor_scatter": dense}
        fetches = [tf.identity(t, name="out_" + k) for k, t in outs.items()]
        with _session() as sess:
            xin = rng.standard_normal((3, 4, 2)).astype(np.float32)
            coordsin = np.array([[0, 1], [2, 3], [1, 0], [2, 1]], np.int32)
            record("scans_and_nd", sess, g, [(x, xin), (coords, coordsin)], fetches, manifest,
                   "Cumsum/Cumprod (exclusive, reverse), GatherNd, ScatterNd, "
                   "TensorScatterAdd/Sub/Update; inputs x float32 [3,4,2], coords int32 [4,2]")


def main():
    manifest = {
        "generated_by": "tests/data/tf_frozen/make_frozen.py",
        "tensorflow_version": tf.__version__,
        "numpy_seed": SEED,
        "tolerance": {"rtol": 1e-5, "atol": 1e-6,
                      "note": "float32 math; TF's own CPU kernels produced the expected files"},
        "models": {},
    }
    build_mlp(manifest)
    build_convnet(manifest)
    build_ops_mix(manifest)
    build_typed_consts(manifest)
    build_convnet_bn(manifest)
    build_scans_and_nd(manifest)
    total = 0
    for name in manifest["models"]:
        size = os.path.getsize(os.path.join(HERE, name + ".pb"))
        assert size < 300_000, (name, size)
        total += size
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    for name, m in manifest["models"].items():
        print(f"{name:13s} {m['pb_bytes']:7d} bytes  {m['node_count']:3d} nodes  "
              f"ops: {' '.join(m['op_types'])}")
    print("total .pb bytes:", total)


if __name__ == "__main__":
    main()
