"""Training a model and shipping it as TF1 deployment scripts did: a small classifier
(dropout and batch norm under an is_training placeholder_with_default, a global step, an
exponential moving average of the weights) trained a few steps and saved; then in a fresh
graph tf.train.import_meta_graph(clear_devices=True), restore, the EMA weights swapped in
through ema.variables_to_restore(), and tf.graph_util's freeze and pruning passes
(convert_variables_to_constants with white- and blacklists, remove_training_nodes,
extract_sub_graph, must_run_on_cpu, tensor_shape_from_node_def_name); the frozen GraphDef
written with tf.io.write_graph (binary and text), read back, and served through
tf.import_graph_def with a preprocessing subgraph in input_map, return_elements and
prefixes, in a finalized graph; plus the errors a deployment script hits."""

import os
import tempfile

import numpy as np


def build(tf, rng):
    x = tf.placeholder(tf.float32, [None, 4, 4, 1], name="x")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    is_training = tf.placeholder_with_default(False, [], name="is_training")
    keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob")
    with tf.device("/cpu:0"):
        flat = tf.reshape(x, [-1, 16], name="flat")
        hidden = tf.layers.dense(flat, 6, kernel_initializer=tf.constant_initializer(
            rng.normal(0, 0.5, (16, 6))), name="hidden")
    hidden = tf.layers.batch_normalization(hidden, training=is_training, momentum=0.5,
                                           name="bn")
    hidden = tf.nn.relu(hidden)
    dropped = tf.nn.dropout(hidden, keep_prob=keep_prob, name="dropout")
    logits = tf.layers.dense(dropped, 3, kernel_initializer=tf.constant_initializer(
        rng.normal(0, 0.5, (6, 3))), name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    step = tf.train.get_or_create_global_step()
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        minimize = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=step)
    ema = tf.train.ExponentialMovingAverage(0.5, num_updates=step)
    with tf.control_dependencies([minimize]):
        train = ema.apply(tf.trainable_variables())
    return x, labels, is_training, keep_prob, hidden, dropped, probs, loss, train


def op_counts(graph_def):
    """Sorted (op type, count) of the nodes outside the batch norm: with a bool tensor for
    training, TF's batch norm builds conds (Switch/Merge) where devsession selects."""
    counts = {}
    for node in graph_def.node:
        if not node.name.startswith("bn/"):
            counts[node.op] = counts.get(node.op, 0) + 1
    return sorted(counts.items())


def main(tf, out):
    rng = np.random.RandomState(0)
    images = rng.uniform(0, 1, (8, 4, 4, 1)).astype(np.float32)
    targets = rng.randint(0, 3, 8).astype(np.int64)
    raw = rng.randint(0, 256, (2, 6, 6, 1)).astype(np.uint8)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.ckpt")
        with tf.Graph().as_default():
            x, labels, is_training, keep_prob, hidden, dropped, probs, loss, train = build(
                tf, rng)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                out["losses"] = np.array([sess.run([train, loss], {
                    x: images, labels: targets, is_training: True})[1] for _ in range(4)])
                h, d = sess.run([hidden, dropped], {x: images, keep_prob: 0.5})
                out["dropout_scales_kept"] = bool(np.allclose(d[d != 0], 2 * h[d != 0]))
                out["trained_probs"] = sess.run(probs, {x: images[:2]})
                out["devices"] = sorted({op.device for op in sess.graph.get_operations()})
                tf.train.Saver().save(sess, path, global_step=tf.train.get_global_step())

        with tf.Graph().as_default() as graph:
            restorer = tf.train.import_meta_graph(path + "-4.meta", clear_devices=True)
            out["cleared_devices"] = sorted({op.device for op in graph.get_operations()})
            out["averaged"] = sorted(v.op.name for v in tf.moving_average_variables())
            with tf.Session() as sess:
                restorer.restore(sess, path + "-4")
                out["restored_step"] = sess.run(tf.train.get_global_step())
                ema = tf.train.ExponentialMovingAverage(0.5)
                swap = ema.variables_to_restore()
                out["swap_names"] = sorted((k, v.op.name) for k, v in swap.items()
                                           if k != v.op.name)
                try:   # the shadow variables are in this graph: average_name makes new names
                    tf.train.Saver(swap).restore(sess, path + "-4")
                except tf.errors.NotFoundError as e:
                    out["swap_error"] = type(e).__name__
                averaged = {v.op.name + "/ExponentialMovingAverage": v
                            for v in tf.moving_average_variables()}
                tf.train.Saver(averaged).restore(sess, path + "-4")
                out["ema_probs"] = sess.run("probs:0", {"x:0": images[:2]})
                graph_def = graph.as_graph_def()
                frozen = tf.graph_util.convert_variables_to_constants(
                    sess, graph_def, ["probs"])
                partial = tf.graph_util.convert_variables_to_constants(
                    sess, graph_def, ["probs"], variable_names_whitelist=["hidden/kernel"])
                kept = tf.graph_util.convert_variables_to_constants(
                    sess, graph_def, ["probs"], variable_names_blacklist=["logits/bias"])
                try:
                    tf.graph_util.convert_variables_to_constants(sess, graph_def, ["nope"])
                except AssertionError as e:
                    out["missing_output"] = str(e)
                out["x_shape"] = tf.graph_util.tensor_shape_from_node_def_name(
                    graph, "x").as_list()
                out["probs_shape"] = tf.graph_util.tensor_shape_from_node_def_name(
                    graph, "probs:0").as_list()
        out["variable_ops"] = [sorted(n.name for n in g.node if n.op == "VariableV2")
                               for g in (frozen, partial, kept)]
        out["frozen_ops"] = op_counts(frozen)
        pruned = tf.graph_util.remove_training_nodes(frozen, protected_nodes=["probs"])
        out["pruned_ops"] = op_counts(pruned)
        logits_only = tf.graph_util.extract_sub_graph(pruned, ["logits/BiasAdd"])
        out["logits_only_ops"] = op_counts(logits_only)
        out["on_cpu"] = {n.name: tf.graph_util.must_run_on_cpu(n) for n in frozen.node
                         if n.name in ("flat/shape", "hidden/kernel", "probs")}

        binary = tf.io.write_graph(pruned, tmp, "frozen.pb", as_text=False)
        text = tf.io.write_graph(pruned, tmp, "frozen.pbtxt", as_text=True)
        out["written"] = [os.path.basename(binary), os.path.basename(text)]
        read_back = tf.GraphDef()
        with open(binary, "rb") as f:
            read_back.ParseFromString(f.read())
        out["binary_round_trip"] = read_back == pruned
        with open(text) as f:
            out["text_names_probs"] = 'name: "probs"' in f.read()

        with tf.Graph().as_default() as serving:
            raw_images = tf.placeholder(tf.uint8, [None, 6, 6, 1], name="raw_images")
            resized = tf.image.resize(tf.cast(raw_images, tf.float32), [4, 4])
            normalised = tf.identity(resized / 255.0, name="normalised")
            served, logits_op = tf.import_graph_def(
                read_back, input_map={"x:0": normalised},
                return_elements=["probs:0", "logits/BiasAdd"], name="")
            out["return_elements"] = [served.name, isinstance(served, tf.Tensor),
                                      logits_op.name, isinstance(logits_op, tf.Operation)]
            (prefixed,) = tf.import_graph_def(read_back, input_map={"x": normalised},
                                              return_elements=["probs:0"], name="model")
            out["prefixed_name"] = prefixed.name
            names = [op.name for op in serving.get_operations()]
            out["order"] = [names.index(n) < names.index(m) for n, m in
                            [("raw_images", "probs"), ("probs", "model/probs"),
                             ("normalised", "model/hidden/MatMul")]]
            shapes = serving.as_graph_def(add_shapes=True)
            out["output_shapes"] = {
                n.name: [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape]
                for n in shapes.node if n.name in ("raw_images", "normalised", "probs")}
            config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
            with tf.Session(graph=serving, config=config) as sess:
                sess.graph.finalize()
                out["finalized"] = serving.finalized
                try:
                    tf.constant(1.0)
                except RuntimeError as e:
                    out["finalized_error"] = str(e)
                got, again = sess.run([served, prefixed], {raw_images: raw})
                out["served_probs"] = got
                out["served_twice_equal"] = bool(np.array_equal(got, again))
        with tf.Graph().as_default() as check, tf.Session(graph=check) as sess:
            (restored_probs,) = tf.import_graph_def(read_back, return_elements=["probs:0"],
                                                name="import")
            resized = tf.image.resize(tf.cast(raw, tf.float32), [4, 4]) / 255.0
            out["served_matches_frozen"] = bool(np.allclose(
                sess.run(restored_probs, {"import/x:0": sess.run(resized)}),
                out["served_probs"], atol=1e-6))
            out["frozen_matches_ema"] = bool(np.allclose(
                sess.run(restored_probs, {"import/x:0": images[:2]}), out["ema_probs"],
                atol=1e-6))
            tf.train.write_graph(check.as_graph_def(), tmp, "serving.pbtxt")
            meta = tf.train.export_meta_graph(os.path.join(tmp, "serving.meta"),
                                              strip_default_attrs=True)
            out["stripped"] = meta.meta_info_def.stripped_default_attrs
            out["stripped_matmul_defaults"] = [
                ["transpose_a" in n.attr, "transpose_b" in n.attr]
                for n in meta.graph_def.node if n.name == "import/logits/MatMul"]
            out["meta_nodes"] = sorted(n.name for n in meta.graph_def.node
                                       if n.name in ("import/x", "import/probs"))
            out["meta_files"] = sorted(f for f in os.listdir(tmp) if f.startswith("serving"))

        for label, make in [
                ("missing_input", lambda: dict(input_map={"nope:0": tf.constant(1.0)})),
                ("missing_return", lambda: dict(return_elements=["nope:0"])),
                ("wrong_dtype", lambda: dict(input_map={"x:0": tf.zeros([1, 4, 4, 1],
                                                                        tf.int32)}))]:
            with tf.Graph().as_default():
                try:
                    tf.import_graph_def(read_back, **make())
                    out[label] = "no error"
                except ValueError:
                    out[label] = "ValueError"
    out["_tol"] = {"losses": {"rtol": 1e-5, "atol": 1e-6}}
