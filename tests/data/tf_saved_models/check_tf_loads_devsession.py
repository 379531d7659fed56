"""Checks by hand (never run by the tests) that TensorFlow loads the SavedModels
devsession's ``simple_save`` writes, and computes what devsession computed:

    /work/peers/bin/python tests/data/tf_saved_models/check_tf_loads_devsession.py

It runs itself under devsession's venv (``--export DIR``) to train and export two models:
an MLP trained a few Adam steps (its whole graph, gradients and Adam's updates written in
TensorFlow's form) and a vocabulary lookup (a table read from a text file, an asset,
whose source is deleted after the export) with an embedding variable.  devsession's
outputs go to ``expected.npz`` beside each.  Then TensorFlow loads each with TF1's
``tf.compat.v1.saved_model.loader.load`` and with TF2's ``tf.saved_model.load`` (the
``serving_default`` signature as a function) and compares.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
DEVSESSION_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")


def export(out_dir):
    sys.path.insert(0, ROOT)
    import devsession as ds

    rng = np.random.default_rng(0)
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, [None, 4], name="x")
        labels = ds.placeholder(ds.int64, [None], name="labels")
        hidden = ds.layers.dense(x, 8, activation=ds.nn.relu, name="hidden")
        logits = ds.layers.dense(hidden, 3, name="logits")
        probs = ds.nn.softmax(logits, name="probs")
        classes = ds.argmax(logits, 1, name="classes")
        loss = ds.losses.sparse_softmax_cross_entropy(labels, logits)
        train = ds.train.AdamOptimizer(0.05).minimize(loss)
        with ds.Session(graph=graph) as sess:
            sess.run(ds.global_variables_initializer())
            data = rng.standard_normal((16, 4)).astype(np.float32)
            for _ in range(20):
                sess.run(train, {x: data, labels: np.arange(16) % 3})
            batch = rng.standard_normal((5, 4)).astype(np.float32)
            mlp = os.path.join(out_dir, "mlp")
            ds.saved_model.simple_save(sess, mlp, {"x": x},
                                       {"probs": probs, "classes": classes})
            p, c = sess.run([probs, classes], {x: batch})
            np.savez(os.path.join(mlp, "expected.npz"), x=batch, probs=p, classes=c)

    source = tempfile.mkdtemp()
    vocab_file = os.path.join(source, "words.txt")
    with open(vocab_file, "w") as f:
        f.write("the\ncat\nsat\non\nmat\n")
    graph = ds.Graph()
    with graph.as_default():
        words = ds.placeholder(ds.string, [None], name="words")
        table = ds.lookup.StaticVocabularyTable(ds.lookup.TextFileInitializer(
            vocab_file, ds.string, ds.lookup.TextFileIndex.WHOLE_LINE, ds.int64,
            ds.lookup.TextFileIndex.LINE_NUMBER), 1)
        ids = table.lookup(words)
        emb = ds.Variable(rng.standard_normal((6, 3)).astype(np.float32), name="emb")
        vectors = ds.nn.embedding_lookup(emb, ids, name="vectors")
        with ds.Session(graph=graph) as sess:
            sess.run([ds.global_variables_initializer(), ds.tables_initializer()])
            sess.run(ds.assign(emb, emb * 2.0))       # a value the initializer does not give
            vocab = os.path.join(out_dir, "vocab")
            ds.saved_model.simple_save(sess, vocab, {"words": words},
                                       {"ids": ids, "vectors": vectors},
                                       legacy_init_op=ds.tables_initializer())
            feed = np.array([b"sat", b"on", b"dog", b"the"])
            i, v = sess.run([ids, vectors], {words: feed})
            np.savez(os.path.join(vocab, "expected.npz"), words=feed, ids=i, vectors=v)
    shutil.rmtree(source)


def check(out_dir):
    import tensorflow as tf

    for name, feed_key, outputs in (("mlp", "x", ("probs", "classes")),
                                    ("vocab", "words", ("ids", "vectors"))):
        export_dir = os.path.join(out_dir, name)
        expected = np.load(os.path.join(export_dir, "expected.npz"))
        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
            meta = tf.compat.v1.saved_model.loader.load(sess, ["serve"], export_dir)
            signature = meta.signature_def["serving_default"]
            got = sess.run({k: signature.outputs[k].name for k in outputs},
                           {signature.inputs[feed_key].name: expected[feed_key]})
        for k in outputs:
            np.testing.assert_allclose(got[k], expected[k], rtol=1e-6, atol=1e-7)
        print(f"{name}: TF1 loader.load: {', '.join(outputs)} equal devsession's "
              f"({got[outputs[0]].tolist()})")
        loaded = tf.saved_model.load(export_dir)
        got = loaded.signatures["serving_default"](**{feed_key: tf.constant(expected[feed_key])})
        for k in outputs:
            np.testing.assert_allclose(got[k].numpy(), expected[k], rtol=1e-6, atol=1e-7)
        print(f"{name}: TF2 tf.saved_model.load: signature outputs equal devsession's")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--export":
        export(sys.argv[2])
        return
    out_dir = tempfile.mkdtemp()
    try:
        subprocess.run([DEVSESSION_PYTHON, os.path.abspath(__file__), "--export", out_dir],
                       check=True)
        check(out_dir)
    finally:
        shutil.rmtree(out_dir)


if __name__ == "__main__":
    main()
