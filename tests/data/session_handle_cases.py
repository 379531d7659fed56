"""Persistent-tensor programs (``get_session_handle`` / ``get_session_tensor`` /
``delete_session_tensor``) written once against a TF1 module: ``tensorflow.compat.v1``
for the recorder (make_session_handles.py), ``devsession`` for
tests/test_session_handles.py.  Each returns a list of outcomes as
partial_run_cases.outcome makes them (errors: class and first line of TF's message)."""

from __future__ import annotations

from partial_run_cases import outcome as _outcome


def _text(value):
    if isinstance(value, list):
        return [_text(v) for v in value]
    return value.decode() if isinstance(value, bytes) else value


def outcome(call):
    got = _text(_outcome(call))
    if isinstance(got, list) and got[:1] == ["error"]:
        message = got[2]
        if "\nNode: '" in message:     # TF's "Detected at node ... defined at" preamble
            message = message.split("\nNode: '", 1)[1].split("\n", 1)[1]
        got[2] = message.split("\n")[0].split(" (node '")[0]
    return got


def store_and_read(tf, sess):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
    h = sess.run(tf.get_session_handle(a * 2))
    h2 = sess.run(tf.get_session_handle(tf.constant(["x", "yz"]), name="words"))
    h3 = sess.run(tf.get_session_handle(tf.zeros([0, 3], tf.int32)))
    holder, read = tf.get_session_tensor(h.handle, tf.float32)
    words_holder, words = tf.get_session_tensor(h2.handle, tf.string, name="read_words")
    empty_holder, empty = tf.get_session_tensor(h3.handle, tf.int32)
    return [h.handle, h2.handle, h3.handle, [holder.dtype.name, read.dtype.name, read.op.type],
            outcome(lambda: sess.run(read + 1, {holder: h.handle})),
            outcome(lambda: sess.run(words, {words_holder: h2.handle})),
            outcome(lambda: sess.run(tf.shape(empty), {empty_holder: h3.handle})),
            outcome(lambda: sess.run(read, {holder: h.handle})),      # read twice: kept
            words.name]


def feed_a_handle(tf, sess):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
    h = sess.run(tf.get_session_handle(a))
    c = tf.placeholder(tf.float32, [2, 2])
    return [outcome(lambda: sess.run(c * 3, {c: h}))]


def delete_and_misuse(tf, sess):
    a = tf.constant(1.5, tf.float64)
    h = sess.run(tf.get_session_handle(a))
    holder, read = tf.get_session_tensor(h.handle, tf.float32)
    holder64, read64 = tf.get_session_tensor(h.handle, tf.float64)
    dh, deleter = tf.delete_session_tensor(h.handle)
    return [outcome(lambda: sess.run(read, {holder: h.handle})),
            outcome(lambda: sess.run(read64, {holder64: h.handle})),
            [dh.dtype.name, deleter.type, deleter.name],
            outcome(lambda: sess.run(deleter, {dh: h.handle})),
            outcome(lambda: sess.run(read64, {holder64: h.handle})),
            outcome(lambda: sess.run(deleter, {dh: h.handle})),
            outcome(lambda: tf.get_session_handle([1.0]))]


def one_store_per_session(tf, sess):
    a = tf.constant(2.0)
    h = sess.run(tf.get_session_handle(a))
    holder, read = tf.get_session_tensor(h.handle, tf.float32)
    with tf.Session() as other:
        return [outcome(lambda: other.run(read, {holder: h.handle})),
                outcome(lambda: sess.run(read, {holder: h.handle}))]


CASES = {f.__name__: f for f in (store_and_read, feed_a_handle, delete_and_misuse,
                                  one_store_per_session)}
