"""``devsession worker``: serve one task of a cluster in this process until signalled.

    devsession worker --cluster "worker=10.0.0.1:2222,10.0.0.2:2222" --job worker --task 1
    DEVSESSION_CONFIG='{"cluster": {"worker": [...]}, "task": {"type": "worker", "index": 1}}' \
        devsession worker
    devsession worker --cluster ... --task 0 --token-file token.txt \
        --tls-cert server.pem --tls-key server.key [--tls-ca ca.pem --require-client-cert]
    devsession worker --cluster ... --task 0 --data-port 2300     # or --data-port off
    devsession worker --cluster ... --task 0 --intra-op-threads 1  # tasks sharing cores

The cluster comes from ``--cluster`` (``job=host:port,...;job2=...`` or JSON) or else from
the environment variable ``DEVSESSION_CONFIG`` (TF_CONFIG's shape, which also gives the
job and task).  The token comes from ``--token-file`` or ``DEVSESSION_TOKEN``.  Once
serving, the command prints one line, ``devsession worker TASK serving at grpc://...``,
and runs until SIGINT or SIGTERM, then stops (steps in flight fail as unavailable).
Steps' tensors travel on a second port of the task's host (``--data-port``, default any
free one; peers learn it from the task), which firewalls must let through; with
``--data-port off`` everything travels over the cluster address's gRPC port.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

__all__ = ["add_arguments", "run_worker", "CONFIG_ENV", "TOKEN_ENV"]

CONFIG_ENV = "DEVSESSION_CONFIG"
TOKEN_ENV = "DEVSESSION_TOKEN"


def add_arguments(parser) -> None:
    parser.add_argument("--cluster", help="job=host:port,host:port;job2=host:port (or JSON); "
                        f"default: ${CONFIG_ENV}")
    parser.add_argument("--job", help="this task's job (default: the only job, or the "
                        "config's task type)")
    parser.add_argument("--task", type=int, help="this task's index in its job")
    parser.add_argument("--token-file", help=f"require this shared token on every call "
                        f"(default: ${TOKEN_ENV})")
    parser.add_argument("--tls-cert", help="serve TLS with this certificate chain (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    parser.add_argument("--tls-ca", help="CA certificates (PEM) that sign the other tasks' and, "
                        "with --require-client-cert, the clients' certificates")
    parser.add_argument("--require-client-cert", action="store_true",
                        help="mutual TLS: refuse clients without a certificate from --tls-ca")
    parser.add_argument("--intra-op-threads", type=_thread_count, default=0,
                        help="threads each kernel of this task may use (numba's and BLAS's; "
                        "default 0: every core), as TF1's ConfigProto."
                        "intra_op_parallelism_threads in the server's config")
    parser.add_argument("--data-port", type=_data_port, default=0,
                        help="port of the direct path for steps' tensors, on the task's host "
                        "(default: any free port; 'off': gRPC only)")


def _data_port(text: str):
    if text.strip().lower() in ("off", "none", "no"):
        return None
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port")
    return port


def _thread_count(text: str) -> int:
    threads = int(text)
    if threads < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 (every core) or more threads")
    return threads


def _cluster(args):
    from .cluster_spec import ClusterSpec

    job, task = args.job, args.task
    if args.cluster:
        return ClusterSpec.from_string(args.cluster), job, task
    config = os.environ.get(CONFIG_ENV)
    if not config:
        raise ValueError(f"Give the cluster with --cluster or the {CONFIG_ENV} environment "
                         f"variable.")
    cluster, config_job, config_task = ClusterSpec.from_tf_config(config)
    return cluster, job or config_job, config_task if task is None else task


def _security(args):
    from .transport.security import Security

    token = os.environ.get(TOKEN_ENV)
    if args.token_file:
        with open(args.token_file) as f:
            token = f.read()
    return Security(token=token, certificate=args.tls_cert, private_key=args.tls_key,
                    root_certificates=args.tls_ca,
                    require_client_auth=args.require_client_cert)


def run_worker(args) -> int:
    from ..config import ConfigProto
    from .server import Server

    cluster, job, task = _cluster(args)
    config = ConfigProto(intra_op_parallelism_threads=args.intra_op_threads)
    server = Server(cluster, job, task, config=config, security=_security(args),
                    data_port=args.data_port)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    print(f"devsession worker {server.task} serving at {server.target}", flush=True)
    stop.wait()
    print(f"devsession worker {server.task} stopping", file=sys.stderr, flush=True)
    server.stop(grace=1.0)
    return 0
