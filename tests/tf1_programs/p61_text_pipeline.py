"""A TF1 text classifier fed from files: tf.data.TextLineDataset over a labelled corpus,
tf.string_split of each line, a tf.lookup.StaticVocabularyTable from a vocabulary file
(TextFileInitializer, out-of-vocabulary buckets) inside the map, padded_batch, an
initializable iterator with tf.tables_initializer, and an embedding-bag classifier trained
with Adagrad."""

import os
import tempfile

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab = ["the", "cat", "dog", "sat", "ran", "on", "mat", "fast"]
    lines = ["1\tthe cat sat on the mat", "0\tthe dog ran fast", "1\tcat sat",
             "0\tdog ran on the mat fast", "1\tthe zebra sat", "0\tunknown dog ran"]
    with tempfile.TemporaryDirectory() as tmp:
        vocab_file = os.path.join(tmp, "vocab.txt")
        corpus = os.path.join(tmp, "corpus.tsv")
        with open(vocab_file, "w") as f:
            f.write("\n".join(vocab) + "\n")
        with open(corpus, "w") as f:
            f.write("\n".join(lines) + "\n")

        table = tf.lookup.StaticVocabularyTable(
            tf.lookup.TextFileInitializer(vocab_file, tf.string,
                                          tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                          tf.lookup.TextFileIndex.LINE_NUMBER),
            num_oov_buckets=2)

        def parse(line):
            fields = tf.string_split([line], delimiter="\t").values
            label = tf.string_to_number(fields[0], out_type=tf.int32)
            words = tf.string_split([fields[1]]).values
            return table.lookup(words), label

        dataset = tf.data.TextLineDataset(corpus).map(parse).padded_batch(
            3, padded_shapes=([None], []), padding_values=(tf.constant(-1, tf.int64), 0))
        iterator = dataset.make_initializable_iterator()
        ids, labels = iterator.get_next()

        embedding = tf.Variable(rng.normal(0, 0.3, (len(vocab) + 2, 4)).astype(np.float32),
                                name="embedding")
        w = tf.Variable(rng.normal(0, 0.3, (4, 2)).astype(np.float32), name="w")
        mask = tf.cast(ids >= 0, tf.float32)
        vectors = tf.nn.embedding_lookup(embedding, tf.maximum(ids, 0)) * mask[:, :, None]
        bag = tf.reduce_sum(vectors, 1) / tf.reduce_sum(mask, 1, keepdims=True)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=tf.matmul(bag, w)))
        train_op = tf.train.AdagradOptimizer(0.5).minimize(loss)

        out["table_size"] = None
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            out["table_size"] = sess.run(table.size())
            out["known_and_oov"] = sess.run(table.lookup(tf.constant(["cat", "mat", "zebra",
                                                                      "unknown"])))
            sess.run(iterator.initializer)
            first_ids, first_labels = sess.run([ids, labels])
            out["first_batch"] = [first_ids, first_labels]
            losses = []
            for _ in range(3):
                sess.run(iterator.initializer)
                while True:
                    try:
                        losses.append(sess.run([train_op, loss])[1])
                    except tf.errors.OutOfRangeError:
                        break
            out["losses"] = np.array(losses)
            out["embedding_oov_rows"] = sess.run(embedding)[len(vocab):]
