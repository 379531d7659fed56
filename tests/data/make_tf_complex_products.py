"""Writes tf_complex_products.pb (a GraphDef TensorFlow builds with complex MatMul and
BatchMatMulV2 products, with adjoints, and their gradients: complex_products_cases.py) and
tf_complex_products.npz (its feeds, TF's values and static shapes), which
tests/test_complex_products.py imports and runs, and builds again through devsession.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_complex_products.py
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import complex_products_cases  # noqa: E402
from tf_case_recorder import record  # noqa: E402

record(tf, complex_products_cases, "tf_complex_products")
