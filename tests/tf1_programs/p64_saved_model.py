"""Exporting a trained model for serving and loading it back, as TF1 scripts do: train a
small text classifier (words -> ids through a vocabulary-file table, an embedding, a
dense layer), export it with tf.saved_model.simple_save (the vocabulary goes into the
SavedModel's assets), delete the vocabulary, then tf.saved_model.loader.load it into a
fresh graph and predict through the signature's tensor names; a SavedModelBuilder writes
a second SavedModel with a "serve" MetaGraphDef (a classification signature; the main op
simple_save put in the graph's collection) and a "train" one, and the train one resumes
training after load."""

import os
import tempfile

import numpy as np

WORDS = ["good", "great", "fine", "bad", "awful", "poor"]


def build(tf, vocab_file, rng):
    words = tf.placeholder(tf.string, [None, 3], name="words")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    table = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
        tf.lookup.TextFileIndex.LINE_NUMBER), 1)
    embedding = tf.Variable(rng.normal(size=(len(WORDS) + 1, 4)).astype(np.float32),
                            name="embedding")
    dense = tf.Variable(rng.normal(size=(4, 2)).astype(np.float32), name="dense")
    features = tf.reduce_mean(tf.nn.embedding_lookup(embedding, table.lookup(words)), 1)
    logits = tf.matmul(features, dense, name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="loss")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, name="train")
    return words, labels, probs, loss, train


def main(tf, out):
    rng = np.random.RandomState(0)
    batch = np.array([[b"good", b"great", b"fine"], [b"bad", b"awful", b"poor"],
                      [b"good", b"bad", b"unseen"]])
    targets = np.array([1, 0, 1])
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "source")
        os.mkdir(source)
        vocab_file = os.path.join(source, "vocab.txt")
        with open(vocab_file, "w") as f:
            f.write("\n".join(WORDS) + "\n")
        with tf.Graph().as_default():
            words, labels, probs, loss, train = build(tf, vocab_file, rng)
            with tf.Session() as sess:
                sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
                losses = [sess.run([train, loss], {words: batch, labels: targets})[1]
                          for _ in range(5)]
                out["trained_probs"] = sess.run(probs, {words: batch})
                export = os.path.join(tmp, "export", "1")
                tf.saved_model.simple_save(sess, export, inputs={"words": words},
                                           outputs={"probs": probs},
                                           legacy_init_op=tf.tables_initializer())
                builder = tf.saved_model.builder.SavedModelBuilder(
                    os.path.join(tmp, "export", "2"))
                info = tf.saved_model.utils.build_tensor_info
                classify = tf.saved_model.signature_def_utils.build_signature_def(
                    inputs={"words": info(words)}, outputs={"scores": info(probs)},
                    method_name=tf.saved_model.signature_constants.CLASSIFY_METHOD_NAME)
                builder.add_meta_graph_and_variables(
                    sess, [tf.saved_model.tag_constants.SERVING],
                    signature_def_map={"classify": classify},
                    assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS))
                builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING])
                builder.save()
        out["losses"] = np.array(losses)
        os.remove(vocab_file)
        out["export_files"] = sorted(f for f in os.listdir(export) if f != "variables")
        out["assets"] = sorted(os.listdir(os.path.join(export, "assets")))
        out["is_saved_model"] = tf.saved_model.loader.maybe_saved_model_directory(export)

        with tf.Graph().as_default() as graph:
            with tf.Session() as sess:
                meta = tf.saved_model.loader.load(sess, ["serve"], export)
                signature = meta.signature_def["serving_default"]
                out["method"] = signature.method_name
                out["input_name"] = signature.inputs["words"].name
                out["output_shape"] = [d.size for d in signature.outputs["probs"]
                                       .tensor_shape.dim]
                out["valid"] = tf.saved_model.signature_def_utils.is_valid_signature(
                    signature)
                probs = tf.saved_model.utils.get_tensor_from_tensor_info(
                    signature.outputs["probs"], graph)
                out["loaded_probs"] = sess.run(probs, {signature.inputs["words"].name: batch})

        with tf.Graph().as_default() as graph:
            with tf.Session() as sess:
                meta = tf.saved_model.loader.load(sess, ["train"],
                                                  os.path.join(tmp, "export", "2"))
                out["train_signatures"] = sorted(meta.signature_def)
                train = graph.get_operation_by_name("train")
                feed = {"words:0": batch, "labels:0": targets}
                out["resumed_losses"] = np.array(
                    [sess.run([train, "loss:0"], feed)[1] for _ in range(3)])
        try:
            with tf.Graph().as_default(), tf.Session() as sess:
                tf.saved_model.loader.load(sess, ["gpu"], export)
        except RuntimeError as e:
            out["missing_tags"] = str(e).split(" could")[0]
