"""The schedules tests/data/make_tf_lr_schedules.py records from TensorFlow and
tests/test_lr_schedules.py checks devsession against: {case: (tf.train function, its
keyword arguments)}, "STEP" standing for the global step."""

STEPS = [0, 1, 5, 9, 10, 11, 19, 25, 29, 30, 31, 59, 60, 100, 1000]

CASES = {
    "exponential": ("exponential_decay", dict(learning_rate=0.1, global_step="STEP",
                                              decay_steps=10, decay_rate=0.5)),
    "exponential_staircase": ("exponential_decay", dict(
        learning_rate=0.1, global_step="STEP", decay_steps=10, decay_rate=0.5,
        staircase=True)),
    "natural_exp": ("natural_exp_decay", dict(learning_rate=0.1, global_step="STEP",
                                              decay_steps=10, decay_rate=0.5)),
    "natural_exp_staircase": ("natural_exp_decay", dict(
        learning_rate=0.1, global_step="STEP", decay_steps=10, decay_rate=0.5,
        staircase=True)),
    "inverse_time": ("inverse_time_decay", dict(learning_rate=0.1, global_step="STEP",
                                                decay_steps=10, decay_rate=0.5)),
    "inverse_time_staircase": ("inverse_time_decay", dict(
        learning_rate=0.1, global_step="STEP", decay_steps=10, decay_rate=0.5,
        staircase=True)),
    "polynomial": ("polynomial_decay", dict(learning_rate=0.1, global_step="STEP",
                                            decay_steps=30, end_learning_rate=0.001)),
    "polynomial_squared": ("polynomial_decay", dict(
        learning_rate=0.1, global_step="STEP", decay_steps=30, end_learning_rate=0.001,
        power=2.0)),
    "polynomial_cycle": ("polynomial_decay", dict(
        learning_rate=0.1, global_step="STEP", decay_steps=30, end_learning_rate=0.001,
        power=0.5, cycle=True)),
    "cosine": ("cosine_decay", dict(learning_rate=0.1, global_step="STEP", decay_steps=30)),
    "cosine_alpha": ("cosine_decay", dict(learning_rate=0.1, global_step="STEP",
                                          decay_steps=30, alpha=0.2)),
    "cosine_restarts": ("cosine_decay_restarts", dict(learning_rate=0.1, global_step="STEP",
                                                      first_decay_steps=10)),
    "cosine_restarts_even": ("cosine_decay_restarts", dict(
        learning_rate=0.1, global_step="STEP", first_decay_steps=10, t_mul=1.0, m_mul=0.5,
        alpha=0.1)),
    "cosine_restarts_longer": ("cosine_decay_restarts", dict(
        learning_rate=0.1, global_step="STEP", first_decay_steps=7, t_mul=1.5, m_mul=0.8)),
    "linear_cosine": ("linear_cosine_decay", dict(learning_rate=0.1, global_step="STEP",
                                                  decay_steps=30)),
    "linear_cosine_periods": ("linear_cosine_decay", dict(
        learning_rate=0.1, global_step="STEP", decay_steps=60, num_periods=2.0, alpha=0.1,
        beta=0.01)),
    "piecewise": ("piecewise_constant", dict(x="STEP", boundaries=[10, 25, 60],
                                             values=[0.1, 0.05, 0.01, 0.001])),
}
