"""The less common session and graph mechanics TF1 scripts and their tests lean on: a
finalized graph (and the error when an optimizer is built after it), tf.tuple,
partial_run over stages, make_callable with nested fetches, feeding intermediate tensors
and prevent_feeding, a wrong-shape feed, a timed-out dequeue, closed sessions and tensors
of another graph, fetch structures, Scaffold with monitored sessions, text and audio
summaries read back from the event file, FileWriterCache, tf.gfile and tf.errors."""

import os
import tempfile
import zlib

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(8, 3)).astype(np.float32)
    y_data = (x_data @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)

    # a model whose graph is finalized before training, as MonitoredSession does
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(np.zeros((3, 1), np.float32), name="w")
        hidden = tf.matmul(x, w, name="hidden")
        loss = tf.reduce_mean(tf.square(hidden - y), name="loss")
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
        scaled, shifted = tf.tuple([loss * 2.0, loss + 1.0])
        g.prevent_feeding(loss)
    g.finalize()
    out["finalized"] = g.finalized
    errors = {}
    with g.as_default():
        try:
            tf.train.AdamOptimizer(0.1).minimize(loss)
        except RuntimeError as e:
            errors["optimizer_after_finalize"] = type(e).__name__
        try:
            tf.constant(1.0)
        except RuntimeError as e:
            errors["constant_after_finalize"] = type(e).__name__
        try:
            tf.train.Saver()
        except RuntimeError as e:
            errors["saver_after_finalize"] = type(e).__name__
    out["tuple_ops"] = [[t.op.type, [c.type for c in t.op.control_inputs]]
                        for t in (scaled, shifted)]
    out["feedable"] = [g.is_feedable(x), g.is_feedable(hidden), g.is_feedable(loss)]
    feeds = {x: x_data, y: y_data}
    with tf.Session(graph=g) as sess:
        sess.run(init)
        losses = [sess.run([train_op, loss], feeds)[1] for _ in range(5)]
        out["losses"] = np.array(losses)
        out["tuple_values"] = sess.run([scaled, shifted], feeds)
        # feeding an intermediate tensor and a variable's value
        out["fed_hidden"] = sess.run(loss, {hidden: np.ones((8, 1), np.float32), y: y_data})
        out["fed_variable"] = sess.run(hidden, {x: x_data[:2], w: np.ones((3, 1), np.float32)})
        try:
            sess.run(scaled, {loss: 3.0})
        except ValueError as e:
            errors["prevented_feed"] = type(e).__name__
        try:
            sess.run(loss, {x: np.ones((8, 4), np.float32), y: y_data})
        except ValueError as e:
            errors["wrong_shape_feed"] = type(e).__name__
        # make_callable with nested fetch structures
        Pair = tf.nn.rnn_cell.LSTMStateTuple  # a namedtuple with fields c and h
        f = sess.make_callable({"pair": Pair(loss, hidden), "w": [w, (loss,)]}, feed_list=[x, y])
        r = f(x_data[:4], y_data[:4])
        out["callable_types"] = [type(r["pair"]).__name__, type(r["w"]).__name__,
                                 type(r["w"][1]).__name__]
        out["callable_values"] = [r["pair"].c, r["pair"].h, r["w"][0], r["w"][1][0]]
        fetched = sess.run({"nested": [[loss], {"p": Pair(loss, init)}], "op": train_op}, feeds)
        out["fetch_structure"] = [fetched["op"], fetched["nested"][1]["p"].h,
                                  fetched["nested"][0][0], type(fetched["nested"][1]["p"]).__name__]
    try:
        sess.run(loss, feeds)
    except RuntimeError as e:
        errors["closed_session"] = type(e).__name__
    out["errors"] = errors

    # partial_run in stages, and graph mismatch / queue timeouts in a fresh default graph
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    c = tf.placeholder(tf.float32, [], name="c")
    ab = a * b
    abc = ab + c
    q = tf.FIFOQueue(2, tf.float32)
    deq = q.dequeue()
    with tf.Session() as sess:
        h = sess.partial_run_setup([ab, abc], [a, b, c])
        stage1 = sess.partial_run(h, ab, feed_dict={a: 3.0, b: 4.0})
        stage2 = sess.partial_run(h, abc, feed_dict={c: 0.5})
        out["partial_run"] = [stage1, stage2]
        partial_errors = []
        h2 = sess.partial_run_setup([ab, abc], [a, b, c])
        sess.partial_run(h2, ab, feed_dict={a: 1.0, b: 2.0})
        for fetch, feed in [(abc, {a: 5.0, c: 1.0}), (ab, None), (abc * 2.0, {c: 1.0})]:
            try:  # feeding a twice, fetching ab twice, fetching what the setup did not name
                sess.partial_run(h2, fetch, feed_dict=feed)
            except (tf.errors.InvalidArgumentError, ValueError) as e:
                partial_errors.append(type(e).__name__)
        out["partial_run_errors"] = partial_errors
        out["tuple_control_inputs"] = sess.run(
            tf.tuple([a + 1.0, b + 1.0], control_inputs=[q.enqueue(7.0)]), {a: 1.0, b: 2.0})
        out["dequeued"] = sess.run(deq)
        other_graph = []
        for fetch, feed in [(hidden, None), (ab, {x: x_data})]:
            try:
                sess.run(fetch, feed)
            except (ValueError, TypeError) as e:
                other_graph.append(type(e).__name__)
        out["other_graph"] = other_graph
        try:
            sess.run(deq, options=tf.RunOptions(timeout_in_ms=50))
        except tf.errors.DeadlineExceededError as e:
            out["timeout"] = [type(e).__name__, e.error_code, isinstance(e, tf.errors.OpError)]
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=50)) as sess:
        try:
            sess.run(deq)
        except tf.errors.DeadlineExceededError as e:
            out["config_timeout"] = type(e).__name__
        try:
            sess.run(ab, {a: "three", b: 1.0})
        except (ValueError, TypeError) as e:
            out["string_for_float"] = type(e).__name__

    # Scaffold with init_op / init_fn and the monitored sessions
    tf.reset_default_graph()
    v = tf.Variable(np.arange(3, dtype=np.float32), name="v")
    bump = v.assign_add(tf.ones([3]))
    tenfold = v * 10.0
    calls = []

    def init_fn(scaffold, sess):  # runs after init_op, in the finalized graph
        calls.append(sess.run(tenfold))
        v.load(np.array([5.0, 6.0, 7.0], np.float32), sess)

    scaffold = tf.train.Scaffold(
        init_op=tf.variables_initializer([v]), init_fn=init_fn,
        ready_op=tf.report_uninitialized_variables())
    with tf.train.SingularMonitoredSession(scaffold=scaffold) as sess:
        out["scaffold_bump"] = [sess.run(bump) for _ in range(2)]
    out["init_fn_saw"] = calls
    out["scaffold_finalized"] = tf.get_default_graph().finalized
    out["scaffold_fields"] = [scaffold.init_op.type, scaffold.ready_op.dtype.name,
                              scaffold.ready_op.shape.as_list(), type(scaffold.saver).__name__]
    with tempfile.TemporaryDirectory() as tmp:
        tf.reset_default_graph()
        gs = tf.train.get_or_create_global_step()
        step = tf.assign_add(gs, 1)
        scaffold = tf.train.Scaffold(local_init_op=tf.no_op())
        with tf.train.MonitoredTrainingSession(checkpoint_dir=None, scaffold=scaffold) as sess:
            out["monitored_steps"] = [sess.run(step) for _ in range(3)]

        # text and audio summaries written and read back
        tf.reset_default_graph()
        words = tf.constant(["hello", "world"])
        wave = tf.constant(np.sin(np.linspace(0, 6, 32)).reshape(1, 32, 1).astype(np.float32))
        s_text = tf.summary.text("words", words)
        s_audio = tf.summary.audio("tone", wave, sample_rate=8000, max_outputs=1)
        logdir = os.path.join(tmp, "logs")
        with tf.Session() as sess:
            writer = tf.summary.FileWriterCache.get(logdir)
            out["writer_cached"] = writer is tf.summary.FileWriterCache.get(logdir)
            writer.add_summary(sess.run(s_text), 1)
            writer.add_summary(sess.run(s_audio), 2)
            writer.flush()
        tf.summary.FileWriterCache.clear()
        events = []
        for path in tf.gfile.Glob(os.path.join(logdir, "events.out.tfevents.*")):
            for event in tf.train.summary_iterator(path):
                for val in event.summary.value:
                    if val.HasField("audio"):
                        events.append([event.step, val.tag, "audio", val.audio.sample_rate,
                                       val.audio.num_channels, val.audio.length_frames,
                                       val.audio.content_type,
                                       len(val.audio.encoded_audio_string),
                                       zlib.crc32(val.audio.encoded_audio_string)])
                    else:
                        events.append([event.step, val.tag, val.metadata.plugin_data.plugin_name,
                                       tf.make_ndarray(val.tensor).tolist()])
        out["events"] = events

        # tf.gfile
        base = os.path.join(tmp, "files", "deep")
        tf.gfile.MakeDirs(base)
        with tf.gfile.GFile(os.path.join(base, "a.txt"), "w") as fh:
            fh.write("line one\nline two\n")
        with tf.gfile.GFile(os.path.join(base, "a.txt")) as fh:
            out["gfile_lines"] = fh.readlines()
        with tf.gfile.GFile(os.path.join(base, "b.bin"), "wb") as fh:
            fh.write(b"\x00\x01\x02")
        tf.gfile.Rename(os.path.join(base, "b.bin"), os.path.join(base, "c.bin"))
        with tf.gfile.GFile(os.path.join(base, "a.txt"), "r") as fh:
            first = fh.read(4)
            at = fh.tell()
            fh.seek(9)
            out["gfile_seek"] = [first, at, fh.readline(), fh.size()]
        tf.gfile.Copy(os.path.join(base, "c.bin"), os.path.join(base, "d.bin"))
        try:
            tf.gfile.Copy(os.path.join(base, "c.bin"), os.path.join(base, "d.bin"))
        except tf.errors.AlreadyExistsError as e:
            out["gfile_copy_again"] = [type(e).__name__, e.error_code]
        tf.gfile.MakeDirs(os.path.join(base, "sub"))
        out["gfile_walk"] = [[os.path.relpath(d, tmp), sorted(ds), sorted(fs)]
                             for d, ds, fs in tf.gfile.Walk(os.path.join(tmp, "files"))]
        tf.gfile.Remove(os.path.join(base, "d.bin"))
        out["gfile_list"] = sorted(tf.gfile.ListDirectory(base))
        out["gfile_glob"] = sorted(os.path.basename(p)
                                   for p in tf.gfile.Glob(os.path.join(base, "*.txt")))
        out["gfile_stat"] = [tf.gfile.Stat(os.path.join(base, "c.bin")).length,
                             tf.gfile.IsDirectory(base)]
        tf.gfile.Remove(os.path.join(base, "a.txt"))
        out["gfile_exists"] = [tf.gfile.Exists(os.path.join(base, "a.txt")),
                               tf.gfile.Exists(os.path.join(base, "c.bin"))]
        try:
            tf.gfile.Remove(os.path.join(base, "a.txt"))
        except tf.errors.NotFoundError as e:
            out["gfile_missing"] = [type(e).__name__, e.error_code]

    # the tf.errors hierarchy
    names = ["CancelledError", "InvalidArgumentError", "DeadlineExceededError",
             "NotFoundError", "AlreadyExistsError", "PermissionDeniedError",
             "ResourceExhaustedError", "FailedPreconditionError", "AbortedError",
             "OutOfRangeError", "UnimplementedError", "InternalError", "UnavailableError",
             "DataLossError", "UnauthenticatedError", "UnknownError"]
    out["error_codes"] = [getattr(tf.errors, n)(None, None, "m").error_code for n in names]
    out["error_constants"] = [tf.errors.OK, tf.errors.CANCELLED, tf.errors.OUT_OF_RANGE,
                              tf.errors.DATA_LOSS]
    out["error_is_op_error"] = all(issubclass(getattr(tf.errors, n), tf.errors.OpError)
                                   for n in names)
    err = tf.errors.InvalidArgumentError(None, None, "bad value")
    out["error_fields"] = [err.message, err.node_def, err.op, str(err)]
    out["error_from_code"] = tf.errors.exception_type_from_error_code(11).__name__
    out["code_from_type"] = tf.errors.error_code_from_exception_type(tf.errors.AbortedError)
    try:
        raise tf.errors.NotFoundError(None, None, "no such thing")
    except tf.errors.OpError as e:
        out["caught_as_op_error"] = [type(e).__name__, e.message, e.error_code]
