"""TF's ``ServerDef``: the one value a ``ds.train.Server`` is made from.

A server is started either from a ``ServerDef`` or from a cluster (a ``ClusterSpec``, a
dict, a ``ClusterDef``) with ``job_name``, ``task_index``, ``protocol`` and ``config``.
As in TF's ``server_lib._make_server_def``, both forms become one ``ServerDef`` first:

    make_server_def(ClusterSpec({"worker": ["127.0.0.1:0"]}), None, None, None, None)
    # cluster { job { name: "worker" tasks { key: 0 value: "127.0.0.1:0" } } }
    # job_name: "worker"  protocol: "grpc"

and the server reads its task from that def (``server_task``), so a server started from
a ServerDef serves exactly as one started from the same cluster.  ``Server.server_def``
is this def: the cluster as given (port 0 stays 0, as in TF; ``Server.cluster_spec``
reports the bound port).

The session config travels in the def as ``default_session_config``, a protobuf with
TF's ConfigProto field numbers for the fields devsession honours
(``proto/session_config.proto``); ``ds.ConfigProto`` is a plain Python object
(``devsession/config.py``), so ``config_to_proto`` and ``config_from_proto`` convert.

Errors are TF's: no job name for a cluster of several jobs (or no task index for a job
of several tasks) is a ``ValueError`` when the def is made; a def whose job or task the
cluster lacks is TF's ``InternalError`` ("Job "x" was not defined in cluster", "Task 5
was not defined in job "worker"") when the server is started from it.
"""

from __future__ import annotations

from ..config import ConfigProto as PyConfigProto
from ..errors import InternalError, NotFoundError
from ..proto.cluster_pb2 import ClusterDef
from ..proto.session_config_pb2 import ConfigProto
from ..proto.tensorflow_server_pb2 import ServerDef
from .cluster_spec import ClusterSpec

__all__ = ["make_server_def", "server_task", "config_to_proto", "config_from_proto"]

# ds.ConfigProto fields with a field in session_config.proto (TF's numbers).
_SCALAR_FIELDS = ("intra_op_parallelism_threads", "inter_op_parallelism_threads",
                  "allow_soft_placement", "log_device_placement", "operation_timeout_in_ms")
_GPU_FIELDS = ("per_process_gpu_memory_fraction", "allow_growth")


def make_server_def(server_or_cluster_def, job_name, task_index, protocol, config) -> ServerDef:
    """The ServerDef of a Server's arguments, as TF's ``_make_server_def``: a ServerDef is
    copied and the arguments given override its fields; a cluster is completed with the
    only job / task when there is one (ValueError otherwise) and protocol "grpc"."""
    server_def = ServerDef()
    if isinstance(server_or_cluster_def, ServerDef):
        server_def.MergeFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
    else:
        try:
            cluster = ClusterSpec(server_or_cluster_def)
        except TypeError:
            raise TypeError("Could not convert `server_or_cluster_def` to a "
                            "`tf.train.ServerDef` or `tf.train.ClusterSpec`.") from None
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError(f"Must specify an explicit `job_name`: the cluster has jobs "
                                 f"{cluster.jobs}.")
            job_name = cluster.jobs[0]
        if task_index is None:
            indices = cluster.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError(f"Must specify an explicit `task_index`: job '{job_name}' "
                                 f"has tasks {indices}.")
            task_index = indices[0]
        server_def.cluster.CopyFrom(cluster.as_cluster_def())
        server_def.job_name = job_name
        server_def.task_index = task_index
        server_def.protocol = "grpc" if protocol is None else protocol
    if config is not None:
        server_def.default_session_config.MergeFrom(config_to_proto(config))
    return server_def


def server_task(server_def: ServerDef) -> tuple[ClusterSpec, str, int, str]:
    """(cluster, job name, task index, address to bind) of a def, checked as TF's gRPC
    server checks it: NotFoundError for a protocol other than "grpc", InternalError for a
    job or task the cluster lacks.  A nonzero ``port`` replaces the address's port."""
    if server_def.protocol != "grpc":
        raise NotFoundError(f"No server factory registered for the given ServerDef "
                            f"(protocol {server_def.protocol!r}). The available server "
                            f"factories are: [ GRPC_SERVER ]")
    cluster = ClusterSpec(server_def.cluster)
    job, index = server_def.job_name, server_def.task_index
    if job not in cluster.jobs:
        raise InternalError(f'Job "{job}" was not defined in cluster')
    if not cluster.has_task(job, index):
        raise InternalError(f'Task {index} was not defined in job "{job}"')
    address = cluster.task_address(job, index)
    if server_def.port:
        host = address.rpartition(":")[0]
        address = f"{host}:{server_def.port}"
        cluster = cluster.with_address(job, index, address)
    return cluster, job, index, address


def config_to_proto(config) -> ConfigProto:
    """``default_session_config`` of a ``ds.ConfigProto`` (the fields it set that the proto
    declares; a ``ClusterSpec`` as ``cluster_def`` becomes its ClusterDef) or a copy of
    a ConfigProto protobuf."""
    if isinstance(config, ConfigProto):
        out = ConfigProto()
        out.CopyFrom(config)
        return out
    if not isinstance(config, PyConfigProto):
        raise TypeError(f"config must be a tf.ConfigProto, not {type(config).__name__}.")
    out = ConfigProto()
    fields = config.set_fields()
    for name in _SCALAR_FIELDS:
        if name in fields:
            setattr(out, name, fields[name])
    if fields.get("device_count"):
        out.device_count.update({str(k): int(v) for k, v in fields["device_count"].items()})
    if fields.get("cluster_def") is not None:
        cluster = fields["cluster_def"]
        out.cluster_def.CopyFrom(cluster if isinstance(cluster, ClusterDef)
                                 else ClusterSpec(cluster).as_cluster_def())
    gpu = fields["gpu_options"].set_fields()
    for name in _GPU_FIELDS:
        if name in gpu:
            setattr(out.gpu_options, name, gpu[name])
    return out


def config_from_proto(proto: ConfigProto) -> PyConfigProto:
    """The ``ds.ConfigProto`` of a ``default_session_config`` (the fields present in it)."""
    config = PyConfigProto()
    for field, value in proto.ListFields():
        if field.name == "gpu_options":
            for gpu_field, gpu_value in value.ListFields():
                setattr(config.gpu_options, gpu_field.name, gpu_value)
        elif field.name == "device_count":
            config.device_count = dict(value)
        elif field.name == "cluster_def":
            config.cluster_def = ClusterDef.FromString(value.SerializeToString())
        else:
            setattr(config, field.name, value)
    return config
