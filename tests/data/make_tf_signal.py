"""Writes tf_signal.pb (a GraphDef TensorFlow builds with complex numbers, the FFT ops and
tf.signal's audio features: STFTs, mel spectrograms, MFCCs, DCTs; the computations of
signal_cases.py) and tf_signal.npz (its feeds, TF's fetched values and static shapes),
which tests/test_signal.py imports and runs, and builds again through devsession's own
tf.signal.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_signal.py
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import signal_cases  # noqa: E402
from tf_case_recorder import record  # noqa: E402

record(tf, signal_cases, "tf_signal")
