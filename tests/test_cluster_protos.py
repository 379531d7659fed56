"""TF's cluster protos: ``ds.train.ClusterDef`` / ``JobDef`` / ``ServerDef`` serialize as
TF 2.21's (tests/data/cluster_protos.json, recorded by make_cluster_protos.py from the
cases in cluster_protos_cases.py), ``ClusterSpec`` and ``Server`` read and write them,
a server started from a ServerDef serves as one started from a ClusterSpec, and the
errors are TF's."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import devsession as ds
from cluster_protos_cases import CASES, LOOPBACK, SPARSE, errors
from devsession.distributed.server_def import config_from_proto, config_to_proto
from sessions import local_cluster

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "cluster_protos.json")
                      .read_text())


@pytest.fixture
def servers():
    """Servers a test starts, always stopped."""
    started: list = []
    yield started
    for server in started:
        server.stop(grace=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bytes_and_values_are_tfs(name, servers):
    assert CASES[name](ds, servers) == RECORDED[name]


def test_errors_are_tfs():
    got = errors(ds)
    for name, (cls, message) in RECORDED["errors"].items():
        assert got[name][0] == cls, (name, got[name])
        # devsession's messages may go on to say what the cluster has.
        assert got[name][1].startswith(message.rstrip(".")), (name, got[name], message)


def test_tfs_bytes_parse_into_the_same_cluster():
    cluster_def = ds.train.ClusterDef.FromString(
        bytes.fromhex(RECORDED["cluster_def_sparse"]))
    assert ds.train.ClusterSpec(cluster_def) == ds.train.ClusterSpec(SPARSE)
    assert ds.train.ClusterSpec(cluster_def).task_address("ps", 3) == "10.0.0.2:2222"
    server_def = ds.train.ServerDef.FromString(
        bytes.fromhex(RECORDED["server_def_with_config"]))
    assert (server_def.job_name, server_def.task_index, server_def.protocol) == \
        ("ps", 0, "grpc")
    config = config_from_proto(server_def.default_session_config)
    assert config.intra_op_parallelism_threads == 2 and config.allow_soft_placement
    assert config.device_count == {"GPU": 0, "CPU": 1}
    assert config.gpu_options.allow_growth
    assert config.gpu_options.per_process_gpu_memory_fraction == 0.5
    assert config_to_proto(config) == server_def.default_session_config


def test_fields_devsession_does_not_declare_survive_a_round_trip():
    """TF's cluster_device_filters (7) and ConfigProto.graph_options (10) stay as unknown
    fields: parsed and written back byte for byte."""
    tf_bytes = (bytes.fromhex(RECORDED["server_def_made"])
                + bytes([7 << 3 | 2, 2, 0x0a, 0])               # cluster_device_filters
                + bytes([4 << 3 | 2, 4, 10 << 3 | 2, 2, 0x20, 1]))  # graph_options
    server_def = ds.train.ServerDef.FromString(tf_bytes)
    assert server_def.job_name == "worker"
    assert ds.train.ServerDef.FromString(server_def.SerializeToString()) \
        .SerializeToString() == server_def.SerializeToString()
    assert len(server_def.SerializeToString()) == len(tf_bytes)


def test_cluster_spec_round_trips_through_cluster_def():
    for cluster in ({}, {"w": ["a:1"]}, SPARSE, LOOPBACK):
        spec = ds.train.ClusterSpec(cluster)
        again = ds.train.ClusterSpec(spec.as_cluster_def())
        assert again == spec and again.as_dict() == spec.as_dict()
    assert ds.train.ClusterSpec(ds.train.ClusterDef()).as_dict() == {}
    with pytest.raises(ValueError, match="host:port"):
        ds.train.ClusterSpec(ds.train.ClusterDef(job=[ds.train.JobDef(
            name="w", tasks={0: "nohost"})]))


def test_server_def_arguments_override_the_def(servers):
    base = ds.train.ServerDef(cluster=ds.train.ClusterSpec(LOOPBACK).as_cluster_def(),
                              job_name="ps", protocol="grpc")
    server = ds.train.Server(base, job_name="worker", task_index=1, start=False,
                             config=ds.ConfigProto(intra_op_parallelism_threads=1))
    servers.append(server)
    assert (server.job_name, server.task_index) == ("worker", 1)
    assert server.server_def.default_session_config.intra_op_parallelism_threads == 1
    assert server.worker.intra_op_threads == 1
    assert base.job_name == "ps" and not base.HasField("default_session_config")
    # The def keeps port 0, as TF's; the spec and the target give the bound port.
    assert server.server_def.cluster == base.cluster
    assert not server.cluster_spec.task_address("worker", 1).endswith(":0")


def test_default_session_config_of_a_def_reaches_the_worker(servers):
    server_def = ds.train.ServerDef(
        cluster=ds.train.ClusterSpec({"w": ["127.0.0.1:0"]}).as_cluster_def(),
        job_name="w", protocol="grpc")
    server_def.default_session_config.intra_op_parallelism_threads = 1
    server = ds.train.Server(server_def, start=False)
    servers.append(server)
    assert server.worker.intra_op_threads == 1


def test_a_protocol_other_than_grpc_is_not_served():
    server_def = ds.train.ServerDef(
        cluster=ds.train.ClusterSpec({"w": ["127.0.0.1:0"]}).as_cluster_def(), job_name="w")
    with pytest.raises(ds.errors.NotFoundError, match="No server factory"):
        ds.train.Server(server_def, start=False)


def test_local_server_is_tfs_localhost_job(servers):
    server = ds.train.Server.create_local_server(start=False)
    servers.append(server)
    assert server.server_def.job_name == "localhost" and server.server_def.protocol == "grpc"
    assert server.task == "/job:localhost/replica:0/task:0"


def _two_task_graph():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, [None], name="x")
        with ds.device("/job:worker/task:1"):
            y = ds.reduce_sum(x * 3.0)
        with ds.device("/job:worker/task:0"):
            z = y + 1.0
    return g, x, z


def test_a_server_from_a_server_def_serves_as_one_from_a_cluster_spec(servers):
    """Task 0 from a ServerDef, task 1 from a ClusterSpec, each on a free loopback port:
    a step spanning both gives what the same step gives on a cluster of ClusterSpec
    servers."""
    other = ds.train.Server(ds.train.ClusterSpec({"worker": {1: "127.0.0.1:0"}}),
                            "worker", 1, start=False)
    servers.append(other)
    spec = ds.train.ClusterSpec({"worker": [
        "127.0.0.1:0", other.cluster_spec.task_address("worker", 1)]})
    server = ds.train.Server(ds.train.ServerDef(
        cluster=spec.as_cluster_def(), job_name="worker", task_index=0, protocol="grpc"))
    servers.append(server)
    other.adopt_cluster(server.cluster_spec)
    other.start()
    assert server.cluster_spec == other.cluster_spec
    assert server.task == "/job:worker/replica:0/task:0"
    feed = np.arange(5, dtype=np.float32)
    got = []
    for target in (server.target, other.target, local_cluster()[0].target):
        g, x, z = _two_task_graph()
        with ds.Session(target, graph=g) as sess:
            got.append(float(sess.run(z, {x: feed})))
    assert got == [31.0, 31.0, 31.0]


def test_config_proto_takes_a_cluster_def(servers, caplog):
    """TF's ConfigProto(cluster_def=...): checked, carried in a Server's def, and said to
    have no effect on a session (which runs on its target server's cluster)."""
    server = ds.train.Server.create_local_server()
    servers.append(server)
    config = ds.ConfigProto(cluster_def=server.server_def.cluster)
    g = ds.Graph()
    with g.as_default():
        c = ds.constant(2.0) * 3.0
    with caplog.at_level("WARNING", logger="devsession"):
        with ds.Session(server.target, graph=g, config=config) as sess:
            assert sess.run(c) == 6.0
    assert "cluster_def (a session runs on its target server's cluster)" in caplog.text
    with pytest.raises(TypeError, match="cluster_def must be a tf.train.ClusterDef"):
        ds.Session(graph=g, config=ds.ConfigProto(cluster_def=3))
    with pytest.raises(ValueError, match="host:port"):
        ds.Session(graph=g, config=ds.ConfigProto(cluster_def={"w": ["nohost"]}))


def test_a_def_with_a_port_binds_that_port(servers):
    from devsession.distributed.local_processes import free_ports

    port, = free_ports(1)
    server_def = ds.train.ServerDef(
        cluster=ds.train.ClusterSpec({"w": ["127.0.0.1:0"]}).as_cluster_def(),
        job_name="w", protocol="grpc", port=port)
    server = ds.train.Server(server_def, start=False)
    servers.append(server)
    assert server.target == f"grpc://127.0.0.1:{port}"
    assert server.server_def.port == port
