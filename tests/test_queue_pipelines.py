"""TF1's queue-based input pipelines end to end: the producers (string_input_producer,
range/slice_input_producer, limit_epochs), batch and shuffle_batch, fed by queue runners
under a Coordinator, and (below) the readers on files written here.  Every session has an
operation timeout, so a broken pipeline fails instead of hanging."""

from __future__ import annotations

import contextlib
import json
import os
import time

import numpy as np
import pytest

import devsession as ds
from devsession.errors import FailedPreconditionError, OutOfRangeError


@contextlib.contextmanager
def running(graph, init_locals=True):
    """A session with the graph's queue runners started; stops and joins them after."""
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        sess.run(ds.global_variables_initializer())
        if init_locals:
            sess.run(ds.local_variables_initializer())
        coord = ds.train.Coordinator()
        threads = ds.train.start_queue_runners(sess, coord)
        try:
            yield sess
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)


def drain(sess, tensor, limit=1000) -> list:
    """Every value ``tensor`` gives until ``OutOfRangeError`` (at most ``limit``)."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(tensor))
        except OutOfRangeError:
            return out
    raise AssertionError(f"no OutOfRangeError after {limit} values")


# --- producers -------------------------------------------------------------------------------

def test_string_input_producer_ends_after_exactly_its_epochs(graph):
    queue = ds.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    assert (queue.name, queue.queue_ref.op.type) == ("input_producer", "FIFOQueueV2")
    assert len(ds.get_collection(ds.GraphKeys.QUEUE_RUNNERS)) == 1
    assert [v.op.name for v in ds.local_variables()] == ["input_producer/limit_epochs/epochs"]
    name = queue.dequeue()
    with running(graph) as sess:
        assert drain(sess, name) == [b"a", b"b", b"c"] * 2


def test_each_epoch_is_a_permutation_repeatable_with_a_seed():
    def epochs(seed):
        g = ds.Graph()
        with g.as_default():
            ds.set_random_seed(5)
            index = ds.train.range_input_producer(6, num_epochs=3, seed=seed).dequeue()
            with running(g) as sess:
                return drain(sess, index)

    got = epochs(seed=1)
    assert len(got) == 18
    assert all(sorted(got[k:k + 6]) == list(range(6)) for k in (0, 6, 12))
    assert got[:6] != list(range(6)) or got[6:12] != list(range(6))
    assert epochs(seed=1) == got


def test_slice_input_producer_keeps_rows_together(graph):
    images = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.arange(6, dtype=np.int64) * 10
    image, label = ds.train.slice_input_producer([images, labels], num_epochs=1, seed=3)
    with running(graph) as sess:
        pairs = drain(sess, [image, label])
    assert sorted(int(lab) for _, lab in pairs) == list(labels)
    for img, lab in pairs:
        np.testing.assert_array_equal(img, images[int(lab) // 10])


def test_epochs_need_the_local_variables_initialized(graph):
    index = ds.train.range_input_producer(3, num_epochs=1).dequeue()
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        coord = ds.train.Coordinator()
        threads = ds.train.start_queue_runners(sess, coord)
        with pytest.raises(OutOfRangeError):           # the runner failed: nothing came
            sess.run(index)
        with pytest.raises(FailedPreconditionError, match="uninitialized value"):
            coord.join(threads, stop_grace_period_secs=5)


def test_limit_epochs_counts_with_count_up_to(graph):
    limited = ds.train.limit_epochs(ds.constant([1, 2]), num_epochs=2)
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        ds.train.limit_epochs(ds.constant(1), num_epochs=0)
    with ds.Session(graph=graph) as sess:
        sess.run(ds.local_variables_initializer())
        assert [sess.run(limited).tolist() for _ in range(2)] == [[1, 2], [1, 2]]
        with pytest.raises(OutOfRangeError, match="Reached limit of 2"):
            sess.run(limited)


# --- batching --------------------------------------------------------------------------------

def test_batch_in_order_and_the_smaller_final_batch(graph):
    index = ds.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
    square = index * index
    full = ds.train.batch([index, square], batch_size=4)
    assert [t.name for t in full] == ["batch:0", "batch:1"]
    assert [t.shape.as_list() for t in full] == [[4], [4]]
    with running(graph) as sess:
        batches = drain(sess, full)
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert batches[1][1].tolist() == [16, 25, 36, 49]

    g = ds.Graph()
    with g.as_default():
        index = ds.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
        single = ds.train.batch([index], batch_size=4, allow_smaller_final_batch=True)
        assert isinstance(single, ds.Tensor) and single.shape.as_list() == [None]
        with running(g) as sess:
            assert [b.tolist() for b in drain(sess, single)] == [[0, 1, 2, 3], [4, 5, 6, 7],
                                                                  [8, 9]]


def test_shuffle_batch_mixes_and_keeps_every_element_once(graph):
    ds.set_random_seed(1)
    index = ds.train.range_input_producer(40, num_epochs=1, shuffle=False).dequeue()
    batched = ds.train.shuffle_batch({"i": index, "twice": index * 2}, batch_size=8,
                                     capacity=30, min_after_dequeue=10, num_threads=3,
                                     seed=2, allow_smaller_final_batch=True)
    assert sorted(batched) == ["i", "twice"] and batched["i"].op.name == "shuffle_batch"
    with running(graph) as sess:
        batches = drain(sess, batched)
    seen = [int(i) for b in batches for i in b["i"]]
    assert sorted(seen) == list(range(40)) and seen != list(range(40))
    for b in batches:
        np.testing.assert_array_equal(b["twice"], b["i"] * 2)
    queue_op = graph.get_operation_by_name("shuffle_batch/random_shuffle_queue")
    assert (queue_op.type, queue_op.get_attr("min_after_dequeue"),
            queue_op.get_attr("capacity")) == ("RandomShuffleQueueV2", 10, 30)
    assert len(ds.get_collection(ds.GraphKeys.QUEUE_RUNNERS)[-1].enqueue_ops) == 3


def test_shuffle_batch_checks_its_capacity(graph):
    with pytest.raises(ValueError, match="capacity 5 must be bigger than min_after_dequeue 5"):
        ds.train.shuffle_batch([ds.constant(1)], 2, capacity=5, min_after_dequeue=5)


def test_enqueue_many_and_join_variants(graph):
    rows = ds.constant(np.arange(6, dtype=np.int32).reshape(3, 2))
    many = ds.train.batch([rows], batch_size=6, enqueue_many=True)
    assert many.shape.as_list() == [6, 2]
    joined = ds.train.batch_join([[ds.constant(1)], [ds.constant(2)]], batch_size=4)
    mixed = ds.train.shuffle_batch_join([[ds.constant(7)], [ds.constant(8)]], batch_size=4,
                                        capacity=10, min_after_dequeue=2)
    with running(graph) as sess:
        assert sess.run(many).tolist() == [[0, 1], [2, 3], [4, 5]] * 2
        assert set(sess.run(joined).tolist()) <= {1, 2}
        assert set(sess.run(mixed).tolist()) <= {7, 8}


# --- readers ---------------------------------------------------------------------------------

def read_all(graph, reader, files, up_to=None) -> list:
    """Every (key, value) ``reader`` gives from a closed queue of ``files``."""
    queue = ds.FIFOQueue(10, ds.string)
    fill = queue.enqueue_many([[str(f) for f in files]])
    record = reader.read(queue) if up_to is None else reader.read_up_to(queue, up_to)
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        sess.run([fill, queue.close()])
        got = drain(sess, list(record))
    if up_to is None:
        return [(k.decode(), v) for k, v in got]
    return [([k.decode() for k in keys], list(values)) for keys, values in got]


# The expectations are what TensorFlow 1.15's readers give for the same files.

def test_text_line_reader_numbers_lines_from_one_across_files(graph, tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes(b"head\nl1\nl2\n\nl4")
    second.write_bytes(b"h\nm1\n")
    reader = ds.TextLineReader(skip_header_lines=1)
    assert reader.reader_ref.op.type == "TextLineReaderV2"
    assert read_all(graph, reader, [first, second]) == [
        (f"{first}:2", b"l1"), (f"{first}:3", b"l2"), (f"{first}:4", b""),
        (f"{first}:5", b"l4"), (f"{second}:2", b"m1")]


def test_read_up_to_stays_within_one_file(graph, tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes(b"head\nl1\nl2\n\nl4")
    second.write_bytes(b"h\nm1\n")
    got = read_all(graph, ds.TextLineReader(), [first, second], up_to=3)
    assert got == [([f"{first}:1", f"{first}:2", f"{first}:3"], [b"head", b"l1", b"l2"]),
                   ([f"{first}:4", f"{first}:5"], [b"", b"l4"]),
                   ([f"{second}:1", f"{second}:2"], [b"h", b"m1"])]


def test_fixed_length_record_reader_with_header_footer_and_hop(graph, tmp_path):
    path = tmp_path / "b.bin"
    path.write_bytes(bytes(range(2)) + bytes(range(10, 22)) + b"F")
    plain = ds.FixedLengthRecordReader(record_bytes=4, header_bytes=2, footer_bytes=1)
    hopping = ds.FixedLengthRecordReader(record_bytes=4, header_bytes=2, footer_bytes=1,
                                         hop_bytes=3)
    assert read_all(graph, plain, [path]) == [
        (f"{path}:0", bytes([10, 11, 12, 13])), (f"{path}:1", bytes([14, 15, 16, 17])),
        (f"{path}:2", bytes([18, 19, 20, 21]))]
    assert [v for _, v in read_all(ds.get_default_graph(), hopping, [path])] == [
        bytes([10, 11, 12, 13]), bytes([13, 14, 15, 16]), bytes([16, 17, 18, 19])]


def test_tfrecord_and_whole_file_readers(graph, tmp_path):
    path = tmp_path / "r.tfrecord"
    with ds.python_io.TFRecordWriter(str(path)) as writer:
        writer.write(b"abc")
        writer.write(b"defgh")
    assert read_all(graph, ds.TFRecordReader(), [path]) == [
        (f"{path}:0", b"abc"), (f"{path}:19", b"defgh")]      # keys: byte offsets
    text = tmp_path / "t.txt"
    text.write_bytes(b"whole\nfile")
    assert read_all(ds.get_default_graph(), ds.WholeFileReader(), [text, path])[0] == (
        str(text), b"whole\nfile")


def test_identity_reader_gives_each_work_item_as_key_and_value_as_tf(graph):
    """What TF 2.21 gave (tests/data/tf_identity_reader.json, recorded by
    tests/data/make_tf_identity_reader.py): one item a read and a read_up_to, the
    counts, a reset, the end."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                           "tf_identity_reader.json")) as f:
        recorded = json.load(f)
    queue = ds.FIFOQueue(10, ds.string)
    fill = queue.enqueue_many([recorded["items"]])
    reader = ds.IdentityReader()
    assert reader.reader_ref.op.type == recorded["op"]
    read, read_up_to = reader.read(queue), reader.read_up_to(queue, 3)
    counts = [reader.num_records_produced(), reader.num_work_units_completed()]
    steps = []
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        sess.run([fill, queue.close()])
        for what in [read, read, read_up_to, counts, read_up_to, read, counts,
                     reader.reset(), counts, read, read_up_to]:
            try:
                steps.append(_plain(sess.run(what)))
            except ds.errors.OpError as e:
                steps.append(["error", type(e).__name__])
    assert steps == recorded["steps"]


def _plain(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def test_reader_counts_reset_and_a_missing_file(graph, tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x\ny\n")
    reader = ds.TextLineReader()
    queue = ds.FIFOQueue(10, ds.string)
    fill = queue.enqueue_many([[str(path), str(path), str(tmp_path / "missing.txt")]])
    key, value = reader.read(queue)
    produced, finished = reader.num_records_produced(), reader.num_work_units_completed()
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        sess.run(fill)
        assert [sess.run(value) for _ in range(3)] == [b"x", b"y", b"x"]
        assert (sess.run(produced), sess.run(finished)) == (3, 1)
        sess.run(reader.reset())
        assert (sess.run(produced), sess.run(finished)) == (0, 0)
        with pytest.raises(ds.errors.NotFoundError, match="missing.txt"):
            sess.run(key)                          # the reset dropped the file half read
        with pytest.raises(ds.errors.DeadlineExceededError):
            sess.run(key, options=ds.RunOptions(timeout_s=0.2))   # an empty, open queue


# --- the CIFAR-10 tutorial's pipeline, on small files ------------------------------------------

HEIGHT, WIDTH, DEPTH = 4, 4, 3
RECORD_BYTES = 1 + HEIGHT * WIDTH * DEPTH


def write_cifar_like(directory, files=2, per_file=10) -> tuple:
    """Files of records: a label byte (the record's number), then an image depth-major."""
    rng = np.random.default_rng(0)
    images, paths = [], []
    for f in range(files):
        records = bytearray()
        for r in range(per_file):
            image = rng.integers(0, 256, (DEPTH, HEIGHT, WIDTH), dtype=np.uint8)
            images.append(image.transpose(1, 2, 0).astype(np.float32))
            records += bytes([f * per_file + r]) + image.tobytes()
        path = directory / f"data_batch_{f + 1}.bin"
        path.write_bytes(bytes(records))
        paths.append(str(path))
    return paths, np.stack(images)


def test_cifar10_input_pipeline_end_to_end(graph, tmp_path):
    paths, expected = write_cifar_like(tmp_path)
    filename_queue = ds.train.string_input_producer(paths, num_epochs=1, seed=7)
    reader = ds.FixedLengthRecordReader(record_bytes=RECORD_BYTES)
    _, value = reader.read(filename_queue)
    record = ds.decode_raw(value, ds.uint8)
    label = ds.cast(ds.strided_slice(record, [0], [1]), ds.int32)
    depth_major = ds.reshape(ds.strided_slice(record, [1], [RECORD_BYTES]),
                             [DEPTH, HEIGHT, WIDTH])
    image = ds.cast(ds.transpose(depth_major, [1, 2, 0]), ds.float32)
    label.set_shape([1])
    images, labels = ds.train.shuffle_batch([image, label], batch_size=5, num_threads=4,
                                            capacity=16, min_after_dequeue=4, seed=1)
    assert images.shape.as_list() == [5, HEIGHT, WIDTH, DEPTH]
    seen = []
    with ds.Session(graph=graph, options=ds.SessionOptions(operation_timeout_s=10)) as sess:
        sess.run([ds.global_variables_initializer(), ds.local_variables_initializer()])
        coord = ds.train.Coordinator()
        threads = ds.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                batch_images, batch_labels = sess.run([images, labels])
                for img, lab in zip(batch_images, batch_labels[:, 0]):
                    np.testing.assert_array_equal(img, expected[lab])
                    seen.append(int(lab))
        except OutOfRangeError:
            pass                                       # one epoch done
        finally:
            coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    assert sorted(seen) == list(range(20))             # each record exactly once


# --- MonitoredTrainingSession starts the graph's runners, as TF1's ---------------------------

def test_monitored_training_session_runs_the_queue_runners(graph):
    index = ds.train.range_input_producer(6, num_epochs=2, shuffle=False).dequeue()
    batched = ds.train.batch([index], batch_size=4, allow_smaller_final_batch=True)
    got = []
    with ds.train.MonitoredTrainingSession(
            config=ds.SessionOptions(operation_timeout_s=10)) as sess:   # epochs: local
        while not sess.should_stop():                                    # init by default
            got.extend(sess.run(batched).tolist())
    assert got == list(range(6)) * 2                   # the with block ended the epochs


def test_monitored_training_session_reports_a_runner_error(graph):
    q = ds.FIFOQueue(4, ds.float32, shapes=[[]])
    bad = ds.check_numerics(ds.constant(np.nan, ds.float32), "bad input")
    ds.train.add_queue_runner(ds.train.QueueRunner(q, [q.enqueue(bad)]))
    with pytest.raises(ds.errors.InvalidArgumentError, match="bad input"):
        with ds.train.MonitoredTrainingSession(
                config=ds.SessionOptions(operation_timeout_s=10)) as sess:
            for _ in range(200):                      # until the runner's error stops it
                if sess.should_stop():
                    break
                time.sleep(0.01)
            assert sess.should_stop()
