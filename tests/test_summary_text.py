"""TF1's ``tf.summary.text`` and ``tf.summary.tensor_summary`` (TF's TensorSummaryV2): the
whole tensor as a TensorProto beside its plugin's metadata, read back by TensorBoard's own
protobufs from an event file."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds


def test_text_and_tensor_summaries_reach_tensorboard(tmp_path):
    pytest.importorskip("tensorboard", reason="FileWriter needs the tensorboard extra")
    from tensorboard.util import tensor_util

    notes = ds.placeholder(ds.string, [None], name="notes_in")
    text = ds.summary.text("notes", notes)
    weights = ds.summary.tensor_summary("w", ds.constant([[1.5, -2.0]]), family="layer",
                                        summary_description="the weights",
                                        display_name="W")
    assert (text.op.type, text.op.name, weights.op.name) == ("TensorSummaryV2", "notes",
                                                              "layer/w")   # tag layer/layer/w
    assert ds.get_default_graph().get_collection("summaries") == [text, weights]
    writer = ds.summary.FileWriter(str(tmp_path))
    with ds.Session() as sess:
        merged = sess.run(ds.summary.merge_all(),
                          {notes: np.array([b"step 1: ok", "é".encode()], object)})
    writer.add_summary(merged, global_step=3)
    writer.close()
    (path,) = [os.path.join(tmp_path, f) for f in os.listdir(tmp_path)]
    values = [v for e in ds.train.summary_iterator(path) if e.HasField("summary")
              for v in e.summary.value]
    got = {v.tag: v for v in values}
    assert got["notes"].metadata.plugin_data.plugin_name == "text"
    assert tensor_util.make_ndarray(got["notes"].tensor).tolist() == [b"step 1: ok",
                                                                      "é".encode()]
    assert (got["layer/layer/w"].metadata.summary_description,
            got["layer/layer/w"].metadata.display_name) == ("the weights", "W")
    np.testing.assert_array_equal(tensor_util.make_ndarray(got["layer/layer/w"].tensor),
                                  np.array([[1.5, -2.0]], np.float32))


def test_text_takes_strings_only():
    with pytest.raises(ValueError, match="to have dtype string, got float32"):
        ds.summary.text("loss", ds.constant(1.0))


def test_audio_summaries_are_wav_clips(tmp_path):
    import io
    import wave

    clips = ds.placeholder(ds.float32, [None, None, 2], name="clips")
    audio = ds.summary.audio("voice", clips, 8000, max_outputs=2)
    single = ds.summary.audio("mono", ds.constant([[0.5, -1.0, 2.0]]), 16000.0,
                              max_outputs=1)
    t = np.arange(100, dtype=np.float32) / 8000
    tone = np.stack([np.sin(2 * np.pi * 440 * t), 0.5 * np.cos(2 * np.pi * 220 * t)], -1)
    batch = np.stack([tone, -tone, tone * 0]).astype(np.float32)      # 3 clips, 2 written
    with ds.Session() as sess:
        voice = ds.summary.Summary.FromString(sess.run(audio, {clips: batch}))
        mono = ds.summary.Summary.FromString(sess.run(single))
    assert [v.tag for v in voice.value] == ["voice/audio/0", "voice/audio/1"]
    for value, clip in zip(voice.value, batch):
        assert (value.audio.sample_rate, value.audio.num_channels,
                value.audio.length_frames, value.audio.content_type) == (8000, 2, 100,
                                                                         "audio/wav")
        with wave.open(io.BytesIO(value.audio.encoded_audio_string)) as file:
            assert (file.getnchannels(), file.getsampwidth(), file.getframerate(),
                    file.getnframes()) == (2, 2, 8000, 100)
            pcm = np.frombuffer(file.readframes(100), "<i2").reshape(100, 2)
        np.testing.assert_array_equal(pcm, np.clip(np.round(clip * 32768), -32768, 32767))
    (value,) = mono.value
    assert value.tag == "mono/audio"
    with wave.open(io.BytesIO(value.audio.encoded_audio_string)) as file:
        assert np.frombuffer(file.readframes(3), "<i2").tolist() == [16384, -32768, 32767]
    with pytest.raises(TypeError, match="audio must be float32"):
        ds.summary.audio("x", ds.constant([[1.0]], ds.float64), 8000)
    with pytest.raises(ValueError, match=r"\[batch, frames\]"):
        ds.summary.audio("x", ds.constant([1.0]), 8000)
