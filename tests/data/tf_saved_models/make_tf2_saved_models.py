"""Writes SavedModels the way TensorFlow 2 writes them (``tf.saved_model.save`` of a
``tf.Module``, Keras' ``model.save``), for tests/test_saved_model.py: TF1's loader
(``tf.compat.v1.saved_model.loader.load``) reads them too, and so does devsession's.  Their
graphs call functions (``StatefulPartitionedCall``) with resource variables, and their
Saver is two calls of a save and a restore function keyed by object paths
(``layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE``).

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/tf_saved_models/make_tf2_saved_models.py

* ``tf2-module/``: a ``tf.Module`` whose ``__call__`` (a ``tf.function`` with an input
  signature) returns a dict;
* ``tf2-module-loop/``: a ``tf.Module`` whose function runs a ``tf.while_loop`` for a fed
  number of steps and a ``tf.cond`` on the result (TF2's ``While``/``If`` in a function);
* ``tf2-keras-mlp/``, ``tf2-keras-cnn/``: Keras models (dense layers; conv, batch
  normalization, pooling, dropout, dense), their serving signature at inference;
* ``tf2-keras-lstm/``: an embedding and an ``LSTM`` (its loop over TensorLists);
* ``tf2-keras-functional/``: a functional model of two named inputs (conv1d, global
  pooling, batch normalization, concatenation).

``expected.npz``: the feed (``feed/serving_default/<input key>``) and what the model
computed eagerly (``fetch/serving_default/<output key>``), as make_tf_saved_models.py.
"""

import os
import shutil

import numpy as np
import tensorflow as tf
import tf_keras as keras

HERE = os.path.dirname(os.path.abspath(__file__))


class Classifier(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(0)
        self.w = tf.Variable(rng.randn(4, 3).astype(np.float32), name="w")
        self.b = tf.Variable(rng.randn(3).astype(np.float32), name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def __call__(self, x):
        logits = tf.matmul(x, self.w) + self.b
        return {"probs": tf.nn.softmax(logits), "classes": tf.argmax(logits, 1)}


def module(export_dir):
    model = Classifier()
    tf.saved_model.save(model, export_dir, signatures=model.__call__)
    x = np.random.RandomState(1).randn(5, 4).astype(np.float32)
    return {"x": x}, {k: v.numpy() for k, v in model(x).items()}


class Recurrence(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.random.RandomState(3).randn(3, 3).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x"),
                                  tf.TensorSpec([], tf.int32, name="n")])
    def __call__(self, x, n):
        def body(i, h):
            return i + 1, tf.tanh(tf.matmul(h, self.w))
        _, h = tf.while_loop(lambda i, h: i < n, body, [0, x])
        return {"h": tf.cond(tf.reduce_sum(h) > 0, lambda: h * 2.0, lambda: -h)}


def loop_module(export_dir):
    model = Recurrence()
    tf.saved_model.save(model, export_dir, signatures=model.__call__)
    feeds = {"x": np.random.RandomState(4).randn(2, 3).astype(np.float32), "n": np.int32(4)}
    return feeds, {k: v.numpy() for k, v in model(**feeds).items()}


def functional(export_dir):
    keras.utils.set_random_seed(0)
    seq, side = keras.Input((6, 3), name="seq"), keras.Input((4,), name="side")
    pooled = keras.layers.GlobalAveragePooling1D()(
        keras.layers.Conv1D(5, 3, activation="relu")(seq))
    joined = keras.layers.Concatenate()([pooled, keras.layers.BatchNormalization()(side)])
    model = keras.Model([seq, side], keras.layers.Dense(3, name="out")(joined))
    model.save(export_dir, save_format="tf")
    rng = np.random.RandomState(5)
    feeds = {"seq": rng.randn(2, 6, 3).astype(np.float32),
             "side": rng.randn(2, 4).astype(np.float32)}
    return feeds, {"out": model([feeds["seq"], feeds["side"]], training=False).numpy()}


def keras_model(export_dir, layers, input_shape, x=None):
    keras.utils.set_random_seed(0)
    model = keras.Sequential(layers)
    model.build((None,) + input_shape)
    if x is None:
        x = np.random.RandomState(2).randn(3, *input_shape).astype(np.float32)
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(x, np.arange(3) % 2, epochs=2, verbose=0)    # moving statistics move
    model.save(export_dir, save_format="tf")
    (name,) = [i.name.split(":")[0] for i in model.inputs]
    return {name: x}, {model.layers[-1].name: model(x, training=False).numpy()}


def main():
    cases = {
        "tf2-module": module,
        "tf2-module-loop": loop_module,
        "tf2-keras-mlp": lambda d: keras_model(d, [
            keras.layers.Dense(8, activation="relu", name="hidden"),
            keras.layers.Dense(3, activation="softmax", name="probs")], (4,)),
        "tf2-keras-cnn": lambda d: keras_model(d, [
            keras.layers.Conv2D(4, 3, padding="same", name="conv"),
            keras.layers.BatchNormalization(name="norm"),
            keras.layers.ReLU(name="relu"),
            keras.layers.MaxPooling2D(name="pool"),
            keras.layers.Dropout(0.5, name="dropout"),
            keras.layers.Flatten(name="flatten"),
            keras.layers.Dense(2, name="logits")], (6, 6, 2)),
        "tf2-keras-lstm": lambda d: keras_model(d, [
            keras.layers.Embedding(20, 8, name="embed"),
            keras.layers.LSTM(6, name="lstm"),
            keras.layers.Dense(2, activation="softmax", name="probs")], (5,),
            np.random.RandomState(6).randint(0, 20, (3, 5)).astype(np.int32)),
        "tf2-keras-functional": functional,
    }
    for name, make in cases.items():
        export_dir = os.path.join(HERE, name)
        shutil.rmtree(export_dir, ignore_errors=True)
        feeds, fetches = make(export_dir)
        arrays = {f"feed/serving_default/{k}": v for k, v in feeds.items()}
        arrays.update({f"fetch/serving_default/{k}": v for k, v in fetches.items()})
        np.savez(os.path.join(export_dir, "expected.npz"), **arrays)
        print("wrote", export_dir)


if __name__ == "__main__":
    main()
