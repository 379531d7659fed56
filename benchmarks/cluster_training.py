"""Data-parallel training on a parameter-server cluster: the step distributed users run.

``mlp_train_ps``: ps + 2 workers on loopback, one client in this process; the MLP
784-1024-1024-10 (ReLU, softmax cross-entropy), its batch of 256 split in two towers, one
per worker; each tower reads the weights from the ps and computes its gradients, which
are averaged and applied with SGD on the ps (TF1's in-graph replication).  Every step
moves the weights (7.4 MB) to each worker and the gradients (7.4 MB) back.  Each side
runs the same graph builder twice: on three tasks that are processes of their own (as a
cluster is deployed: ``devsession worker`` processes, TF1's ``tf.train.Server`` in a
``python -c``), and on three servers of this process (as in ``transfers.grpc_transfer``;
ours then share one GIL with each other and with the client, TF1's C++ servers do not).

Measured only when the run asks for a gRPC target (``--device grpc``); steps/s.  The
first step's loss (before its update) is checked against numpy.
"""

from __future__ import annotations

import functools
import signal
import subprocess
import sys
import time

import numpy as np

from devsession.distributed.local_processes import WorkerProcesses, first_line, free_ports

from . import mlp
from .contenders import Contender
from .runner import error_row, measure
from .workload import Data, Workload

__all__ = ["mlp_train_ps"]

F32 = np.float32
TOWERS = ("/job:worker/task:0", "/job:worker/task:1")
PS = "/job:ps/task:0"


def _data(batch, sizes):
    def make(rng) -> Data:
        x = rng.standard_normal((batch, sizes[0]), dtype=F32)
        labels = rng.integers(0, sizes[-1], batch)
        onehot = np.eye(sizes[-1], dtype=F32)[labels]
        return Data((x, onehot), ("x", "onehot"), tuple(mlp.he_params(rng, sizes)))
    return make


def _graph(api, data, learning_rate=0.01):
    """(fetches [loss, train], placeholders [x0, onehot0, x1, onehot1]) in the default
    graph; ``api`` is devsession or tf.compat.v1."""
    with api.device(PS):
        params = [api.Variable(p, name=f"p{k}") for k, p in enumerate(data.consts)]
    opt = api.train.GradientDescentOptimizer(learning_rate)
    half = len(data.feeds[0]) // len(TOWERS)
    placeholders, losses, tower_grads = [], [], []
    for i, tower in enumerate(TOWERS):
        with api.device(tower):
            x = api.placeholder(api.float32, (half, data.feeds[0].shape[1]), name=f"x{i}")
            onehot = api.placeholder(api.float32, (half, data.feeds[1].shape[1]),
                                     name=f"onehot{i}")
            logits = mlp.logits(x, params, api.matmul, api.nn.relu)
            top = api.stop_gradient(api.reduce_max(logits, axis=1, keepdims=True))
            log_probs = logits - top - api.log(api.reduce_sum(api.exp(logits - top), axis=1,
                                                              keepdims=True))
            loss = -api.reduce_mean(api.reduce_sum(onehot * log_probs, axis=1))
            tower_grads.append(opt.compute_gradients(loss, params))
        placeholders += [x, onehot]
        losses.append(loss)
    with api.device(PS):
        averaged = [((g0 + g1) * 0.5, v) for (g0, v), (g1, _) in zip(*tower_grads)]
        mean_loss = (losses[0] + losses[1]) * 0.5
    return [mean_loss, opt.apply_gradients(averaged)], placeholders


def _split_feeds(data) -> list:
    half = len(data.feeds[0]) // len(TOWERS)
    out = []
    for i in range(len(TOWERS)):
        rows = slice(i * half, (i + 1) * half)
        out += [data.feeds[0][rows], data.feeds[1][rows]]
    return out


def _reference_loss(data):
    params = [p.astype(np.float64) for p in data.consts]
    logits = mlp.logits(data.feeds[0].astype(np.float64), params, np.matmul, mlp.np_relu)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return np.float32(-(data.feeds[1] * log_probs).sum(axis=1).mean())


def _cluster_spec(api):
    ports = free_ports(3)
    return {"ps": [f"127.0.0.1:{ports[0]}"],
            "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}


OURS = {True: "devsession grpc ps+2 processes", False: "devsession grpc ps+2 workers"}
TF1 = {True: "tf1 ps+2 processes", False: "tf1 ps+2 workers"}
IN_PROCESS_NOTE = "the three tasks are servers of the benchmark's own process"


class _OurTasks:
    """The cluster's tasks, as ``devsession worker`` processes or as servers of this
    process; ``stop()`` ends them either way."""

    def __init__(self, ds, spec, processes: bool):
        self.servers, self.processes = [], []
        try:
            if processes:
                for job in spec.jobs:
                    tasks = WorkerProcesses(spec, job)
                    self.processes.append(tasks)
                    for index in range(spec.num_tasks(job)):
                        tasks.start(index)
            else:
                self.servers = [ds.Server(spec, job, index) for job, index in spec.tasks()]
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        for tasks in self.processes:
            tasks.stop()


def _ours(data, processes: bool) -> Contender:
    import devsession as ds

    start = time.perf_counter()
    spec = ds.ClusterSpec(_cluster_spec(ds))
    tasks = _OurTasks(ds, spec, processes)

    def close():
        if sess is not None:
            sess.close()
        tasks.stop()

    sess = None
    try:
        graph = ds.Graph()
        with graph.as_default():
            fetches, placeholders = _graph(ds, data)
            init = ds.global_variables_initializer()
        target = f"grpc://{spec.task_address('worker', 0)}"
        sess = ds.Session(target, graph=graph,
                          options=ds.SessionOptions(target=target, device="cpu"))
        sess.run(init)
        step = sess.make_callable(fetches, placeholders)
    except BaseException:
        close()
        raise
    return Contender(OURS[processes], "ours", functools.partial(step, *_split_feeds(data)),
                     to_host=lambda r: np.asarray(r[0]), requested="grpc", device="ps + 2 workers",
                     factory="GRPC_SESSION", api="make_callable",
                     setup_s=time.perf_counter() - start, close=close,
                     notes=[] if processes else [IN_PROCESS_NOTE])


TF1_SERVER = ("import os, sys; os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'; import tensorflow as tf; "
              "v1 = tf.compat.v1; s = v1.train.Server(v1.train.ClusterSpec(%r), "
              "job_name=sys.argv[1], task_index=int(sys.argv[2])); print('up', flush=True); "
              "s.join()")


def _tf1_server_processes(spec: dict) -> list[subprocess.Popen]:
    """One ``python -c`` per task serving a ``tf.train.Server`` (this Python has
    tensorflow: the peer was imported from it); RuntimeError if one does not come up."""
    procs = [subprocess.Popen([sys.executable, "-c", TF1_SERVER % spec, job, str(index)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for job in ("ps", "worker") for index in range(len(spec[job]))]
    if all(first_line(p) == "up\n" for p in procs):
        return procs
    _kill(procs)
    raise RuntimeError("a tf.train.Server process did not start")


def _kill(procs) -> None:
    """SIGKILL: TF's servers do not stop on SIGTERM while a session's threads run."""
    for proc in procs:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def _tf1(tf, data, processes: bool) -> Contender:
    v1 = tf.compat.v1
    start = time.perf_counter()
    spec = _cluster_spec(tf)
    procs, servers = [], []
    if processes:
        procs = _tf1_server_processes(spec)
    else:   # TF cannot stop its in-process servers: they live until the process exits
        cluster = v1.train.ClusterSpec(spec)
        servers = [v1.train.Server(cluster, job_name=job, task_index=index)
                   for job in ("ps", "worker") for index in range(cluster.num_tasks(job))]

    def close():
        sess.close()
        _kill(procs)
        servers.clear()

    try:
        graph = tf.Graph()
        with graph.as_default():
            fetches, placeholders = _graph(v1, data)
            init = v1.global_variables_initializer()
        sess = v1.Session(f"grpc://{spec['worker'][0]}", graph=graph)
        sess.run(init)
        step = sess.make_callable(fetches, placeholders)
    except BaseException:
        _kill(procs)
        raise
    return Contender(TF1[processes], "peer", functools.partial(step, *_split_feeds(data)),
                     to_host=lambda r: np.asarray(r[0]), api="grpc", device="ps + 2 workers",
                     setup_s=time.perf_counter() - start, close=close,
                     notes=[] if processes else [IN_PROCESS_NOTE])


def _measure(workload, context):
    if not any(t.grpc for t in context.targets):
        return "needs a gRPC target (--device grpc)"
    data = workload.make_data(np.random.default_rng(context.seed))
    contenders, failed = [], []
    tf1 = context.peers.get("tf1")
    for processes in (True, False):
        try:
            contenders.append(_ours(data, processes))
        except Exception as e:
            failed.append(error_row(OURS[processes], "ours", e, requested="grpc"))
        if tf1 is not None and tf1.available:
            try:
                contenders.append(_tf1(tf1.module, data, processes))
            except Exception as e:
                failed.append(error_row(TF1[processes], "peer", e))
    return measure(workload, contenders, _reference_loss(data), context) + failed


def mlp_train_ps(batch: int = 256, sizes: tuple = (784, 1024, 1024, 10),
                 max_repeats: int | None = None) -> Workload:
    return Workload(
        name="mlp_train_ps", title=f"data-parallel MLP training (SGD) on ps + 2 workers: "
        f"batch {batch} in two towers, {'-'.join(map(str, sizes))}", unit="steps/s",
        work=1.0, make_data=_data(batch, sizes), measure=_measure, rtol=1e-4, atol=1e-5,
        max_repeats=max_repeats, stateful=True,
        params={"batch": batch, "sizes": list(sizes), "towers": 2})
