"""Writes SavedModels the way TF1 programs export them, for tests/test_saved_model.py:
``tf.saved_model.simple_save`` and ``SavedModelBuilder``, each loaded back by devsession's
``ds.saved_model.loader.load`` and checked against what TensorFlow computed.

    /work/peers/bin/python tests/data/tf_saved_models/make_tf_saved_models.py

* ``mlp-ref/``, ``mlp-resource/``: a two-layer classifier saved by ``simple_save``
  (inputs ``x``, outputs ``probs`` and ``classes``), with TF1's reference variables and
  with the resource variables TensorFlow 2's ``tf.compat.v1`` makes;
* ``vocab/``: a ``SavedModelBuilder`` with two MetaGraphDefs: ``["serve"]`` (words looked
  up in a table read from a vocabulary file, an asset; ``main_op`` initializes the
  table; two signatures) and ``["train", "gpu"]`` (the same graph and the train op in
  the ``train_op`` collection).  The vocabulary file is written to a temporary directory
  that is deleted before the model is loaded, so only the SavedModel's ``assets/`` copy
  remains.

``expected.npz`` in each: the feeds (``feed/<input key>``) and TensorFlow's outputs
(``fetch/<signature>/<output key>``) through the signatures after ``loader.load``.
"""

import os
import shutil
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = ["the", "cat", "sat", "on", "mat"]


def mlp(export_dir, use_resource):
    rng = np.random.RandomState(0)
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        with tf.variable_scope("mlp", use_resource=use_resource):
            w1 = tf.get_variable("w1", initializer=rng.randn(4, 8).astype(np.float32))
            b1 = tf.get_variable("b1", initializer=rng.randn(8).astype(np.float32))
            w2 = tf.get_variable("w2", initializer=rng.randn(8, 3).astype(np.float32))
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2, name="logits")
        probs = tf.nn.softmax(logits, name="probs")
        classes = tf.argmax(logits, 1, name="classes")
        sess.run(tf.global_variables_initializer())
        sess.run(w2.assign(w2 * 2.0))      # a trained value the initializer does not give
        tf.saved_model.simple_save(sess, export_dir, inputs={"x": x},
                                   outputs={"probs": probs, "classes": classes})
    feed = rng.randn(5, 4).astype(np.float32)
    return {"serving_default": {"x": feed}}


def vocab(export_dir):
    rng = np.random.RandomState(1)
    source = tempfile.mkdtemp()
    vocab_file = os.path.join(source, "words.txt")
    with open(vocab_file, "w") as f:
        f.write("\n".join(WORDS) + "\n")
    with tf.Graph().as_default(), tf.Session() as sess:
        words = tf.placeholder(tf.string, [None], name="words")
        table = tf.lookup.StaticVocabularyTable(
            tf.lookup.TextFileInitializer(vocab_file, tf.string,
                                          tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                          tf.lookup.TextFileIndex.LINE_NUMBER), 1)
        ids = table.lookup(words)
        emb = tf.get_variable("emb", initializer=rng.randn(len(WORDS) + 1, 3)
                              .astype(np.float32), use_resource=False)
        vectors = tf.nn.embedding_lookup(emb, ids, name="vectors")
        score = tf.reduce_sum(vectors, 1, name="score")
        loss = tf.reduce_mean(tf.square(score))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        tf.add_to_collection("train_op", train_op)
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        info = tf.saved_model.utils.build_tensor_info
        signatures = {
            "serving_default": tf.saved_model.signature_def_utils.predict_signature_def(
                {"words": words}, {"ids": ids, "vectors": vectors}),
            "score": tf.saved_model.signature_def_utils.build_signature_def(
                {"words": info(words)}, {"score": info(score)},
                tf.saved_model.signature_constants.REGRESS_METHOD_NAME),
        }
        builder.add_meta_graph_and_variables(
            sess, [tf.saved_model.tag_constants.SERVING], signature_def_map=signatures,
            assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
            main_op=tf.tables_initializer())
        builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING,
                                tf.saved_model.tag_constants.GPU],
                               signature_def_map={"loss": tf.saved_model.predict_signature_def(
                                   {"words": words}, {"loss": loss})})
        builder.save()
    shutil.rmtree(source)
    feed = np.array([b"cat", b"dog", b"the", b"mat"])
    return {"serving_default": {"words": feed}, "score": {"words": feed}}


def record(export_dir, tags, feeds):
    """TensorFlow's outputs through each signature of the SavedModel just written."""
    arrays = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, tags, export_dir)
        for key, inputs in feeds.items():
            signature = meta.signature_def[key]
            fetches = {k: v.name for k, v in signature.outputs.items()}
            values = sess.run(fetches, {signature.inputs[k].name: v
                                        for k, v in inputs.items()})
            for k, v in inputs.items():
                arrays[f"feed/{key}/{k}"] = v
            for k, v in values.items():
                arrays[f"fetch/{key}/{k}"] = v
    np.savez(os.path.join(export_dir, "expected.npz"), **arrays)


def main():
    for name, make, tags in [
            ("mlp-ref", lambda d: mlp(d, False), ["serve"]),
            ("mlp-resource", lambda d: mlp(d, True), ["serve"]),
            ("vocab", vocab, ["serve"])]:
        export_dir = os.path.join(HERE, name)
        shutil.rmtree(export_dir, ignore_errors=True)
        feeds = make(export_dir)
        record(export_dir, tags, feeds)
        print("wrote", export_dir)


if __name__ == "__main__":
    main()
