"""Cluster protos built the same way in TF 2.21 (tests/data/make_cluster_protos.py) and in
devsession (tests/test_cluster_protos.py): each case takes the library (``tf.compat.v1`` or
``devsession``) and a list to which it appends the servers it starts, and returns the
hex of deterministic serialized bytes (or a plain value)."""

DENSE = {"worker": ["127.0.0.1:2222", "127.0.0.1:2223"], "ps": ["127.0.0.1:2224"]}
SPARSE = {"worker": ["127.0.0.1:2222"], "ps": {0: "10.0.0.1:2222", 3: "10.0.0.2:2222"}}
LOOPBACK = {"worker": ["127.0.0.1:0", "127.0.0.1:0"], "ps": ["127.0.0.1:0"]}


def _hex(message):
    return message.SerializeToString(deterministic=True).hex()


def _server(tf, servers, *args, **kwargs):
    server = tf.train.Server(*args, start=False, **kwargs)
    servers.append(server)
    return server


def _config(tf):
    return tf.ConfigProto(
        intra_op_parallelism_threads=2, inter_op_parallelism_threads=3,
        allow_soft_placement=True, log_device_placement=True, operation_timeout_in_ms=5000,
        device_count={"GPU": 0, "CPU": 1},
        gpu_options=tf.GPUOptions(allow_growth=True, per_process_gpu_memory_fraction=0.5))


CASES = {
    "cluster_def_dense": lambda tf, s: _hex(tf.train.ClusterSpec(DENSE).as_cluster_def()),
    "cluster_def_sparse": lambda tf, s: _hex(tf.train.ClusterSpec(SPARSE).as_cluster_def()),
    "cluster_def_empty": lambda tf, s: _hex(tf.train.ClusterSpec({}).as_cluster_def()),
    "cluster_def_one_task": lambda tf, s: _hex(
        tf.train.ClusterSpec({"local": ["localhost:2222"]}).as_cluster_def()),
    "cluster_def_by_hand": lambda tf, s: _hex(tf.train.ClusterDef(job=[
        tf.train.JobDef(name="worker", tasks={0: "a:1", 1: "b:1"}),
        tf.train.JobDef(name="ps", tasks={2: "c:1"})])),
    "cluster_spec_of_cluster_def": lambda tf, s: repr(sorted(
        tf.train.ClusterSpec(tf.train.ClusterSpec(SPARSE).as_cluster_def()).as_dict().items())),
    "job_tasks_of_cluster_def": lambda tf, s: tf.train.ClusterSpec(
        tf.train.ClusterSpec(SPARSE).as_cluster_def()).job_tasks("ps"),
    "server_def_made": lambda tf, s: _hex(tf.train.ServerDef(
        cluster=tf.train.ClusterSpec(DENSE).as_cluster_def(), job_name="worker",
        task_index=1, protocol="grpc")),
    "server_def_of_server": lambda tf, s: _hex(
        _server(tf, s, LOOPBACK, job_name="worker", task_index=1).server_def),
    "server_def_of_one_task_server": lambda tf, s: _hex(
        _server(tf, s, {"worker": ["127.0.0.1:0"]}).server_def),
    "server_def_with_config": lambda tf, s: _hex(
        _server(tf, s, LOOPBACK, job_name="ps", task_index=0, config=_config(tf)).server_def),
    "server_def_with_config_cluster_def": lambda tf, s: _hex(_server(
        tf, s, LOOPBACK, job_name="ps", task_index=0,
        config=tf.ConfigProto(cluster_def=tf.train.ClusterSpec(DENSE).as_cluster_def(),
                              allow_soft_placement=True)).server_def),
    "server_def_of_server_def": lambda tf, s: _hex(_server(
        tf, s, tf.train.ServerDef(cluster=tf.train.ClusterSpec(LOOPBACK).as_cluster_def(),
                                  job_name="worker", protocol="grpc"),
        task_index=1).server_def),
    "local_server_job": lambda tf, s: tf.train.Server.create_local_server(
        start=False).server_def.job_name,
}


def _errors(tf):
    """Server arguments TF refuses."""
    cluster_def = tf.train.ClusterSpec(LOOPBACK).as_cluster_def()
    return {
        "no_job_name": lambda: tf.train.Server(
            tf.train.ServerDef(cluster=cluster_def, protocol="grpc"), start=False),
        "task_not_in_job": lambda: tf.train.Server(
            tf.train.ServerDef(cluster=cluster_def, job_name="worker", task_index=5,
                               protocol="grpc"), start=False),
        "task_not_in_job_of_cluster": lambda: tf.train.Server(
            LOOPBACK, job_name="worker", task_index=5, start=False),
        "job_not_in_cluster": lambda: tf.train.Server(
            LOOPBACK, job_name="chief", task_index=0, start=False),
        "explicit_job_name": lambda: tf.train.Server(LOOPBACK, start=False),
        "explicit_task_index": lambda: tf.train.Server(LOOPBACK, job_name="worker",
                                                       start=False),
        "not_a_cluster": lambda: tf.train.Server(3),
        "cluster_spec_of_int": lambda: tf.train.ClusterSpec(3),
    }


def errors(tf):
    """{case: [error class name, message]} of ``_errors``."""
    out = {}
    for name, make in _errors(tf).items():
        try:
            make()
        except Exception as e:   # the class is what is compared
            out[name] = [type(e).__name__, str(e).split("\n")[0]]
        else:
            out[name] = ["no error", ""]
    return out
