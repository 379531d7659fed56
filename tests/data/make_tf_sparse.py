"""Writes what TensorFlow computes with its sparse ops, for tests/test_sparse.py.  Run
with TensorFlow installed (not a test):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_sparse.py

It writes, next to this script:

  tf_sparse_ops.pb / .npz   a GraphDef of SparseToDense, SparseTensorDenseMatMul (every
                            adjoint), SparseReduceSum, SparseReorder, SparseReshape,
                            SparseAdd (sorted and not), SparseTensorDenseAdd and from_dense
                            over sparse_placeholders "sp" and "sq" (placeholders
                            sp/indices, sp/values, sp/shape...) and dense ones, with
                            its feeds and TF's fetched values (tests/tf_recorded.py's
                            layout), and under "grad:<name>" the gradients TF computes
                            of sum(output ** 2) for the values and the dense operand
  tf_sparse_parse.pb        a GraphDef parsing VarLenFeatures (and a FixedLenFeature):
                            placeholders "one" (scalar) and "batch" (vector) into
                            ParseExampleV2 (TF's parse_single_example and
                            parse_example) and the raw ParseSingleExample op of TF 1.x's
                            parse_single_example; Identity outputs
                            "<single|batched|raw>/<key>/<indices|values|dense_shape>"
  tf_sparse_parse.json      the serialized Examples (hex) and what TF parsed from each
                            alone and from all of them as a batch
  tf_embedding_sparse.npz   nn.embedding_lookup_sparse of params (7x3) for sparse ids with
                            and without weights and each combiner ("out:<combiner>:<w>")
                            and the gradient TF gives params of sum(out ** 2)
                            ("grad:...").  Row 1 has no ids: the weighted mean and
                            sqrtn divide 0 by 0 there, 0 with TF 2.x's div_no_nan, NaN
                            with TF 1.x's div (devsession's)
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))

# an unsorted sparse [3, 4] matrix: rows 0 and 2 have entries, row 1 one
SP = {"indices": np.array([[0, 1], [2, 0], [1, 3], [2, 2], [0, 3]], np.int64),
      "values": np.array([1.5, -2.0, 3.0, 0.5, 4.0], np.float32),
      "shape": np.array([3, 4], np.int64)}


# another [3, 4] matrix: [0, 1] cancels SP's below the threshold 0.5, [2, 2] and [0, 3]
# add to SP's, the rest are its own
SQ = {"indices": np.array([[2, 2], [0, 1], [1, 0], [0, 3], [2, 3]], np.int64),
      "values": np.array([1.0, -1.25, 2.5, -3.0, 0.75], np.float32),
      "shape": np.array([3, 4], np.int64)}


def _sparse_ops_graph():
    rng = np.random.default_rng(11)
    dense = {"b": (4, 2), "c": (3, 2), "bt": (2, 4), "ct": (2, 3), "x": (3, 4)}
    feeds = {f"sp/{k}": v for k, v in SP.items()}
    feeds.update({f"sq/{k}": v for k, v in SQ.items()})
    feeds.update({k: rng.standard_normal(s).astype(np.float32) for k, s in dense.items()})
    feeds["x"][feeds["x"] < 0.3] = 0.0
    graph = tf.Graph()
    with graph.as_default():
        sp = tf.sparse_placeholder(tf.float32, name="sp")
        sq = tf.sparse_placeholder(tf.float32, name="sq")
        ph = {k: tf.placeholder(tf.float32, s, name=k) for k, s in dense.items()}
        ordered = tf.sparse.reorder(sp)
        products = {
            "matmul": tf.sparse.sparse_dense_matmul(sp, ph["b"]),
            "matmul_adj_a": tf.sparse.sparse_dense_matmul(sp, ph["c"], adjoint_a=True),
            "matmul_adj_b": tf.sparse.sparse_dense_matmul(sp, ph["bt"], adjoint_b=True),
            "matmul_adj_ab": tf.sparse.sparse_dense_matmul(sp, ph["ct"], adjoint_a=True,
                                                           adjoint_b=True)}
        outs = dict(products)
        outs.update({
            "to_dense": tf.sparse.to_dense(ordered),
            "to_dense_default": tf.sparse.to_dense(ordered, default_value=-1.0),
            "to_dense_unvalidated": tf.sparse.to_dense(sp, validate_indices=False),
            "sparse_to_dense_vector": tf.sparse_to_dense([1, 3], [5], [2.0, 3.0], 0.5),
            "sparse_to_dense_scalar": tf.sparse_to_dense([[0, 1], [1, 0]], [2, 2], 7.0),
            "sum_1": tf.sparse.reduce_sum(sp, axis=1),
            "sum_0_keep": tf.sparse.reduce_sum(sp, axis=0, keepdims=True),
            "sum_all": tf.sparse.reduce_sum(sp),
            "sum_last": tf.sparse.reduce_sum(sp, axis=-1),
        })
        added = tf.sparse.add(ordered, tf.sparse.reorder(sq), threshold=0.5)
        outs["add_dense"] = tf.sparse.add(sp, ph["x"])
        sparse_outs = {"reorder": ordered, "reshape": tf.sparse.reshape(sp, [-1, 2]),
                       "add": added, "add_unsorted": tf.sparse.add(sp, sq),
                       "reshape_3d": tf.sparse.reshape(sp, [2, 3, 2]),
                       "from_dense": tf.sparse.from_dense(ph["x"])}
        for key, value in sparse_outs.items():
            for part in ("indices", "values", "dense_shape"):
                outs[f"{key}_{part}"] = getattr(value, part)
        graph_def = graph.as_graph_def()         # the forward ops only
        grads = {}
        for key, out in products.items():
            operand = out.op.inputs[3]
            grads[key] = tf.gradients(tf.reduce_sum(out ** 2), [sp.values, operand])
        grads["to_dense"] = tf.gradients(tf.reduce_sum(outs["to_dense_default"] ** 2 *
                                                       tf.range(1.0, 13.0)[None, :4]),
                                         [ordered.values])
        grads["sum_1"] = tf.gradients(tf.reduce_sum(outs["sum_1"] ** 2), [sp.values])
        grads["add"] = tf.gradients(tf.reduce_sum(added.values ** 2), [sp.values, sq.values])
        grads["add_dense"] = tf.gradients(tf.reduce_sum(outs["add_dense"] ** 3),
                                          [sp.values, ph["x"]])
        grads["reorder"] = tf.gradients(tf.reduce_sum(ordered.values ** 2 *
                                                      tf.range(1.0, 6.0)), [sp.values])
        with tf.Session() as sess:
            feed = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
            values = sess.run(outs, feed)
            grad_values = sess.run(grads, feed)
    names = {k: t.name for k, t in outs.items()}
    with open(os.path.join(HERE, "tf_sparse_ops.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                           [-1 if d is None else d for d in t.shape.as_list()],
                                           np.int64) for t in outs.values()}
    gradients = {f"grad:{k}:{i}": v for k, vs in grad_values.items() for i, v in enumerate(vs)}
    np.savez(os.path.join(HERE, "tf_sparse_ops.npz"),
             **{f"feed:{k}": v for k, v in feeds.items()},
             **{f"fetch:{names[k]}": v for k, v in values.items()}, **static, **gradients)
    print(f"{len(outs)} fetches, {len(gradients)} gradients written")


EXAMPLES = [{"ids": [3, 1, 4], "w": [0.5], "label": [7]},
            {"w": [1.0, 2.0]},
            {"ids": [7], "s": [b"a", b"\x00bc"], "label": [-1]},
            {}]


def _example(values: dict) -> bytes:
    feature = {}
    for key, value in values.items():
        if isinstance(value[0], bytes):
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
        elif isinstance(value[0], float):
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=value))
        else:
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=value))
    example = tf.train.Example(features=tf.train.Features(feature=feature))
    return example.SerializeToString(deterministic=True)


def _features():
    return {"ids": tf.io.VarLenFeature(tf.int64), "w": tf.io.VarLenFeature(tf.float32),
            "s": tf.io.VarLenFeature(tf.string),
            "label": tf.io.FixedLenFeature([], tf.int64, default_value=0)}


def _as_json(value):
    if isinstance(value, tf.SparseTensorValue):
        return {"indices": value.indices.tolist(), "values": _as_json(value.values),
                "dense_shape": value.dense_shape.tolist()}
    value = np.asarray(value)
    if value.dtype == object:
        return {"hex": [v.hex() for v in value.reshape(-1)], "shape": list(value.shape)}
    return value.tolist()


def _parse_graph():
    serialized = [_example(e) for e in EXAMPLES]
    graph = tf.Graph()
    with graph.as_default():
        one = tf.placeholder(tf.string, [], name="one")
        batch = tf.placeholder(tf.string, [None], name="batch")
        single = tf.io.parse_single_example(one, _features())
        batched = tf.io.parse_example(batch, _features())
        sparse_keys = ["ids", "s", "w"]
        raw_op = tf.raw_ops.ParseSingleExample(
            serialized=one, dense_defaults=[tf.constant(0, tf.int64)], num_sparse=3,
            sparse_keys=sparse_keys, dense_keys=["label"],
            sparse_types=[tf.int64, tf.string, tf.float32], dense_shapes=[[]])
        raw = {k: tf.SparseTensor(raw_op.sparse_indices[i], raw_op.sparse_values[i],
                                  raw_op.sparse_shapes[i]) for i, k in enumerate(sparse_keys)}
        raw["label"] = raw_op.dense_values[0]
        for prefix, parsed in (("single", single), ("batched", batched), ("raw", raw)):
            for key, value in parsed.items():
                if isinstance(value, tf.SparseTensor):
                    for part in ("indices", "values", "dense_shape"):
                        tf.identity(getattr(value, part), name=f"{prefix}/{key}/{part}")
                else:
                    tf.identity(value, name=f"{prefix}/{key}")
        with tf.Session() as sess:
            alone = [sess.run(single, {one: s}) for s in serialized]
            raw_alone = [sess.run(raw, {one: s}) for s in serialized]
            together = sess.run(batched, {batch: serialized})
    for a, b in zip(alone, raw_alone):
        for key in a:
            assert np.array_equal(a[key][1] if isinstance(a[key], tuple) else a[key],
                                  b[key][1] if isinstance(b[key], tuple) else b[key])
    with open(os.path.join(HERE, "tf_sparse_parse.pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    expected = {"examples": [s.hex() for s in serialized],
                "alone": [{k: _as_json(v) for k, v in sorted(p.items())} for p in alone],
                "batch": {k: _as_json(v) for k, v in sorted(together.items())}}
    with open(os.path.join(HERE, "tf_sparse_parse.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("parsed", together)


EMBEDDING = {"ids": np.array([[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [3, 0]], np.int64),
             "id_values": np.array([1, 4, 1, 6, 0, 4], np.int64),
             "weights": np.array([0.5, 2.0, -1.0, 1.5, 0.25, 3.0], np.float32),
             "shape": np.array([5, 3], np.int64)}


def _embedding_values():
    params_value = np.random.default_rng(5).standard_normal((7, 3)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        params = tf.constant(params_value)
        ids = tf.SparseTensor(EMBEDDING["ids"], EMBEDDING["id_values"], EMBEDDING["shape"])
        weights = tf.SparseTensor(EMBEDDING["ids"], EMBEDDING["weights"], EMBEDDING["shape"])
        outs, grads = {}, {}
        for combiner in ("sum", "mean", "sqrtn"):
            for weighted in (False, True):
                key = f"{combiner}:{int(weighted)}"
                out = tf.nn.embedding_lookup_sparse(params, ids, weights if weighted else None,
                                                    combiner=combiner)
                outs[key] = out
                grads[key] = tf.convert_to_tensor(
                    tf.gradients(tf.reduce_sum(out ** 2), [params])[0])
        with tf.Session() as sess:
            out_values, grad_values = sess.run([outs, grads])
    np.savez(os.path.join(HERE, "tf_embedding_sparse.npz"), params=params_value,
             **EMBEDDING, **{f"out:{k}": v for k, v in out_values.items()},
             **{f"grad:{k}": v for k, v in grad_values.items()})
    print("embedding outputs", {k: v.shape for k, v in out_values.items()})


if __name__ == "__main__":
    _sparse_ops_graph()
    _parse_graph()
    _embedding_values()
