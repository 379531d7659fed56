"""The ``tf.nn.raw_rnn`` and ``tf.nn.static_state_saving_rnn`` programs
tests/data/make_tf_raw_rnn.py records from TensorFlow and tests/test_raw_rnn.py runs in
devsession, written once against the TF1 module each side passes (``tf``:
``tensorflow.compat.v1`` or ``devsession``).

``reader``: TF's own example, an LSTMCell reading a ``[time, 3, depth]`` input through a
TensorArray until each row's ``sequence_length`` (all 0: no step); the outputs, final state and
the gradients of both with respect to the input and the kernel.
``decoder``: a GRUCell feeding its output back as its next input (a decoder), an
``emit_structure`` of two parts (the output doubled, and the time as int32), and a
loop state carrying a step count and a TensorArray of the states.
``saving``: ``static_state_saving_rnn`` of an LSTMCell (state names ``("c", "h")``) and of
a GRUCell (one name) over three runs, the state kept between them in variables
(``VariableSaver``).
Variables get values made from their names and shapes (``fill``), so both sides agree.
"""

import numpy as np

FEEDS = {
    "reader": [(np.cos(np.arange(4 * 3 * 2)).reshape(4, 3, 2), [4, 2, 1]),
               (np.cos(np.arange(4 * 3 * 2)).reshape(4, 3, 2), [0, 0, 0]),
               (np.sin(np.arange(1 * 3 * 2)).reshape(1, 3, 2), [1, 0, 1])],
    "saving": [(np.cos(np.arange(3 * 2 * 2)).reshape(3, 2, 2), [3, 1]),
               (np.sin(np.arange(3 * 2 * 2)).reshape(3, 2, 2), [2, 0]),
               (np.cos(np.arange(3 * 2 * 2) * 0.5).reshape(3, 2, 2), [3, 3])],
    "decoder": [(np.array([[0.5, -1.0], [1.5, 0.25], [-0.75, 0.8]]), [3, 1, 0]),
                (np.array([[0.3, 0.2]]), [2])],
}


def fill(name: str, shape) -> np.ndarray:
    """A variable's value, from its name and shape only."""
    n = int(np.prod(shape))
    return (0.6 * np.sin(np.arange(n) * 0.37 + len(name))).reshape(shape).astype(np.float32)


def reader(tf):
    x = tf.placeholder(tf.float32, (None, 3, 2), name="x")   # the batch known: 0 steps stack
    lengths = tf.placeholder(tf.int32, (None,), name="lengths")
    batch_size, max_time = tf.shape(x)[1], tf.shape(x)[0]
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=max_time).unstack(x)
    cell = tf.nn.rnn_cell.LSTMCell(3)

    def loop_fn(time, cell_output, cell_state, loop_state):
        emit_output = cell_output
        next_cell_state = cell.zero_state(batch_size, tf.float32) if cell_output is None \
            else cell_state
        elements_finished = time >= lengths
        finished = tf.reduce_all(elements_finished)
        next_input = tf.cond(finished, lambda: tf.zeros([batch_size, 2], dtype=tf.float32),
                             lambda: inputs_ta.read(time))
        return elements_finished, next_input, next_cell_state, emit_output, None

    outputs_ta, state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
    assert loop_state is None
    outputs = outputs_ta.stack()
    kernel = [v for v in tf.trainable_variables() if v.op.name == "rnn/lstm_cell/kernel"][0]
    dx, dk = tf.gradients(tf.reduce_sum(outputs) + tf.reduce_sum(state.c * state.h),
                          [x, kernel])
    return (x, lengths), {"outputs": outputs, "c": state.c, "h": state.h, "dx": dx, "dk": dk}


def decoder(tf):
    start = tf.placeholder(tf.float32, (None, 2), name="start")
    lengths = tf.placeholder(tf.int32, (None,), name="lengths")
    batch_size = tf.shape(start)[0]
    cell = tf.nn.rnn_cell.GRUCell(4)

    def loop_fn(time, cell_output, cell_state, loop_state):
        finished = time >= lengths
        if cell_output is None:
            emit = (tf.zeros([4]), tf.zeros([], tf.int32))
            states = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            return finished, start, cell.zero_state(batch_size, tf.float32), emit, \
                (tf.constant(0), states)
        count, states = loop_state
        emit = (2.0 * cell_output, tf.fill([batch_size], time))
        return finished, cell_output[:, :2], cell_state, emit, \
            (count + 1, states.write(time - 1, cell_state))

    (doubled_ta, times_ta), state, (count, states) = tf.nn.raw_rnn(cell, loop_fn,
                                                                   scope="decode")
    doubled = doubled_ta.stack()
    names = sorted(v.op.name for v in tf.trainable_variables())
    assert names == ["decode/gru_cell/candidate/bias", "decode/gru_cell/candidate/kernel",
                     "decode/gru_cell/gates/bias", "decode/gru_cell/gates/kernel"], names
    ds_start, = tf.gradients(tf.reduce_sum(doubled * doubled) + tf.reduce_sum(state), [start])
    return (start, lengths), {"doubled": doubled, "times": times_ta.stack(), "state": state,
                              "count": count, "states": states.stack(), "dstart": ds_start}


class VariableSaver:
    """A state saver of non-trainable variables: ``state`` reads one, ``save_state``
    assigns it."""

    def __init__(self, tf, sizes: dict):
        self.tf = tf
        self.variables = {name: tf.get_variable(f"saved_{name}", [2, size], trainable=False,
                                                initializer=tf.zeros_initializer())
                          for name, size in sizes.items()}

    def state(self, name):
        return self.variables[name]

    def save_state(self, name, value):
        return self.tf.assign(self.variables[name], value)


def saving(tf):
    x = tf.placeholder(tf.float32, (3, 2, 2), name="x")
    lengths = tf.placeholder(tf.int32, (2,), name="lengths")
    saver = VariableSaver(tf, {"c": 3, "h": 3, "g": 2})
    inputs = tf.unstack(x)
    outputs, state = tf.nn.static_state_saving_rnn(tf.nn.rnn_cell.LSTMCell(3), inputs, saver,
                                                   ("c", "h"), sequence_length=lengths)
    gru_outputs, gru_state = tf.nn.static_state_saving_rnn(tf.nn.rnn_cell.GRUCell(2), inputs,
                                                           saver, "g", scope="gru")
    return (x, lengths), {"outputs": tf.stack(outputs), "c": state.c, "h": state.h,
                          "gru_last": gru_outputs[-1], "gru_state": gru_state}


def run(tf, case: str) -> list:
    """Each feed of ``FEEDS[case]``: the fetched values by name."""
    with tf.Graph().as_default():
        placeholders, fetches = globals()[case](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.trainable_variables():
                sess.run(tf.assign(v, fill(v.op.name, v.shape.as_list())))
            return [sess.run(fetches, {p: np.asarray(value, dtype=p.dtype.as_numpy_dtype)
                                       for p, value in zip(placeholders, feed)})
                    for feed in FEEDS[case]]


def errors(tf) -> dict:
    """What raw_rnn raises for a cell that is none and a loop_fn that is no callable, and
    static_state_saving_rnn for a state name not nested as the state, or of another
    length."""
    out = {}
    with tf.Graph().as_default():
        for what, args in (("cell", ("not a cell", lambda *a: None)),
                           ("loop_fn", (tf.nn.rnn_cell.GRUCell(2), "not callable"))):
            try:
                tf.nn.raw_rnn(*args)
            except TypeError as e:
                out[what] = str(e)
        saver = VariableSaver(tf, {"c": 3, "h": 3})
        x = [tf.zeros([2, 2])]
        for what, name in (("saving_flat", "c"), ("saving_count", ("c", "h", "h"))):
            try:
                tf.nn.static_state_saving_rnn(tf.nn.rnn_cell.LSTMCell(3), x, saver, name)
            except ValueError as e:
                out[what] = str(e)
    return out
