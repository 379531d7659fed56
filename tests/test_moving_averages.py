"""``ds.train.ExponentialMovingAverage`` against TF1's formula in numpy: shadows named and
initialized as TF1's, ``num_updates`` slowing the decay early on, tensors averaged from
zero, and a Saver built from ``variables_to_restore`` loading the averages into the
model's variables (the evaluation recipe of TF1 programs).  Beside TF 2.21 the shadows,
names and restore map came out the same (TF is not a test dependency)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

F32 = np.float32


def test_shadows_follow_their_variables_by_tf1s_formula(make_session):
    w = ds.Variable(np.array([1.0, -2.0, 3.0], F32), name="w")
    b = ds.Variable(F32(0.5), name="b")
    steps = ds.placeholder(ds.int32, (), name="steps")
    loss = ds.reduce_sum(w * w) + b * b
    train = ds.train.GradientDescentOptimizer(0.1).minimize(loss)
    ema = ds.train.ExponentialMovingAverage(0.9, num_updates=steps)
    with ds.control_dependencies([train]):
        average = ema.apply([w, b, loss])
    assert average.name == "ExponentialMovingAverage" and average.type == "NoOp"
    assert [ema.average(v).op.name for v in (w, b)] == ["w/ExponentialMovingAverage",
                                                       "b/ExponentialMovingAverage"]
    assert ema.average_name(w) == "w/ExponentialMovingAverage"
    assert ema.average(loss).op.name == "add/ExponentialMovingAverage"
    assert [v.op.name for v in ds.moving_average_variables()] == ["w", "b"]
    assert not any(ema.average(v).trainable for v in (w, b))
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(ema.average(w)), [1.0, -2.0, 3.0])  # the start
    want_w, want_b, want_loss = np.array([1.0, -2.0, 3.0]), 0.5, 0.0
    value_w, value_b = want_w.copy(), 0.5
    for step in range(6):
        loss_value = np.sum(value_w ** 2) + value_b ** 2        # this run's loss
        value_w, value_b = value_w * 0.8, value_b * 0.8           # the SGD step: w -= 0.1 * 2w
        decay = min(0.9, (1 + step) / (10 + step))
        want_w -= (want_w - value_w) * (1 - decay)
        want_b -= (want_b - value_b) * (1 - decay)
        want_loss -= (want_loss - loss_value) * (1 - decay)
        sess.run(average, {steps: step})
    got = sess.run([ema.average(w), ema.average(b), ema.average(loss)])
    np.testing.assert_allclose(got[0], want_w, rtol=1e-5)
    np.testing.assert_allclose(got[1], want_b, rtol=1e-5)
    np.testing.assert_allclose(got[2], want_loss, rtol=1e-5)


def test_a_saver_of_variables_to_restore_loads_the_averages(tmp_path):
    w = ds.Variable(np.array([4.0, 8.0], F32), name="w")
    step = ds.train.get_or_create_global_step()
    ema = ds.train.ExponentialMovingAverage(0.5)
    update = ema.apply([w])
    assert ema.variables_to_restore() == {"w/ExponentialMovingAverage": w,
                                          "global_step": step}
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(w.assign([0.0, 0.0]))
        sess.run(update)                                  # shadow: [2, 4]
        path = ds.train.Saver().save(sess, str(tmp_path / "model"))
    with ds.Session() as sess:                            # evaluation: w gets the averages
        sess.run(ds.global_variables_initializer())
        ds.train.Saver(ema.variables_to_restore()).restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), [2.0, 4.0])


def test_zero_debias_corrects_the_averages_of_tensors_as_tf():
    x = ds.placeholder(ds.float32, [2])
    loss = ds.reduce_sum(x * x)
    w = ds.Variable([1.0, 2.0], name="w")
    ema = ds.train.ExponentialMovingAverage(0.9, zero_debias=True)
    update = ema.apply([loss, w])
    assert sorted(v.op.name for v in ds.global_variables()) == [
        "Sum/ExponentialMovingAverage", "Sum/ExponentialMovingAverage/biased",
        "Sum/ExponentialMovingAverage/local_step", "w", "w/ExponentialMovingAverage"]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        seen = []
        for feed in ([1.0, 2.0], [3.0, 1.0], [0.5, 0.5]):
            sess.run(update, {x: feed})
            seen.append(sess.run([ema.average(loss), ema.average(w)]))
    # what TensorFlow 2.21 gave for the same steps: the first average is the value itself
    np.testing.assert_allclose([s[0] for s in seen], [5.0, 7.631578, 5.0], rtol=1e-6)
    np.testing.assert_array_equal(seen[-1][1], [1.0, 2.0])       # a Variable's: no debias


def test_a_decay_tensor_is_read_at_each_apply_run_as_tf():
    """TF1 takes a tensor decay (a placeholder with a default, a schedule) and reads it
    each time the update runs, num_updates capping it and zero_debias using it."""
    w = ds.Variable([1.0, 2.0], name="w")
    x = ds.placeholder(ds.float32, [])
    decay = ds.placeholder_with_default(0.5, [])
    ema = ds.train.ExponentialMovingAverage(decay, num_updates=ds.constant(3))
    debiased = ds.train.ExponentialMovingAverage(ds.constant(0.75), zero_debias=True,
                                                 name="debiased")
    y = x * 2.0
    update, update_x = ema.apply([w]), debiased.apply([y])
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(w.assign([3.0, 3.0]))
        sess.run(update)                       # decay min(0.5, 4/13)
        sess.run(update, {decay: 0.25})
        sess.run(update_x, {x: 1.0})
        sess.run(update_x, {x: 2.0})
        got = sess.run([ema.average(w), debiased.average(y)])
    # TensorFlow 2.21's values for the same steps
    np.testing.assert_allclose(got[0], [2.8461537, 2.9230769], rtol=1e-6)
    np.testing.assert_allclose(got[1], 3.142857, rtol=1e-6)


def test_what_exponential_moving_average_refuses():
    ema = ds.train.ExponentialMovingAverage(0.9)
    with pytest.raises(TypeError, match="half, float, or double.*int32"):
        ema.apply([ds.Variable(np.int32(1), name="count")])
    with pytest.raises(ValueError, match="fully defined shape"):
        ema.apply([ds.placeholder(ds.float32, (None,))])
    w = ds.Variable(F32(1.0), name="w")
    assert ema.average(w) is None and ema.average_name(w) == "w/ExponentialMovingAverage"
    ema.apply([w])
    ema.apply([w])                                        # one shadow per variable
    assert [v.op.name for v in ds.global_variables()] == ["count", "w",
                                                          "w/ExponentialMovingAverage"]
