"""Partial-run programs written once against a TF1 module (``tensorflow.compat.v1`` for the
recorder, ``devsession`` for the tests).  Each case builds its graph in a new default
graph, runs in a new session and returns a list of outcomes: a value (a list), or
("error", class name, message) with TF's "Graph execution error:" wrapper and node
trailer cut off."""

from __future__ import annotations

import numpy as np


def outcome(call):
    try:
        value = call()
    except Exception as e:     # noqa: BLE001 - the class and message are the outcome
        message = str(e).split("Graph execution error:\n\n")[-1].split("\n\t [[")[0]
        return ["error", type(e).__name__, message]
    return _plain(value)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return np.asarray(value).tolist()


def _abc(tf):
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    c = tf.placeholder(tf.float32, [], name="c")
    r1 = tf.add(a, b, name="r1")
    r2 = tf.multiply(r1, c, name="r2")
    return a, b, c, r1, r2


def basic(tf, sess):
    a, b, c, r1, r2 = _abc(tf)
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    first = sess.partial_run(h, r1, feed_dict={a: 1, b: 2})
    return [_plain(first), outcome(lambda: sess.partial_run(h, r2, {c: first * 17})),
            outcome(lambda: sess.partial_run(h, r1, {}))]     # finished: the handle is gone


def misuse(tf, sess):
    a, b, c, r1, r2 = _abc(tf)
    d = tf.placeholder(tf.float32, [], name="d")
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    return [outcome(lambda: sess.partial_run(h, r2, {a: 1})),       # b and c pending
            outcome(lambda: sess.partial_run(h, [r2], {b: 1})),     # a was not taken
            outcome(lambda: sess.partial_run(h, "r2:0", {c: 1})),
            outcome(lambda: sess.partial_run(h, r1 * 5, {})),
            outcome(lambda: sess.partial_run(h, r1, {d: 3})),
            outcome(lambda: sess.partial_run(h, r1, {a: [1, 2], b: 2}))[:2],  # run()'s check
            outcome(lambda: sess.partial_run(h, [], {})),
            outcome(lambda: sess.partial_run(h, r1, {a: 1, "b:0": 2})),
            outcome(lambda: sess.partial_run(h, r1, {c: 3})),
            outcome(lambda: sess.partial_run(h, r2, {a: 3})),
            outcome(lambda: sess.partial_run(h, (r2,), {c: -2})),
            outcome(lambda: sess.partial_run("no such handle", r1, {}))]


def incomplete_and_structures(tf, sess):
    a, b, c, r1, r2 = _abc(tf)
    h = sess.partial_run_setup([r1, r2], [a, b, c])
    left = outcome(lambda: sess.partial_run(h, {"sum": r1, "again": [r1]}, {a: 0.5, b: 2}))
    h2 = sess.partial_run_setup(r1, [a, b])                   # one fetch, not a list
    return [left, outcome(lambda: sess.partial_run(h2, [r1, r1], {a: 1, b: 1})),
            outcome(lambda: sess.partial_run(h, r2, {c: 0}))]


def intermediate_feed(tf, sess):
    a, b, c, r1, r2 = _abc(tf)
    h = sess.partial_run_setup([r2], [r1, c])
    return [outcome(lambda: sess.partial_run(h, r2, {r1: 10, c: 2}))]


def many(tf, sess):
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    total = tf.add(a, 1.0)
    out = tf.multiply(total, b)
    results = []
    for i in range(5):
        h = sess.partial_run_setup([total, out], [a, b])
        got = sess.partial_run(h, total, {a: i})
        results.append([_plain(got), _plain(sess.partial_run(h, out, {b: got}))])
    return results


def setup_runs_what_needs_no_feed(tf, sess):
    """A target that waits for no feed runs at setup, once; ops are no partial_run fetch."""
    a, b, c, r1, r2 = _abc(tf)
    v = tf.Variable(0.0, name="v")
    inc = tf.assign_add(v, 1.0, name="inc")
    sess.run(v.initializer)
    h = sess.partial_run_setup([inc.op, r1], [a, b])
    after_setup = _plain(sess.run(v))
    refused = outcome(lambda: sess.partial_run(h, [inc.op], {}))
    refused[2] = refused[2].split("=")[0]      # the Operation's repr differs
    return [after_setup, refused, outcome(lambda: sess.partial_run(h, r1, {a: 1, b: 2})),
            _plain(sess.run(v))]


def stateful_value_once(tf, sess):
    a, b, c, r1, r2 = _abc(tf)
    v = tf.Variable(0.0, name="v")
    inc = tf.assign_add(v, 1.0, name="inc")
    late = tf.multiply(inc, c, name="late")
    sess.run(v.initializer)
    h = sess.partial_run_setup([inc, late], [c])
    return [outcome(lambda: sess.partial_run(h, inc)),
            outcome(lambda: sess.partial_run(h, late, {c: 5})), _plain(sess.run(v))]


def random_once(tf, sess):
    a = tf.placeholder(tf.float32, [], name="a")
    c = tf.placeholder(tf.float32, [], name="c")
    noise = tf.random_uniform([4], seed=1)
    first, second = noise + a, noise - c
    h = sess.partial_run_setup([first, second], [a, c])
    x = sess.partial_run(h, first, {a: 1})
    y = sess.partial_run(h, second, {c: 1})
    return [bool(np.allclose(x - 1, y + 1))]


def unfed_placeholder(tf, sess):
    x = tf.placeholder(tf.float32, (), name="x")
    fetches = [x * 2, x * 3]
    h = sess.partial_run_setup(fetches, [])
    error = outcome(lambda: sess.partial_run(h, fetches[0]))
    start = error[2].find("You must feed")      # TF puts where 'x' was defined first
    error[2] = error[2][start:start + len("You must feed a value for placeholder tensor 'x'")]
    return [error, outcome(lambda: sess.partial_run(h, fetches[1]))]


def setup_errors(tf, sess):
    a, b, c, r1, r2 = _abc(tf)
    return [outcome(lambda: sess.partial_run_setup([], [a])),
            outcome(lambda: sess.partial_run_setup([r1], [a, "a:0"]))]


CASES = {f.__name__: f for f in (basic, misuse, incomplete_and_structures, intermediate_feed,
                                  many, setup_runs_what_needs_no_feed, stateful_value_once,
                                  random_once, unfed_placeholder, setup_errors)}
