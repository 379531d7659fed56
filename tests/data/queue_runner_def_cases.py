"""The graph the QueueRunnerDef recorder and tests build with TensorFlow or devsession as
``tf``: three queues fed by runners (one built by hand, one with two enqueue ops and its
own exception types, and the two of ``string_input_producer`` + ``train.batch`` in a name
scope), so a MetaGraphDef's ``queue_runners`` collection holds TF's names for each."""

# what a run dequeues from each, by tensor name (deterministic: one enqueue op per queue)
FETCHES = {"numbers": "numbers_Dequeue:0", "batch": "input/batch:0"}
STEPS = 4


def build(tf) -> dict:
    """The graph in the default graph; returns {name: tensor} for ``FETCHES``."""
    numbers = tf.FIFOQueue(8, tf.int32, shapes=[], name="numbers")
    fill = numbers.enqueue_many([[1, 2, 3]], name="fill")
    tf.train.add_queue_runner(tf.train.QueueRunner(numbers, [fill]))
    pairs = tf.FIFOQueue(8, tf.float32, shapes=[2], name="pairs")
    tf.train.add_queue_runner(tf.train.QueueRunner(
        pairs, [pairs.enqueue([[0.5, 1.5]]), pairs.enqueue([[2.5, 3.5]])],
        queue_closed_exception_types=(tf.errors.OutOfRangeError, tf.errors.CancelledError)))
    with tf.name_scope("input"):
        words = tf.train.string_input_producer(["a", "b", "c"], shuffle=False)
        batch = tf.train.batch([words.dequeue()], batch_size=2, num_threads=1)
    return {"numbers": numbers.dequeue(), "batch": batch}


def run_steps(tf, sess, fetches: dict) -> list:
    """``STEPS`` runs of ``fetches`` with the graph's queue runners started and stopped."""
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        return [sess.run(fetches) for _ in range(STEPS)]
    finally:
        coord.request_stop()
        coord.join(threads)


def runner_fields(runner_def) -> dict:
    """A QueueRunnerDef as JSON."""
    return {"queue_name": runner_def.queue_name,
            "enqueue_op_name": list(runner_def.enqueue_op_name),
            "close_op_name": runner_def.close_op_name,
            "cancel_op_name": runner_def.cancel_op_name,
            "queue_closed_exception_types": [int(c) for c in
                                             runner_def.queue_closed_exception_types]}


def plain(values: list) -> list:
    """Run results as JSON (bytes decoded)."""
    def one(v):
        v = v.tolist() if hasattr(v, "tolist") else v
        if isinstance(v, list):
            return [one(x) for x in v]
        return v.decode() if isinstance(v, bytes) else v
    return [{k: one(v) for k, v in step.items()} for step in values]
