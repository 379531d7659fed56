"""The pre-tf.data input pipeline of TF1 tutorials: tf.train.Example protos written with
tf.python_io.TFRecordWriter, read back through tf.train.string_input_producer (unshuffled),
a TFRecordReader, tf.parse_single_example and tf.train.batch, driven by a Coordinator and
tf.train.start_queue_runners while a logistic regression trains with Adagrad; then the same
files through tf.data.TFRecordDataset with tf.parse_example, and tf.python_io's
tf_record_iterator reading the records back raw."""

import os
import tempfile

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    count, features = 24, 3
    x_data = rng.normal(size=(count, features)).astype(np.float32)
    y_data = (x_data @ np.array([1.5, -2.0, 0.5]) > 0).astype(np.int64)

    with tempfile.TemporaryDirectory() as tmp:
        files = [os.path.join(tmp, f"part-{i}.tfrecord") for i in range(2)]
        for i, name in enumerate(files):
            with tf.python_io.TFRecordWriter(name) as writer:
                for k in range(i * count // 2, (i + 1) * count // 2):
                    example = tf.train.Example(features=tf.train.Features(feature={
                        "x": tf.train.Feature(float_list=tf.train.FloatList(value=x_data[k])),
                        "y": tf.train.Feature(int64_list=tf.train.Int64List(
                            value=[y_data[k]])),
                        "id": tf.train.Feature(bytes_list=tf.train.BytesList(
                            value=[b"row-%d" % k]))}))
                    writer.write(example.SerializeToString())
        spec = {"x": tf.FixedLenFeature([features], tf.float32),
                "y": tf.FixedLenFeature([], tf.int64),
                "id": tf.FixedLenFeature([], tf.string)}

        filenames = tf.train.string_input_producer(files, shuffle=False, num_epochs=None)
        _, record = tf.TFRecordReader().read(filenames)
        parsed = tf.parse_single_example(record, spec)
        x, y, ids = tf.train.batch([parsed["x"], parsed["y"], parsed["id"]], batch_size=6,
                                   num_threads=1, capacity=12)
        w = tf.Variable(np.zeros((features, 1), np.float32), name="w")
        b = tf.Variable(0.0, name="b")
        logits = tf.squeeze(tf.matmul(x, w), 1) + b
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.cast(y, tf.float32), logits=logits))
        train_op = tf.train.AdagradOptimizer(0.5).minimize(loss)

        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            losses, seen = [], []
            for _ in range(8):
                _, l, batch_ids = sess.run([train_op, loss, ids])
                losses.append(l)
                seen.extend(batch_ids)
            coord.request_stop()
            coord.join(threads)
            out["losses"] = np.array(losses)
            out["ids_in_order"] = [s.decode() for s in seen[:count]]
            out["weights"] = sess.run(w)

        dataset = tf.data.TFRecordDataset(files).batch(5).map(
            lambda records: tf.parse_example(records, spec))
        batch = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            first = sess.run(batch)
            out["dataset_x"] = first["x"]
            out["dataset_ids"] = list(first["id"])
            out["dataset_y"] = first["y"]
        raw = list(tf.python_io.tf_record_iterator(files[1]))
        back = tf.train.Example.FromString(raw[0])
        out["raw_count"] = len(raw)
        out["raw_first_id"] = back.features.feature["id"].bytes_list.value[0]
