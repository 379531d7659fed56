"""Record graphs frozen the TF 2 way for tests/test_tf_lowered_loop_import.py.

Run with TensorFlow (never by the tests), from the repository root:

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_lowered_loops.py

Each model is a ``tf.function`` frozen by ``convert_variables_to_constants_v2``, as TF 2
users freeze Keras models: its variables become constants, and its ``While`` loops are
*lowered* into TF1's loop ops (``Enter``/``Merge``/``Switch``/``NextIteration``/``Exit``)
that carry TensorLists (``TensorListReserve``, ``SetItem``, ``GetItem``, ``Stack``),
with an unread ``variant`` Placeholder (``unused_control_flow_input_<k>``) left behind
for each list a loop used to take.

Writes tests/data/tf_lowered_<name>.pb (binary GraphDefs) and
tests/data/tf_lowered_loops.npz (per model and case: ``<name>/x<k>`` fed, ``<name>/y<k>``
TF's output; ``<name>/input`` and ``<name>/output`` the tensor names).
"""

import os
from pathlib import Path

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

DATA = Path(__file__).parent
layers = keras.layers


def keras_rnns():
    """Embedding, LSTM over the sequence, GRU to its last state, Dense."""
    tokens = keras.Input((None,), dtype="int32")
    x = layers.Embedding(30, 6)(tokens)
    x = layers.LSTM(5, return_sequences=True)(x)
    x = layers.GRU(4)(x)
    model = keras.Model(tokens, layers.Dense(3)(x))
    rng = np.random.RandomState(0)
    return model, tf.TensorSpec([None, None], tf.int32), [
        rng.randint(0, 30, (3, 7)).astype(np.int32), rng.randint(0, 30, (1, 1)).astype(np.int32)]


def conv_bidirectional_rnn():
    """A transposed convolution, batch norm and a bidirectional SimpleRNN over the rows."""
    image = keras.Input((8, 8, 2))
    x = layers.Conv2DTranspose(3, 3, strides=2, padding="same")(image)
    x = layers.BatchNormalization()(x, training=False)
    x = layers.Reshape((16, 48))(x)
    x = layers.Bidirectional(layers.SimpleRNN(4, return_sequences=True))(x)
    model = keras.Model(image, layers.GlobalAveragePooling1D()(x))
    rng = np.random.RandomState(1)
    return model, tf.TensorSpec([None, 8, 8, 2], tf.float32), [
        rng.randn(2, 8, 8, 2).astype(np.float32)]


def scans():
    """tf.scan, tf.map_fn and a while_loop writing a growing TensorArray, in one
    function over sequences of any length."""
    def fn(x):
        sums = tf.scan(lambda a, r: a * 0.5 + r, x)
        norms = tf.map_fn(lambda r: tf.reduce_sum(r * r), x)
        grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, grown = tf.while_loop(lambda i, ta: i < tf.shape(x)[0],
                                 lambda i, ta: (i + 1, ta.write(i, tf.reduce_max(x[i]))),
                                 [0, grown])
        return sums[-1] + norms[:, None] * 0.1 + grown.stack()[:, None] * 0.01

    rng = np.random.RandomState(2)
    return fn, tf.TensorSpec([None, 3], tf.float32), [
        rng.randn(6, 3).astype(np.float32), rng.randn(1, 3).astype(np.float32)]


def main():
    data = {}
    for make in (keras_rnns, conv_bidirectional_rnn, scans):
        name = make.__name__
        model, spec, feeds = make()
        call = model if not isinstance(model, keras.Model) else (
            lambda x, model=model: model(x, training=False))
        frozen = convert_variables_to_constants_v2(tf.function(call).get_concrete_function(spec))
        graph_def = frozen.graph.as_graph_def()
        ops = {node.op for node in graph_def.node}
        assert {"NextIteration", "TensorListSetItem"} <= ops, (name, sorted(ops))
        assert not graph_def.library.function, name          # lowered, nothing functional
        (DATA / f"tf_lowered_{name}.pb").write_bytes(graph_def.SerializeToString())
        data[f"{name}/input"] = frozen.inputs[0].name
        data[f"{name}/output"] = frozen.outputs[0].name
        for k, feed in enumerate(feeds):
            data[f"{name}/x{k}"] = feed
            data[f"{name}/y{k}"] = frozen(tf.constant(feed))[0].numpy()
        print(name, sorted(ops))
    np.savez(DATA / "tf_lowered_loops.npz", **data)


if __name__ == "__main__":
    main()
