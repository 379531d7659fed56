"""Writes tf_complex_math.pb (a GraphDef TensorFlow builds with complex elementwise math,
its gradients and second derivatives: complex_math_cases.py) and tf_complex_math.npz (its
feeds, TF's values and static shapes), which tests/test_complex_math_ops.py imports and
runs, and builds again through devsession.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_complex_math.py
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import complex_math_cases  # noqa: E402
from tf_case_recorder import record  # noqa: E402

record(tf, complex_math_cases, "tf_complex_math")
