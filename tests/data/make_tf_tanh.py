"""Record TensorFlow's float32 tanh for tests/test_fastmath.py (TensorFlow is never a
test dependency; run once, from the repository root):

    TF_CPP_MIN_LOG_LEVEL=3 /work/peers/bin/python tests/data/make_tf_tanh.py

Writes tests/data/tf_tanh.npz: ``x`` (float32: a grid over [-9, 9], normal draws, tiny
values, every 2**20-th bit pattern, the clamp's neighbours, signed zeros, infinities,
NaN) and ``y``, TF 2.21's ``tf.math.tanh(x)`` on the CPU.
"""

from pathlib import Path

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
clamp = np.float32(7.90738964080810547)
x = np.concatenate([
    np.linspace(-9, 9, 8001, dtype=np.float32),
    (rng.standard_normal(4000) * 3).astype(np.float32),
    (rng.standard_normal(2000) * 1e-3).astype(np.float32),
    np.arange(0, 2**32, 2**20, dtype=np.uint64).astype(np.uint32).view(np.float32),
    np.nextafter(clamp, np.float32([-np.inf, np.inf])), np.nextafter(-clamp, np.float32([-np.inf, np.inf])),
    np.float32([clamp, -clamp, 0.0, -0.0, 1e-30, -1e-45, np.inf, -np.inf, np.nan])])
y = tf.math.tanh(tf.constant(x)).numpy()
np.savez(Path(__file__).parent / "tf_tanh.npz", x=x, y=y)
