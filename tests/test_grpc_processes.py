"""The gRPC session with workers in their own processes, started through the CLI
(``devsession worker``), on 127.0.0.1: a three-task graph, SIGKILL of a worker
mid-step and its restart, two client processes at once, and big tensors (256 MB, and
over 2 GB when the machine has the memory).

Task 0 runs in this process (so the tests can watch its worker); the other tasks are
subprocesses, always killed by the fixtures.  Marked slow: deselect with -m "not slow".
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import devsession as ds
from devsession.distributed.local_processes import WorkerProcesses, free_ports
from devsession.distributed.transport.security import Security
from sessions import assert_heals_within_one_abort

pytestmark = pytest.mark.slow
W = "/job:worker/task:{}"
class ProcessCluster:
    """Task 0 in this process, tasks 1..n as ``devsession worker`` subprocesses."""

    def __init__(self, workers: int, token_file: str | None = None):
        self.spec = ds.ClusterSpec({"worker": [f"127.0.0.1:{p}"
                                               for p in free_ports(workers + 1)]})
        self.workers = WorkerProcesses(self.spec, token_file=token_file)
        token = open(token_file).read() if token_file else None
        self.server = ds.Server(self.spec, "worker", 0, security=Security(token=token))
        try:
            for task in range(1, workers + 1):
                self.workers.start(task, via_env=(task == 2))
        except BaseException:
            self.stop()
            raise

    @property
    def target(self) -> str:
        return self.server.target

    def start(self, task: int, via_env: bool = False) -> None:
        self.workers.start(task, via_env)

    def kill(self, task: int) -> None:
        self.workers.kill(task)

    def stop(self) -> None:
        self.workers.stop()
        self.server.stop(grace=0)


@pytest.fixture(scope="module")
def cluster():
    c = ProcessCluster(workers=2)
    yield c
    c.stop()


def session(target, graph, **options):
    s = ds.new_session(ds.SessionOptions(target=target, device="cpu", **options))
    s.create(graph)
    return s


def chain_graph():
    """x (fed, task 0) -> task 1 -> task 2 -> task 0, checked against numpy."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float64, (None, 6), name="x")
        with ds.device(W.format(1)):
            h = ds.tanh(ds.matmul(x, ds.constant(np.eye(6) * 0.5)), name="h")
        with ds.device(W.format(2)):
            s = ds.reduce_sum(h * h, axis=1, name="s")
        y = ds.sqrt(s, name="y")
    return g, x, y


def chain_reference(xv):
    h = np.tanh(xv * 0.5)
    return np.sqrt((h * h).sum(1))


def test_cli_workers_run_a_three_task_graph(cluster):
    g, x, y = chain_graph()
    xv = np.random.default_rng(0).standard_normal((7, 6))
    with session(cluster.target, g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: xv}), chain_reference(xv), rtol=1e-12)
        tasks = {d.name.split("/device:")[0] for d in sess.list_devices()}
    assert tasks == {f"/job:worker/replica:0/task:{i}" for i in range(3)}


CLIENT = textwrap.dedent("""
    import sys, numpy as np, devsession as ds
    target, seed = sys.argv[1], int(sys.argv[2])
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float64, (None, 6), name="x")
        with ds.device("/job:worker/task:1"):
            h = ds.tanh(ds.matmul(x, ds.constant(np.eye(6) * 0.5)), name="h")
        with ds.device("/job:worker/task:2"):
            s = ds.reduce_sum(h * h, axis=1, name="s")
        y = ds.sqrt(s, name="y")
    rng = np.random.default_rng(seed)
    with ds.Session(target, graph=g) as sess:
        for _ in range(40):
            xv = rng.standard_normal((5, 6))
            h = np.tanh(xv * 0.5)
            np.testing.assert_allclose(sess.run(y, {x: xv}), np.sqrt((h * h).sum(1)),
                                       rtol=1e-12)
    print("ok")
""")


def test_two_client_processes_at_once(cluster, tmp_path):
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    procs = [subprocess.Popen([sys.executable, str(script), cluster.target, str(seed)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for seed in (1, 2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0 and out.strip() == "ok", err[-2000:]


def test_256mb_tensor_moves_between_workers(cluster):
    g = ds.Graph()
    with g.as_default():
        with ds.device(W.format(1)):
            big = ds.random_uniform((32 << 20,), dtype=ds.float64, seed=3, name="big")  # 256 MB
            here = ds.reduce_sum(big, name="sum_on_1")
        with ds.device(W.format(2)):
            there = ds.reduce_sum(big, name="sum_on_2")
    with session(cluster.target, g) as sess:
        a, b = sess.run([here, there])
    np.testing.assert_allclose(a, b, rtol=1e-12)
    assert abs(a / (32 << 20) - 0.5) < 1e-3


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@pytest.mark.skipif(_available_memory() < 8 << 30,
                    reason="needs 8 GB of free memory to move a tensor over 2 GB "
                           "(test_grpc_message_limit.py proves the chunking with 2 MiB messages)")
def test_tensor_over_2gb_moves_between_workers(cluster):
    copies, n = 65, 1 << 22            # 65 copies of 32 MB of float64: 2.18 GB
    g = ds.Graph()
    with g.as_default():
        with ds.device(W.format(1)):
            piece = ds.random_uniform((n,), dtype=ds.float64, seed=5, name="piece")
            big = ds.concat([piece] * copies, axis=0, name="huge")
            expected = ds.reduce_sum(piece) * float(copies)
        with ds.device(W.format(2)):
            total = ds.reduce_sum(big, name="huge_sum")
    with session(cluster.target, g) as sess:
        want, got = sess.run([expected, total])
    assert copies * n * 8 > 2 ** 31
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_sigkill_mid_step_fails_fast_and_a_restart_serves_the_same_session():
    c = ProcessCluster(workers=2)
    try:
        g = ds.Graph()
        with g.as_default():
            start = ds.placeholder(ds.float32, (512, 512), name="start")  # fed on task 0
            with ds.device(W.format(1)):
                m = start
                for _ in range(3000):               # long enough to be killed in the middle
                    m = ds.tanh(ds.matmul(m, m) * 1e-2)
                slow = ds.reduce_sum(m, name="slow")
            with ds.device(W.format(2)):
                relayed = ds.identity(slow, name="relayed")   # task 2 waits for task 1
            out = relayed + 1.0                                # task 0 waits for task 2
            with ds.device(W.format(1)):
                quick = ds.constant(2.0, name="quick") * 3.0
        sess = session(c.target, g)
        assert sess.run(quick) == 6.0
        failure = {}

        def run_step():
            try:
                sess.run(out, {start: np.ones((512, 512), np.float32)})
            except ds.errors.OpError as e:
                failure["error"], failure["at"] = e, time.monotonic()

        stepping = threading.Thread(target=run_step)
        stepping.start()
        # Task 0 sends the feed on, so its part runs during the whole step.
        assert c.server.worker.wait_busy(60), "the step never started on task 0"
        killed_at = time.monotonic()
        c.kill(1)
        stepping.join(timeout=30)
        assert not stepping.is_alive(), "the step hung after its worker died"
        error = failure["error"]
        elapsed = failure["at"] - killed_at
        print(f"\nSIGKILL of task 1 to the client's error: {elapsed * 1e3:.0f} ms")
        assert isinstance(error, ds.errors.UnavailableError) and "task:1" in str(error)
        assert elapsed < 5
        assert c.server.worker.wait_idle(5)                # task 0's part was aborted too

        c.start(1)                                         # same address, new process
        assert_heals_within_one_abort(lambda: float(sess.run(quick)), 6.0)
        with session(c.target, g) as fresh:
            assert fresh.run(quick) == 6.0
        sess.close()
    finally:
        c.stop()


def test_cli_worker_with_a_token_file(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("cluster-secret\n")
    c = ProcessCluster(workers=1, token_file=str(token_file))
    try:
        g = ds.Graph()
        with g.as_default():
            with ds.device(W.format(1)):
                a = ds.constant(4.0) * 2.0
            b = a + 1.0
        with pytest.raises(ds.errors.UnauthenticatedError):
            session(c.target, g)
        with session(c.target, g, config={"token": "cluster-secret"}) as sess:
            assert sess.run(b) == 9.0          # task 0 -> task 1 calls carry the token too
    finally:
        c.stop()
