"""devsession on a cluster: servers, the cluster session, and the pieces between them.

How a step runs (TF1's distributed runtime, without its hangs, 2 GB limits and open
ports):

    client (GrpcSession) --CreateSession/PrepareStep (gRPC)--> master of its task
    master: place (master/placement) -> partition per task with _Send/_Recv
            (master/partition) -> RegisterGraph on each task (gRPC)
    RunStep: RunGraph on every task at once; _Send pushes each tensor straight to the
             consuming worker's rendezvous; the master's own partition takes the
             feeds and returns the fetches

Control calls travel over gRPC; a step's calls (RunStep, RunGraph, tensor pushes) over
the direct path, raw frames on a second port of each task (``transport/frames.py``),
with the same TLS and token; a master in the client's own process is called directly.

Packages, pure logic first: ``cluster_spec`` (who is in the cluster), ``master/``
(``placement``, ``partition``, ``state`` over a ``worker_pool``, ``session`` = one
client session on the master, ``service`` = the gRPC and frame decoding), ``worker/``
(``state``, ``rendezvous``, ``send_recv``, ``service``, ``client`` = ``RemoteWorker``,
``local`` = ``LocalWorker``), ``transport/`` (``wire``, ``frames``, ``socket_server``/
``socket_client``, ``channels``, ``exchange``, ``status``, ``security``, ``messages``),
``client/`` (``session`` = ``GrpcSession``, ``master_client``, ``factory``), ``server``
(``ds.Server``), ``worker_main`` (``devsession worker``), ``timeouts`` (every deadline),
``ray_cluster`` (``RayCluster``: tasks as Ray actors), ``local_processes`` (worker
processes for tests and benchmarks).

Importing this package imports no gRPC; ``Server`` is loaded on first use, and
``RayCluster`` imports Ray (the ``devsession[ray]`` extra) only when one is made.
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
