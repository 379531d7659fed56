"""``RayCluster`` on a local Ray (``ray.init(num_cpus=2)``): tasks as actors serving on the
node's address, training across them, stopping, a driver that dies, and requests Ray
cannot place.  Needs the ``ray`` extra (CI installs it); a Ray that does not start
within ``RAY_START_S`` fails the tests with that message instead of hanging them.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import devsession as ds

ray = pytest.importorskip("ray", reason="needs Ray: pip install 'devsession[ray]'")

from devsession.distributed import RayCluster  # noqa: E402

pytestmark = pytest.mark.slow
RAY_START_S = 120
F32 = np.float32


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray with 2 CPUs, started once for the module, within ``RAY_START_S``.

    ``ray.init`` runs in a thread so that a Ray that never starts fails the tests
    instead of hanging them; the thread then stays until the module ends, because Ray's
    processes die with the thread that started them (``PR_SET_PDEATHSIG``)."""
    started: dict = {}
    done = threading.Event()

    def start():
        try:
            started["info"] = ray.init(num_cpus=2, include_dashboard=False,
                                       log_to_driver=False, ignore_reinit_error=True)
        except BaseException as e:  # reported below
            started["error"] = e
        ready.set()
        done.wait()

    ready = threading.Event()
    threading.Thread(target=start, daemon=True, name="ray-starter").start()
    if not ready.wait(RAY_START_S):
        pytest.fail(f"Ray did not start within {RAY_START_S} s (ray.init(num_cpus=2)); see "
                    f"/tmp/ray/session_latest/logs", pytrace=False)
    if "error" in started:
        pytest.fail(f"Ray could not start: {type(started['error']).__name__}: "
                    f"{started['error']}", pytrace=False)
    yield started["info"]
    ray.shutdown()
    done.set()


def refused(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return False
    except ConnectionRefusedError:
        return True


def test_tasks_serve_on_the_nodes_address_and_train_across_the_cluster(local_ray):
    node = ray.util.get_node_ip_address()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3)).astype(F32)
    y = x @ np.array([[2.0], [-1.0], [0.5]], F32) + F32(0.25)
    with RayCluster({"ps": 1, "worker": 2}, resources={"worker": {"CPU": 1}}) as rc:
        spec = rc.cluster_spec
        assert spec.jobs == ["ps", "worker"] and spec.num_tasks("worker") == 2
        # a task's server caps its kernels' threads at the CPUs it reserved (none
        # reserved: no cap); test_grpc_session checks what a server's cap does
        assert [rc.task_intra_op_threads(j, i) for j, i in spec.tasks()] == [0, 1, 1]
        addresses = [spec.task_address(j, i) for j, i in spec.tasks()]
        assert all(a.startswith(node + ":") for a in addresses), addresses
        pids = {rc.task_pid(j, i) for j, i in spec.tasks()}
        assert len(pids) == 3 and not pids & {__import__("os").getpid()}
        assert rc.target("worker", 1) == "grpc://" + spec.task_address("worker", 1)
        # In-graph replication across the Ray-launched tasks.
        g = ds.Graph()
        with g.as_default():
            with ds.device(ds.train.replica_device_setter(cluster=spec)):
                w = ds.Variable(np.zeros((3, 1), F32), name="w")
                b = ds.Variable(np.zeros(1, F32), name="b")
                step = ds.train.get_or_create_global_step()
            opt = ds.train.GradientDescentOptimizer(0.1)
            feeds, grads = [], []
            for i in range(2):
                with ds.device(f"/job:worker/task:{i}"):
                    xi = ds.placeholder(ds.float32, (None, 3))
                    yi = ds.placeholder(ds.float32, (None, 1))
                    loss = ds.reduce_mean(ds.square(ds.matmul(xi, w) + b - yi))
                    grads.append(opt.compute_gradients(loss, [w, b]))
                feeds.append((xi, yi))
            with ds.device("/job:ps/task:0"):
                averaged = [((g0 + g1) * 0.5, v) for (g0, v), (g1, _) in zip(*grads)]
            train = opt.apply_gradients(averaged, global_step=step)
            init = ds.global_variables_initializer()
        with ds.Session(rc.target("worker", 0), graph=g) as sess:   # the token: found
            sess.run(init)
            for _ in range(100):
                sess.run(train, {feeds[0][0]: x[:32], feeds[0][1]: y[:32],
                                 feeds[1][0]: x[32:], feeds[1][1]: y[32:]})
            np.testing.assert_allclose(sess.run(w), [[2.0], [-1.0], [0.5]], atol=1e-3)
            assert sess.run(step) == 100
        # Strangers are refused: the tasks serve with a token.
        with pytest.raises(ds.errors.UnauthenticatedError):
            ds.Session(options=ds.SessionOptions(target=rc.target("ps", 0),
                                                 config={"token": "guess"}),
                       graph=ds.Graph())
    deadline = time.monotonic() + 30
    while not all(refused(a) for a in addresses) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(refused(a) for a in addresses), "a task kept serving after the block"


def test_a_task_ray_cannot_place_fails_at_once_and_starts_nothing(local_ray):
    before = ray.available_resources()
    start = time.monotonic()
    with pytest.raises(ds.errors.ResourceExhaustedError,
                       match=r"cannot place /job:worker/replica:0/task:0: it asks \{'GPU': 1\}"
                             r".*has 0 GPU in all.*Nothing was started"):
        RayCluster({"ps": 1, "worker": 2}, resources={"worker": {"GPU": 1}})
    assert time.monotonic() - start < 10
    after = ray.available_resources()       # nothing held (a previous test's actors may
    assert all(after.get(key, 0) >= value for key, value in before.items())  # free some)


def test_tasks_waiting_for_busy_resources_time_out_and_nothing_is_left(local_ray):
    @ray.remote(num_cpus=1.5)
    class Busy:
        def ping(self):
            return True

    busy = Busy.remote()
    ray.get(busy.ping.remote(), timeout=60)            # holds 1.5 of the 2 CPUs
    try:
        start = time.monotonic()
        with pytest.raises(ds.errors.ResourceExhaustedError,
                           match=r"did not start .*task:1 within the start timeout.*"
                                 r"'CPU': 1.*Nothing is left running"):
            RayCluster({"worker": 2}, resources={"worker": {"CPU": 1}}, start_timeout_s=3)
        assert time.monotonic() - start < 20
    finally:
        ray.kill(busy)
    deadline = time.monotonic() + 20                   # the started actor was killed too
    while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ray.available_resources().get("CPU", 0) == 2


DRIVER = textwrap.dedent("""
    import sys, time, ray
    from devsession.distributed import RayCluster
    ray.init(address=sys.argv[1], log_to_driver=False)
    rc = RayCluster({"worker": 2})
    print(",".join(rc.cluster_spec.task_address("worker", i) for i in range(2)), flush=True)
    time.sleep(600)
""")


def test_tasks_die_with_their_driver(local_ray, tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    driver = subprocess.Popen([sys.executable, str(script), local_ray.address_info["address"]],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        from devsession.distributed.local_processes import first_line

        line = first_line(driver, timeout=120)
        assert line.strip(), driver.stderr.read() if driver.poll() is not None else "no output"
        addresses = line.strip().split(",")
        assert not any(refused(a) for a in addresses)
    finally:
        driver.kill()
        driver.wait(timeout=30)
    deadline = time.monotonic() + 60
    while not all(refused(a) for a in addresses) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all(refused(a) for a in addresses), "the tasks outlived their driver"
