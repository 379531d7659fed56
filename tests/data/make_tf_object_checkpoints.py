"""Records TensorFlow 2.21's object-based checkpoints (tf.compat.v1.train.Checkpoint and
CheckpointManager in graph mode) for tests/test_object_checkpoints.py:

* tests/data/tf_object_checkpoints/ckpt-1.*: TF's Checkpoint of a small model (a nested
  module holding a kernel and a bias, a list and a dict of variables) and its Adam
  optimizer, after two training steps; devsession restores it;
* tests/data/tf_object_checkpoints.json: every tensor's value, the checkpoint's keys,
  its TrackableObjectGraph (serialized, hex), the "checkpoint" state file, a
  CheckpointManager's files and state after four saves with max_to_keep=2, TF's
  error messages (a missing path, assert_consumed and the other assertions failing),
  and what TF restores from devsession's checkpoint of the same objects
  (tests/data/ds_object_checkpoints, written by test_object_checkpoints.save_initial;
  run the recorder after it).

Run with /work/peers/bin/python (TensorFlow); the tests never import TensorFlow.
"""

import json
import os
import shutil
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"            # tf.compat.v1.layers' classes
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_resource_variables()

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import module_cases  # noqa: E402

OUT_DIR = os.path.join(HERE, "tf_object_checkpoints")


def build(graph):
    """The model shared with the tests (object_checkpoint_cases.py builds the same in
    devsession)."""
    with graph.as_default():
        kernel = tf1.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 10,
                              name="kernel")
        bias = tf1.Variable(np.array([0.5, -0.5, 0.25], np.float32), name="bias")
        w0 = tf1.Variable(np.float64(1.5), name="w0")
        scale = tf1.Variable(np.array([3, 4], np.int32), name="scale")
        x = tf1.constant([[1.0, 2.0]])
        loss = tf1.reduce_sum(tf1.square(tf1.matmul(x, kernel) + bias))
        opt = tf1.train.AdamOptimizer(0.1)
        train = opt.minimize(loss)
        model = tf.Module()
        model.layer = tf.Module()
        model.layer.kernel = kernel
        model.layer.bias = bias
        model.extra = [w0]
        model.table = {"scale": scale}
        ckpt = tf1.train.Checkpoint(model=model, optimizer=opt)
    return ckpt, train


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- recorded, whatever it is
        return {"type": type(e).__name__, "message": str(e)}
    return None


def module_record() -> dict:
    """The tf.Module case (module_cases.py; test_object_checkpoints.build_net builds the
    same in devsession)."""
    g = tf1.Graph()
    with g.as_default():
        net = module_cases.build_net(tf.Module, tf1)
        with net.name_scope:
            inside = tf1.constant(1.0, name="c").name
        record = {"names": [net.name, net.second.name, net.first.name],
                  "scopes": [net.name_scope.name, net.second.name_scope.name],
                  "variables": [v.name for v in net.variables],
                  "trainable_variables": [v.name for v in net.trainable_variables],
                  "submodules": [m.name for m in net.submodules],
                  "inside_scope": inside,
                  "default": [tf.Module().name, tf.Module().name_scope.name],
                  "bad_name": error_of(lambda: tf.Module(name="bad name"))}
        ckpt = tf1.train.Checkpoint(net=net)
        directory = tempfile.mkdtemp()
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            path = ckpt.save(os.path.join(directory, "ckpt"), session=sess)
        reader = tf.train.load_checkpoint(path)
        record["keys"] = sorted(reader.get_variable_to_shape_map())
        record["object_graph_hex"] = reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH").hex()
        shutil.rmtree(directory)
    return record


def layers_record() -> dict:
    """A Dense and a BatchNormalization layer, called once, in a Checkpoint
    (test_object_checkpoints.build_layers builds the same in devsession)."""
    g = tf1.Graph()
    with g.as_default():
        x = tf1.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        dense = tf1.layers.Dense(2, name="fc",
                                 kernel_initializer=tf1.constant_initializer(0.5))
        norm = tf1.layers.BatchNormalization(name="bn")
        norm(dense(x), training=True)
        ckpt = tf1.train.Checkpoint(dense=dense, norm=norm)
        directory = tempfile.mkdtemp()
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            path = ckpt.save(os.path.join(directory, "ckpt"), session=sess)
        reader = tf.train.load_checkpoint(path)
        record = {"keys": sorted(reader.get_variable_to_shape_map()),
                  "object_graph_hex":
                      reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH").hex()}
        shutil.rmtree(directory)
    return record


def main():
    shutil.rmtree(OUT_DIR, ignore_errors=True)
    os.makedirs(OUT_DIR)
    record = {}
    g = tf1.Graph()
    ckpt, train = build(g)
    with g.as_default(), tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        path = ckpt.save(os.path.join(OUT_DIR, "ckpt"), session=sess)
        record["save_path"] = os.path.basename(path)
    reader = tf.train.load_checkpoint(path)
    shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
    record["keys"] = sorted(shapes)
    record["values"] = {k: {"dtype": dtypes[k].name, "shape": shapes[k],
                            "value": reader.get_tensor(k).tolist()}
                        for k in shapes if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}
    record["object_graph_hex"] = reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH").hex()
    with open(os.path.join(OUT_DIR, "checkpoint")) as f:
        record["state_file"] = f.read()

    # A CheckpointManager: four saves, two kept.
    directory = tempfile.mkdtemp()
    g = tf1.Graph()
    ckpt, train = build(g)
    with g.as_default(), tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
        saved = [manager.save() for _ in range(3)]
        saved.append(manager.save(checkpoint_number=10))
        record["manager"] = {
            "saved": [os.path.basename(p) for p in saved],
            "checkpoints": [os.path.basename(p) for p in manager.checkpoints],
            "latest": os.path.basename(manager.latest_checkpoint),
            "files": sorted(os.listdir(directory)),
            "save_counter": int(sess.run(ckpt.save_counter)),
            "state_lines": [line.split(":")[0] for line in
                            open(os.path.join(directory, "checkpoint")).read().splitlines()],
            "bad_max_to_keep": error_of(lambda: tf.train.CheckpointManager(
                ckpt, directory, max_to_keep=0)),
        }
        # a manager of the same directory resumes; saves make missing directories
        with sess.as_default():
            again = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
            record["manager"]["restore_or_initialize"] = os.path.basename(
                again.restore_or_initialize())
        nested = ckpt.save(os.path.join(directory, "a", "b", "c"), session=sess)
        record["manager"]["nested"] = sorted(os.listdir(os.path.dirname(nested)))
        # write(): no counter, no state file
        written = ckpt.write(os.path.join(directory, "plain"), session=sess)
        record["write"] = {"path": os.path.basename(written),
                           "save_counter": int(sess.run(ckpt.save_counter))}
    shutil.rmtree(directory)

    # devsession's checkpoint of the same objects, initialized (tests/data/
    # ds_object_checkpoints, written by test_object_checkpoints.save_initial), restored
    # by TensorFlow
    g = tf1.Graph()
    ckpt, _ = build(g)
    ds_prefix = os.path.join(HERE, "ds_object_checkpoints", "ckpt-1")
    with g.as_default(), tf1.Session(graph=g) as sess:
        status = ckpt.restore(ds_prefix)
        consumed = error_of(status.assert_consumed)
        status.run_restore_ops(sess)
        ds_reader = tf.train.load_checkpoint(ds_prefix)
        record["tf_read_of_ds"] = {
            "assert_consumed": consumed,
            "values": {k: sess.run(v).tolist() for k, v in {
                "model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE": ckpt.model.layer.kernel,
                "model/table/scale/.ATTRIBUTES/VARIABLE_VALUE": ckpt.model.table["scale"],
                "model/layer/bias/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE":
                    ckpt.optimizer.get_slot(ckpt.model.layer.bias, "m"),
                "optimizer/beta2_power/.ATTRIBUTES/VARIABLE_VALUE":
                    ckpt.optimizer._get_beta_accumulators()[1],
                "save_counter/.ATTRIBUTES/VARIABLE_VALUE": ckpt.save_counter}.items()},
            "keys": sorted(ds_reader.get_variable_to_shape_map())}

    # tf.Module: names, name scopes, variables, submodules, and a Checkpoint of one
    record["module"] = module_record()

    # tf.layers objects (TF_USE_LEGACY_KERAS=1: TF1's layer classes)
    record["layers"] = layers_record()

    # Errors
    errors = {}
    g = tf1.Graph()
    with g.as_default():
        errors["missing"] = error_of(
            lambda: tf1.train.Checkpoint(v=tf1.Variable(1.0)).restore("/nonexistent/ckpt-1"))
        # restore into fewer objects: the optimizer's nodes stay unresolved
        model = tf.Module()
        model.layer = tf.Module()
        model.layer.kernel = tf1.Variable(np.zeros((2, 3), np.float32), name="kernel")
        model.layer.bias = tf1.Variable(np.zeros(3, np.float32), name="bias")
        model.extra = [tf1.Variable(np.float64(0), name="w0")]
        model.table = {"scale": tf1.Variable(np.zeros(2, np.int32), name="scale")}
        status = tf1.train.Checkpoint(model=model).restore(path)
        errors["consumed_unresolved"] = error_of(status.assert_consumed)
        errors["existing_matched_ok"] = error_of(status.assert_existing_objects_matched)
        errors["nontrivial_ok"] = error_of(status.assert_nontrivial_match)
        # restore into an object the checkpoint lacks
        other = tf1.train.Checkpoint(other=tf1.Variable(1.0, name="other"))
        status = other.restore(path)
        errors["existing_unmatched"] = error_of(status.assert_existing_objects_matched)
        errors["nontrivial_unmatched"] = error_of(status.assert_nontrivial_match)
        errors["not_trackable"] = error_of(lambda: tf1.train.Checkpoint(step=3))
        errors["none_consumed"] = error_of(
            tf1.train.Checkpoint(v=tf1.Variable(1.0)).restore(None).assert_consumed)
    record["errors"] = errors

    with open(os.path.join(HERE, "tf_object_checkpoints.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
