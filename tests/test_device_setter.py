"""``ds.train.replica_device_setter`` and device functions in ``ds.device``, against the placements
TF1 (tensorflow 2.21, ``tf.compat.v1.train.replica_device_setter``) gives the same model.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

CLUSTER = ds.ClusterSpec({"ps": ["127.0.0.1:1", "127.0.0.1:2"],
                          "worker": ["127.0.0.1:3", "127.0.0.1:4"]})


def devices(graph) -> dict:
    return {op.name: op.device for op in graph.get_operations()}


def test_variables_round_robin_over_ps_tasks_and_the_rest_on_the_worker():
    g = ds.Graph()
    with g.as_default(), ds.device(ds.train.replica_device_setter(
            cluster=CLUSTER, worker_device="/job:worker/task:1")):
        w = ds.Variable(np.zeros((3, 2), np.float32), name="w")
        b = ds.Variable(np.zeros(2, np.float32), name="b")
        with ds.device("/job:ps/task:0"):
            ds.Variable(0, name="g")
        ds.Variable(1.0, name="third")
        with ds.device("/device:GPU:0"):
            x = ds.placeholder(ds.float32, (None, 3), name="x")
        y = ds.matmul(x, w) + b
        update = b.assign_add([1.0, 1.0])
    placed = devices(g)
    # As TF1: the variable ops round robin (the pinned one still takes its turn), their
    # reads and initializers follow them, everything else runs on the worker device and
    # inner scopes fill in what they ask.
    assert placed["w"] == "/job:ps/task:0" and placed["b"] == "/job:ps/task:1"
    assert placed["g"] == "/job:ps/task:0" and placed["third"] == "/job:ps/task:1"
    assert placed["w/read"] == "/job:ps/task:0" and placed["b/read"] == "/job:ps/task:1"
    assert placed["w/Assign"] == "/job:ps/task:0"
    assert placed["x"] == "/job:worker/task:1/device:GPU:0"
    assert y.op.device == "/job:worker/task:1" and placed["MatMul"] == "/job:worker/task:1"
    assert w.device == "/job:ps/task:0"
    # an op writing a variable is built colocated with it (TF1's op_def_library)
    assert update.op.device == "/job:ps/task:1"
    assert update.op.colocation_groups() == [b"loc:@b"]


def test_ps_tasks_without_a_cluster_and_merge_devices_off():
    g = ds.Graph()
    setter = ds.train.replica_device_setter(ps_tasks=3, merge_devices=False)
    with g.as_default(), ds.device(setter):
        vs = [ds.Variable(float(i), name=f"v{i}") for i in range(4)]
        with ds.device("/job:elsewhere/task:2"):
            kept = ds.constant(1.0, name="kept")
        loose = ds.constant(2.0, name="loose")
    assert [v.device for v in vs] == [f"/job:ps/task:{i % 3}" for i in range(4)]
    assert kept.op.device == "/job:elsewhere/task:2"     # not merged: left as asked
    assert loose.op.device == "/job:worker"


def test_no_ps_tasks_gives_none_and_device_none_places_nothing():
    assert ds.train.replica_device_setter(ps_tasks=0) is None
    g = ds.Graph()
    with g.as_default(), ds.device("/job:worker/task:1"):
        with ds.device(ds.train.replica_device_setter()):
            c = ds.constant(1.0, name="c")
    assert c.op.device == ""


def test_a_custom_strategy_and_ps_ops():
    g = ds.Graph()
    chosen = []

    def last_task(op):
        chosen.append(op.name)
        return 1

    with g.as_default(), ds.device(ds.train.replica_device_setter(
            ps_tasks=2, ps_strategy=last_task, ps_ops=["VariableV2", "Const"])):
        c = ds.constant(1.0, name="c")
        v = ds.Variable(c, name="v")
    assert c.op.device == "/job:ps/task:1" and v.device == "/job:ps/task:1"
    assert chosen == ["c", "v"]


def test_a_cluster_lacking_the_named_job_is_an_error_naming_it():
    with pytest.raises(ValueError, match="job 'ps', which the cluster lacks.*jobs: worker"):
        ds.train.replica_device_setter(cluster={"worker": ["127.0.0.1:3"]})
    with pytest.raises(ValueError, match="'trainer'.*lacks"):
        ds.train.replica_device_setter(cluster=CLUSTER, worker_device="/job:trainer/task:0")
    with pytest.raises(ValueError, match="ps_tasks"):
        ds.train.replica_device_setter(ps_tasks=-1)


def test_device_functions_nest_with_specs_as_in_tf1():
    g = ds.Graph()
    seen = []

    def on_task_2(op):
        seen.append(op.device)
        return "/job:worker/task:2"

    with g.as_default():
        with ds.device("/device:GPU:1"):           # outer spec: fills in what is unset
            with ds.device(on_task_2):
                with ds.device("/job:other"):      # inner spec: the function sees it
                    a = ds.constant(1.0, name="a")
                b = ds.constant(2.0, name="b")
    assert seen == ["/job:other", ""]
    assert a.op.device == "/job:worker/task:2/device:GPU:1"
    assert b.op.device == "/job:worker/task:2/device:GPU:1"


def test_a_job_missing_from_the_cluster_is_named_when_the_step_is_prepared():
    from devsession.distributed import create_local_cluster

    servers = create_local_cluster(1)
    try:
        g = ds.Graph()
        with g.as_default(), ds.device(ds.train.replica_device_setter(ps_tasks=1)):
            v = ds.Variable(1.0, name="v")
        with ds.Session(servers[0].target, graph=g) as sess:
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match="job 'ps', which the cluster lacks"):
                sess.run(v.initializer)
    finally:
        servers[0].stop(grace=0)


def test_the_global_step_follows_the_device_scope_to_a_ps_task():
    g = ds.Graph()
    with g.as_default(), ds.device(ds.train.replica_device_setter(cluster=CLUSTER)):
        step = ds.train.get_or_create_global_step()
    assert step.device == "/job:ps/task:0"      # where every replica's steps count it


def test_partitioned_embedding_parts_round_robin_and_train_on_a_cluster_as_directly():
    """The parts of a partitioned embedding take turns over the ps tasks as TF1's (each
    part a VariableV2), each shard's gather runs with its part (TF's placement of the
    same model), and training on a local ps cluster gives a direct session's values."""
    from devsession.distributed import create_local_cluster

    full = np.random.default_rng(3).standard_normal((10, 3)).astype(np.float32)
    batches = [[9, 0, 4, 4], [3, 3, 7], [1, 2, 5, 6, 8]]

    def build(setter):
        g = ds.Graph()
        with g.as_default(), ds.device(setter):
            emb = ds.get_variable("emb", [10, 3], initializer=full,
                                  partitioner=ds.fixed_size_partitioner(3))
            w = ds.get_variable("w", [3, 1], initializer=ds.constant_initializer(0.5))
            ids = ds.placeholder(ds.int32, [None], name="ids")
            rows = ds.nn.embedding_lookup(emb, ids, partition_strategy="div")
            loss = ds.reduce_sum(ds.square(ds.matmul(rows, w) - 1.0))
            train = ds.train.AdagradOptimizer(0.3).minimize(loss)
            init = ds.global_variables_initializer()
        return g, emb, w, ids, train, init

    def run(target, g, emb, w, ids, train, init):
        with ds.Session(target, graph=g) as sess:
            sess.run(init)
            for batch in batches:
                sess.run(train, {ids: batch})
            return sess.run([emb.as_tensor(), w])

    servers = create_local_cluster({"ps": 2, "worker": 1})
    try:
        built = build(ds.train.replica_device_setter(cluster=CLUSTER))
        placed = devices(built[0])
        assert [placed[f"emb/part_{i}"] for i in range(3)] == \
            ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
        assert placed["w"] == "/job:ps/task:1"
        assert [placed[f"embedding_lookup/GatherV2{s}"] for s in ("", "_1", "_2")] == \
            ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
        assert placed["embedding_lookup/Reshape_1"] == "/job:worker"
        assert placed["emb/part_1/Adagrad"] == "/job:ps/task:1"
        ds.reset(ds.SessionOptions(target=servers[-1].target))
        on_cluster = run(servers[-1].target, *built)
    finally:
        for server in servers:
            server.stop(grace=0)
    direct = run("", *build(None))
    assert not np.allclose(direct[0], full)
    for got, want in zip(on_cluster, direct):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_global_step_increment_sits_beside_the_step_variable_as_tf():
    """TF's apply_gradients increments the step under colocate_with(global_step): on
    the ps, whatever device the train op was built under (TF 2.21's device and groups)."""
    with ds.Graph().as_default():
        with ds.device("/job:ps/task:0"):
            step = ds.train.get_or_create_global_step()
            w = ds.Variable(1.0, name="w")
        with ds.device("/job:worker/task:1"):
            train = ds.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=step)
    assert (train.type, train.device) == ("AssignAdd", "/job:ps/task:0")
    assert train.colocation_groups() == [b"loc:@global_step"]
    assert w.op.colocation_groups() == [b"loc:@w"]
