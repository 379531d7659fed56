"""``ConfigProto(device_filters=[...])``, as TF1's parameter-server scripts pass it
(``["/job:ps", "/job:worker/task:%d" % i]``): a cluster session sees only the devices one
filter includes.  It lists no other, contacts no other (so a worker that has not started
is neither waited for nor warned about), and a node placed on a task the filters leave out
is an InvalidArgumentError naming the node and the filters.  Before, the field was
ignored with a warning."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import devsession as ds
from devsession.device_spec import DeviceSpec
from devsession.distributed.local_processes import free_ports

PS, WORKER0, WORKER1 = "/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1"
FILTERS = ["/job:ps", "/job:worker/task:0"]


@pytest.fixture(scope="module")
def cluster_without_worker1():
    """ps and worker 0 serving in this process; worker 1 in the ClusterSpec, never started."""
    spec = ds.train.ClusterSpec({"ps": [f"localhost:{p}" for p in free_ports(1)],
                                 "worker": [f"localhost:{p}" for p in free_ports(2)]})
    servers = [ds.train.Server(spec, job_name=job, task_index=0) for job in ("ps", "worker")]
    yield servers[1].target
    for server in servers:
        server.stop(grace=0)


def session(target, graph, filters=FILTERS, **config):
    """A session of ``graph`` seeing only ``filters``, the tasks they keep reset first
    (a reset of every task would fail on worker 1)."""
    if filters:
        ds.reset(ds.SessionOptions(target=target, device_filters=filters))
    return ds.Session(target, graph=graph,
                      config=ds.ConfigProto(device_filters=filters, **config))


def test_a_filter_includes_the_devices_whose_named_fields_it_matches():
    device = "/job:worker/replica:0/task:1/device:GPU:0"
    assert DeviceSpec.parse("/job:worker").includes(device)
    assert DeviceSpec.parse("/job:worker/task:1/device:GPU:0").includes(device)
    assert DeviceSpec.parse("/device:GPU:0").includes(device)
    assert not DeviceSpec.parse("/job:worker/task:0").includes(device)
    assert not DeviceSpec.parse("/job:ps").includes(device)
    assert not DeviceSpec.parse("/job:worker/replica:1").includes(device)
    assert not DeviceSpec.parse("/job:worker/device:CPU:0").includes(device)


def test_config_proto_device_filters_become_the_sessions_without_a_warning(caplog):
    config = ds.ConfigProto(device_filters=FILTERS, allow_soft_placement=True)
    with caplog.at_level(logging.WARNING):
        options = ds.config.session_options(config, ds.SessionOptions())
    assert options.device_filters == (DeviceSpec(job="ps"), DeviceSpec(job="worker", task=0))
    assert "no effect" not in caplog.text
    with pytest.raises(TypeError, match="list of device names"):
        ds.SessionOptions(device_filters="/job:ps")
    with pytest.raises(ValueError, match="Cannot parse device spec"):
        ds.SessionOptions(device_filters=["/job:ps/bogus:1"])


def test_the_session_lists_and_contacts_only_the_tasks_its_filters_keep(
        cluster_without_worker1, caplog):
    g = ds.Graph()
    with caplog.at_level(logging.WARNING), session(cluster_without_worker1, g) as sess:
        names = [d.name for d in sess.list_devices()]
    assert names == ["/job:worker/replica:0/task:0/device:CPU:0",
                     "/job:ps/replica:0/task:0/device:CPU:0"]
    assert "cannot reach" not in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING), session(cluster_without_worker1, g, []) as sess:
        sess.list_devices()
    assert "cannot reach /job:worker/replica:0/task:1" in caplog.text
    with pytest.raises(ds.errors.UnavailableError, match="task:1"):
        ds.reset(ds.SessionOptions(target=cluster_without_worker1))


def test_a_worker_trains_on_the_ps_while_the_other_worker_is_down(cluster_without_worker1):
    g = ds.Graph()
    with g.as_default():
        with ds.device(ds.train.replica_device_setter(ps_tasks=1, worker_device=WORKER0)):
            w = ds.Variable(np.float32([1.0, -2.0]), name="w")
            loss = ds.reduce_sum(ds.square(w))
            step = ds.train.GradientDescentOptimizer(0.25).minimize(loss)
    assert w.op.device.startswith("/job:ps")
    with session(cluster_without_worker1, g) as sess:
        sess.run(w.initializer)
        for _ in range(2):
            sess.run(step)
        np.testing.assert_allclose(sess.run(w), [0.25, -0.5])   # w halves each step


def test_a_node_on_a_task_the_filters_leave_out_is_named(cluster_without_worker1):
    g = ds.Graph()
    with g.as_default():
        with ds.device(WORKER1):
            far = ds.constant(2.0, name="far_away") * 3.0
    with session(cluster_without_worker1, g) as sess:
        with pytest.raises(ds.errors.InvalidArgumentError) as raised:
            sess.run(far)
    message = str(raised.value)
    assert "far_away" in message or far.op.name in message
    assert "device_filters" in message and "'/job:worker/task:0'" in message


def test_a_device_filter_that_keeps_none_of_a_tasks_devices(cluster_without_worker1):
    g = ds.Graph()
    with g.as_default():
        with ds.device(WORKER0):
            here = ds.constant(1.0, name="here") + 1.0
    filters = ["/job:ps", "/job:worker/task:0/device:GPU:7"]
    with session(cluster_without_worker1, g, filters) as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="keep none of"):
            sess.run(here)


def test_a_direct_session_ignores_them_as_tfs_does():
    g = ds.Graph()
    with g.as_default():
        x = ds.constant([1.0, 2.0]) * 2.0
    with ds.Session(graph=g, config=ds.ConfigProto(device_filters=["/job:ps"])) as sess:
        assert sess.run(x).tolist() == [2.0, 4.0]
