"""Variable constraints and layer activity regularizers against TensorFlow 2.21's
(tests/data/tf_layer_options.npz, made by tests/data/make_tf_layer_options.py from the
models of tests/layer_options_cases.py, which this test builds with ``ds``).

Constraints: a variable keeps its ``constraint`` however it was made, and TF1's
optimizers assign ``constraint(v)`` after each update, so three Momentum steps leave every
variable as TF's; a constrained variable with a sparse (IndexedSlices) gradient is TF's
RuntimeError.  Activity regularizers: each layer call adds ``regularizer(output) / batch
size`` to REGULARIZATION_LOSSES (and ``layer.losses``), TF's values and names.
"""

import os

import numpy as np
import pytest

import devsession as ds
from tests.layer_options_cases import activity_model, constraints_model

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_layer_options.npz"))


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def test_constrained_variables_train_as_tfs(graph):
    _, train = constraints_model(ds, DATA)
    constrained = [v.op.name for v in ds.trainable_variables() if v.constraint is not None]
    assert constrained == list(DATA["constrained"])
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for step in range(3):
            sess.run(train)
            for var in ds.trainable_variables():
                np.testing.assert_allclose(sess.run(var), DATA[f"step{step}:{var.op.name}"],
                                           rtol=2e-5, atol=2e-6, err_msg=f"{var.op.name} "
                                           f"after step {step}")
        v = graph.get_tensor_by_name("v:0")
        assert np.linalg.norm(sess.run(v), axis=0).max() <= 1.0 + 1e-6


def test_a_constraint_is_kept_however_the_variable_is_made(graph):
    def halve(w):
        return w * 0.5
    assert ds.Variable(1.0).constraint is None
    assert ds.Variable(1.0, constraint=halve).constraint is halve
    with ds.variable_scope("outer", constraint=halve) as scope:
        assert scope.constraint is halve
        with ds.variable_scope("inner"):
            assert ds.get_variable("a", (2,)).constraint is halve       # inherited
        assert ds.get_variable("b", (2,), constraint=abs).constraint is abs
    assert ds.get_variable("c", (2,), constraint=abs).constraint is abs

    seen = {}

    def getter(getter, *args, **kwargs):
        seen.update(kwargs)
        return getter(*args, **kwargs)
    with ds.variable_scope("custom", custom_getter=getter):
        assert ds.get_variable("d", (1,), constraint=halve).constraint is halve
    assert seen["constraint"] is halve
    with pytest.raises(ValueError, match="must be a callable"):
        ds.Variable(1.0, constraint=3)


def test_the_constraint_is_assigned_after_the_update(graph):
    w = ds.Variable([3.0, -4.0], name="w", constraint=lambda t: ds.clip_by_value(t, -1.0, 1.0))
    train = ds.train.GradientDescentOptimizer(1.0).minimize(ds.reduce_sum(w * [1.0, -2.0]))
    assign = graph.get_operation_by_name("GradientDescent/update_w/Assign")
    assert assign.type == "Assign" and any(
        c.type == "ApplyGradientDescent" for c in assign.control_inputs)
    with ds.Session() as sess:
        sess.run(w.initializer)
        sess.run(train)
        np.testing.assert_array_equal(sess.run(w), [1.0, -1.0])   # [2, -2] clipped


def test_a_constraint_on_a_sparse_update_is_tfs_runtime_error(graph):
    emb = ds.Variable(np.ones((4, 2), np.float32), constraint=lambda w: w * 0.5)
    loss = ds.reduce_sum(ds.nn.embedding_lookup(emb, [0, 1]))
    for optimizer in (ds.train.GradientDescentOptimizer(0.1),
                      ds.train.MomentumOptimizer(0.1, 0.9)):
        with pytest.raises(RuntimeError, match="constraint function on a sparse variable"):
            optimizer.minimize(loss, var_list=[emb])


def test_activity_penalties_are_tfs_divided_by_the_batch(graph):
    layer, losses = activity_model(ds, DATA)
    count = len([k for k in DATA if k.startswith("activity:")])
    assert len(losses) == count == 9
    assert layer.losses == losses[-2:]               # one penalty per call, the layer's too
    for i in range(7):                               # the functional layers' names are TF's
        assert losses[i].name == str(DATA[f"activity_name:{i}"])
    kernel = graph.get_tensor_by_name("dense/kernel:0")
    grad, = ds.gradients(ds.add_n(losses), [kernel])
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        values, grad_value = sess.run([losses, grad])
    for i, value in enumerate(values):
        np.testing.assert_allclose(value, DATA[f"activity:{i}"], rtol=1e-5,
                                   err_msg=losses[i].name)
    np.testing.assert_allclose(grad_value, DATA["activity_grad"], rtol=1e-5, atol=1e-7)


def test_an_activity_penalty_counts_a_batch_known_only_at_run_time(graph):
    x = ds.placeholder(ds.float32, (None, 2))
    ds.layers.dense(x, 1, use_bias=False, kernel_initializer=ds.ones_initializer(),
                    activity_regularizer=ds.reduce_sum)
    penalty = ds.losses.get_regularization_loss()
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        assert sess.run(penalty, {x: [[1.0, 2.0], [3.0, 4.0]]}) == 5.0     # 10 / 2
