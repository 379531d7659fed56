"""Writes tf_prod_grad.pb (a GraphDef TensorFlow builds with reduce_prod's gradients:
prod_grad_cases.py) and tf_prod_grad.npz (its feeds, TF's values and static shapes),
which tests/test_prod_grad.py imports and runs, and builds again through devsession.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_prod_grad.py
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prod_grad_cases  # noqa: E402
from tf_case_recorder import record  # noqa: E402

record(tf, prod_grad_cases, "tf_prod_grad")
