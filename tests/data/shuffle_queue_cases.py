"""RandomShuffleQueues whose dequeue order TF's Philox draws decide, every element
enqueued before the first dequeue (tests/data/make_tf_shuffle_queues.py records TF's
orders, tests/test_queues.py compares devsession's).  ``runs(tf, session)`` builds them
in one graph of graph seed 1, in order (the unseeded ones take the graph's op seeds)."""

import numpy as np

GRAPH_SEED = 1


def runs(tf, graph, session) -> dict:
    """key -> the values each case's dequeues give, in order (lists of Python values)."""
    with graph.as_default():
        tf.set_random_seed(GRAPH_SEED)
        one = tf.RandomShuffleQueue(20, 0, tf.int32, shapes=[[]], seed=5)
        many = tf.RandomShuffleQueue(30, 0, tf.int32, shapes=[[]])
        pairs = tf.RandomShuffleQueue(10, 2, [tf.int64, tf.string], shapes=[[], []],
                                      seed=9)
        fills = [one.enqueue_many([np.arange(20, dtype=np.int32)]),
                 many.enqueue_many([np.arange(30, dtype=np.int32)]),
                 pairs.enqueue_many([np.arange(6), [b"a", b"b", b"c", b"d", b"e", b"f"]]),
                 pairs.enqueue([100, b"z"])]
        takes = {"one": [one.dequeue() for _ in range(20)],
                 "many": [many.dequeue_many(7), many.dequeue_many(7), many.dequeue()],
                 "pairs": pairs.dequeue_many(4)}
        close, rest = pairs.close(), pairs.dequeue_up_to(10)
    for fill in fills:                  # one at a time: their order is the queues'
        session.run(fill)
    got = {"one": [int(session.run(t)) for t in takes["one"]],
           "many": [int(v) for t in takes["many"] for v in np.ravel(session.run(t))]}
    numbers, letters = session.run(takes["pairs"])
    session.run(close)
    more_numbers, more_letters = session.run(rest)
    got["pairs"] = [int(v) for v in np.concatenate([numbers, more_numbers])]
    got["pair_letters"] = [bytes(v).decode() for v in np.concatenate([letters, more_letters])]
    return got
