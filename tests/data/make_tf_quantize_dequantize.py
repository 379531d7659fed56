"""Writes tf_quantize_dequantize.pb (a GraphDef TensorFlow builds with the
QuantizeAndDequantizeV2/V3/V4 ops and their gradients: quantize_dequantize_cases.py) and
tf_quantize_dequantize.npz (its feeds, TF's fetched values and static shapes), which
tests/test_quantize_dequantize.py imports and runs, and builds again through devsession.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_quantize_dequantize.py
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quantize_dequantize_cases  # noqa: E402
from tf_case_recorder import record  # noqa: E402

record(tf, quantize_dequantize_cases, "tf_quantize_dequantize")
