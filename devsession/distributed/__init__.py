"""devsession on a cluster: servers, the gRPC session, and the pieces between them.

How a step runs (TF1's distributed runtime, without its hangs, 2 GB limits and open
ports):

    client (GrpcSession) --PrepareStep/RunStep--> master of the task it connects to
    master: place (cluster_placement) -> partition per task with _Send/_Recv
            (partition) -> RegisterGraph on each task (worker_client)
    RunStep: RunGraph on every task at once; _Send pushes each tensor straight to the
             consuming worker's rendezvous (PushTensor[Stream]); the master's own
             partition takes the feeds and returns the fetches

Modules, pure logic first: ``cluster_spec`` (who is in the cluster), ``wire`` (tensors
as raw byte chunks), ``rendezvous`` (tensors waiting for their receiver),
``transfer_ops`` (the _Send/_Recv ops), ``cluster_placement`` and ``partition``,
``worker_state`` and ``master_session`` (the logic behind the two services); then the
gRPC shell: ``status`` (errors <-> status codes), ``security`` (TLS, token),
``channels``, ``exchange`` (per-step calls on long-lived streams), ``worker_client``/
``worker_pool``, ``worker_service``/``master_service``, ``daemon_pool`` and ``server``
(``ds.Server``), ``worker_main`` (``devsession worker``), ``grpc_session`` and
``factory`` (``GRPC_SESSION``).

Importing this package imports no gRPC; ``Server`` is loaded on first use, and
``RayCluster`` (``ray_cluster``: tasks as Ray actors, the ``devsession[ray]`` extra).
"""

from __future__ import annotations

from .cluster_spec import ClusterSpec
from .transport.security import Security

__all__ = ["ClusterSpec", "Security", "Server", "create_local_cluster", "RayCluster"]


def __getattr__(name: str):
    if name in ("Server", "create_local_cluster"):
        from . import server

        return getattr(server, name)
    if name == "RayCluster":            # Ray itself is imported when one is made
        from .ray_cluster import RayCluster

        return RayCluster
    raise AttributeError(f"module 'devsession.distributed' has no attribute {name!r}")
