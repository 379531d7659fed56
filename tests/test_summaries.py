"""Summary ops and ``ds.summary.FileWriter``: the bytes the ops make are TensorFlow's
``Summary`` (histogram buckets and image pixels compared with what TensorFlow 2.21's
``tf.compat.v1.summary`` made for the same inputs, recorded below), and the event files
open in TensorBoard (read back with its ``EventAccumulator``, graph included).  The
event-file tests skip where the ``tensorboard`` extra is not installed; CI installs it.
"""

from __future__ import annotations

import os
import sys
import zlib

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.proto import summary_pb2

# tf.summary.histogram("h", VALUES) under TensorFlow 2.21 (tf.compat.v1), field by field.
VALUES = np.array([-3.5, -1e-13, 0.0, 0.0, 1e-12, 2.5, 2.5, 7.0, 1e5], np.float32)
TF_HISTOGRAM = {"min": -3.5, "max": 100000.0, "num": 9.0, "sum": 100008.5, "sum_squares": 10000000073.75, "bucket_limit": [-3.8315657995195243, -3.48324163592684, -1e-12, 0.0, 1e-12, 2.379100905625872, 2.6170109961884593, 6.7878525393626115, 7.466637793298873, 93540.76446483507, 102894.84091131858, 1.7976931348623157e+308], "bucket": [0.0, 1.0, 0.0, 1.0, 3.0, 0.0, 2.0, 0.0, 1.0, 0.0, 1.0, 0.0]}
# tf.summary.image("im", IMAGES, max_outputs=2): the decoded PNG pixels of each image.
IMAGES = np.array([[[[0.0], [0.5]], [[1.0], [np.nan]]], [[[-2.0], [1.0]], [[0.25], [-0.5]]]],
                  np.float32)
TF_IMAGE_TAGS = ["im/image/0", "im/image/1"]
TF_IMAGE_PIXELS = [[[[0], [127]], [[255], [255]]], [[[1], [191]], [[143], [96]]]]


def run(fetch, feed=None):
    with ds.Session() as sess:
        return sess.run(fetch, feed)


def parse(data: bytes) -> summary_pb2.Summary:
    assert isinstance(data, bytes)
    return summary_pb2.Summary.FromString(data)


def decode_png(data: bytes) -> np.ndarray:
    """The pixels of an 8-bit, unfiltered PNG (what the image summary writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        assert zlib.crc32(kind + body) == int.from_bytes(data[pos + 8 + length:pos + 12 + length],
                                                         "big")
        chunks.setdefault(kind, b"")
        chunks[kind] += body
        pos += 12 + length
    width, height = int.from_bytes(chunks[b"IHDR"][:4], "big"), \
        int.from_bytes(chunks[b"IHDR"][4:8], "big")
    channels = {0: 1, 2: 3, 6: 4}[chunks[b"IHDR"][9]]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, -1)
    assert np.all(rows[:, 0] == 0)
    return rows[:, 1:].reshape(height, width, channels)


# --- the ops ------------------------------------------------------------------------------

def test_scalar_summary_names_tags_and_collects_like_tf1():
    x = ds.placeholder(ds.float32, [])
    first = ds.summary.scalar("loss", x * 2.0)
    with ds.name_scope("train"):
        scoped = ds.summary.scalar("loss", x)
    second = ds.summary.scalar("loss", x)
    assert (first.op.name, scoped.op.name, second.op.name) == ("loss", "train/loss", "loss_1")
    assert first.dtype == ds.string and first.shape.as_list() == []
    assert ds.get_default_graph().get_collection("summaries") == [first, scoped, second]
    values = [parse(b).value[0] for b in run([first, scoped, second], {x: 1.25})]
    assert [(v.tag, v.simple_value) for v in values] == [
        ("loss", 2.5), ("train/loss", 1.25), ("loss_1", 1.25)]


def test_a_family_prefixes_the_op_scope_and_again_the_tag_as_tf1():
    # what TF 2.21's tf.compat.v1.summary names and tags for the same calls
    x = ds.constant([[0.5, -1.0]])
    built = [ds.summary.scalar("loss", ds.constant(1.0), family="train"),
             ds.summary.histogram("q", x, family="my family"),
             ds.summary.image("img", ds.zeros([1, 2, 2, 1]), family="vis")]
    with ds.name_scope("outer"):
        built.append(ds.summary.scalar("acc", ds.constant(1.0), family="eval"))
    tags = [[v.tag for v in parse(b).value] for b in run(built)]
    assert [t.op.name for t in built] == ["train/loss", "my_family/q", "vis/img",
                                          "outer/eval/acc"]
    assert tags == [["train/train/loss"], ["my_family/my_family/q"], ["vis/vis/img/image/0"],
                    ["eval/outer/eval/acc"]]


def test_histogram_matches_tensorflows_buckets():
    (value,) = parse(run(ds.summary.histogram("h", ds.constant(VALUES)))).value
    got = value.histo
    assert value.tag == "h"
    for field in ("min", "max", "num", "sum", "sum_squares"):
        assert getattr(got, field) == pytest.approx(TF_HISTOGRAM[field], rel=1e-12), field
    np.testing.assert_allclose(got.bucket_limit, TF_HISTOGRAM["bucket_limit"], rtol=1e-12)
    assert list(got.bucket) == TF_HISTOGRAM["bucket"]


def test_histogram_of_nan_is_an_error_naming_the_tag():
    h = ds.summary.histogram("weights", ds.placeholder(ds.float32, [2]))
    with pytest.raises(InvalidArgumentError, match="Nan in summary histogram for: weights"):
        run(h, {h.op.inputs[1]: [1.0, np.nan]})


def test_images_are_scaled_and_encoded_as_tensorflow_does():
    values = parse(run(ds.summary.image("im", ds.constant(IMAGES), max_outputs=2))).value
    assert [v.tag for v in values] == TF_IMAGE_TAGS
    for v, pixels in zip(values, TF_IMAGE_PIXELS):
        assert (v.image.height, v.image.width, v.image.colorspace) == (2, 2, 1)
        np.testing.assert_array_equal(decode_png(v.image.encoded_image_string), pixels)


def test_uint8_rgb_images_keep_their_pixels_and_one_image_has_a_plain_tag():
    rgb = (np.arange(2 * 3 * 2 * 3).reshape(2, 3, 2, 3) * 11 % 256).astype(np.uint8)
    values = parse(run(ds.summary.image("one", ds.constant(rgb), max_outputs=1))).value
    assert [v.tag for v in values] == ["one/image"]
    assert values[0].image.colorspace == 3
    np.testing.assert_array_equal(decode_png(values[0].image.encoded_image_string), rgb[0])


def test_image_summary_checks_the_shape_when_built():
    with pytest.raises(ValueError, match="1, 3 or 4 channels"):
        ds.summary.image("bad", ds.placeholder(ds.float32, [1, 2, 2, 2]))


def test_merge_and_merge_all():
    assert ds.summary.merge_all() is None
    a = ds.summary.scalar("a", ds.constant(1.0))
    b = ds.summary.histogram("b", ds.constant([1.0, 2.0]))
    merged = ds.summary.merge_all()
    assert merged.op.type == "MergeSummary" and merged.op.name == "Merge/MergeSummary"
    assert [v.tag for v in parse(run(merged)).value] == ["a", "b"]
    only_a = ds.summary.merge([a])
    assert [v.tag for v in parse(run(only_a)).value] == ["a"]
    with ds.name_scope("x"):
        ds.summary.scalar("c", ds.constant(3.0))
    assert [v.tag for v in parse(run(ds.summary.merge_all(scope="x"))).value] == ["x/c"]


def test_merging_a_tag_twice_is_an_error():
    a = ds.summary.scalar("a", ds.constant(1.0))
    with pytest.raises(InvalidArgumentError, match="Duplicate tag a"):
        run(ds.summary.merge([a, a]))


def test_unknown_summary_function_names_the_tf1_symbol():
    with pytest.raises(AttributeError, match=r"tf\.summary\.get_summary_description is "
                                             r"not supported by devsession yet"):
        ds.summary.get_summary_description  # noqa: B018


def test_event_protos_are_under_summary_and_tensorboard_reads_them(tmp_path, accumulator):
    """tf.summary.Event / SessionLog / TaggedRunMetadata / SummaryDescription, and the
    top-level tf.Event: TF1 code writes hand-made events with them, holding a tf.Summary."""
    from tensorboard.compat.proto import event_pb2

    assert ds.summary.Event is ds.Event is summary_pb2.Event
    assert ds.summary.SessionLog is ds.SessionLog
    assert ds.summary.SummaryDescription(type_hint="image").type_hint == "image"
    value = ds.Summary(value=[ds.Summary.Value(tag="loss", simple_value=0.5)])
    hand_made = ds.summary.Event(step=7, wall_time=1.0, summary=value)
    assert event_pb2.Event.FromString(hand_made.SerializeToString()).summary.value[0].tag == \
        "loss"                                       # TensorBoard's fields are these
    with ds.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_event(hand_made)
        writer.add_session_log(ds.summary.SessionLog(status=ds.summary.SessionLog.START),
                               global_step=8)
        writer.add_event(ds.Event(step=9, tagged_run_metadata=ds.summary.TaggedRunMetadata(
            tag="step9", run_metadata=b"")))
    assert [(e.step, e.value) for e in accumulator(str(tmp_path)).Scalars("loss")] == \
        [(7, 0.5)]
    events = list(ds.train.summary_iterator(next(tmp_path.iterdir())))
    assert all(isinstance(e, ds.Event) for e in events)
    assert [(e.step, e.WhichOneof("what")) for e in events[1:]] == \
        [(7, "summary"), (8, "session_log"), (9, "tagged_run_metadata")]
    assert events[2].session_log.status == ds.SessionLog.START


# --- FileWriter -------------------------------------------------------------------------

def test_file_writer_without_tensorboard_names_the_extra(monkeypatch):
    for module in ("tensorboard", "tensorboard.compat.proto",
                   "tensorboard.summary.writer.event_file_writer"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=r"pip install 'devsession\[tensorboard\]'"):
        ds.summary.FileWriter("/nonexistent")
    # the ops need nothing
    assert parse(run(ds.summary.scalar("ok", ds.constant(1.0)))).value[0].tag == "ok"


@pytest.fixture
def accumulator():
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    from tensorboard.backend.event_processing import event_accumulator as ea

    def read(logdir):
        acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0,
                                                         ea.IMAGES: 0})
        acc.Reload()
        return acc
    return read


def test_event_files_open_in_tensorboard_with_scalars_histograms_images_and_graph(
        tmp_path, accumulator):
    x = ds.placeholder(ds.float32, [None, 2, 2, 1], name="x")
    w = ds.Variable(np.array([1.0, -2.0, 3.0], np.float32), name="w")
    halve = w.assign(w * 0.5)
    ds.summary.scalar("norm", ds.sqrt(ds.reduce_sum(ds.square(w))))
    ds.summary.histogram("w", w)     # tag "w_1": the name "w" is the variable's, as in TF1
    ds.summary.image("x", x, max_outputs=1)
    merged = ds.summary.merge_all()
    with ds.Session() as sess:
        sess.run(w.initializer)
        with ds.summary.FileWriter(str(tmp_path), sess.graph) as writer:
            for step in range(3):
                writer.add_summary(sess.run(merged, {x: np.ones((1, 2, 2, 1), np.float32)}),
                                   step)
                sess.run(halve)
            writer.add_summary(parse(sess.run(merged, {x: np.zeros((1, 2, 2, 1), np.float32)})),
                               global_step=10)        # a Summary message works too
    acc = accumulator(str(tmp_path))
    tags = acc.Tags()
    assert tags["scalars"] == ["norm"] and tags["histograms"] == ["w_1"]
    assert tags["images"] == ["x_1/image"] and tags["graph"]      # "x" is the placeholder
    norms = [(e.step, e.value) for e in acc.Scalars("norm")]
    expected = np.sqrt(14.0) * np.array([1.0, 0.5, 0.25, 0.125])
    assert [s for s, _ in norms] == [0, 1, 2, 10]
    np.testing.assert_allclose([v for _, v in norms], expected, rtol=1e-6)
    assert [e.histogram_value.num for e in acc.Histograms("w_1")] == [3.0] * 4
    graph = acc.Graph()                  # what TensorBoard's graph view draws
    nodes = {n.name: n for n in graph.node}
    assert set(nodes) == {op.name for op in ds.get_default_graph().get_operations()}
    assert nodes["w"].op == "VariableV2" and nodes["w/read"].input == ["w"]
    assert nodes["x"].attr["dtype"].type == 1               # DT_FLOAT, as TensorFlow's


def test_add_graph_writes_float_attributes_tensorboard_can_read(tmp_path, accumulator):
    ds.random_uniform([2], minval=-1.5, maxval=2.0, name="draw")
    with ds.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_graph(ds.get_default_graph())
    node = {n.name: n for n in accumulator(str(tmp_path)).Graph().node}["draw"]
    assert node.attr["minval"].f == -1.5 and node.attr["maxval"].f == 2.0


def test_writer_flush_close_reopen(tmp_path, accumulator):
    writer = ds.summary.FileWriter(str(tmp_path))
    assert writer.get_logdir() == str(tmp_path)
    writer.add_summary(run(ds.summary.scalar("a", ds.constant(1.0))), 1)
    writer.flush()
    assert [e.step for e in accumulator(str(tmp_path)).Scalars("a")] == [1]
    writer.close()
    with pytest.raises(RuntimeError, match="closed"):
        writer.add_summary(b"", 2)
    writer.reopen()
    writer.add_summary(run(ds.summary.scalar("b", ds.constant(2.0))), 2)
    writer.close()
    # reopen() starts a second event file; each run's value is in its own file, and
    # TensorBoard reading the logdir sees both.
    files = [f for f in os.listdir(tmp_path) if "tfevents" in f]
    assert len(files) == 2, files
    # (sorted: the names' last field, a counter, need not sort as the files were made)
    assert sorted(accumulator(str(tmp_path / f)).Tags()["scalars"] for f in files) == \
        [["a"], ["b"]]
    acc = accumulator(str(tmp_path))
    assert [(e.step, e.value) for e in acc.Scalars("a")] == [(1, 1.0)]
    assert [(e.step, e.value) for e in acc.Scalars("b")] == [(2, 2.0)]
    with pytest.raises(TypeError, match="bytes"):
        ds.summary.FileWriter(str(tmp_path)).add_summary(3.0)
