"""Writes tf_complex_linalg.pb (a GraphDef TensorFlow builds with complex inverses, solves,
determinants and decompositions and their gradients: complex_linalg_cases.py) and
tf_complex_linalg.npz (its feeds, TF's values and static shapes), which
tests/test_complex_linalg.py imports and runs, and builds again through devsession.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_complex_linalg.py
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import complex_linalg_cases  # noqa: E402
from tf_case_recorder import record  # noqa: E402

record(tf, complex_linalg_cases, "tf_complex_linalg")
