"""The AdagradDA runs tests/data/make_tf_adagrad_da.py records from TensorFlow and
tests/test_adagrad_da.py repeats in devsession: the dense quadratic
``0.5 w'Aw - TARGET'w`` (tests/test_optimizers.py's), the optimizer settings of each dense
run, and those of the sparse (embedding) run."""

import numpy as np

A = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 3.0]])
TARGET = np.array([1.0, -2.0, 0.5])
CONFIGS = {
    "plain": dict(learning_rate=0.5),
    "l1_l2": dict(learning_rate=0.4, initial_gradient_squared_accumulator_value=0.3,
                  l1_regularization_strength=0.2, l2_regularization_strength=0.05),
}
SPARSE = dict(learning_rate=0.3, l1_regularization_strength=0.01,
              l2_regularization_strength=0.02)
