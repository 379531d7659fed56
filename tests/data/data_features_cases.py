"""``make_batched_features_dataset`` and ``parse_example_dataset`` cases
tests/data/make_data_features.py records from TensorFlow and tests/test_data_features.py
runs in devsession, written once against the TF1 module each is given (``tf``:
``tensorflow.compat.v1`` or ``devsession``): both write the same Examples to TFRecord
files with their own writer, then read them back."""

import glob
import os

import numpy as np


def write_files(tf, folder: str) -> str:
    """Two TFRecord files of 5 Examples each (``x``: 2 floats, ``label``: an int64,
    ``name``: bytes; every third lacks ``name``); returns their glob pattern."""
    train = tf.train
    for f in range(2):
        with tf.io.TFRecordWriter(os.path.join(folder, f"part-{f}.tfrecord")) as writer:
            for i in range(5):
                n = 10 * f + i
                feature = {
                    "x": train.Feature(float_list=train.FloatList(value=[n, n / 2.0])),
                    "label": train.Feature(int64_list=train.Int64List(value=[n % 3])),
                }
                if i % 3:
                    feature["name"] = train.Feature(
                        bytes_list=train.BytesList(value=[f"e{n}".encode()]))
                example = train.Example(features=train.Features(feature=feature))
                writer.write(example.SerializeToString())
    return os.path.join(folder, "part-*.tfrecord")


def features(tf) -> dict:
    return {"x": tf.io.FixedLenFeature([2], tf.float32),
            "label": tf.io.FixedLenFeature([], tf.int64),
            "name": tf.io.FixedLenFeature([], tf.string, default_value=b"?")}


def pipelines(tf, pattern: str) -> dict:
    """{name: a dataset whose elements (in order) both sides read}."""
    E = tf.data.experimental
    make = E.make_batched_features_dataset
    return {
        "plain": make(pattern, 3, features(tf), num_epochs=1, shuffle=False),
        "label": make(pattern, 4, features(tf), label_key="label", num_epochs=1,
                      shuffle=False),
        "two_readers": make(pattern, 3, features(tf), num_epochs=1, shuffle=False,
                            reader_num_threads=2),
        "drop_final": make(pattern, 4, features(tf), num_epochs=2, shuffle=False,
                           drop_final_batch=True),
        "parse_example_dataset": tf.data.TFRecordDataset(sorted(glob.glob(pattern))).batch(
            6).apply(
            E.parse_example_dataset({"x": tf.io.FixedLenFeature([2], tf.float32)})),
    }


def build_errors(tf, pattern: str) -> dict:
    E = tf.data.experimental
    return {
        "label_key": lambda: E.make_batched_features_dataset(
            pattern, 2, features(tf), label_key="y", num_epochs=1),
        "no_features": lambda: E.parse_example_dataset(None),
        "not_strings": lambda: tf.data.Dataset.range(3).batch(2).apply(
            E.parse_example_dataset(features(tf))),
    }


def flat(value):
    """An element as JSON holds it (bytes as text, arrays as lists)."""
    if isinstance(value, dict):
        return {k: flat(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [flat(v) for v in value]
    if value is None:
        return None
    value = np.asarray(value)
    if value.dtype == object:
        return [v.decode() for v in value.reshape(-1).tolist()]
    return value.tolist()
