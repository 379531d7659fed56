"""The speech-commands input pipeline's file ops: WAV files encoded and decoded (channels
and samples as asked, rounding and clipping), read back from disk with read_file, a
batch of waves through a Dataset, and compressed strings (ZLIB, GZIP) decoded; the
errors TF raises for files it cannot read."""

import os
import tempfile
import zlib

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    mono = (0.4 * rng.standard_normal((50, 1))).astype(np.float32)
    stereo = np.concatenate([mono, -0.5 * mono], axis=1)
    edges = np.array([[0.0], [0.5], [-0.5], [1.0], [-1.0], [1.5], [-2.0], [3.0517578e-05],
                      [4.5776367e-05], [-4.5776367e-05], [np.nan]], np.float32)

    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "speech.wav")
    encoded = tf.audio.encode_wav(stereo, 16000)
    rounded = tf.audio.encode_wav(edges, 8000)
    contents = tf.placeholder(tf.string, [])
    decoded = tf.audio.decode_wav(contents)
    as_mono = tf.audio.decode_wav(contents, desired_channels=1, desired_samples=60)
    as_three = tf.audio.decode_wav(contents, desired_channels=3, desired_samples=20)
    from_file = tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1)
    out["static_shapes"] = [decoded[0].shape.as_list(), as_mono[0].shape.as_list(),
                            decoded[1].shape.as_list(), encoded.shape.as_list()]
    with tf.Session() as sess:
        wav = sess.run(encoded)
        out["wav_header"] = wav[:44]
        out["wav_size"] = len(wav)
        edge_wav = sess.run(rounded)
        out["rounded_pcm"] = np.frombuffer(edge_wav[44:], "<i2").astype(np.int32)
        out["decoded"] = sess.run(decoded, {contents: wav})
        out["as_mono"] = sess.run(as_mono, {contents: wav})
        out["as_three"] = sess.run(as_three, {contents: wav})
        with open(path, "wb") as f:
            f.write(wav)
        out["from_file"] = sess.run(from_file)
        # a wave with a JUNK chunk before "fmt ", and an 18-byte format chunk
        junk = wav[:12] + b"JUNK" + (4).to_bytes(4, "little") + b"\0\0\0\0" + wav[12:]
        out["junk_chunk"] = sess.run(decoded[0], {contents: junk})[:3]
        long_format = (wav[:16] + (18).to_bytes(4, "little") + wav[20:36] + b"\0\0" +
                       wav[36:])
        out["format_18"] = sess.run(decoded[0], {contents: long_format})[:3]
        errors = []
        for bad, phrase in ((b"RIFF", "Data too short"),
                            (b"RIFX" + wav[4:], "Expected RIFF but found RIFX"),
                            (wav[:40], "Data too short"),
                            (wav[:34] + (8).to_bytes(2, "little") + wav[36:],
                             "Can only read 16-bit WAV files, but received 8"),
                            (wav[:20] + (3).to_bytes(2, "little") + wav[22:],
                             "Expected 1 (PCM), but got3"),
                            (wav[:12] + b"LIST" + wav[16:], "Unexpected field LIST")):
            try:
                sess.run(decoded, {contents: bad})
                errors.append(None)
            except tf.errors.OpError as e:
                errors.append([type(e).__name__, phrase in e.message])
        out["decode_errors"] = errors
        try:
            sess.run(tf.audio.encode_wav(np.zeros(4, np.float32), 100))
            out["encode_error"] = None
        except (tf.errors.OpError, ValueError) as e:
            out["encode_error"] = type(e).__name__

        # waves of a Dataset: file names -> read_file -> decode_wav -> batch
        paths = []
        for k in range(3):
            name = os.path.join(folder, f"w{k}.wav")
            with open(name, "wb") as f:
                f.write(sess.run(tf.audio.encode_wav(mono * (k + 1) / 4, 8000)))
            paths.append(name)
        dataset = tf.data.Dataset.from_tensor_slices(paths).map(
            lambda p: tf.audio.decode_wav(tf.io.read_file(p), desired_samples=40)[0]).batch(3)
        out["batched_waves"] = sess.run(tf.data.make_one_shot_iterator(dataset).get_next())

        compressed = tf.constant([zlib.compress(b"hello speech"), zlib.compress(b""),
                                  zlib.compress(b"x" * 1000)])
        out["zlib"] = sess.run(tf.io.decode_compressed(compressed, "ZLIB"))
        gz = tf.placeholder(tf.string, [None])
        out["gzip"] = sess.run(tf.io.decode_compressed(gz, compression_type="GZIP"),
                               {gz: [_gzip(b"first"), _gzip(b"second line\n")]})
        out["none"] = sess.run(tf.decode_compressed(tf.constant([[b"a", b"bc"]])))
        out["cut_short"] = sess.run(tf.io.decode_compressed(
            tf.constant(zlib.compress(b"abcdef")[:-3]), "ZLIB"))
        try:
            sess.run(tf.io.decode_compressed(tf.constant(b"raw"), "ZLIB"))
            out["corrupt"] = None
        except tf.errors.OpError as e:
            out["corrupt"] = type(e).__name__
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


def _gzip(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()
